package lint

import (
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
)

// fieldType is the JSON shape a schema field must have.
type fieldType int

const (
	text      fieldType = iota // a string
	isTrue                     // the boolean true: a file exists, absence is the server's answer
	date                       // a date, checked by the dates rule wherever it appears
	ref                        // a reference: a canonical path into one collection
	refList                    // an array of references
	entries                    // an array of objects, each with the schema in sub
	table                      // an object checked by its own rule (the referentiel's tables)
	selfPath                   // the resource's own canonical path
	amount                     // euros as a decimal string with two decimals: "1249.90"
	count                      // a whole quantity as a decimal string: "12"
	textList                   // an array of strings
	textTable                  // an object whose members are all strings
	percent                    // a share in percent as a decimal string: "26", "12.5"
	boolean                    // true or false
)

// sameCollection, as a reference's target, is the collection of the file
// that holds it: page_suivante stays in its list.
const sameCollection = "="

// field is one required field of a schema.
type field struct {
	name     string
	typ      fieldType
	nullable bool
	into     string   // collection a ref or refList points into
	vocab    []string // closed vocabulary of a text
	word     bool     // text of lowercase ASCII words joined by '-'
	activity bool     // word that must be an activity of /referentiel
	category bool     // word that must be a category of /regles-achat
	sub      []field  // schema of each object of an entries array
}

// Closed vocabularies of the conformity track (docs/contract.md, section 3).
var (
	entityStatus      = []string{"active", "radiee", "en_liquidation"}
	licenceStatus     = []string{"actif", "suspendu", "retire"}
	amendmentObjects  = []string{"prorogation", "exclusion"}
	declarationStatus = []string{"complete", "incomplete"}
)

// wordPattern is an activity code or attestation type: lowercase ASCII words
// joined by '-'.
var wordPattern = regexp.MustCompile(`^[a-z]+(-[a-z]+)*$`)

// schemas of each collection of every track, keyed by collection, and of
// each rules resource, keyed by its path. The tracks' collections are
// disjoint, so one table serves both.
var schemas = merged(conformitySchemas, purchasingSchemas)

func merged(tables ...map[string][]field) map[string][]field {
	out := map[string][]field{}
	for _, t := range tables {
		for k, v := range t {
			if _, dup := out[k]; dup {
				panic("lint: two schemas for " + k)
			}
			out[k] = v
		}
	}
	return out
}

