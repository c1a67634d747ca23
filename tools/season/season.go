// Package season holds the season's rules and reads its files, kept
// outside the served trees. Each track's rulebook (Rules), declared and
// registered by the track's own package, says what differs from one track
// to another: verdicts, statements, probative fields, the task graph, the
// composition, the founding formula's derivation. The files are each
// track's task statements handed out at enrolment, its design and its
// sealed answer key (docs/contract.md section 5): one reader serves every
// track, and a statement carries exactly the fields of its track, no more
// and no fewer.
//
// It also holds what every track's rules are written with: the one fact
// type (Fact, where it is served, Place, and how facts compare, Claim),
// read alike by the solver, the key, the scorer and a participant; the
// task graph and its walk (graph.go), what an assertion on the graph may
// claim (admissible.go), the formula facts combine into (formula.go), and
// the strict decoder every season file and verifier input is read with
// (strict.go).
package season

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"

	"github.com/arkforge/proveit-corpus/corpus"
	saison "github.com/arkforge/proveit-corpus/corpus/saison-1"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
)

// Dir is the folder of season 1's files, relative to the repository's root.
const Dir = "corpus/saison-1"

// TasksFile and KeyFile name a track's statements and key in Dir:
// taches.json and cle.json, each base name followed by the track's
// FileSuffix (taches-generique.json).
func TasksFile(track *corpus.Track) string { return filepath.Join(Dir, "taches"+suffix(track)+".json") }

// ScoringSectionFile is the track's frozen scoring section beside
// TasksFile, as the specification's page publishes it.
func ScoringSectionFile(track *corpus.Track) string {
	return filepath.Join(Dir, "bareme"+suffix(track)+".md")
}

// KeyFile is the answer key beside TasksFile.
func KeyFile(track *corpus.Track) string { return filepath.Join(Dir, "cle"+suffix(track)+".json") }

// RecordFile is the track's pre-registration record beside TasksFile,
// written by the seal and read by the replay.
func RecordFile(track *corpus.Track) string {
	return filepath.Join(Dir, "preenregistrement"+suffix(track)+".json")
}

func suffix(track *corpus.Track) string { return RulesOf(track).FileSuffix }

// EmbeddedTasks and EmbeddedRecord are the track's statements and record
// as the binary embeds them (TasksFile and RecordFile at build time), with
// the name each is known by in messages.
func EmbeddedTasks(track *corpus.Track) (name string, data []byte) {
	return embeddedFile("taches" + suffix(track) + ".json")
}

// EmbeddedRecord: see EmbeddedTasks.
func EmbeddedRecord(track *corpus.Track) (name string, data []byte) {
	return embeddedFile("preenregistrement" + suffix(track) + ".json")
}

func embeddedFile(base string) (string, []byte) {
	data, _ := saison.File(base) // every track's file is embedded: a test holds it
	return Dir + "/" + base + " (compiled in)", data
}

// Tasks is a track's statements file.
type Tasks struct {
	Season string `json:"saison"`
	Track  string `json:"piste"`
	Tasks  []Task `json:"taches"`
}

// Task is one task statement: the members every track's statements share,
// and the track's own, decoded by its rulebook (Rules.Statement).
type Task struct {
	ID            string   `json:"id"`
	References    []string `json:"references"`
	AssertionsMin int      `json:"assertions_min"`
	AssertionsMax int      `json:"assertions_max"`
	Question      string   `json:"question"`

	// Own holds the track's own members: a pointer to its rulebook's
	// statement type.
	Own any `json:"-"`
}

// Key is a track's sealed answer key.
type Key struct {
	Tasks []KeyTask `json:"taches"`
}

// KeyTask is the key of one task: its verdict, trap families and the
// formula of the facts the verdict rests on.
type KeyTask struct {
	ID       string   `json:"id"`
	Verdict  string   `json:"verdict"`
	Families []string `json:"familles"`
	Control  bool     `json:"controle"`
	Founding Formula  `json:"fondement"`
}

// keyTaskMembers are the members of a task's key.
var keyTaskMembers = FieldsOf[KeyTask]()

// Place is where a fact is served: a resource's canonical path and a JSON
// pointer into its body. Comparable, it is the key of whatever is indexed
// by where it is read.
type Place struct {
	Resource string `json:"resource"`
	Field    string `json:"field"`
}

// Claim is a (resource, JSON pointer, value) triple as the contract
// compares them: two claims state the same fact exactly when they are
// equal, the value written in its canonical form (docs/contract.md,
// section 5). Comparable, it is the key of every set of facts.
type Claim struct {
	Place
	Value string // pyjson.Canonical of the value
}

// ClaimOf is the claim of a value at a place.
func ClaimOf(resource, field string, value pyjson.Value) Claim {
	return Claim{Place{resource, field}, string(pyjson.Canonical(value))}
}

// Fact is a (resource, JSON pointer, value) triple: what the reference
// solver finds a verdict rests on, what a key's formula is made of and a
// scorer checks against the served bytes, what a careful agent claims. The
// value is JSON text; the solver and the key's decoder write it in
// canonical form (pyjson.Canonical). Facts compare as their Claims do.
type Fact struct {
	Resource string          `json:"resource"`
	Field    string          `json:"field"`
	Value    json.RawMessage `json:"value"`
	// EquivalentForms are other triples that state the same fact (one
	// element of an array rather than the whole array, for instance): an
	// assertion of any of them carries the fact as the fact itself would
	// (docs/contract.md, section 5; spec §5.5 and 5.7).
	EquivalentForms []Fact `json:"formes_equivalentes,omitempty"`
}

