package score

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/solver"
)

// Track is everything the scorer needs to know of one track: its name, its
// statements, how to build a task's graph, which fields are probative, and
// its verdicts. The rules themselves (specification 4, 4.1 and 5.7, which
// 6.6 applies unchanged) are the same for every track and live in this
// package; a track only answers these questions.
//
// A verdict has one written form on every track (a product is named by its
// canonical path, character for character), so a submitted verdict is
// exact when it is the key's string.
type Track interface {
	// Piste is the track's name as statements, manifests and submissions
	// write it.
	Piste() string
	// Saison is the season the statements belong to, as written in them.
	Saison() string
	// Tasks lists the statements' tasks in order, with their assertion
	// bounds.
	Tasks() []Task
	// Graph returns a task's graph, reading the corpus through fetch.
	Graph(taskID string, fetch solver.Fetcher) (Graph, error)
	// Probative reports whether an assertion may name field of resource.
	Probative(resource, field string) bool
	// ValidVerdict reports whether a verdict belongs to the track's set.
	ValidVerdict(verdict string) bool
}

// Task is a statement's identity and assertion bounds.
type Task struct {
	ID       string
	Min, Max int
}

// Graph is a task's graph (specification 5.2 and 6.6): the resources that
// concern the task alone and the common lists, whose entries count only
// where they concern it.
type Graph interface {
	// Own reports whether a resource concerns the task alone: the entity's,
	// or a purchasing candidate's.
	Own(resource string) bool
	// Common reports whether a resource is a page of a common list (a
	// public list, the restrictive-measures list, a catalogue).
	Common(resource string) bool
	// Concerns reports whether an assertion on a common list names an
	// entry that concerns the task.
	Concerns(resource, field string) bool
}

// tracks makes a track of statements, by the "piste" they declare.
var tracks = map[string]func(statements) Track{
	"conformite": func(s statements) Track { return conformity{s} },
	"generique":  func(s statements) Track { return purchasing{s} },
}

// OpenTrack reads a statements file and returns its track, chosen by the
// file's "piste".
func OpenTrack(file string) (Track, error) {
	tasks, err := season.ReadTasks(file)
	if err != nil {
		return nil, err
	}
	return NewTrack(file, tasks)
}

// NewTrack returns the track of decoded statements, chosen by their
// "piste": its bounds, entities, activities and categories are those
// statements' and no other file's. file names them in errors.
func NewTrack(file string, tasks *season.Tasks) (Track, error) {
	open, ok := tracks[tasks.Piste]
	if !ok {
		known := slices.Sorted(maps.Keys(tracks))
		return nil, fmt.Errorf("%s /piste: %q is not a track this scorer knows (%s)", file, tasks.Piste, strings.Join(known, ", "))
	}
	return open(statements{tasks}), nil
}

// statements is what the tracks share: their statements, read by one
// reader, and the reference solver's graph and probative fields, which
// know both tracks, so that the scorer and the solver cannot drift apart.
// A track adds its verdicts.
type statements struct {
	tasks *season.Tasks
}

func (s statements) Piste() string  { return s.tasks.Piste }
func (s statements) Saison() string { return s.tasks.Saison }

func (s statements) Tasks() []Task {
	out := make([]Task, len(s.tasks.Taches))
	for i, t := range s.tasks.Taches {
		out[i] = Task{ID: t.ID, Min: t.AssertionsMin, Max: t.AssertionsMax}
	}
	return out
}

func (s statements) Graph(taskID string, fetch solver.Fetcher) (Graph, error) {
	task, ok := s.tasks.Task(taskID)
	if !ok {
		return nil, fmt.Errorf("no statement for task %s", taskID)
	}
	g, err := solver.TaskGraph(task, fetch)
	if err != nil {
		return nil, err
	}
	return solverGraph{g}, nil
}

func (statements) Probative(resource, field string) bool {
	return solver.Probative(resource, field)
}

// solverGraph adapts the solver's graph.
type solverGraph struct{ g *solver.Graph }

func (g solverGraph) Own(resource string) bool    { return g.g.Own[resource] }
func (g solverGraph) Common(resource string) bool { return g.g.Common[resource] }
func (g solverGraph) Concerns(resource, field string) bool {
	return g.g.Concerns(resource, field)
}