// conformitySchemas are the conformity track's, keyed by collection; the
// referentiel by its path. Fields beyond these (descriptive French fields)
// are welcome.
var conformitySchemas = map[string][]field{
	corpus.Referentiel: {
		{name: "ressource", typ: selfPath},
		{name: "titre", typ: text},
		{name: "version", typ: text},
		{name: "date_publication", typ: date},
		{name: "criteres", typ: entries, sub: []field{
			{name: "code", typ: text},
			{name: "intitule", typ: text},
			{name: "regle", typ: text},
		}},
		{name: "bornes_de_dates", typ: text},
		{name: "application_des_avenants", typ: text},
		{name: "correspondance_mesures_restrictives", typ: text},
		{name: "precedence", typ: text},
		{name: "attestations_requises", typ: table},
		{name: "listes_agrees", typ: table},
		{name: "mesures_restrictives", typ: ref, into: "mesures-restrictives"},
	},
	"entites": {
		{name: "ressource", typ: selfPath},
		{name: "existe", typ: isTrue},
		{name: "denomination", typ: text},
		{name: "siren", typ: text},
		{name: "forme", typ: text},
		{name: "nombre_associes", typ: count},
		{name: "siege", typ: text},
		{name: "date_immatriculation", typ: date},
		{name: "statut", typ: text, vocab: entityStatus},
		{name: "agrements", typ: refList, into: "agrements"},
		{name: "attestations", typ: refList, into: "attestations"},
		{name: "beneficiaires", typ: ref, into: "beneficiaires", nullable: true},
	},
	"agrements": {
		{name: "ressource", typ: selfPath},
		{name: "existe", typ: isTrue},
		{name: "entite", typ: ref, into: "entites"},
		{name: "activite", typ: text, word: true, activity: true},
		{name: "autorite", typ: text},
		{name: "numero_decision", typ: text},
		{name: "statut", typ: text, vocab: licenceStatus},
		{name: "date_debut", typ: date},
		{name: "date_fin_validite", typ: date},
	},
	"attestations": {
		{name: "ressource", typ: selfPath},
		{name: "existe", typ: isTrue},
		{name: "entite", typ: ref, into: "entites"},
		{name: "type", typ: text, word: true},
		{name: "emetteur", typ: text},
		{name: "date_emission", typ: date},
		{name: "date_fin_validite", typ: date},
		{name: "avenants", typ: refList, into: "avenants"},
	},
	"avenants": {
		{name: "ressource", typ: selfPath},
		{name: "existe", typ: isTrue},
		{name: "attestation", typ: ref, into: "attestations"},
		{name: "objet", typ: text, vocab: amendmentObjects},
		{name: "date_effet", typ: date},
		{name: "nouvelle_date_fin", typ: date},
		{name: "activite_exclue", typ: text, nullable: true, word: true, activity: true},
		{name: "description", typ: text},
	},
	"listes/agrees": {
		{name: "ressource", typ: selfPath},
		{name: "activite", typ: text, word: true, activity: true},
		{name: "autorite", typ: text},
		{name: "date_publication", typ: date},
		{name: "page", typ: text},
		{name: "entrees", typ: entries, sub: []field{
			{name: "agrement", typ: ref, into: "agrements"},
			{name: "entite", typ: ref, into: "entites"},
			{name: "denomination", typ: text},
			{name: "statut", typ: text, vocab: licenceStatus},
		}},
		{name: "page_suivante", typ: ref, into: sameCollection, nullable: true},
	},
	"beneficiaires": {
		{name: "ressource", typ: selfPath},
		{name: "entite", typ: ref, into: "entites"},
		{name: "statut_declaration", typ: text, vocab: declarationStatus},
		{name: "date_declaration", typ: date},
		{name: "page", typ: text},
		{name: "entrees", typ: entries, sub: []field{
			{name: "nom", typ: text},
			{name: "prenoms", typ: text},
			{name: "date_naissance", typ: date},
			{name: "nationalite", typ: text},
			{name: "detention", typ: text},
			{name: "pourcentage_detention", typ: percent, nullable: true},
			{name: "controle_declare", typ: boolean},
		}},
		{name: "page_suivante", typ: ref, into: sameCollection, nullable: true},
	},
	"mesures-restrictives": {
		{name: "ressource", typ: selfPath},
		{name: "intitule", typ: text},
		{name: "date_mise_a_jour", typ: date},
		{name: "page", typ: text},
		{name: "entrees", typ: entries, sub: []field{
			{name: "reference", typ: text},
			{name: "nom", typ: text},
			{name: "prenoms", typ: text},
			{name: "date_naissance", typ: date},
			{name: "motif", typ: text},
		}},
		{name: "page_suivante", typ: ref, into: sameCollection, nullable: true},
	},
}

// document is one parsed file being checked.
type document struct {
	l          *linter
	path, file string
	collection string // collection of path, "" outside every collection
}

// checkDocument checks one strict-JSON file: its schema, references,
// vocabularies and dates. The fixed bodies only need to be strict JSON.
func (l *linter) checkDocument(path string) {
	if corpus.IsSystem(path) {
		return
	}
	d := document{l: l, path: path, file: l.files[path]}
	schema, ok := schemas[path]
	if collection, _, isRef := corpus.SplitReference(path); isRef {
		d.collection = collection
		schema, ok = schemas[collection]
	}
	doc := l.docs[path]
	if d.collection == "livraisons" && isAnnex(doc) {
		schema = annexSchema
	}
	if !ok {
		return // PathOf admits nothing else
	}
	d.checkFields(doc, "", schema)
	d.checkDates(doc, "")
	switch {
	case path == corpus.Referentiel:
		d.checkReferentielTables(doc)
	case path == corpus.ReglesAchat:
		d.checkCatalogueTable(doc)
	case d.collection == "avenants":
		d.checkAmendmentObject(doc)
	}
	switch path {
	case corpus.Referentiel:
		d.checkRulesText(doc, "criteres", "R")
	case corpus.ReglesAchat:
		d.checkRulesText(doc, "regles", "G")
	}
}

// checkFields checks that obj has every field of schema with its type.
func (d document) checkFields(obj pyjson.Object, pointer string, schema []field) {
	for _, f := range schema {
		v, ok := obj.Get(f.name)
		at := child(pointer, f.name)
		if !ok {
			d.l.report(d.file, pointer, RuleSchema, "required field %q is missing", f.name)
			continue
		}
		d.checkField(f, at, v)
	}
}

