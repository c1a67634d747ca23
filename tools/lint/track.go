package lint

import (
	"maps"
	"slices"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// Checks are one track's part of the linter, which the track's package
// registers (Register): the schema of each of its documents and what its
// tree, statements and prose must meet beyond the rules every track
// shares. The linter applies those of the tree's track and names none.
type Checks struct {
	// Schemas are each collection's schema, and the rules resource's by
	// its path.
	Schemas map[string]Schema
	// Variant, when set, returns the schema of a document of a collection
	// that has two kinds (a delivery annex among the conditions), nil for
	// the collection's own.
	Variant func(collection string, doc pyjson.Object) Schema
	// Vocabularies are the closed lists the rules document states, by the
	// name a Field's Closed gives them.
	Vocabularies map[string]Vocabulary
	// RulesList and RulesPrefix are the rules document's list of rules
	// and the prefix of their codes: criteres, R.
	RulesList, RulesPrefix string
	// Document checks a document beyond its schema and dates.
	Document func(d Document, doc pyjson.Object)
	// Links checks that two resources naming each other agree.
	Links func(l *Linter, path, collection string, doc pyjson.Object)
	// Chains are the page chains the tree names, from their first pages.
	Chains func(l *Linter) []Chain
	// Paged are the collections whose every page a chain must reach.
	Paged []string
	// NullableDates are the members, besides those named date_*, that
	// hold a YYYY-MM-DD date at any depth, or null where they set none.
	NullableDates []string
	// Task checks one statement like the corpus (its own members), at its
	// pointer in the statements file.
	Task func(l *Linter, file, at string, task season.Task)
	// Realism checks that the tree reads like the real thing without
	// naming anything real.
	Realism func(l *Linter)
}

// Vocabulary is a closed list the rules document states as the member
// names of one of its tables: the activities of /referentiel.
type Vocabulary struct {
	Table string // the rules document's member
	Of    string // what a word of it is, in findings: "an activity of /referentiel"
}

// Chain is a paged resource: its first page, the collection its pages stay
// in, and what each page must say of its owner.
type Chain struct {
	First      string
	Collection string
	Origin     string // what points to the first page, for messages
	Field      string // a field every page must hold with value Want ("" for none)
	Want       string
}

// registered are each track's checks.
var registered = map[*corpus.Track]*Checks{}

// Register adds a track's checks. tracks.Register calls it, with the
// track's rulebook and criteria.
func Register(track *corpus.Track, c *Checks) {
	if registered[track] != nil {
		panic("lint: two sets of checks for the track " + track.Name)
	}
	registered[track] = c
}

func checksOf(track *corpus.Track) *Checks {
	if c := registered[track]; c != nil {
		return c
	}
	panic("lint: no checks for the track " + track.Name + ": import its package (tools/tracks/all imports every one)")
}

// readVocabularies takes each closed list from the rules document, so that
// every other file is checked against the same one; a list whose table
// cannot be read is left unchecked (the schema's finding).
func (l *Linter) readVocabularies() {
	rules, ok := l.docs[l.opts.Track.Rules]
	if !ok {
		return
	}
	l.vocabularies = map[string]map[string]bool{}
	for name, v := range l.checks.Vocabularies {
		if table, ok := Member[pyjson.Object](rules, v.Table); ok {
			words := map[string]bool{}
			for _, m := range table {
				words[m.Key] = true
			}
			l.vocabularies[name] = words
		}
	}
}

// InVocabulary reports whether word is in the rules document's closed list
// name; true when the list cannot be read, which another finding names.
func (l *Linter) InVocabulary(name, word string) bool {
	words, ok := l.vocabularies[name]
	return !ok || words[word]
}

// Doc returns the body of a strict-JSON file of the tree, by canonical
// path; nil when there is none.
func (l *Linter) Doc(path string) pyjson.Object { return l.docs[path] }

// Lookup returns the body of a strict-JSON file of the tree, by canonical
// path, and whether there is one.
func (l *Linter) Lookup(path string) (pyjson.Object, bool) {
	doc, ok := l.docs[path]
	return doc, ok
}

// File returns the file name of a canonical path of the tree, "" when
// there is none.
func (l *Linter) File(path string) string { return l.files[path] }

// Paths returns the canonical paths of the tree's strict-JSON files, in
// order.
func (l *Linter) Paths() []string { return slices.Sorted(maps.Keys(l.docs)) }
