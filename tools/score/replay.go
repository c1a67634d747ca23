package score

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/verify"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// ReplayInput is what a season's replay of one track is built from. The
// replay keeps the statements, the key and the manifest: none is altered
// once given.
type ReplayInput struct {
	// Tasks are the track's statements: their season, tasks and bounds,
	// and their "piste", which names the rules they are scored by.
	Tasks *season.Tasks
	Key   *season.Key
	// Manifest, and the SHA-256 of its file, which the report names.
	Manifest       *manifest.Manifest
	ManifestSHA256 string
	// Tree is the frozen tree; NewReplay checks it against Manifest at
	// full depth and scores from the bytes it checked.
	Tree fs.FS
	// Anchored says the caller checked the manifest, the statements and the
	// key against the pre-registration record; unset, every report is a dry
	// run's.
	Anchored bool
}

// Replay is a season's replay of one track, built once (NewReplay) and
// shared by every participant scored: the tree checked against the
// manifest, each task's graph walked from the checked bytes, each body
// parsed once, whatever the number of tasks, participants and assertions
// that read it. Its memory is the season's, never participants × corpus.
// A Replay is only read once built: Score is safe for concurrent use.
type Replay struct {
	tasks          *season.Tasks
	manifest       *manifest.Manifest
	manifestSHA256 string
	anchored       bool
	rules          *season.Rules
	keys           map[string]season.KeyTask
	graphs         map[string]*season.Graph // by task id
	known          map[string]bool          // the statements' task ids
	refusals       []string                 // the response_hash of each body of the contract's refusals
	constant       ConstantAnswerFigure
}

// NewReplay checks the tree against the manifest, walks every task's graph
// from the bytes it checked, and returns the replay that scores the
// track's participants. A tree that does not match, a key without an
// entry for a task, or a graph that cannot be walked is an error: nothing
// of such a season can be scored.
func NewReplay(in ReplayInput) (*Replay, error) {
	if in.Tasks == nil || in.Key == nil || in.Manifest == nil || in.Tree == nil {
		return nil, errors.New("a replay needs the statements, the key, the manifest and the tree")
	}
	rules, err := season.RulesNamed(in.Tasks.Track)
	if err != nil {
		return nil, fmt.Errorf("statements /piste: %w", err)
	}
	r := &Replay{
		tasks:          in.Tasks,
		manifest:       in.Manifest,
		manifestSHA256: in.ManifestSHA256,
		anchored:       in.Anchored,
		rules:          rules,
		keys:           make(map[string]season.KeyTask, len(in.Key.Tasks)),
		graphs:         make(map[string]*season.Graph, len(in.Tasks.Tasks)),
		known:          make(map[string]bool, len(in.Tasks.Tasks)),
		constant:       constantAnswer(in.Key),
	}
	for _, k := range in.Key.Tasks {
		r.keys[k.ID] = k
	}
	for _, system := range []string{corpus.SystemForbidden, corpus.SystemUnavailable, corpus.SystemBadRequest} {
		if e, ok := in.Manifest.Lookup(system); ok {
			r.refusals = append(r.refusals, e.ResponseHash)
		}
	}
	files, err := verify.Tree(in.Manifest, in.Tree, verify.Full, nil)
	if err != nil {
		return nil, err // a *verify.MismatchError, which the caller names the files of
	}
	// The bytes are dropped once walked: the graphs keep the bodies parsed.
	bodies := season.NewBodies(checked(files))
	for _, t := range in.Tasks.Tasks {
		if _, ok := r.keys[t.ID]; !ok {
			return nil, fmt.Errorf("the key has no entry for task %s", t.ID)
		}
		g, err := bodies.TaskGraph(t)
		if err != nil {
			return nil, fmt.Errorf("graph of %s: %w", t.ID, err)
		}
		r.graphs[t.ID] = g
		r.known[t.ID] = true
	}
	return r, nil
}

// checked serves the bytes a tree's check kept, as the server would past
// its gate: a file's bytes, or corpus.AbsentBody for a reference into a
// collection that has no file (solver.ServeTree, on the checked bytes).
func checked(files map[string][]byte) season.Fetcher {
	return func(path string) ([]byte, error) {
		if data, ok := files[path]; ok {
			return data, nil
		}
		if corpus.IsReference(path) {
			return corpus.AbsentBody(path), nil
		}
		return nil, fmt.Errorf("%s: not a resource of the corpus", path)
	}
}

// Track is the track the replay scores.
func (r *Replay) Track() string { return r.tasks.Track }
