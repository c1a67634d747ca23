// Package lint checks a track's tree against every file rule of the corpus
// (docs/contract.md section 3, the corpus trees): strict JSON in the exact
// layout Python writes, canonical file names, calendar dates, references
// that are canonical paths and resolve, each collection's schema and closed
// vocabularies, page chains without loops or orphans, a rules document
// that publishes the scorer's table and numbers its rules in order, a tree
// that is exactly what its manifest lists, and statements that cite what
// their question names. What is a track's own (its schemas, the links its
// resources must agree on, its statements' members, its realism: legal
// forms, beneficial owners, products' kinds) its package registers as
// Checks, with the rules it adds to these.
//
// Every finding names the file, the JSON pointer and the rule, so that an
// author can fix it without reading this code.
package lint

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/manifest/verify"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// Rules, as each finding names them.
const (
	ruleFileName   = "file-name"  // the file maps to a canonical path
	ruleJSON       = "json"       // strict JSON, non-empty object, no numbers
	ruleFormat     = "format"     // the bytes are json.dumps(obj, ensure_ascii=False, indent=2) + "\n"
	ruleDates      = "dates"      // YYYY-MM-DD calendar dates, null only where allowed
	RuleReferences = "references" // canonical paths into the right collection, that resolve
	ruleResource   = "ressource"  // ressource is the file's own path
	RuleVocabulary = "vocabulary" // closed vocabularies and activity/type words
	RuleSchema     = "schema"     // required fields with the right types
	RuleLinks      = "links"      // two resources that name each other agree
	rulePages      = "pages"      // page chains: no loop, every page reached, numbered in order
	ruleManifest   = "manifest"   // the tree is exactly what the manifest lists
	RuleDecimal    = "decimal"    // amounts and quantities are well-formed decimal strings

	// Realism: a fictional corpus that reads like a real one.
	ruleIdentifier = "identifier" // a SIREN is 9 digits, a SIRET 14 beginning with a SIREN, each failing the Luhn check (no real company), none shared
	ruleAddress    = "address"    // every siege is an obviously fictional address
	ruleRulesText  = "rules-text" // the rules' criteria are numbered in order, their texts name only those, statements postdate them
)

// Finding is one broken rule.
type Finding struct {
	File    string // file of the tree, or the season or manifest file
	Pointer string // JSON pointer inside the file, "" for the whole file
	Rule    string
	Message string
}

// String writes the finding as
// `agrements/AGR-4417.json /date_debut: date "2026-02-30" is not a calendar date (rule: dates)`.
func (f Finding) String() string {
	where := f.File
	if f.Pointer != "" {
		where += " " + f.Pointer
	}
	return fmt.Sprintf("%s: %s (rule: %s)", where, f.Message, f.Rule)
}

// Options says what, besides the tree, the linter checks against.
type Options struct {
	// Track is the track the tree serves; nil is the first of
	// corpus.Tracks.
	Track *corpus.Track
	// Manifest, when set, must list exactly the tree, and its absent entries
	// are the only references allowed to have no file. Without it, every
	// reference must resolve to a file.
	Manifest *manifest.Manifest
	// ManifestFile names the manifest in findings about it.
	ManifestFile string
	// Tasks, when set, are the season's statements: their entity, activity,
	// date and references are checked like the corpus's own.
	Tasks *season.Tasks
	// TasksFile names the statements file in findings about it.
	TasksFile string
}

// Report is the outcome of a lint.
type Report struct {
	Findings []Finding
	// Files counts the files of the tree by collection ("referentiel" and
	// "_systeme" for the single resource and the fixed bodies).
	Files map[string]int
	// Absent lists the manifest's absent references, for review: the
	// manifest builder records any dangling reference as absent.
	Absent []string
	Tasks  int
}

// OK reports whether nothing was found.
func (r *Report) OK() bool { return len(r.Findings) == 0 }