func (d document) checkField(f field, at string, v pyjson.Value) {
	if v == nil && (f.nullable || f.typ == date) {
		return // dates: the dates rule says where null is allowed
	}
	switch f.typ {
	case text:
		s, ok := v.(string)
		if !ok {
			d.wrongType(at, "a string", v)
			return
		}
		d.checkWord(f, at, f.name, s)
	case isTrue:
		if v != true {
			d.l.report(d.file, at, RuleSchema, "want true (a file of the tree exists; absence is the server's answer), got %s", describe(v))
		}
	case date:
		// The dates rule checks every date field, in the schema or not.
	case selfPath:
		s, ok := v.(string)
		if !ok {
			d.wrongType(at, "a string", v)
		} else if s != d.path {
			d.l.report(d.file, at, RuleResource, "ressource %q is not the file's own path %s", s, d.path)
		}
	case ref:
		s, ok := v.(string)
		if !ok {
			d.wrongType(at, "a reference string"+orNull(f), v)
			return
		}
		d.checkReference(at, s, d.target(f))
	case refList:
		eachElement(d, at, v, "an array of references", "a reference string", func(at, s string) {
			d.checkReference(at, s, d.target(f))
		})
	case entries:
		eachElement(d, at, v, "an array of objects", "an object", func(at string, obj pyjson.Object) {
			d.checkFields(obj, at, f.sub)
		})
	case table:
		if _, ok := v.(pyjson.Object); !ok {
			d.wrongType(at, "an object", v)
		}
	case boolean:
		if _, ok := v.(bool); !ok {
			d.wrongType(at, "a boolean", v)
		}
	case amount, count, percent:
		if s, ok := v.(string); !ok {
			d.wrongType(at, "a decimal string"+orNull(f), v)
		} else {
			d.l.checkDecimal(d.file, at, f.typ, s)
		}
	case textList:
		eachElement(d, at, v, "an array of strings"+orNull(f), "a string", func(at, s string) {
			d.checkWord(f, at, f.name, s)
		})
	case textTable:
		obj, ok := v.(pyjson.Object)
		if !ok {
			d.wrongType(at, "an object of strings", v)
			return
		}
		for _, m := range obj {
			if _, ok := m.Value.(string); !ok {
				d.wrongType(child(at, m.Key), "a string", m.Value)
			}
		}
	}
}

// eachElement checks that v is an array of T, and each element with check;
// want and wantElem say what was expected in findings.
func eachElement[T pyjson.Value](d document, at string, v pyjson.Value, want, wantElem string, check func(at string, e T)) {
	list, ok := v.(pyjson.Array)
	if !ok {
		d.wrongType(at, want, v)
		return
	}
	for i, e := range list {
		if elem, ok := e.(T); ok {
			check(child(at, i), elem)
		} else {
			d.wrongType(child(at, i), wantElem, e)
		}
	}
}

func orNull(f field) string {
	if f.nullable {
		return " or null"
	}
	return ""
}

func (d document) wrongType(at, want string, got pyjson.Value) {
	d.l.report(d.file, at, RuleSchema, "want %s, got %s", want, describe(got))
}

func (d document) target(f field) string {
	if f.into == sameCollection {
		return d.collection
	}
	return f.into
}

// checkWord applies a text field's vocabulary; name says what s is.
func (d document) checkWord(f field, at, name, s string) {
	switch {
	case f.vocab != nil && !slices.Contains(f.vocab, s):
		d.l.report(d.file, at, RuleVocabulary, "%s %q is not one of %s", name, s, strings.Join(f.vocab, ", "))
	case f.word && !wordPattern.MatchString(s):
		d.l.report(d.file, at, RuleVocabulary, "%s %q is not lowercase ASCII words joined by '-'", name, s)
	case f.activity && d.l.activities != nil && !d.l.activities[s]:
		d.l.report(d.file, at, RuleVocabulary, "%s %q is not an activity of /referentiel", name, s)
	case f.category && d.l.categories != nil && !d.l.categories[s]:
		d.l.report(d.file, at, RuleVocabulary, "%s %q is not a category of %s", name, s, corpus.ReglesAchat)
	}
}

// checkReference checks that s is a canonical path into collection and that
// it resolves: a file of the tree, or an absent entry of the manifest.
func (d document) checkReference(at, s, collection string) {
	d.l.checkReference(d.file, at, s, collection)
}

func (l *linter) checkReference(file, at, s, collection string) {
	got, _, ok := corpus.SplitReference(s)
	switch {
	case !ok:
		l.report(file, at, RuleReferences, "%q is not a canonical path /<collection>/<id>", s)
	case got != collection:
		l.report(file, at, RuleReferences, "%q points into /%s, want /%s", s, got, collection)
	case l.files[s] != "" || l.absent[s]:
	case l.opts.Manifest == nil:
		l.report(file, at, RuleReferences, "%q does not resolve: no file %s", s, corpus.FileOf(s))
	default:
		l.report(file, at, RuleReferences, "%q does not resolve: no file %s and no absent entry in the manifest", s, corpus.FileOf(s))
	}
}

