package conformity

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/solver"
	"github.com/arkforge/proveit-corpus/tools/solver/solvertest"
)

// cleanWorld is conforme on 2026-10-05: one entity, its agrément listed
// actif, two attestations valid at the date, one beneficial owner who is
// on no list.
func cleanWorld() solvertest.World {
	return solvertest.World{
		"/referentiel": {
			"ressource":             "/referentiel",
			"attestations_requises": solvertest.Doc{"change-manuel": []any{"assurance-rc-pro", "regularite-fiscale"}},
			"listes_agrees":         solvertest.Doc{"change-manuel": "/listes/agrees/change-manuel"},
			"mesures_restrictives":  "/mesures-restrictives/MR-1",
		},
		"/entites/ENT-1": {
			"ressource": "/entites/ENT-1", "existe": true, "statut": "active",
			"agrements":     []any{"/agrements/AGR-1"},
			"attestations":  []any{"/attestations/ATT-1", "/attestations/ATT-2"},
			"beneficiaires": "/beneficiaires/ENT-1",
		},
		"/agrements/AGR-1": {
			"ressource": "/agrements/AGR-1", "existe": true, "entite": "/entites/ENT-1", "activite": "change-manuel",
			"statut": "actif", "date_debut": "2024-01-01", "date_fin_validite": "2027-12-31",
		},
		"/listes/agrees/change-manuel": {
			"ressource": "/listes/agrees/change-manuel",
			"entrees": []any{
				solvertest.Doc{"agrement": "/agrements/AGR-7", "entite": "/entites/ENT-7", "statut": "actif"},
				solvertest.Doc{"agrement": "/agrements/AGR-1", "entite": "/entites/ENT-1", "statut": "actif"},
			},
			"page_suivante": nil,
		},
		"/attestations/ATT-1": {
			"ressource": "/attestations/ATT-1", "existe": true, "entite": "/entites/ENT-1", "type": "assurance-rc-pro",
			"date_emission": "2026-01-01", "date_fin_validite": "2026-12-31", "avenants": []any{},
		},
		"/attestations/ATT-2": {
			"ressource": "/attestations/ATT-2", "existe": true, "entite": "/entites/ENT-1", "type": "regularite-fiscale",
			"date_emission": "2026-01-01", "date_fin_validite": "2026-12-31", "avenants": []any{},
		},
		"/beneficiaires/ENT-1": {
			"ressource": "/beneficiaires/ENT-1", "entite": "/entites/ENT-1", "statut_declaration": "complete",
			"entrees":       []any{owner("Marchetti", "Lucie Anne", "1979-04-12")},
			"page_suivante": nil,
		},
		"/mesures-restrictives/MR-1": {
			"ressource":     "/mesures-restrictives/MR-1",
			"entrees":       []any{owner("Durand", "Paul", "1960-01-01")},
			"page_suivante": nil,
		},
	}
}

func owner(nom, prenoms, naissance string) solvertest.Doc {
	return solvertest.Doc{"nom": nom, "prenoms": prenoms, "date_naissance": naissance}
}

func avenant(path, attestation, objet, effet string, newEnd, excluded any) solvertest.Doc {
	return solvertest.Doc{
		"ressource": path, "existe": true, "attestation": attestation, "objet": objet,
		"date_effet": effet, "nouvelle_date_fin": newEnd, "activite_exclue": excluded,
	}
}

