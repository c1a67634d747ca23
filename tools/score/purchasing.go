package score

import (
	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/solver"
)

// purchasing is the generic track, purchasing on a fictional market
// (CONTRACT.md section 6). Its graph is the category's catalogue pages,
// playing the common lists' part, and the candidates' own resources.
type purchasing struct{ statements }

// ValidVerdict: a product's canonical path, or aucune_option_valide.
func (purchasing) ValidVerdict(verdict string) bool {
	return verdict == season.NoValidOption || solver.IsProductPath(verdict)
}