// Place is where the fact is served.
func (f Fact) Place() Place { return Place{f.Resource, f.Field} }

// StringValue returns the fact's value when it is a JSON string: what
// criteria compare and write in their reasons. ok is false for any other
// value.
func (f Fact) StringValue() (s string, ok bool) {
	v, err := pyjson.Parse(f.Value)
	s, ok = v.(string)
	return s, err == nil && ok
}

// String writes the fact as messages and the solver's report do:
// resource, pointer and canonical value.
func (f Fact) String() string { return fmt.Sprintf("%s %s = %s", f.Resource, f.Field, f.Value) }

// Citations returns every corpus path the statements cite: what each
// names by its track's rules (a conformity task's entity), then the
// references the client supplied.
func (t *Tasks) Citations() []string {
	var paths []string
	for _, task := range t.Tasks {
		paths = append(paths, task.Cited()...)
	}
	return paths
}

// Cited returns every corpus path the statement cites: what it names by
// its track's rules, then its references.
func (t Task) Cited() []string {
	var paths []string
	if cites := t.Rules().Cites; cites != nil {
		paths = cites(t)
	}
	return append(paths, t.References...)
}

// Rules is the rulebook of the track a statement belongs to: the one whose
// statement type its own members were decoded into, from its file's piste.
func (t Task) Rules() *Rules {
	if r := byStatement[reflect.TypeOf(t.Own)]; r != nil {
		return r
	}
	panic(fmt.Sprintf("season: task %s has own members of %T, the statement type of no track", t.ID, t.Own))
}

// Task returns the statement of a task by id.
func (t *Tasks) Task(id string) (Task, bool) {
	for _, task := range t.Tasks {
		if task.ID == id {
			return task, true
		}
	}
	return Task{}, false
}

// ReadTasks reads a track's task statements, refusing unknown fields and
// any statement whose members are not exactly its track's.
func ReadTasks(path string) (*Tasks, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return DecodeTasks(path, data)
}

// DecodeTasks decodes a statements file; name says which in errors. Its
// piste names the track, whose rulebook decodes each statement's own
// members.
func DecodeTasks(name string, data []byte) (*Tasks, error) {
	var head struct {
		Season string            `json:"saison"`
		Track  string            `json:"piste"`
		Tasks  []json.RawMessage `json:"taches"`
	}
	if err := DecodeStrict(name, data, &head); err != nil {
		return nil, err
	}
	track, err := corpus.TrackNamed(head.Track)
	if err != nil {
		return nil, fmt.Errorf("%s /piste: unknown track %q", name, head.Track)
	}
	rules := RulesOf(track)
	statement := Exactly(append(slices.Clone(commonFields), rules.Fields...)...)
	t := &Tasks{Season: head.Season, Track: head.Track, Tasks: make([]Task, len(head.Tasks))}
	for i, raw := range head.Tasks {
		at := []string{"taches", strconv.Itoa(i)}
		obj, err := pyjson.Parse(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if err := statement.Check(obj, pyjson.FormatPointer(at)); err != nil {
			return nil, fmt.Errorf("%s %w", name, err)
		}
		// The two parts' members are disjoint: each decodes its own.
		t.Tasks[i].Own = rules.Statement()
		for _, into := range []any{&t.Tasks[i], t.Tasks[i].Own} {
			if err := decodeValue(obj, at, into); err != nil {
				return nil, fmt.Errorf("%s %w", name, err)
			}
		}
	}
	return t, nil
}

// ReadKey reads an answer key strictly (DecodeKey).
func ReadKey(path string) (*Key, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return DecodeKey(path, data)
}

// DecodeKey decodes an answer key: no duplicate or unknown member, exact
// names, each task's fondement a formula as decodeFormula reads it. name
// says which file in errors.
func DecodeKey(name string, data []byte) (*Key, error) {
	doc, err := pyjson.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := Exactly("taches").Check(doc, ""); err != nil {
		return nil, fmt.Errorf("%s %w", name, err)
	}
	tasks, _ := pyjson.Lookup(doc, "/taches")
	list, _ := tasks.(pyjson.Array)
	for i, task := range list {
		if err := keyTaskMembers.Check(task, fmt.Sprintf("/taches/%d", i)); err != nil {
			return nil, fmt.Errorf("%s %w", name, err)
		}
	}
	var raw struct {
		Tasks []struct {
			ID       string          `json:"id"`
			Verdict  string          `json:"verdict"`
			Families []string        `json:"familles"`
			Control  bool            `json:"controle"`
			Founding json.RawMessage `json:"fondement"`
		} `json:"taches"`
	}
	if err := DecodeStrict(name, data, &raw); err != nil {
		return nil, err
	}
	k := &Key{Tasks: make([]KeyTask, len(raw.Tasks))}
	for i, t := range raw.Tasks {
		f, err := decodeFormula(t.Founding, fmt.Sprintf("/taches/%d/fondement", i))
		if err != nil {
			return nil, fmt.Errorf("%s %w", name, err)
		}
		k.Tasks[i] = KeyTask{ID: t.ID, Verdict: t.Verdict, Families: t.Families, Control: t.Control, Founding: f}
	}
	return k, nil
}

// Encode writes the key as its file holds it: indented by two spaces,
// non-ASCII characters as themselves, a final newline.
func (k *Key) Encode() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(k); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
