package score

import (
	"slices"

	"github.com/arkforge/proveit-corpus/tools/season"
)

// conformity is the conformity track (CONTRACT.md section 5).
type conformity struct{ statements }

// ValidVerdict: one of the three verdicts.
func (conformity) ValidVerdict(verdict string) bool {
	return slices.Contains(season.Verdicts, verdict)
}
