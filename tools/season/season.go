// Package season holds the season's rules and reads its files, kept
// outside the served trees. Each track's rulebook (Rules), declared and
// registered by the track's own package, says what differs from one track
// to another: verdicts, statements, probative fields, the task graph, the
// composition, the founding formula's derivation. The files are each
// track's task statements handed out at enrolment, its design and its
// sealed answer key (docs/contract.md section 5): one reader serves every
// track, and a statement carries exactly the fields of its track, no more
// and no fewer.
package season

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
)

// Dir is the folder of season 1's files, relative to the repository's root.
const Dir = "corpus/saison-1"

// TasksFile and KeyFile name a track's statements and key in Dir:
// taches.json and cle.json, each base name followed by the track's
// FileSuffix (taches-generique.json).
func TasksFile(track *corpus.Track) string { return filepath.Join(Dir, "taches"+suffix(track)+".json") }

// KeyFile is the answer key beside TasksFile.
func KeyFile(track *corpus.Track) string { return filepath.Join(Dir, "cle"+suffix(track)+".json") }

// RecordFile is the track's pre-registration record beside TasksFile,
// written by the seal and read by the replay.
func RecordFile(track *corpus.Track) string {
	return filepath.Join(Dir, "preenregistrement"+suffix(track)+".json")
}

func suffix(track *corpus.Track) string { return RulesOf(track).FileSuffix }

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

// Fact is a (resource, JSON pointer, value) triple a scorer checks against
// the served bytes.
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
	own := reflect.TypeOf(t.Own)
	for _, r := range registered {
		if reflect.TypeOf(r.Statement()) == own {
			return r
		}
	}
	panic(fmt.Sprintf("season: task %s has own members of %v, the statement type of no track", t.ID, own))
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
	statement := Exactly(append(slices.Clone(CommonFields), rules.Fields...)...)
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

// decodeValue decodes the members of obj, found at the pointer tokens at,
// that into's struct type declares, as DecodeStrict decodes a document.
func decodeValue(obj pyjson.Value, at []string, into any) error {
	t := reflect.TypeOf(into).Elem()
	fields := jsonFields(t)
	var mine pyjson.Object
	for _, m := range obj.(pyjson.Object) {
		if _, ok := fields[m.Key]; ok {
			mine = append(mine, m)
		}
	}
	if err := checkShape(mine, t, at); err != nil {
		return err
	}
	if err := json.Unmarshal(pyjson.Canonical(mine), into); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			pointer := pyjson.FormatPointer(append(slices.Clone(at), strings.Split(typeErr.Field, ".")...))
			return fmt.Errorf("%s: want %s, not a JSON %s", pointer, typeErr.Type, typeErr.Value)
		}
		return err
	}
	return nil
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

// DecodeStrict decodes one JSON document into a struct as strictly as a
// submission is read: the document is read as Python reads it (no duplicate
// key, no trailing data), and every member's name must be, character for
// character, one the struct declares. The error names the file, the JSON
// pointer and the rule.
func DecodeStrict(name string, data []byte, into any) error {
	doc, err := pyjson.Parse(data)
	if err != nil {
		var syntax *pyjson.SyntaxError
		if errors.As(err, &syntax) {
			return fmt.Errorf("%s %s: not JSON as Python reads it: %s (byte %d)", name, pyjson.ShowPointer(syntax.Pointer), syntax.Reason, syntax.Offset)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := checkShape(doc, reflect.TypeOf(into), nil); err != nil {
		return fmt.Errorf("%s %w", name, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			pointer := pyjson.FormatPointer(strings.Split(typeErr.Field, "."))
			return fmt.Errorf("%s %s: want %s, not a JSON %s", name, pointer, typeErr.Type, typeErr.Value)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// decodesItself reports whether encoding/json hands t's values to t's own
// decoder.
func decodesItself(t reflect.Type) bool {
	for _, i := range []reflect.Type{unmarshalerType, textUnmarshalerType} {
		if t.Implements(i) || reflect.PointerTo(t).Implements(i) {
			return true
		}
	}
	return false
}

// checkShape refuses the first value of v, at the pointer tokens at, that
// the Go type t does not take as written: a member whose name t does not
// declare exactly (encoding/json matches names without regard to case), or
// a value of another JSON type (encoding/json takes null for anything). A
// type that decodes itself is left to its own decoder.
func checkShape(v pyjson.Value, t reflect.Type, at []string) error {
	if t.Kind() == reflect.Pointer && v == nil {
		return nil // null leaves a pointer nil: the member's absence
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if decodesItself(t) {
		return nil
	}
	where := func() string { return pyjson.ShowPointer(pyjson.FormatPointer(at)) }
	var ok bool
	switch t.Kind() {
	case reflect.Struct:
		var obj pyjson.Object
		if obj, ok = v.(pyjson.Object); !ok {
			break
		}
		fields := jsonFields(t)
		// Any member may be left out, as encoding/json allows.
		declared := Members{Allowed: slices.Sorted(maps.Keys(fields))}
		if err := declared.Check(obj, pyjson.FormatPointer(at)); err != nil {
			return err
		}
		for _, m := range obj {
			if err := checkShape(m.Value, fields[m.Key], append(at, m.Key)); err != nil {
				return err
			}
		}
	case reflect.Map:
		var obj pyjson.Object
		if obj, ok = v.(pyjson.Object); !ok {
			break
		}
		for _, m := range obj {
			if err := checkShape(m.Value, t.Elem(), append(at, m.Key)); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		var list pyjson.Array
		if list, ok = v.(pyjson.Array); !ok {
			break
		}
		for i, item := range list {
			if err := checkShape(item, t.Elem(), append(at, strconv.Itoa(i))); err != nil {
				return err
			}
		}
	case reflect.String:
		_, ok = v.(string)
	case reflect.Bool:
		_, ok = v.(bool)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		_, ok = v.(pyjson.Number)
	default:
		ok = true // an interface takes any value
	}
	if !ok {
		return fmt.Errorf("%s: want %s, not %s", where(), jsonKind(t), describe(v))
	}
	return nil
}

// jsonKind names the JSON type a Go type decodes from.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	}
	return "a number"
}

// describe names the JSON type of a parsed value.
func describe(v pyjson.Value) string {
	switch v.(type) {
	case nil:
		return "null"
	case pyjson.Object:
		return "an object"
	case pyjson.Array:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	}
	return "a number"
}

// jsonFields maps the member names a struct declares, as encoding/json
// names them (the tag's name, else the field's), to their types; the
// fields of an embedded struct without a tag are the struct's own.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	fields := map[string]reflect.Type{}
	eachJSONField(t, func(name string, typ reflect.Type) { fields[name] = typ })
	return fields
}

// eachJSONField calls fn with each member encoding/json reads into a value
// of the struct type t, in the order t declares them, and its type.
func eachJSONField(t reflect.Type, fn func(name string, typ reflect.Type)) {
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		switch {
		case name == "-" && tag == "-":
			continue
		case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
			eachJSONField(f.Type, fn)
			continue
		case !f.IsExported():
			continue
		case name == "":
			name = f.Name
		}
		fn(name, f.Type)
	}
}
