package score

import (
	"fmt"
	"slices"

	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/solver"
)

// conformity is the conformity track, answered by the reference solver's
// own rules so that the scorer and the solver cannot drift apart.
type conformity struct {
	tasks *season.Tasks
}

// Conformity returns the conformity track of a season's statements.
func Conformity(tasks *season.Tasks) Track { return conformity{tasks} }

func openConformity(file string, data []byte) (Track, error) {
	var tasks season.Tasks
	if err := season.DecodeStrict(file, data, &tasks); err != nil {
		return nil, err
	}
	return Conformity(&tasks), nil
}

func (c conformity) Piste() string  { return c.tasks.Piste }
func (c conformity) Saison() string { return c.tasks.Saison }

func (c conformity) Tasks() []Task {
	out := make([]Task, len(c.tasks.Taches))
	for i, t := range c.tasks.Taches {
		out[i] = Task{ID: t.ID, Min: t.AssertionsMin, Max: t.AssertionsMax}
	}
	return out
}

func (c conformity) Graph(taskID string, fetch solver.Fetcher) (Graph, error) {
	task, ok := c.tasks.Task(taskID)
	if !ok {
		return nil, fmt.Errorf("no statement for task %s", taskID)
	}
	g, err := solver.TaskGraph(task, fetch)
	if err != nil {
		return nil, err
	}
	return conformityGraph{g}, nil
}

func (conformity) Probative(resource, field string) bool {
	return solver.Probative(resource, field)
}

func (conformity) ValidVerdict(verdict string) bool {
	return slices.Contains(season.Verdicts, verdict)
}

// SameVerdict: the conformity track's verdicts have one form each.
func (conformity) SameVerdict(submitted, expected string) bool {
	return submitted == expected
}

// conformityGraph adapts the solver's graph.
type conformityGraph struct{ g *solver.Graph }

func (g conformityGraph) Own(resource string) bool    { return g.g.Own[resource] }
func (g conformityGraph) Common(resource string) bool { return g.g.Common[resource] }
func (g conformityGraph) Concerns(resource, field string) bool {
	return g.g.Concerns(resource, field)
}
