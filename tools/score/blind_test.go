package score

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// blindDir holds, per track and per agent, the submissions of careful
// participants who never saw the keys, unedited, and what the verifier
// established for each of their proofs (testdata/blind/README.md).
const blindDir = "testdata/blind"

// notCareful are the answers of blind agents that prove only one term of
// the comparison their verdict turns on: they stay unfounded.
var notCareful = map[string]string{
	"generique/gen-d/gen-08": "asserts the winner's total on page 2 but not the client's PCP-1402, whose price is only in the narrative",
}

// A key is fair when careful agents who never saw it are founded: every
// task a blind agent answers with the key's verdict is founded, but for
// the answers notCareful lists, and no submission is rejected.
func TestBlindAgentsAreFounded(t *testing.T) {
	for _, track := range corpus.Tracks {
		agents, err := os.ReadDir(filepath.Join(blindDir, track.Name))
		require.NoError(t, err)
		require.GreaterOrEqual(t, len(agents), 2, "at least two blind agents for %s", track.Name)
		for _, agent := range agents {
			t.Run(track.Name+"/"+agent.Name(), func(t *testing.T) {
				s, key := newTrackScorer(t, track)
				report := scoreAgent(t, s, filepath.Join(blindDir, track.Name, agent.Name()))
				require.Len(t, report.Tasks, len(key.Tasks))
				exact := 0
				for _, tr := range report.Tasks {
					require.Equal(t, Rendered, tr.Status, "%s: %s", tr.TaskID, deref(tr.Reason))
					if !tr.VerdictExact {
						continue
					}
					exact++
					if why, ok := notCareful[track.Name+"/"+agent.Name()+"/"+tr.TaskID]; ok {
						assert.False(t, *tr.VerdictFounded, "%s: founded, though it %s", tr.TaskID, why)
						continue
					}
					assert.True(t, *tr.VerdictFounded, "%s: exact but not founded, missing %v", tr.TaskID, tr.MissingFacts)
				}
				assert.Positive(t, exact)
			})
		}
	}
}

// scoreAgent scores every submission of one blind agent with the proofs
// its verifier file establishes.
func scoreAgent(t testing.TB, s *testScorer, dir string) *Report {
	t.Helper()
	proofsFile := filepath.Join(dir, "proofs.json")
	data, err := os.ReadFile(proofsFile)
	require.NoError(t, err)
	s.Proofs, err = ParseProofs(proofsFile, data)
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join(dir, "*-*.json"))
	require.NoError(t, err)
	var subs []Parsed
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		sub, err := ParseSubmission(file, data)
		subs = append(subs, Parsed{sub, err})
	}
	report, err := s.Score(subs)
	require.NoError(t, err)
	return report
}

// A guesser answers the key's verdict and asserts only its subject's own
// sheet (the entity's, or the product's it recommends, or with no product
// the first candidate's): it is founded on no task but the control.
func TestGuessersOfTheSubjectsSheetAreNotFounded(t *testing.T) {
	for _, track := range corpus.Tracks {
		t.Run(track.Name, func(t *testing.T) {
			s, key := newTrackScorer(t, track)
			for _, k := range key.Tasks {
				task := statement(t, s, k.ID)
				sheet := subjectSheet(t, s, task, k)
				var facts []season.Fact
				doc, err := pyjson.Parse(mustFetch(t, s, sheet))
				require.NoError(t, err)
				for _, m := range doc.(pyjson.Object) {
					if field := "/" + m.Key; len(facts) < task.AssertionsMin && season.Probative(sheet, field) {
						facts = append(facts, season.Fact{Resource: sheet, Field: field, Value: pyjson.Canonical(m.Value)})
					}
				}
				require.Len(t, facts, task.AssertionsMin, "%s: %s has too few probative fields", k.ID, sheet)
				tr := scoreOne(t, s, submission(t, s, k.ID, k.Verdict, facts))
				require.Equal(t, Rendered, tr.Status, "%s: %s", k.ID, deref(tr.Reason))
				if !k.Control {
					assert.False(t, *tr.VerdictFounded, "%s: the guesser asserting %s is founded", k.ID, sheet)
				}
			}
		})
	}
}

// subjectSheet is the resource a guesser asserts on.
func subjectSheet(t testing.TB, s *testScorer, task season.Task, k season.KeyTask) string {
	t.Helper()
	if cites := task.Rules().Cites; cites != nil {
		return cites(task)[0] // the entity
	}
	if strings.HasPrefix(k.Verdict, "/") {
		return k.Verdict
	}
	graph, err := season.TaskGraph(task, s.Fetch)
	require.NoError(t, err)
	for _, path := range slices.Sorted(maps.Keys(graph.Own)) {
		if corpus.CollectionOf(path) == graph.Rules.Choice {
			return path
		}
	}
	t.Fatalf("%s: no candidate", task.ID)
	return ""
}