// checkDates checks every field named date_* or nouvelle_date_fin, at any
// depth: a real YYYY-MM-DD date, null only for nouvelle_date_fin (an
// exclusion sets no new end; the objet rule says when it must be set).
func (d document) checkDates(v pyjson.Value, pointer string) {
	switch v := v.(type) {
	case pyjson.Object:
		for _, m := range v {
			at := child(pointer, m.Key)
			if isDateField(m.Key) {
				d.l.checkDate(d.file, at, m.Key, m.Value)
			} else {
				d.checkDates(m.Value, at)
			}
		}
	case pyjson.Array:
		for i, e := range v {
			d.checkDates(e, child(pointer, i))
		}
	}
}

func isDateField(name string) bool {
	return strings.HasPrefix(name, "date_") || name == "nouvelle_date_fin"
}

func (l *linter) checkDate(file, at, name string, v pyjson.Value) {
	switch s, ok := v.(string); {
	case v == nil && name == "nouvelle_date_fin":
	case v == nil:
		l.report(file, at, RuleDates, "%s is null: the schema wants a date", name)
	case !ok:
		l.report(file, at, RuleDates, "want a YYYY-MM-DD string, got %s", describe(v))
	case !dateShape(s):
		l.report(file, at, RuleDates, "date %q is not YYYY-MM-DD", s)
	case !calendarDate(s):
		l.report(file, at, RuleDates, "date %q is not a calendar date", s)
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

// calendarDate reports whether s names a day that exists ("2026-02-30" does
// not): time.Parse refuses a day beyond the month's length.
func calendarDate(s string) bool {
	t, err := time.Parse(time.DateOnly, s)
	return err == nil && t.Format(time.DateOnly) == s
}

// checkAmendmentObject applies the avenant rule: a prorogation sets
// nouvelle_date_fin and leaves activite_exclue null, an exclusion the reverse.
func (d document) checkAmendmentObject(doc pyjson.Object) {
	objet, _ := doc.Get("objet")
	set, unset := "", ""
	switch objet {
	case "prorogation":
		set, unset = "nouvelle_date_fin", "activite_exclue"
	case "exclusion":
		set, unset = "activite_exclue", "nouvelle_date_fin"
	default:
		return // the vocabulary rule already said so
	}
	if v, ok := doc.Get(set); ok && v == nil {
		d.l.report(d.file, "/"+set, RuleVocabulary, "objet %q sets %s: it must not be null", objet, set)
	}
	if v, ok := doc.Get(unset); ok && v != nil {
		d.l.report(d.file, "/"+unset, RuleVocabulary, "objet %q leaves %s null, got %s", objet, unset, describe(v))
	}
}

// checkReferentielTables checks the referentiel's two tables: activity codes
// to the attestation types they require, and to the first page of their
// public list, for the same activities.
func (d document) checkReferentielTables(doc pyjson.Object) {
	required, _ := doc.Get("attestations_requises")
	lists, _ := doc.Get("listes_agrees")
	requiredTable, okRequired := required.(pyjson.Object)
	listTable, okLists := lists.(pyjson.Object)
	if okRequired {
		for _, m := range requiredTable {
			at := child("/attestations_requises", m.Key)
			d.checkWord(field{word: true}, at, "activity code", m.Key)
			types, ok := m.Value.(pyjson.Array)
			if !ok || len(types) == 0 {
				d.l.report(d.file, at, RuleSchema, "want a non-empty array of attestation types, got %s", describe(m.Value))
				continue
			}
			for i, t := range types {
				if s, ok := t.(string); ok {
					d.checkWord(field{word: true}, child(at, i), "attestation type", s)
				} else {
					d.wrongType(child(at, i), "an attestation type string", t)
				}
			}
		}
	}
	if okLists {
		for _, m := range listTable {
			at := child("/listes_agrees", m.Key)
			d.checkWord(field{word: true}, at, "activity code", m.Key)
			if s, ok := m.Value.(string); ok {
				d.checkReference(at, s, "listes/agrees")
			} else {
				d.wrongType(at, "a reference string", m.Value)
			}
		}
	}
	if okRequired && okLists {
		for _, m := range requiredTable {
			if _, ok := listTable.Get(m.Key); !ok {
				d.l.report(d.file, "/listes_agrees", RuleSchema, "activity %q requires attestations but has no public list", m.Key)
			}
		}
		for _, m := range listTable {
			if _, ok := requiredTable.Get(m.Key); !ok {
				d.l.report(d.file, "/attestations_requises", RuleSchema, "activity %q has a public list but no required attestations", m.Key)
			}
		}
	}
}
