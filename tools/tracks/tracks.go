// Package tracks registers every track of the season: importing it makes
// each track's rulebook, criteria and checks known to season, solver and
// lint, which name no track themselves. A program that reads the season's
// files imports it once.
package tracks

import (
	// Each registers its track when imported.
	_ "github.com/arkforge/proveit-corpus/tools/tracks/conformity"
	_ "github.com/arkforge/proveit-corpus/tools/tracks/purchasing"
)
