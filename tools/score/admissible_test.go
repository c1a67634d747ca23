package score

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// The close check refuses exactly the assertions season.Admits refuses,
// which is also what the key's check and the solver's forms hold to: over
// every resource of each task's graph and one outside it, and fields that
// are probative, not probative, the whole document and common-list
// entries, the scorer's answer is the function's.
func TestCloseCheckIsAdmits(t *testing.T) {
	for _, track := range []*corpus.Track{corpus.Conformity, corpus.Purchasing} {
		s, _ := newTrackScorer(t, track)
		refusals := map[season.Refusal]int{}
		for _, task := range s.Tasks.Tasks {
			g, err := season.TaskGraph(task, s.Fetch)
			require.NoError(t, err)
			resources := []string{"/entites/ENT-0000"}
			for r := range g.Own {
				resources = append(resources, r)
			}
			for r := range g.Common {
				resources = append(resources, r)
			}
			for _, r := range resources {
				for _, field := range []string{"", "/statut", "/denomination", "/prix", "/entrees/0/entite", "/entrees/0/produit", "/page_suivante"} {
					refusal := g.Admits(r, field)
					refusals[refusal]++
					// As ParseSubmission reads a claim: its reference and pointer with it.
					ref, _ := corpus.ParseReference(r)
					a := Assertion{Claim: season.Fact{Resource: r, Field: field}, Reference: ref, Pointer: season.Tokens(field)}
					msg := closeCheck(&Submission{Assertions: []Assertion{a}}, g)
					assert.Equal(t, refusal == season.Admissible, msg == "", "%s %s %s: Admits %d, close check %q", task.ID, r, field, refusal, msg)
				}
			}
		}
		covered := []season.Refusal{season.Admissible, season.OutsideGraph, season.WholeDocument, season.NotProbative}
		if track == corpus.Conformity {
			// A purchasing task's candidates are every product its category
			// lists: every entry of its common lists concerns it.
			covered = append(covered, season.OtherEntry)
		}
		for _, r := range covered {
			assert.NotZero(t, refusals[r], "%s: the cases cover refusal %d", track.Name, r)
		}
	}
}
