package season

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/arkforge/proveit-corpus/corpus"
)

// Design is what a track's authors decide for each task, the one file they
// write by hand beside the statements: the verdict they designed, the trap
// families, the control flag and, for a verdict that needs every criterion
// true (conforme, a product), the facts of its trap. The
// key's founding formulas are derived from it and the served bytes by
// proveit key, which refuses a design the corpus does not bear out.
type Design struct {
	Track string       `json:"piste"`
	Tasks []DesignTask `json:"taches"`
}

// DesignTask is the authors' decision for one task.
type DesignTask struct {
	ID       string   `json:"id"`
	Verdict  string   `json:"verdict"`
	Families []string `json:"familles"`
	Control  bool     `json:"controle"`
	// Facts are, for a conforme or product verdict, the facts that settle
	// the criterion each trap turns on (both terms of its comparison, its
	// links), as resource and JSON pointer: their values and equivalent
	// forms are the corpus's. A product verdict is founded besides against
	// the candidates the solver marks as compared. Empty for any other
	// verdict, whose formula is the criteria that decide it.
	Facts []Place `json:"faits,omitempty"`
	// Alternatives are, for the control task, which has no trap, the
	// criteria any one of which proven whole founds its verdict, each as
	// its facts.
	Alternatives [][]Place `json:"un_de,omitempty"`
}

// DesignFile is the design beside a track's key: conception.json, and
// conception-<track>.json for another track.
func DesignFile(track *corpus.Track) string {
	return filepath.Join(Dir, "conception"+suffix(track)+".json")
}

// ReadDesign reads a design, refusing unknown fields and a file of another
// track than want.
func ReadDesign(path, want string) (*Design, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var d Design
	if err := DecodeStrict(path, data, &d); err != nil {
		return nil, err
	}
	if d.Track != want {
		return nil, fmt.Errorf("%s /piste: %q, want %q", path, d.Track, want)
	}
	return &d, nil
}

// Task returns the design of a task by id.
func (d *Design) Task(id string) (DesignTask, bool) {
	for _, t := range d.Tasks {
		if t.ID == id {
			return t, true
		}
	}
	return DesignTask{}, false
}
