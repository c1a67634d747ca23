package lint

import (
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
)

// FieldType is the JSON shape a schema field must have.
type FieldType int

const (
	Text      FieldType = iota // a string
	True                       // the boolean true: a file exists, absence is the server's answer
	Date                       // a date, checked by the dates rule wherever it appears
	Ref                        // a reference: a canonical path into one collection
	RefList                    // an array of references
	Entries                    // an array of objects, each with the schema in Sub
	Table                      // an object checked by its own rule (a rules document's tables)
	SelfPath                   // the resource's own canonical path
	Amount                     // euros as a decimal string with two decimals: "1249.90"
	Count                      // a whole quantity as a decimal string: "12"
	TextList                   // an array of strings
	TextTable                  // an object whose members are all strings
	Percent                    // a share in percent as a decimal string: "26", "12.5"
	Boolean                    // true or false
)

// SameCollection, as a reference's target, is the collection of the file
// that holds it: page_suivante stays in its list.
const SameCollection = "="

// Schema is a document's required fields, in the order findings name
// them. Fields beyond these (descriptive French fields) are welcome.
type Schema []Field

// Field is one required field of a schema.
type Field struct {
	Name     string
	Type     FieldType
	Nullable bool
	Into     string   // collection a Ref or RefList points into
	Vocab    []string // closed vocabulary of a Text
	Word     bool     // text of lowercase ASCII words joined by '-'
	Closed   string   // the rules document's vocabulary (Checks.Vocabularies) the word belongs to
	Sub      Schema   // schema of each object of an Entries array
}

// WordPattern is an activity code, attestation type, category or zone:
// lowercase ASCII words joined by '-'.
var WordPattern = regexp.MustCompile(`^[a-z]+(-[a-z]+)*$`)

// Document is one parsed file being checked.
type Document struct {
	Linter     *Linter
	Path, File string
	Collection string // collection of Path, "" outside every collection
}

// checkDocument checks one strict-JSON file: its schema, references,
// vocabularies and dates, then what its track checks beyond them. The
// fixed bodies only need to be strict JSON.
func (l *Linter) checkDocument(path string) {
	if corpus.IsSystem(path) {
		return
	}
	d := Document{Linter: l, Path: path, File: l.files[path]}
	schema, ok := l.checks.Schemas[path]
	if ref, isRef := corpus.ParseReference(path); isRef {
		d.Collection = ref.Collection()
		schema, ok = l.checks.Schemas[d.Collection]
	}
	doc := l.docs[path]
	if l.checks.Variant != nil {
		if variant := l.checks.Variant(d.Collection, doc); variant != nil {
			schema = variant
		}
	}
	if !ok {
		return // PathOf admits nothing else
	}
	d.checkFields(doc, "", schema)
	d.checkDates(doc, "")
	if l.checks.Document != nil {
		l.checks.Document(d, doc)
	}
	if path == l.opts.Track.Rules {
		d.checkRulesText(doc, l.checks.RulesList, l.checks.RulesPrefix)
	}
}

// checkFields checks that obj has every field of schema with its type.
func (d Document) checkFields(obj pyjson.Object, pointer string, schema Schema) {
	for _, f := range schema {
		v, ok := obj.Get(f.Name)
		at := Child(pointer, f.Name)
		if !ok {
			d.Linter.Report(d.File, pointer, RuleSchema, "required field %q is missing", f.Name)
			continue
		}
		d.checkField(f, at, v)
	}
}

func (d Document) checkField(f Field, at string, v pyjson.Value) {
	if v == nil && (f.Nullable || f.Type == Date) {
		return // dates: the dates rule says where null is allowed
	}
	switch f.Type {
	case Text:
		s, ok := v.(string)
		if !ok {
			d.WrongType(at, "a string", v)
			return
		}
		d.CheckWord(f, at, f.Name, s)
	case True:
		if v != true {
			d.Linter.Report(d.File, at, RuleSchema, "want true (a file of the tree exists; absence is the server's answer), got %s", Describe(v))
		}
	case Date:
		// The dates rule checks every date field, in the schema or not.
	case SelfPath:
		s, ok := v.(string)
		if !ok {
			d.WrongType(at, "a string", v)
		} else if s != d.Path {
			d.Linter.Report(d.File, at, ruleResource, "ressource %q is not the file's own path %s", s, d.Path)
		}
	case Ref:
		s, ok := v.(string)
		if !ok {
			d.WrongType(at, "a reference string"+orNull(f), v)
			return
		}
		d.CheckReference(at, s, d.target(f))
	case RefList:
		eachElement(d, at, v, "an array of references", "a reference string", func(at, s string) {
			d.CheckReference(at, s, d.target(f))
		})
	case Entries:
		eachElement(d, at, v, "an array of objects", "an object", func(at string, obj pyjson.Object) {
			d.checkFields(obj, at, f.Sub)
		})
	case Table:
		if _, ok := v.(pyjson.Object); !ok {
			d.WrongType(at, "an object", v)
		}
	case Boolean:
		if _, ok := v.(bool); !ok {
			d.WrongType(at, "a boolean", v)
		}
	case Amount, Count, Percent:
		if s, ok := v.(string); !ok {
			d.WrongType(at, "a decimal string"+orNull(f), v)
		} else {
			d.Linter.CheckDecimal(d.File, at, f.Type, s)
		}
	case TextList:
		eachElement(d, at, v, "an array of strings"+orNull(f), "a string", func(at, s string) {
			d.CheckWord(f, at, f.Name, s)
		})
	case TextTable:
		obj, ok := v.(pyjson.Object)
		if !ok {
			d.WrongType(at, "an object of strings", v)
			return
		}
		for _, m := range obj {
			if _, ok := m.Value.(string); !ok {
				d.WrongType(Child(at, m.Key), "a string", m.Value)
			}
		}
	}
}