// Summary is the one line printed when nothing was found.
func (r *Report) Summary() string {
	total := 0
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(r.Files)) {
		total += r.Files[name]
		parts = append(parts, fmt.Sprintf("%s %d", name, r.Files[name]))
	}
	absent := "none"
	if len(r.Absent) > 0 {
		absent = strings.Join(r.Absent, ", ")
	}
	return fmt.Sprintf("OK %d files (%s); absent references: %s; %d tasks", total, strings.Join(parts, ", "), absent, r.Tasks)
}

// Linter holds what one run has read so far.
type Linter struct {
	opts     Options
	tree     fs.FS
	findings []Finding
	files    map[string]string        // canonical path → file name, for every well-named file
	docs     map[string]pyjson.Object // canonical path → body, for files that are strict JSON
	absent   map[string]bool          // the manifest's absent references
	checks   *Checks                  // the track's
	// vocabularies are the rules document's closed lists, by name: each
	// missing when it cannot be read.
	vocabularies map[string]map[string]bool
}

// Lint checks every file of tree and the tree as a whole.
func Lint(tree fs.FS, opts Options) *Report {
	if opts.Track == nil {
		opts.Track = corpus.Tracks[0]
	}
	l := &Linter{
		opts:   opts,
		tree:   tree,
		files:  map[string]string{},
		docs:   map[string]pyjson.Object{},
		absent: map[string]bool{},
		checks: checksOf(opts.Track),
	}
	report := &Report{Files: map[string]int{}}
	// A tree that cannot be read at all is one finding, not one per file
	// the manifest and the links then find missing.
	if _, err := fs.ReadDir(tree, "."); err != nil {
		report.Findings = []Finding{{File: ".", Rule: ruleFileName, Message: fmt.Sprintf("the tree cannot be read: %v", err)}}
		return report
	}
	if opts.Manifest != nil {
		for _, e := range opts.Manifest.Resources {
			if e.Kind == manifest.Absent {
				l.absent[e.Path] = true
				report.Absent = append(report.Absent, e.Path)
			}
		}
	}
	l.readTree()
	for path := range l.files {
		report.Files[collectionName(path)]++
	}
	l.readVocabularies()
	for _, path := range slices.Sorted(maps.Keys(l.docs)) {
		l.checkDocument(path)
	}
	l.checkLinks()
	l.checkPages()
	if l.checks.Realism != nil {
		l.checks.Realism(l)
	}
	l.checkNotation()
	if opts.Tasks != nil {
		if opts.Tasks.Track != opts.Track.Name {
			l.Report(opts.TasksFile, "/piste", RuleSchema, "piste %q, want %q", opts.Tasks.Track, opts.Track.Name)
		}
		l.checkTasks(opts.Tasks)
		report.Tasks = len(opts.Tasks.Tasks)
	}
	if opts.Manifest != nil {
		l.checkManifest()
	}
	// Findings come out file by file, in pointer order, whatever order the
	// checks ran in.
	slices.SortStableFunc(l.findings, func(a, b Finding) int {
		return cmp.Or(strings.Compare(a.File, b.File), strings.Compare(a.Pointer, b.Pointer))
	})
	report.Findings = l.findings
	return report
}

func (l *Linter) Report(file, pointer, rule, format string, args ...any) {
	l.findings = append(l.findings, Finding{File: file, Pointer: pointer, Rule: rule, Message: fmt.Sprintf(format, args...)})
}

