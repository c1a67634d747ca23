package season

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/arkforge/proveit-corpus/corpus"
)

// Design is what a track's authors decide for each task, the one file they
// write by hand beside the statements: the verdict they designed, the trap
// families, the control flag and, for a verdict that no criterion decides
// alone (conforme, a product), the facts the task is built around. The
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
	// Facts are the facts a conforme or product verdict is built around
	// (the trap's), as resource and JSON pointer: their values and
	// equivalent forms are the corpus's. Empty for any other verdict, whose
	// formula is the criteria that decide it.
	Facts []DesignFact `json:"faits,omitempty"`
	// Excluded are, for a product verdict, the candidates whose exclusion the
	// task is built around: each enters the formula as any one of the rules
	// that exclude it, as the solver derives them.
	Excluded []string `json:"exclus,omitempty"`
}

// DesignFact names a fact by where it is served.
type DesignFact struct {
	Resource string `json:"resource"`
	Field    string `json:"field"`
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