func TestSolveRules(t *testing.T) {
	const (
		entity = "/entites/ENT-1"
		att1   = "/attestations/ATT-1"
		att2   = "/attestations/ATT-2"
	)
	tests := []struct {
		name      string
		edit      func(w solvertest.World, task *season.Task)
		want      solver.Verdict
		outcomes  string   // R1..R6 outcomes, initials: m met, f failed, u undetermined, s skipped
		wantFacts []string // facts the verdict must rest on, as season.Fact.String writes them
	}{
		{"clean", func(solvertest.World, *season.Task) {}, Compliant, "mmmmmm", nil},

		// R1
		{"entity radiee", func(w solvertest.World, _ *season.Task) { w[entity]["statut"] = "radiee" }, NonCompliant, "fsssss",
			[]string{`/entites/ENT-1 /statut = "radiee"`}},
		{"entity absent", func(w solvertest.World, _ *season.Task) { delete(w, entity) }, Indeterminable, "uuuuuu",
			[]string{`/entites/ENT-1 /existe = false`}},

		// R2, inclusive bounds
		{"examined on the agrément's first day", func(w solvertest.World, _ *season.Task) { w["/agrements/AGR-1"]["date_debut"] = "2026-10-05" }, Compliant, "mmmmmm", nil},
		{"examined on the agrément's last day", func(w solvertest.World, task *season.Task) {
			statementOf(*task).ExaminationDate = "2026-12-31"
			w["/agrements/AGR-1"]["date_fin_validite"] = "2026-12-31"
		}, Compliant, "mmmmmm", nil},
		{"agrément ended the day before", func(w solvertest.World, _ *season.Task) { w["/agrements/AGR-1"]["date_fin_validite"] = "2026-10-04" },
			NonCompliant, "mfssss", []string{`/agrements/AGR-1 /statut = "actif"`, `/agrements/AGR-1 /date_fin_validite = "2026-10-04"`}},
		{"agrément starts the day after", func(w solvertest.World, _ *season.Task) { w["/agrements/AGR-1"]["date_debut"] = "2026-10-06" },
			NonCompliant, "mfssss", []string{`/agrements/AGR-1 /date_debut = "2026-10-06"`}},
		{"agrément suspendu", func(w solvertest.World, _ *season.Task) { w["/agrements/AGR-1"]["statut"] = "suspendu" },
			NonCompliant, "mfssss", []string{`/agrements/AGR-1 /statut = "suspendu"`}},
		{"agrément for a neighbouring activity only", func(w solvertest.World, _ *season.Task) { w["/agrements/AGR-1"]["activite"] = "transfert-fonds" },
			NonCompliant, "mfssss", []string{`/entites/ENT-1 /agrements = ["/agrements/AGR-1"]`, `/agrements/AGR-1 /activite = "transfert-fonds"`}},
		{"the right agrément listed second", func(w solvertest.World, _ *season.Task) {
			w[entity]["agrements"] = []any{"/agrements/AGR-2", "/agrements/AGR-1"}
			w["/agrements/AGR-2"] = solvertest.Doc{"existe": true, "activite": "domiciliation", "statut": "actif", "date_debut": "2020-01-01", "date_fin_validite": "2030-01-01"}
		}, Compliant, "mmmmmm", []string{`/entites/ENT-1 /agrements/1 = "/agrements/AGR-1"`}},
		{"a listed agrément absent and no other valid", func(w solvertest.World, _ *season.Task) {
			w[entity]["agrements"] = []any{"/agrements/AGR-9"}
		}, Indeterminable, "muummm", []string{`/agrements/AGR-9 /existe = false`}},

		// R3
		{"list entry on a later page", func(w solvertest.World, _ *season.Task) {
			list := w["/listes/agrees/change-manuel"]
			w["/listes/agrees/change-manuel-p2"] = solvertest.Doc{"entrees": list["entrees"], "page_suivante": nil}
			list["entrees"], list["page_suivante"] = []any{}, "/listes/agrees/change-manuel-p2"
		}, Compliant, "mmmmmm", []string{`/listes/agrees/change-manuel-p2 /entrees/1/statut = "actif"`}},
		{"list entry says retire: a contradiction", func(w solvertest.World, _ *season.Task) {
			w["/listes/agrees/change-manuel"]["entrees"].([]any)[1].(solvertest.Doc)["statut"] = "retire"
		}, Indeterminable, "mmummm", []string{`/agrements/AGR-1 /statut = "actif"`, `/listes/agrees/change-manuel /entrees/1/statut = "retire"`}},
		{"no list entry", func(w solvertest.World, _ *season.Task) {
			w["/listes/agrees/change-manuel"]["entrees"] = []any{}
		}, NonCompliant, "mmfsss", nil},

		// R4
		{"attestation issued on the date", func(w solvertest.World, _ *season.Task) { w[att1]["date_emission"] = "2026-10-05" }, Compliant, "mmmmmm", nil},
		{"attestation ends on the date", func(w solvertest.World, _ *season.Task) { w[att1]["date_fin_validite"] = "2026-10-05" }, Compliant, "mmmmmm", nil},
		{"attestation expired the day before: non_conforme, not indeterminable", func(w solvertest.World, _ *season.Task) { w[att1]["date_fin_validite"] = "2026-10-04" },
			NonCompliant, "mmmfss", []string{`/attestations/ATT-1 /date_fin_validite = "2026-10-04"`}},
		{"attestation not yet issued", func(w solvertest.World, _ *season.Task) { w[att1]["date_emission"] = "2026-10-06" },
			NonCompliant, "mmmfss", []string{`/attestations/ATT-1 /date_emission = "2026-10-06"`}},
		{"a required type missing", func(w solvertest.World, _ *season.Task) { w[entity]["attestations"] = []any{att1} },
			NonCompliant, "mmmfss", []string{`/entites/ENT-1 /attestations = ["/attestations/ATT-1"]`}},
		{"an expired one and a valid one of the same type", func(w solvertest.World, _ *season.Task) {
			w[entity]["attestations"] = []any{"/attestations/ATT-3", att1, att2}
			w["/attestations/ATT-3"] = solvertest.Doc{"existe": true, "type": "assurance-rc-pro", "date_emission": "2024-01-01", "date_fin_validite": "2024-12-31", "avenants": []any{}}
		}, Compliant, "mmmmmm", nil},
		{"a prorogation carries it past the date", func(w solvertest.World, _ *season.Task) {
			w[att1]["date_fin_validite"] = "2026-06-30"
			w[att1]["avenants"] = []any{"/avenants/AVN-1"}
			w["/avenants/AVN-1"] = avenant("/avenants/AVN-1", att1, "prorogation", "2026-06-15", "2027-06-30", nil)
		}, Compliant, "mmmmmm", []string{`/attestations/ATT-1 /avenants/0 = "/avenants/AVN-1"`, `/avenants/AVN-1 /nouvelle_date_fin = "2027-06-30"`}},
		{"the latest prorogation wins, even with an earlier end", func(w solvertest.World, _ *season.Task) {
			w[att1]["date_fin_validite"] = "2026-06-30"
			w[att1]["avenants"] = []any{"/avenants/AVN-1", "/avenants/AVN-2"}
			w["/avenants/AVN-1"] = avenant("/avenants/AVN-1", att1, "prorogation", "2026-06-15", "2027-06-30", nil)
			w["/avenants/AVN-2"] = avenant("/avenants/AVN-2", att1, "prorogation", "2026-07-01", "2026-09-30", nil)
		}, NonCompliant, "mmmfss", []string{`/avenants/AVN-2 /date_effet = "2026-07-01"`, `/avenants/AVN-2 /nouvelle_date_fin = "2026-09-30"`}},
		{"the latest prorogation wins, listed first", func(w solvertest.World, _ *season.Task) {
			w[att1]["date_fin_validite"] = "2026-06-30"
			w[att1]["avenants"] = []any{"/avenants/AVN-2", "/avenants/AVN-1"}
			w["/avenants/AVN-1"] = avenant("/avenants/AVN-1", att1, "prorogation", "2026-06-15", "2026-09-30", nil)
			w["/avenants/AVN-2"] = avenant("/avenants/AVN-2", att1, "prorogation", "2026-07-01", "2027-06-30", nil)
		}, Compliant, "mmmmmm", []string{`/avenants/AVN-2 /nouvelle_date_fin = "2027-06-30"`}},
		{"a prorogation not yet in effect does not count", func(w solvertest.World, _ *season.Task) {
			w[att1]["date_fin_validite"] = "2026-06-30"
			w[att1]["avenants"] = []any{"/avenants/AVN-1"}
			w["/avenants/AVN-1"] = avenant("/avenants/AVN-1", att1, "prorogation", "2026-10-06", "2027-06-30", nil)
		}, NonCompliant, "mmmfss", []string{`/attestations/ATT-1 /date_fin_validite = "2026-06-30"`}},
		{"an exclusion in effect removes the cover", func(w solvertest.World, _ *season.Task) {
			w[att1]["avenants"] = []any{"/avenants/AVN-1"}
			w["/avenants/AVN-1"] = avenant("/avenants/AVN-1", att1, "exclusion", "2026-07-01", nil, "change-manuel")
		}, NonCompliant, "mmmfss", []string{`/avenants/AVN-1 /objet = "exclusion"`, `/avenants/AVN-1 /date_effet = "2026-07-01"`, `/avenants/AVN-1 /activite_exclue = "change-manuel"`}},
		{"an exclusion taking effect on the date", func(w solvertest.World, _ *season.Task) {
			w[att1]["avenants"] = []any{"/avenants/AVN-1"}
			w["/avenants/AVN-1"] = avenant("/avenants/AVN-1", att1, "exclusion", "2026-10-05", nil, "change-manuel")
		}, NonCompliant, "mmmfss", nil},
		{"an exclusion not yet in effect", func(w solvertest.World, _ *season.Task) {
			w[att1]["avenants"] = []any{"/avenants/AVN-1"}
			w["/avenants/AVN-1"] = avenant("/avenants/AVN-1", att1, "exclusion", "2026-10-06", nil, "change-manuel")
		}, Compliant, "mmmmmm", nil},
		{"an exclusion of another activity", func(w solvertest.World, _ *season.Task) {
			w[att1]["avenants"] = []any{"/avenants/AVN-1"}
			w["/avenants/AVN-1"] = avenant("/avenants/AVN-1", att1, "exclusion", "2026-07-01", nil, "transfert-fonds")
		}, Compliant, "mmmmmm", nil},
		{"a listed avenant absent", func(w solvertest.World, _ *season.Task) {
			w[att1]["avenants"] = []any{"/avenants/AVN-9"}
		}, Indeterminable, "mmmumm", []string{`/attestations/ATT-1 /avenants/0 = "/avenants/AVN-9"`, `/avenants/AVN-9 /existe = false`}},
		{"an absent avenant beside an exclusion in effect", func(w solvertest.World, _ *season.Task) {
			w[att1]["avenants"] = []any{"/avenants/AVN-9", "/avenants/AVN-1"}
			w["/avenants/AVN-1"] = avenant("/avenants/AVN-1", att1, "exclusion", "2026-07-01", nil, "change-manuel")
		}, NonCompliant, "mmmfss", nil},
		{"an absent cited attestation, the only one of its type", func(w solvertest.World, task *season.Task) {
			w[entity]["attestations"] = []any{att1, "/attestations/ATT-9"}
			task.References = []string{"/attestations/ATT-9"}
		}, Indeterminable, "mmmumm", []string{`/entites/ENT-1 /attestations/1 = "/attestations/ATT-9"`, `/attestations/ATT-9 /existe = false`}},
		{"an absent attestation cited by the statement only", func(w solvertest.World, task *season.Task) {
			w[entity]["attestations"] = []any{att1}
			task.References = []string{"/attestations/ATT-9"}
		}, Indeterminable, "mmmumm", []string{`/attestations/ATT-9 /existe = false`}},
		{"an absent attestation when every type is covered", func(w solvertest.World, _ *season.Task) {
			w[entity]["attestations"] = []any{"/attestations/ATT-9", att1, att2}
		}, Compliant, "mmmmmm", nil},
		{"a cited attestation the entity does not list does not count", func(w solvertest.World, task *season.Task) {
			w[entity]["attestations"] = []any{att1}
			task.References = []string{att2}
		}, NonCompliant, "mmmfss", nil},

		// R5
		{"declaration incomplete", func(w solvertest.World, _ *season.Task) {
			w["/beneficiaires/ENT-1"]["statut_declaration"] = "incomplete"
		},
			NonCompliant, "mmmmfs", []string{`/beneficiaires/ENT-1 /statut_declaration = "incomplete"`}},
		{"no declaration", func(w solvertest.World, _ *season.Task) { w[entity]["beneficiaires"] = nil },
			NonCompliant, "mmmmfs", []string{`/entites/ENT-1 /beneficiaires = null`}},
		{"declaration absent", func(w solvertest.World, _ *season.Task) { delete(w, "/beneficiaires/ENT-1") },
			Indeterminable, "mmmmuu", []string{`/beneficiaires/ENT-1 /existe = false`}},

		// R6
		{"a homonym born on another date is no match", func(w solvertest.World, _ *season.Task) {
			w["/mesures-restrictives/MR-1"]["entrees"] = []any{owner("Marchetti", "Lucie Anne", "1981-09-03")}
		}, Compliant, "mmmmmm", []string{
			`/beneficiaires/ENT-1 /entrees/0/date_naissance = "1979-04-12"`,
			`/mesures-restrictives/MR-1 /entrees/0/date_naissance = "1981-09-03"`,
		}},
		{"same name and date, other given names: no match", func(w solvertest.World, _ *season.Task) {
			w["/mesures-restrictives/MR-1"]["entrees"] = []any{owner("Marchetti", "Lucie", "1979-04-12")}
		}, Compliant, "mmmmmm", nil},
		{"all three fields match", func(w solvertest.World, _ *season.Task) {
			w["/mesures-restrictives/MR-1"]["entrees"] = []any{owner("Durand", "Paul", "1960-01-01"), owner("Marchetti", "Lucie Anne", "1979-04-12")}
		}, NonCompliant, "mmmmmf", []string{`/mesures-restrictives/MR-1 /entrees/1/date_naissance = "1979-04-12"`}},
		{"a match between later pages of both lists", func(w solvertest.World, _ *season.Task) {
			w["/beneficiaires/ENT-1"]["page_suivante"] = "/beneficiaires/ENT-1-p2"
			w["/beneficiaires/ENT-1-p2"] = solvertest.Doc{"statut_declaration": "complete", "entrees": []any{owner("Vasseur", "Hélène Margaux", "1968-02-21")}, "page_suivante": nil}
			w["/mesures-restrictives/MR-1"]["page_suivante"] = "/mesures-restrictives/MR-1-p2"
			w["/mesures-restrictives/MR-1-p2"] = solvertest.Doc{"entrees": []any{owner("Vasseur", "Hélène Margaux", "1968-02-21")}, "page_suivante": nil}
		}, NonCompliant, "mmmmmf", []string{
			`/beneficiaires/ENT-1 /page_suivante = "/beneficiaires/ENT-1-p2"`,
			`/beneficiaires/ENT-1-p2 /entrees/0/nom = "Vasseur"`,
			`/mesures-restrictives/MR-1-p2 /entrees/0/prenoms = "H\u00e9l\u00e8ne Margaux"`,
		}},

		// precedence
		{"false beats indeterminable: an expired agrément and an absent cited attestation", func(w solvertest.World, task *season.Task) {
			w[entity]["attestations"] = []any{att1, "/attestations/ATT-9"}
			w["/agrements/AGR-1"]["date_fin_validite"] = "2026-09-30"
			task.References = []string{"/attestations/ATT-9"}
		}, NonCompliant, "mfssss", []string{`/agrements/AGR-1 /date_fin_validite = "2026-09-30"`}},
		{"false beats indeterminable within R4", func(w solvertest.World, _ *season.Task) {
			w[att1]["avenants"] = []any{"/avenants/AVN-9"}
			w[att2]["date_fin_validite"] = "2026-09-30"
		}, NonCompliant, "mmmfss", []string{`/attestations/ATT-2 /date_fin_validite = "2026-09-30"`}},
		{"an absent attestation may be of any type", func(w solvertest.World, _ *season.Task) {
			w[entity]["attestations"] = []any{att1, "/attestations/ATT-9", att2}
			w[att1]["date_fin_validite"] = "2026-09-30"
		}, Indeterminable, "mmmumm", []string{`/attestations/ATT-9 /existe = false`}},
		{"a later failure beats an earlier contradiction", func(w solvertest.World, _ *season.Task) {
			w["/listes/agrees/change-manuel"]["entrees"].([]any)[1].(solvertest.Doc)["statut"] = "suspendu"
			w["/beneficiaires/ENT-1"]["statut_declaration"] = "incomplete"
		}, NonCompliant, "mmumfs", nil},
		{"a later failure beats an earlier absence", func(w solvertest.World, _ *season.Task) {
			w[entity]["attestations"] = []any{att1, "/attestations/ATT-9"}
			w["/mesures-restrictives/MR-1"]["entrees"] = []any{owner("Marchetti", "Lucie Anne", "1979-04-12")}
		}, NonCompliant, "mmmumf", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := cleanWorld()
			task := season.Task{ID: "t", Own: &Statement{Entity: entity, Activity: "change-manuel", ExaminationDate: "2026-10-05"}}
			tt.edit(w, &task)
			res, err := solver.Solve(task, w.Fetcher(t))
			require.NoError(t, err)
			assert.Equal(t, tt.want, res.Verdict)
			assert.Equal(t, tt.outcomes, initials(res.Criteria))
			facts := make([]string, len(res.Facts))
			for i, f := range res.Facts {
				facts[i] = f.String()
			}
			for _, f := range tt.wantFacts {
				assert.Contains(t, facts, f)
			}
		})
	}
}

