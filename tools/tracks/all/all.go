// Package all imports every track of the season, each of which registers
// itself (tracks.Register) when imported. A program that reads the
// season's files imports it once, for its side effect.
package all

import (
	_ "github.com/arkforge/proveit-corpus/tools/tracks/conformity"
	_ "github.com/arkforge/proveit-corpus/tools/tracks/purchasing"
)
