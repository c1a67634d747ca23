package solver

import (
	"path/filepath"
	"testing"

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
			derived, problems, err := DeriveKey(tasks, readDesign(t, track), fetch)
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
		want  Problem
	}{
		{"another verdict", corpus.Conformity, func(d *season.Design) { d.Tasks[1].Verdict = "indeterminable" },
			Problem{"conf-02", RuleDerivation, "the design says indeterminable, the rules applied to the corpus give non_conforme"}},
		{"a fact the verdict does not rest on", corpus.Conformity, func(d *season.Design) {
			d.Tasks[4].Facts[0] = season.DesignFact{Resource: "/attestations/ATT-8150", Field: "/date_fin_validite"}
		}, Problem{"conf-05", RuleDerivation, "/attestations/ATT-8150 /date_fin_validite is not a fact the conforme verdict rests on"}},
		{"facts for a verdict the criteria decide", corpus.Conformity, func(d *season.Design) {
			d.Tasks[1].Facts = []season.DesignFact{{Resource: "/agrements/AGR-5120", Field: "/statut"}}
		}, Problem{"conf-02", RuleDerivation, "a non_conforme verdict is founded on the criteria that decide it: the design names no faits or un_de"}},
		{"no facts for a conforme verdict", corpus.Conformity, func(d *season.Design) { d.Tasks[4].Facts = nil },
			Problem{"conf-05", RuleDerivation, "a conforme verdict is founded on its trap: the design names no faits"}},
		{"alternatives on a task with a trap", corpus.Conformity, func(d *season.Design) { d.Tasks[4].Alternatives = d.Tasks[0].Alternatives },
			Problem{"conf-05", RuleDerivation, "un_de is the control task's: a task with a trap is founded on the trap's faits"}},
		{"a control task founded on nothing", corpus.Conformity, func(d *season.Design) { d.Tasks[0].Alternatives = nil },
			Problem{"conf-01", RuleDerivation, "the control task is founded on any one criterion proven whole: the design names no un_de, and no candidate is compared"}},
		{"a task the design lacks", corpus.Conformity, func(d *season.Design) { d.Tasks = d.Tasks[1:] },
			Problem{"conf-01", RuleDerivation, "the design has no entry for the task"}},
		{"a task twice", corpus.Conformity, func(d *season.Design) { d.Tasks = append(d.Tasks, d.Tasks[3]) },
			Problem{"conf-04", RuleDerivation, "the design has two entries for the task"}},
		{"a task the statements lack", corpus.Conformity, func(d *season.Design) {
			d.Tasks = append(d.Tasks, season.DesignTask{ID: "conf-11", Verdict: "conforme"})
		}, Problem{"conf-11", RuleDerivation, "the design has a task the statements do not"}},
		{"facts on the control task", corpus.Purchasing, func(d *season.Design) {
			d.Tasks[0].Facts = []season.DesignFact{{Resource: "/tarifs/TAR-ECR-2701", Field: "/prix_unitaire_ttc"}}
		}, Problem{"gen-01", RuleDerivation, "the control task has no trap: its design names un_de, not faits"}},
		{"a fact of no candidate", corpus.Purchasing, func(d *season.Design) {
			d.Tasks[7].Facts = []season.DesignFact{{Resource: "/tarifs/TAR-IMP-4410", Field: "/prix_unitaire_ttc"}}
		}, Problem{"gen-08", RuleDerivation, "/tarifs/TAR-IMP-4410 /prix_unitaire_ttc is not a fact the /produits/PCP-1405 verdict rests on"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tasks, _, fetch := readTrackSeason(t, tt.track)
			d := readDesign(t, tt.track)
			tt.edit(d)
			_, problems, err := DeriveKey(tasks, d, fetch)
			require.NoError(t, err)
			assert.Contains(t, problems, tt.want)
		})
	}
}

// Derive walks every criterion where Solve stops at the first established
// false: conf-09 fails R2 and R4, both deciding alternatives.
func TestDeriveEvaluatesEveryCriterion(t *testing.T) {
	tasks, _, fetch := readSeason(t)
	task, ok := tasks.Task("conf-09")
	require.True(t, ok)
	solved, err := Solve(task, fetch)
	require.NoError(t, err)
	derived, err := Derive(task, fetch)
	require.NoError(t, err)
	outcomes := func(res *Result) (out []Outcome) {
		for _, c := range res.Criteria {
			out = append(out, c.Outcome)
		}
		return out
	}
	assert.Equal(t, []Outcome{Met, Failed, Skipped, Skipped, Skipped, Skipped}, outcomes(solved))
	assert.Equal(t, []Outcome{Met, Failed, Skipped, Failed, Met, Met}, outcomes(derived))
	cases, all, err := Decided(task.Rules(), derived)
	require.NoError(t, err)
	assert.False(t, all)
	require.Len(t, cases, 2)
	assert.Equal(t, "R2", cases[0].Label)
	assert.Equal(t, "R4", cases[1].Label)
	assert.Less(t, len(solved.Calls), len(derived.Calls), "the agent's walk stops at R2")
}

// A case that rests on an absence (a supplied reference on no catalogue
// page) founds nothing: a key built on it is refused, while each candidate
// excluded by facts founds its alternatives.
func TestDecidedRefusesACaseNoAssertionStates(t *testing.T) {
	w, task := market(), needTask()
	w[supplierA]["statut"] = "suspendu"
	w[supplierB]["statut"] = "radie"
	res, err := Derive(task, w.fetcher(t))
	require.NoError(t, err)
	require.Equal(t, NoValidOption, res.Verdict)
	cases, all, err := Decided(season.Purchasing, res)
	require.NoError(t, err)
	assert.True(t, all)
	require.Len(t, cases, 2)
	assert.Equal(t, `/fournisseurs/FRN-A /statut = "suspendu"`, cases[0].Basis.String())

	// Supplied, on no catalogue page, its supplier active: only the
	// absence excludes it.
	w["/fournisseurs/FRN-C"] = doc{"ressource": "/fournisseurs/FRN-C", "existe": true, "statut": "actif", "conditions_livraison": deliverB}
	w["/produits/ECR-C"] = doc{
		"ressource": "/produits/ECR-C", "existe": true, "categorie": "ecrans", "fournisseur": "/fournisseurs/FRN-C",
		"caracteristiques": doc{"diagonale_pouces": "27", "dalle": "IPS"}, "tarif": "/tarifs/TAR-ECR-A", "disponibilite": "/disponibilites/DSP-ECR-A",
	}
	task.References = []string{"/produits/ECR-C"}
	res, err = Derive(task, w.fetcher(t))
	require.NoError(t, err)
	_, _, err = Decided(season.Purchasing, res)
	assert.ErrorContains(t, err, "the candidate /produits/ECR-C is excluded (G3: on no page of the ecrans catalogue")
	assert.ErrorContains(t, err, "on nothing an assertion can state")

	// With its supplier radie, it is excluded by G2 as well, which founds.
	w["/fournisseurs/FRN-C"]["statut"] = "radie"
	res, err = Derive(task, w.fetcher(t))
	require.NoError(t, err)
	cases, _, err = Decided(season.Purchasing, res)
	require.NoError(t, err)
	require.Len(t, cases, 3)
	assert.Equal(t, `/fournisseurs/FRN-C /statut = "radie"`, cases[2].Basis.String())
}