// The solver fetches each path once, the referentiel first and as one call,
// and stops fetching at the first criterion established false.
func TestSolveCalls(t *testing.T) {
	task := season.Task{ID: "t", Own: &Statement{Entity: "/entites/ENT-1", Activity: "change-manuel", ExaminationDate: "2026-10-05"}}
	res, err := solver.Solve(task, cleanWorld().Fetcher(t))
	require.NoError(t, err)
	assert.Equal(t, []string{
		"/referentiel", "/entites/ENT-1", "/agrements/AGR-1", "/listes/agrees/change-manuel",
		"/attestations/ATT-1", "/attestations/ATT-2", "/beneficiaires/ENT-1", "/mesures-restrictives/MR-1",
	}, res.Calls)

	w := cleanWorld()
	w["/agrements/AGR-1"]["statut"] = "retire"
	res, err = solver.Solve(task, w.Fetcher(t))
	require.NoError(t, err)
	assert.Equal(t, []string{"/referentiel", "/entites/ENT-1", "/agrements/AGR-1"}, res.Calls)
}

// A corpus that breaks the contract is an error, never a verdict.
func TestSolveRefusesBrokenCorpus(t *testing.T) {
	tests := []struct {
		name string
		edit func(w solvertest.World, task *season.Task)
	}{
		{"an activity the referentiel does not know", func(_ solvertest.World, task *season.Task) { statementOf(*task).Activity = "crypto" }},
		{"a date that is not a date", func(_ solvertest.World, task *season.Task) { statementOf(*task).ExaminationDate = "05/10/2026" }},
		{"a date in a resource that is not a date", func(w solvertest.World, _ *season.Task) { w["/agrements/AGR-1"]["date_debut"] = "2024-02-30" }},
		{"a page loop", func(w solvertest.World, _ *season.Task) {
			w["/mesures-restrictives/MR-1"]["page_suivante"] = "/mesures-restrictives/MR-1"
		}},
		{"an unknown avenant objet", func(w solvertest.World, _ *season.Task) {
			w["/attestations/ATT-1"]["avenants"] = []any{"/avenants/AVN-1"}
			w["/avenants/AVN-1"] = avenant("/avenants/AVN-1", "/attestations/ATT-1", "resiliation", "2026-01-01", nil, nil)
		}},
		{"a number", func(w solvertest.World, _ *season.Task) { w["/entites/ENT-1"]["capital"] = 1000 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := cleanWorld()
			task := season.Task{ID: "t", Own: &Statement{Entity: "/entites/ENT-1", Activity: "change-manuel", ExaminationDate: "2026-10-05"}}
			tt.edit(w, &task)
			_, err := solver.Solve(task, w.Fetcher(t))
			assert.Error(t, err)
		})
	}
}

func initials(criteria []solver.Criterion) string {
	out := make([]byte, len(criteria))
	for i, c := range criteria {
		out[i] = c.Outcome[0]
	}
	return string(out)
}
