package solver_test

import (
	"path/filepath"
	"testing"

	"github.com/arkforge/proveit-corpus/tools/solver"
	_ "github.com/arkforge/proveit-corpus/tools/tracks/all"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// readDesign reads a track's design from the repository root.
func readDesign(t *testing.T, track *corpus.Track) *season.Design {
	t.Helper()
	d, err := season.ReadDesign(filepath.Join("../..", season.DesignFile(track)), track.Name)
	require.NoError(t, err)
	return d
}

// The design derives each track's key, byte for byte: what proveit key
// writes and proveit key -check compares.
func TestDeriveKeyIsTheSealedKey(t *testing.T) {
	for _, track := range corpus.Tracks {
		t.Run(track.Name, func(t *testing.T) {
			tasks, key, fetch := readTrackSeason(t, track)
			derived, problems, err := solver.DeriveKey(tasks, readDesign(t, track), fetch)
			require.NoError(t, err)
			require.Empty(t, problems)
			want, err := key.Encode()
			require.NoError(t, err)
			got, err := derived.Encode()
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got))
		})
	}
}

// A design the corpus does not bear out is refused, naming the task and why.
func TestDeriveKeyRefusesADesignTheCorpusDoesNotBearOut(t *testing.T) {
	tests := []struct {
		name  string
		track *corpus.Track
		edit  func(d *season.Design)
		want  solver.Problem
	}{
		{"another verdict", corpus.Conformity, func(d *season.Design) { d.Tasks[1].Verdict = "indeterminable" },
			solver.Problem{"conf-02", solver.RuleDerivation, "the design says indeterminable, the rules applied to the corpus give non_conforme"}},
		{"a fact the verdict does not rest on", corpus.Conformity, func(d *season.Design) {
			d.Tasks[4].Facts[0] = season.Place{Resource: "/attestations/ATT-8150", Field: "/date_fin_validite"}
		}, solver.Problem{"conf-05", solver.RuleDerivation, "/attestations/ATT-8150 /date_fin_validite is not a fact the conforme verdict rests on"}},
		{"facts for a verdict the criteria decide", corpus.Conformity, func(d *season.Design) {
			d.Tasks[1].Facts = []season.Place{{Resource: "/agrements/AGR-5120", Field: "/statut"}}
		}, solver.Problem{"conf-02", solver.RuleDerivation, "a non_conforme verdict is founded on the criteria that decide it: the design names no faits or un_de"}},
		{"no facts for a conforme verdict", corpus.Conformity, func(d *season.Design) { d.Tasks[4].Facts = nil },
			solver.Problem{"conf-05", solver.RuleDerivation, "a conforme verdict is founded on its trap: the design names no faits"}},
		{"alternatives on a task with a trap", corpus.Conformity, func(d *season.Design) { d.Tasks[4].Alternatives = d.Tasks[0].Alternatives },
			solver.Problem{"conf-05", solver.RuleDerivation, "un_de is the control task's: a task with a trap is founded on the trap's faits"}},
		{"a control task founded on nothing", corpus.Conformity, func(d *season.Design) { d.Tasks[0].Alternatives = nil },
			solver.Problem{"conf-01", solver.RuleDerivation, "the control task is founded on any one criterion proven whole: the design names no un_de, and no candidate is compared"}},
		{"a task the design lacks", corpus.Conformity, func(d *season.Design) { d.Tasks = d.Tasks[1:] },
			solver.Problem{"conf-01", solver.RuleDerivation, "the design has no entry for the task"}},
		{"a task twice", corpus.Conformity, func(d *season.Design) { d.Tasks = append(d.Tasks, d.Tasks[3]) },
			solver.Problem{"conf-04", solver.RuleDerivation, "the design has two entries for the task"}},
		{"a task the statements lack", corpus.Conformity, func(d *season.Design) {
			d.Tasks = append(d.Tasks, season.DesignTask{ID: "conf-11", Verdict: "conforme"})
		}, solver.Problem{"conf-11", solver.RuleDerivation, "the design has a task the statements do not"}},
		{"facts on the control task", corpus.Purchasing, func(d *season.Design) {
			d.Tasks[0].Facts = []season.Place{{Resource: "/tarifs/TAR-ECR-2701", Field: "/prix_unitaire_ttc"}}
		}, solver.Problem{"gen-01", solver.RuleDerivation, "the control task has no trap: its design names un_de, not faits"}},
		{"a fact of no candidate", corpus.Purchasing, func(d *season.Design) {
			d.Tasks[7].Facts = []season.Place{{Resource: "/tarifs/TAR-IMP-4410", Field: "/prix_unitaire_ttc"}}
		}, solver.Problem{"gen-08", solver.RuleDerivation, "/tarifs/TAR-IMP-4410 /prix_unitaire_ttc is not a fact the /produits/PCP-1405 verdict rests on"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tasks, _, fetch := readTrackSeason(t, tt.track)
			d := readDesign(t, tt.track)
			tt.edit(d)
			_, problems, err := solver.DeriveKey(tasks, d, fetch)
			require.NoError(t, err)
			assert.Contains(t, problems, tt.want)
		})
	}
}

// solver.Derive walks every criterion where solver.Solve stops at the first established
// false: conf-09 fails R2 and R4, both deciding alternatives.
func TestDeriveEvaluatesEveryCriterion(t *testing.T) {
	tasks, _, fetch := readSeason(t)
	task, ok := tasks.Task("conf-09")
	require.True(t, ok)
	solved, err := solver.Solve(task, fetch)
	require.NoError(t, err)
	derived, err := solver.Derive(task, fetch)
	require.NoError(t, err)
	outcomes := func(res *solver.Result) (out []solver.Outcome) {
		for _, c := range res.Criteria {
			out = append(out, c.Outcome)
		}
		return out
	}
	assert.Equal(t, []solver.Outcome{solver.Met, solver.Failed, solver.Skipped, solver.Skipped, solver.Skipped, solver.Skipped}, outcomes(solved))
	assert.Equal(t, []solver.Outcome{solver.Met, solver.Failed, solver.Skipped, solver.Failed, solver.Met, solver.Met}, outcomes(derived))
	cases, all, err := solver.Decided(task.Rules(), derived)
	require.NoError(t, err)
	assert.False(t, all)
	require.Len(t, cases, 2)
	assert.Equal(t, "R2", cases[0].Label)
	assert.Equal(t, "R4", cases[1].Label)
	assert.Less(t, len(solved.Calls), len(derived.Calls), "the agent's walk stops at R2")
}
