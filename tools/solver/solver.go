// Package solver is the reference solver. It answers each task by the
// criteria its track registers (the tracks' packages under tools/tracks
// hold them) the way an agent would, fetching canonical paths one at a
// time with a Walker and reading only what the server answers. It reports
// the verdict, the calls it made and the facts (resource, JSON pointer,
// value) the verdict rests on; from those it derives a season's answer key
// and checks one against the corpus, whatever the track.
package solver

import (
	"errors"
	"fmt"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// Verdict is the answer to a task: one of its track's verdicts, or a
// canonical path of its Choice collection.
type Verdict string

// Outcome is what a criterion came to.
type Outcome string

// Outcomes of a criterion. Precedence: any Failed gives non_conforme, else any
// Undetermined gives indeterminable, else conforme.
const (
	Met          Outcome = "met"          // established true
	Failed       Outcome = "failed"       // established false
	Undetermined Outcome = "undetermined" // a source answers existe: false, or two sources of the same rank disagree
	Skipped      Outcome = "skipped"      // not examined: an earlier criterion failed, or (Derive) the one it reads from
)

// Criterion is the outcome of one of the track's criteria (for a track
// whose verdict is a choice, season.Rules.Choice: of one candidate), with a
// one-line reason and the facts that establish it.
type Criterion struct {
	Code    string
	Outcome Outcome
	Reason  string
	// Basis is what establishes the outcome: for a criterion established
	// false or undetermined, the facts of the case that decides it, a
	// member per case where several would each do; the zero Formula when the
	// outcome follows from another criterion's (no agrément retained, no
	// entity to read).
	Basis season.Formula
	// Against is, for a candidate of a choice (season.Rules.Choice), how
	// the chosen one stands against it when the statement supplies it or
	// the track shows it ahead: the rules that exclude the candidate, any
	// one; or, valid but behind, the terms that show it behind. Zero for
	// any other criterion. The control task is founded on any one of them.
	Against season.Formula
	// Compared marks the candidates a choice verdict with a trap is
	// founded against (founding): those the track's criteria say could
	// lure an agent from the chosen one (on the purchasing track, supplied,
	// or displayed cheaper and looking valid on the catalogue). One the
	// track already shows excluded lures no one.
	Compared bool
}

// Result is the solver's answer to one task.
type Result struct {
	Task     string
	Verdict  Verdict
	Criteria []Criterion
	Calls    []string      // canonical paths fetched, in order, each once
	Facts    []season.Fact // each value in canonical form
}

// Solve answers a task statement by its track's criteria, fetching every
// resource it reads through fetch. It stops at the first criterion
// established false, and carries on past one that cannot be established,
// since a later failure takes precedence. An error means the corpus or the
// statement breaks the contract (a wrong type, an unknown activity, a page
// loop), not that the task is hard.
func Solve(task season.Task, fetch season.Fetcher) (*Result, error) {
	return solve(task, fetch, false)
}

// Derive answers a task as Solve does, but evaluates every criterion (for
// a choice, every rule for every candidate) instead of
// stopping at the first established false: what decides the verdict is
// every criterion that would decide it alone, and founding writes each as
// an alternative. Its calls are not an agent's: Solve's are.
func Derive(task season.Task, fetch season.Fetcher) (*Result, error) {
	return solve(task, fetch, true)
}

// Criteria answer a task of one track, walking its resources with a
// Walker: full is Derive's walk, past the first criterion established
// false.
type Criteria func(task season.Task, fetch season.Fetcher, full bool) (*Result, error)

// criteria are each track's, by its corpus.Track.
var criteria = map[*corpus.Track]Criteria{}

// Register adds a track's criteria. tracks.Register calls it, with the
// track's rulebook and checks.
func Register(track *corpus.Track, c Criteria) {
	if criteria[track] != nil {
		panic("solver: two sets of criteria for the track " + track.Name)
	}
	criteria[track] = c
}

func solve(task season.Task, fetch season.Fetcher, full bool) (*Result, error) {
	track := task.Rules().Track
	c := criteria[track]
	if c == nil {
		panic("solver: no criteria for the track " + track.Name + ": import its package (tools/tracks/all imports every one)")
	}
	return c(task, fetch, full)
}

// Walker fetches a task's resources one canonical path at a time, as an
// agent would, and keeps the calls and the facts the verdict rests on.
// Every track's criteria walk with it.
type Walker struct {
	// Full is Derive's walk: every criterion, past a failure.
	Full bool
	// Result is the answer being built: its calls and facts as the walk
	// goes, its verdict and criteria as the track's criteria set them.
	Result *Result
	// AbsentPage is the last page WalkPages found answering existe: false.
	AbsentPage string

	fetch  season.Fetcher
	bodies map[string]pyjson.Object // every body fetched, by path
	noted  map[season.Place]bool    // facts already in the result
}

// NewWalker starts the walk of a task.
func NewWalker(task string, fetch season.Fetcher, full bool) Walker {
	return Walker{
		Full:   full,
		Result: &Result{Task: task},
		fetch:  fetch,
		bodies: map[string]pyjson.Object{},
		noted:  map[season.Place]bool{},
	}
}

// Get fetches a path, once per task as an agent would, and returns its body
// and whether it exists (a served body saying "existe": false does not).
func (s *Walker) Get(path string) (pyjson.Object, bool, error) {
	body, seen := s.bodies[path]
	if !seen {
		data, err := s.fetch(path)
		if err != nil {
			return nil, false, err
		}
		s.Result.Calls = append(s.Result.Calls, path)
		if body, err = anchor.CheckBody(data); err != nil {
			return nil, false, fmt.Errorf("%s: %w", path, err)
		}
		s.bodies[path] = body
	}
	exists, _ := body.Get("existe")
	return body, exists != false, nil
}

// Body returns the body of a path the walk fetched, nil for one it has
// not.
func (s *Walker) Body(path string) pyjson.Object { return s.bodies[path] }

// Fact reads a fact from a fetched body; the pointer must name a value the
// solver has just read.
func (s *Walker) Fact(path, pointer string) season.Fact {
	v, ok := pyjson.Lookup(s.bodies[path], pointer)
	if !ok {
		panic(fmt.Sprintf("solver: %s has no value at %s", path, pointer))
	}
	return season.Fact{Resource: path, Field: pointer, Value: pyjson.Canonical(v)}
}

// Rest records facts the verdict rests on, each once.
func (s *Walker) Rest(facts ...season.Fact) {
	for _, f := range facts {
		if !s.noted[f.Place()] {
			s.noted[f.Place()] = true
			s.Result.Facts = append(s.Result.Facts, f)
		}
	}
}

// ErrAbsentPage stops a page walk at a page that answers existe: false.
var ErrAbsentPage = errors.New("a page answers existe: false")

// WalkPages fetches a paged resource page after page, from its first page,
// until visit says stop or page_suivante is null. A page chain that loops is
// an error of the corpus.
func (s *Walker) WalkPages(first string, visit func(page string, doc pyjson.Object) (stop bool, err error)) error {
	seen := map[string]bool{}
	for page := first; ; {
		if seen[page] {
			return fmt.Errorf("%s: page_suivante loops back to %s", first, page)
		}
		seen[page] = true
		doc, exists, err := s.Get(page)
		if err != nil {
			return err
		}
		if !exists {
			s.Rest(s.Fact(page, "/existe"))
			s.AbsentPage = page
			return fmt.Errorf("%w: %s", ErrAbsentPage, page)
		}
		if stop, err := visit(page, doc); stop || err != nil {
			return err
		}
		next, _ := doc.Get("page_suivante")
		if next == nil {
			return nil
		}
		path, ok := next.(string)
		if !ok {
			return fmt.Errorf("%s: page_suivante is neither a path nor null", page)
		}
		page = path
	}
}
