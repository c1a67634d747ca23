package season

import "github.com/arkforge/proveit-corpus/corpus"

// Refusal is why an assertion on a resource's field cannot count for a
// task (specification 5.7, 6.6): the one rule the scorer applies at the
// close, the key's check holds the key's facts to, and the solver's forms
// keep to, so that a key can never demand what the scorer refuses.
type Refusal int

const (
	Admissible    Refusal = iota
	OutsideGraph          // the resource is not in the task's graph
	WholeDocument         // the field is the whole document (an empty pointer)
	NotProbative          // no rule reads the field in its collection
	OtherEntry            // a common list's entry that does not concern the task
)

// Admits says whether an assertion on resource's field counts for the task
// whose graph g is, or why not, in the order the checks are made.
func (g *Graph) Admits(resource, field string) Refusal {
	if !g.Contains(resource) {
		return OutsideGraph
	}
	ref, _ := corpus.ParseReference(resource)
	return g.AdmitsAt(ref, Tokens(field))
}

// AdmitsAt is Admits of a resource already parsed and a field already
// split (Tokens), as a submission's reader keeps them; a resource that is
// not a reference is the zero Reference, outside every graph.
func (g *Graph) AdmitsAt(ref corpus.Reference, tokens []string) Refusal {
	switch resource := ref.Path(); {
	case !g.Contains(resource):
		return OutsideGraph
	case len(tokens) == 1 && tokens[0] == "":
		return WholeDocument
	case !ProbativeAt(ref, tokens):
		return NotProbative
	case !g.Own[resource] && !g.concerns(ref, tokens):
		return OtherEntry
	}
	return Admissible
}

// OwnMinimum is how many of a task's assertions must be on its own
// resources: half its minimum, rounded up.
func OwnMinimum(assertionsMin int) int { return (assertionsMin + 1) / 2 }