// readTree walks the tree: every file must be a regular file with a
// canonical name and a strict, Python-formatted JSON body.
func (l *Linter) readTree() {
	err := fs.WalkDir(l.tree, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			l.Report(name, "", ruleFileName, "cannot be read: %v", err)
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if !d.Type().IsRegular() {
			l.Report(name, "", ruleFileName, "not a regular file")
			return nil
		}
		path, err := l.opts.Track.PathOf(name)
		if err != nil {
			l.Report(name, "", ruleFileName, "%s", strings.TrimPrefix(err.Error(), name+": "))
			return nil
		}
		l.files[path] = name
		data, err := fs.ReadFile(l.tree, name)
		if err != nil {
			l.Report(name, "", ruleFileName, "cannot be read: %v", err)
			return nil
		}
		doc, err := anchor.CheckBody(data)
		if err != nil {
			var syntax *pyjson.SyntaxError
			if errors.As(err, &syntax) {
				l.Report(name, syntax.Pointer, ruleJSON, "%s (byte %d)", syntax.Reason, syntax.Offset)
			} else {
				l.Report(name, "", ruleJSON, "%v", err)
			}
			return nil
		}
		l.docs[path] = doc
		if line, ok := checkLayout(data, doc); !ok {
			l.Report(name, "", ruleFormat, `line %d differs from json.dumps(obj, ensure_ascii=False, indent=2) + "\n"`, line)
		}
		return nil
	})
	if err != nil {
		l.Report(".", "", ruleFileName, "cannot walk the tree: %v", err)
	}
}

// checkManifest compares the tree with the manifest, hash for hash.
func (l *Linter) checkManifest() {
	err := verify.Check(l.opts.Manifest, l.tree, verify.Full, nil)
	var mismatch *verify.MismatchError
	switch {
	case errors.As(err, &mismatch):
		for _, p := range mismatch.Problems {
			switch {
			case p.File != "":
				l.Report(p.File, "", ruleManifest, "%s", p.What)
			case p.Path != "":
				l.Report(l.opts.ManifestFile, "", ruleManifest, "%s: %s", p.Path, p.What)
			default:
				l.Report(l.opts.ManifestFile, "", ruleManifest, "%s", p.What)
			}
		}
	case err != nil:
		l.Report(l.opts.ManifestFile, "", ruleManifest, "%v", err)
	}
}

// collectionName is the collection of a canonical path, or "referentiel" and
// "_systeme" for the resources outside every collection.
func collectionName(path string) string {
	if ref, ok := corpus.ParseReference(path); ok {
		return ref.Collection()
	}
	if corpus.IsSystem(path) {
		return "_systeme"
	}
	return strings.TrimPrefix(path, "/")
}

// Child is the pointer of a member or element below pointer.
func Child(pointer string, token any) string {
	return pointer + pyjson.FormatPointer([]string{fmt.Sprint(token)})
}

// Describe names a value's JSON type in findings.
func Describe(v pyjson.Value) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case pyjson.Number:
		return "a number"
	case pyjson.Array:
		return "an array"
	case pyjson.Object:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// checkNotation checks that the track's rules document publishes what is
// scored (its notation member, which the catalogue repeats), with the very
// probative table the scorer applies: a rule that rejects a submission is
// one a participant reads at the opening.
func (l *Linter) checkNotation() {
	rules := season.RulesOf(l.opts.Track)
	doc, ok := l.docs[rules.Track.Rules]
	if !ok {
		return // absent or unreadable: the manifest check and the tree reader report it
	}
	file := l.files[rules.Track.Rules]
	notation, err := season.NotationOf(rules.Track.Rules, doc)
	if err != nil {
		l.Report(file, "/notation", RuleSchema, "%v", err)
		return
	}
	published, want := notation.Table(), rules.PublishedProbative()
	for _, collection := range slices.Sorted(maps.Keys(want)) {
		if got, ok := published[collection]; !ok || !slices.Equal(got, want[collection]) {
			l.Report(file, "/notation/champs_probants", RuleSchema, "%s publishes %v, the scorer's table is %v", collection, got, want[collection])
		}
	}
	for _, collection := range slices.Sorted(maps.Keys(published)) {
		if _, ok := want[collection]; !ok {
			l.Report(file, "/notation/champs_probants", RuleSchema, "%s is no collection of the track", collection)
		}
	}
}

// Member returns obj's member key as a T, if it is one.
func Member[T any](obj pyjson.Object, key string) (T, bool) {
	v, _ := obj.Get(key)
	t, ok := v.(T)
	return t, ok
}

// StringField returns the string member key of obj, if obj has one.
func StringField(obj pyjson.Object, key string) (string, bool) { return Member[string](obj, key) }
