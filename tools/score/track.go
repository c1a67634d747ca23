package score

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/arkforge/proveit-corpus/tools/solver"
)

// Track is everything the scorer needs to know of one track: its name, its
// statements, how to build a task's graph, which fields are probative, and
// its verdicts. The rules themselves (specification 4, 4.1 and 5.7, which
// 6.6 applies unchanged) are the same for every track and live in this
// package; a track only answers these questions.
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
	// SameVerdict reports whether a submitted verdict is the expected one,
	// in any of the forms the track accepts as equivalent.
	SameVerdict(submitted, expected string) bool
}

// Task is a statement's identity and assertion bounds.
type Task struct {
	ID       string
	Min, Max int
}

// Graph is a task's graph (specification 5.2): the entity's own resources
// and the common lists, whose entries count only where they concern it.
type Graph interface {
	// Own reports whether a resource concerns the entity alone.
	Own(resource string) bool
	// Common reports whether a resource is a page of a common list.
	Common(resource string) bool
	// Concerns reports whether an assertion on a common list names an
	// entry that concerns the entity.
	Concerns(resource, field string) bool
}

// opener reads a track's statements file.
type opener func(file string, data []byte) (Track, error)

// tracks opens statements by the "piste" they declare.
var tracks = map[string]opener{
	"conformite": openConformity,
}

// OpenTrack reads a statements file and returns its track, chosen by the
// file's "piste".
func OpenTrack(file string) (Track, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var head struct {
		Piste string `json:"piste"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	open, ok := tracks[head.Piste]
	if !ok {
		known := make([]string, 0, len(tracks))
		for name := range tracks {
			known = append(known, name)
		}
		slices.Sort(known)
		return nil, fmt.Errorf("%s /piste: %q is not a track this scorer knows (%s)", file, head.Piste, strings.Join(known, ", "))
	}
	return open(file, data)
}
