// Package season reads a season's files, kept outside the served tree: the
// task statements handed out at enrolment and the sealed answer key.
package season

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

// Tasks is corpus/saison-1/taches.json.
type Tasks struct {
	Saison string `json:"saison"`
	Piste  string `json:"piste"`
	Taches []Task `json:"taches"`
}

// Task is one task statement.
type Task struct {
	ID            string   `json:"id"`
	Entite        string   `json:"entite"`
	Activite      string   `json:"activite"`
	DateExamen    string   `json:"date_examen"`
	References    []string `json:"references"`
	AssertionsMin int      `json:"assertions_min"`
	AssertionsMax int      `json:"assertions_max"`
	Question      string   `json:"question"`
}

// Key is corpus/saison-1/cle.json, the sealed answer key.
type Key struct {
	Taches []KeyTask `json:"taches"`
}

// KeyTask is the key of one task: its verdict, trap families and the facts
// the verdict rests on.
type KeyTask struct {
	ID       string   `json:"id"`
	Verdict  string   `json:"verdict"`
	Familles []string `json:"familles"`
	Controle bool     `json:"controle"`
	Faits    []Fact   `json:"faits"`
}

// Fact is a (resource, JSON pointer, value) triple a scorer checks against
// the served bytes.
type Fact struct {
	Resource string          `json:"resource"`
	Field    string          `json:"field"`
	Value    json.RawMessage `json:"value"`
	// FormesEquivalentes are other triples that state the same fact (one
	// element of an array rather than the whole array, for instance): an
	// assertion of any of them founds the verdict as the fact itself would
	// (specification 5.5 and 5.7).
	FormesEquivalentes []Fact `json:"formes_equivalentes,omitempty"`
}

// Verdicts are the three answers a task admits.
var Verdicts = []string{"conforme", "non_conforme", "indeterminable"}

// Citations returns every corpus path the statements cite: each task's entity
// and the references the client supplied.
func (t *Tasks) Citations() []string {
	var paths []string
	for _, task := range t.Taches {
		paths = append(paths, task.Entite)
		paths = append(paths, task.References...)
	}
	return paths
}

// Task returns the statement of a task by id.
func (t *Tasks) Task(id string) (Task, bool) {
	for _, task := range t.Taches {
		if task.ID == id {
			return task, true
		}
	}
	return Task{}, false
}

// ReadTasks reads task statements, refusing unknown fields.
func ReadTasks(path string) (*Tasks, error) {
	var t Tasks
	return &t, readStrict(path, &t)
}

// ReadKey reads an answer key, refusing unknown fields.
func ReadKey(path string) (*Key, error) {
	var k Key
	return &k, readStrict(path, &k)
}

func readStrict(path string, into any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return DecodeStrict(path, data, into)
}

// DecodeStrict decodes one JSON document into a struct, refusing unknown
// fields and trailing data; the error names the file.
func DecodeStrict(name string, data []byte, into any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if dec.More() {
		return fmt.Errorf("%s: data after the JSON value", name)
	}
	return nil
}
