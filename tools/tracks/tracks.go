// Package tracks is where a track of the season becomes known to the
// tools: one call of Register, from the track's own package, hands its
// rulebook to season, its criteria to solver and its checks to lint, each
// keyed by the track's corpus.Track. Those packages name no track; they
// read what was registered. The tracks themselves are the packages below
// this one; tools/tracks/all imports every one.
package tracks

import (
	"github.com/arkforge/proveit-corpus/tools/lint"
	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/solver"
)

// Track is a track as the tools know it, beside its frozen bytes
// (corpus.Track, which Rules names).
type Track struct {
	// Rules is the track's rulebook: verdicts, statements, probative
	// table, the walk of a task's graph.
	Rules *season.Rules
	// Criteria answer one of its statements, for the reference solver.
	Criteria solver.Criteria
	// Checks are the linter's rules of its tree and statements.
	Checks *lint.Checks
}

// Register makes a track known to season, solver and lint. Its package
// calls it once, from init; it panics where one of them refuses the track
// (a second registration, a rulebook that does not fit its corpus.Track)
// or a part is missing.
func Register(t Track) {
	if t.Rules == nil || t.Criteria == nil || t.Checks == nil {
		panic("tracks: a track registers its rulebook, criteria and checks together")
	}
	season.Register(t.Rules)
	solver.Register(t.Rules.Track, t.Criteria)
	lint.Register(t.Rules.Track, t.Checks)
}