// eachElement checks that v is an array of T, and each element with check;
// want and wantElem say what was expected in findings.
func eachElement[T pyjson.Value](d Document, at string, v pyjson.Value, want, wantElem string, check func(at string, e T)) {
	list, ok := v.(pyjson.Array)
	if !ok {
		d.WrongType(at, want, v)
		return
	}
	for i, e := range list {
		if elem, ok := e.(T); ok {
			check(Child(at, i), elem)
		} else {
			d.WrongType(Child(at, i), wantElem, e)
		}
	}
}

func orNull(f Field) string {
	if f.Nullable {
		return " or null"
	}
	return ""
}

func (d Document) WrongType(at, want string, got pyjson.Value) {
	d.Linter.Report(d.File, at, RuleSchema, "want %s, got %s", want, Describe(got))
}

func (d Document) target(f Field) string {
	if f.Into == SameCollection {
		return d.Collection
	}
	return f.Into
}

// checkWord applies a text field's vocabulary; name says what s is.
func (d Document) CheckWord(f Field, at, name, s string) {
	switch {
	case f.Vocab != nil && !slices.Contains(f.Vocab, s):
		d.Linter.Report(d.File, at, RuleVocabulary, "%s %q is not one of %s", name, s, strings.Join(f.Vocab, ", "))
	case f.Word && !WordPattern.MatchString(s):
		d.Linter.Report(d.File, at, RuleVocabulary, "%s %q is not lowercase ASCII words joined by '-'", name, s)
	case f.Closed != "" && !d.Linter.InVocabulary(f.Closed, s):
		d.Linter.Report(d.File, at, RuleVocabulary, "%s %q is not %s", name, s, d.Linter.checks.Vocabularies[f.Closed].Of)
	}
}

// checkReference checks that s is a canonical path into collection and that
// it resolves: a file of the tree, or an absent entry of the manifest.
func (d Document) CheckReference(at, s, collection string) {
	d.Linter.CheckReference(d.File, at, s, collection)
}

func (l *Linter) CheckReference(file, at, s, collection string) {
	ref, ok := corpus.ParseReference(s)
	switch got := ref.Collection(); {
	case !ok:
		l.Report(file, at, RuleReferences, "%q is not a canonical path /<collection>/<id>", s)
	case got != collection:
		l.Report(file, at, RuleReferences, "%q points into /%s, want /%s", s, got, collection)
	case l.files[s] != "" || l.absent[s]:
	case l.opts.Manifest == nil:
		l.Report(file, at, RuleReferences, "%q does not resolve: no file %s", s, corpus.FileOf(s))
	default:
		l.Report(file, at, RuleReferences, "%q does not resolve: no file %s and no absent entry in the manifest", s, corpus.FileOf(s))
	}
}

// CheckDecimal checks a decimal string of the given kind (Amount, Count
// or Percent).
func (l *Linter) CheckDecimal(file, at string, kind FieldType, s string) {
	switch {
	case kind == Amount && !corpus.IsAmount(s):
		l.Report(file, at, RuleDecimal, "amount %q is not euros with two decimals, like \"1249.90\"", s)
	case kind == Count && !corpus.IsCount(s):
		l.Report(file, at, RuleDecimal, "quantity %q is not a whole number written in digits, like \"12\"", s)
	case kind == Percent && !corpus.IsDecimal(s):
		l.Report(file, at, RuleDecimal, "percentage %q is not a decimal string, like \"26\" or \"12.5\"", s)
	}
}

// checkDates checks every member that holds a date, at any depth: a real
// YYYY-MM-DD date, null only for the track's NullableDates (an exclusion
// sets no new end; the track's own rules say when it must be set).
func (d Document) checkDates(v pyjson.Value, pointer string) {
	switch v := v.(type) {
	case pyjson.Object:
		for _, m := range v {
			at := Child(pointer, m.Key)
			if corpus.IsDateMember(m.Key) || slices.Contains(d.Linter.checks.NullableDates, m.Key) {
				d.Linter.CheckDate(d.File, at, m.Key, m.Value)
			} else {
				d.checkDates(m.Value, at)
			}
		}
	case pyjson.Array:
		for i, e := range v {
			d.checkDates(e, Child(pointer, i))
		}
	}
}

func (l *Linter) CheckDate(file, at, name string, v pyjson.Value) {
	switch s, ok := v.(string); {
	case v == nil && slices.Contains(l.checks.NullableDates, name):
	case v == nil:
		l.Report(file, at, ruleDates, "%s is null: the schema wants a date", name)
	case !ok:
		l.Report(file, at, ruleDates, "want a YYYY-MM-DD string, got %s", Describe(v))
	case !dateShape(s):
		l.Report(file, at, ruleDates, "date %q is not YYYY-MM-DD", s)
	case !corpus.IsDate(s):
		l.Report(file, at, ruleDates, "date %q is not a calendar date", s)
	}
}

// dateShape reports whether s is four, two and two ASCII digits joined by '-'.
func dateShape(s string) bool {
	if len(s) != len(time.DateOnly) {
		return false
	}
	for i := range len(s) {
		if i == 4 || i == 7 {
			if s[i] != '-' {
				return false
			}
		} else if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
