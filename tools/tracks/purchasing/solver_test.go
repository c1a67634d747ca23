package purchasing

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/solver"
	"github.com/arkforge/proveit-corpus/tools/solver/solvertest"
)

// Paths of the synthetic market.
const (
	rules     = "/regles-achat"
	page1     = "/catalogues/ecrans"
	page2     = "/catalogues/ecrans-p2"
	prodA     = "/produits/ECR-A"
	prodB     = "/produits/ECR-B"
	supplierA = "/fournisseurs/FRN-A"
	supplierB = "/fournisseurs/FRN-B"
	deliverA  = "/livraisons/LIV-A"
	deliverB  = "/livraisons/LIV-B"
	annexA    = "/livraisons/LIV-A-ANX"
)

// market is a synthetic purchasing solvertest.World with two valid options for
// needTask: A, at 100.00 × 10 + 20.00 = 1020.00 and B, at 110.00 × 10 +
// 0.00 = 1100.00, so A wins. Every rule holds for both with some margin.
func market() solvertest.World {
	w := solvertest.World{
		rules: {"ressource": rules, "catalogues": solvertest.Doc{"ecrans": page1}},
		page1: {
			"ressource": page1, "categorie": "ecrans",
			"entrees": []any{
				solvertest.Doc{"produit": prodA, "prix_affiche_ttc": "100.00", "etat_affiche": "en_stock"},
				solvertest.Doc{"produit": prodB, "prix_affiche_ttc": "110.00", "etat_affiche": "en_stock"},
			},
			"page_suivante": nil,
		},
		supplierA: {"ressource": supplierA, "existe": true, "statut": "actif", "conditions_livraison": deliverA},
		supplierB: {"ressource": supplierB, "existe": true, "statut": "actif", "conditions_livraison": deliverB},
		deliverA: {
			"ressource": deliverA, "existe": true, "fournisseur": supplierA, "zones": []any{"bretagne", "occitanie"},
			"delai_jours": "3", "frais_ttc": "20.00", "annexe": nil,
		},
		deliverB: {
			"ressource": deliverB, "existe": true, "fournisseur": supplierB, "zones": []any{"occitanie"},
			"delai_jours": "5", "frais_ttc": "0.00", "annexe": nil,
		},
	}
	for _, p := range []struct{ path, id, supplier, price string }{{prodA, "ECR-A", supplierA, "100.00"}, {prodB, "ECR-B", supplierB, "110.00"}} {
		w[p.path] = solvertest.Doc{
			"ressource": p.path, "existe": true, "categorie": "ecrans", "fournisseur": p.supplier,
			"caracteristiques": solvertest.Doc{"diagonale_pouces": "27", "dalle": "IPS"},
			"tarif":            "/tarifs/TAR-" + p.id, "disponibilite": "/disponibilites/DSP-" + p.id,
		}
		w["/tarifs/TAR-"+p.id] = solvertest.Doc{
			"ressource": "/tarifs/TAR-" + p.id, "existe": true, "produit": p.path, "prix_unitaire_ttc": p.price,
			"date_debut": "2026-09-01", "date_fin_validite": "2026-12-31",
		}
		w["/disponibilites/DSP-"+p.id] = solvertest.Doc{
			"ressource": "/disponibilites/DSP-" + p.id, "existe": true, "produit": p.path, "etat": "en_stock",
			"quantite_disponible": "40", "date_releve": "2026-10-01",
		}
	}
	return w
}

func needTask() season.Task {
	return season.Task{ID: "gen-t", Own: &Need{
		Category: "ecrans",
		Constraints: []Constraint{
			{Characteristic: "diagonale_pouces", Operator: ">=", Value: "27"},
			{Characteristic: "dalle", Operator: "=", Value: "IPS"},
		},
		Quantity: "10", Zone: "occitanie", OrderDate: "2026-10-06", DeliveryDeadline: "2026-10-11", MaxBudgetInclTax: "1500.00",
	}}
}

// TestSolvePurchaseRules edits the market once per rule, bound and trap of
// the purchasing track, and checks the verdict, what excluded the first
// candidate and the facts that say so.
func TestSolvePurchaseRules(t *testing.T) {
	tests := []struct {
		name      string
		edit      func(w solvertest.World, task *season.Task)
		want      solver.Verdict
		outcomeA  string   // "met", or the rule that excluded A and how: "G3 failed"
		wantFacts []string // facts the verdict must rest on
	}{
		{"control: two valid options, the cheaper wins", func(solvertest.World, *season.Task) {}, prodA, "met",
			[]string{`/tarifs/TAR-ECR-A /prix_unitaire_ttc = "100.00"`, `/livraisons/LIV-A /frais_ttc = "20.00"`, `/tarifs/TAR-ECR-B /prix_unitaire_ttc = "110.00"`}},

		// G1
		{"G1 a constraint missed by a small margin", func(w solvertest.World, _ *season.Task) {
			w[prodA]["caracteristiques"] = solvertest.Doc{"diagonale_pouces": "26.9", "dalle": "IPS"}
		}, prodB, "G1 failed", []string{`/produits/ECR-A /caracteristiques/diagonale_pouces = "26.9"`}},
		{"G1 >= compares numbers, not strings", func(w solvertest.World, _ *season.Task) {
			w[prodA]["caracteristiques"] = solvertest.Doc{"diagonale_pouces": "100", "dalle": "IPS"}
		}, prodA, "met", nil},
		{"G1 <= holds on its bound", func(w solvertest.World, task *season.Task) {
			needOf(*task).Constraints = append(needOf(*task).Constraints, Constraint{Characteristic: "diagonale_pouces", Operator: "<=", Value: "27.0"})
		}, prodA, "met", nil},
		{"G1 = compares strings exactly", func(w solvertest.World, _ *season.Task) {
			w[prodA]["caracteristiques"] = solvertest.Doc{"diagonale_pouces": "27", "dalle": "ips"}
		}, prodB, "G1 failed", []string{`/produits/ECR-A /caracteristiques/dalle = "ips"`}},
		{"G1 a missing characteristic does not hold", func(w solvertest.World, _ *season.Task) {
			w[prodA]["caracteristiques"] = solvertest.Doc{"diagonale_pouces": "27"}
		}, prodB, "G1 failed", nil},
		{"G1 a product of another category", func(w solvertest.World, _ *season.Task) { w[prodA]["categorie"] = "tablettes" },
			prodB, "G1 failed", []string{`/produits/ECR-A /categorie = "tablettes"`}},
		{"G1 P1: a supplied reference answers existe: false", func(w solvertest.World, task *season.Task) {
			task.References = []string{"/produits/ECR-OLD"}
		}, prodA, "met", []string{`/produits/ECR-OLD /existe = false`}},
		{"G1 a catalogue entry whose sheet answers existe: false", func(w solvertest.World, _ *season.Task) { delete(w, prodA) },
			prodB, "G1 undetermined", []string{`/produits/ECR-A /existe = false`}},
		{"a supplied reference on no catalogue page is no option", func(w solvertest.World, task *season.Task) {
			w["/produits/ECR-C"] = solvertest.Doc{
				"ressource": "/produits/ECR-C", "existe": true, "categorie": "ecrans", "fournisseur": supplierA,
				"caracteristiques": solvertest.Doc{"diagonale_pouces": "27", "dalle": "IPS"}, "tarif": "/tarifs/TAR-ECR-A", "disponibilite": "/disponibilites/DSP-ECR-A",
			}
			task.References = []string{"/produits/ECR-C"}
			w[page1]["entrees"] = w[page1]["entrees"].([]any)[1:]
		}, prodB, "", nil},

		// G2
		{"G2 supplier suspendu", func(w solvertest.World, _ *season.Task) { w[supplierA]["statut"] = "suspendu" },
			prodB, "G2 failed", []string{`/fournisseurs/FRN-A /statut = "suspendu"`}},
		{"G2 supplier radie", func(w solvertest.World, _ *season.Task) { w[supplierA]["statut"] = "radie" }, prodB, "G2 failed", nil},
		{"G2 supplier answers existe: false", func(w solvertest.World, _ *season.Task) { delete(w, supplierA) },
			prodB, "G2 undetermined", []string{`/fournisseurs/FRN-A /existe = false`}},

		// G3, inclusive bounds
		{"G3 ordered on the tarif's last day", func(w solvertest.World, _ *season.Task) { w["/tarifs/TAR-ECR-A"]["date_fin_validite"] = "2026-10-06" }, prodA, "met", nil},
		{"G3 ordered on the tarif's first day", func(w solvertest.World, _ *season.Task) { w["/tarifs/TAR-ECR-A"]["date_debut"] = "2026-10-06" }, prodA, "met", nil},
		{"G3 P2: the tarif expired the day before", func(w solvertest.World, _ *season.Task) { w["/tarifs/TAR-ECR-A"]["date_fin_validite"] = "2026-10-05" },
			prodB, "G3 failed", []string{`/tarifs/TAR-ECR-A /date_fin_validite = "2026-10-05"`}},
		{"G3 the tarif starts the day after", func(w solvertest.World, _ *season.Task) { w["/tarifs/TAR-ECR-A"]["date_debut"] = "2026-10-07" }, prodB, "G3 failed", nil},
		{"G3 P3: the catalogue's price contradicts the tarif", func(w solvertest.World, _ *season.Task) { w["/tarifs/TAR-ECR-A"]["prix_unitaire_ttc"] = "95.00" },
			prodB, "G3 undetermined", []string{`/catalogues/ecrans /entrees/0/prix_affiche_ttc = "100.00"`, `/tarifs/TAR-ECR-A /prix_unitaire_ttc = "95.00"`}},
		{"G3 the tarif answers existe: false", func(w solvertest.World, _ *season.Task) { delete(w, "/tarifs/TAR-ECR-A") }, prodB, "G3 undetermined", nil},

		// G4, the 15-day freshness window and its bounds
		{"G4 a record taken 15 days before is fresh", func(w solvertest.World, _ *season.Task) { w["/disponibilites/DSP-ECR-A"]["date_releve"] = "2026-09-21" }, prodA, "met", nil},
		{"G4 a record taken on the order date is fresh", func(w solvertest.World, _ *season.Task) { w["/disponibilites/DSP-ECR-A"]["date_releve"] = "2026-10-06" }, prodA, "met", nil},
		{"G4 P2: a record taken 16 days before is stale", func(w solvertest.World, _ *season.Task) { w["/disponibilites/DSP-ECR-A"]["date_releve"] = "2026-09-20" },
			prodB, "G4 undetermined", []string{`/disponibilites/DSP-ECR-A /date_releve = "2026-09-20"`}},
		{"G4 a record dated after the order", func(w solvertest.World, _ *season.Task) { w["/disponibilites/DSP-ECR-A"]["date_releve"] = "2026-10-07" }, prodB, "G4 undetermined", nil},
		{"G4 P3: the catalogue shows en_stock, the record rupture", func(w solvertest.World, _ *season.Task) { w["/disponibilites/DSP-ECR-A"]["etat"] = "rupture" },
			prodB, "G4 undetermined", []string{`/catalogues/ecrans /entrees/0/etat_affiche = "en_stock"`, `/disponibilites/DSP-ECR-A /etat = "rupture"`}},
		{"G4 the catalogue shows sur_commande: no call needed", func(w solvertest.World, _ *season.Task) {
			w[page1]["entrees"].([]any)[0].(solvertest.Doc)["etat_affiche"] = "sur_commande"
		}, prodB, "G4 failed", []string{`/catalogues/ecrans /entrees/0/etat_affiche = "sur_commande"`}},
		{"G4 too few units", func(w solvertest.World, _ *season.Task) { w["/disponibilites/DSP-ECR-A"]["quantite_disponible"] = "9" },
			prodB, "G4 failed", []string{`/disponibilites/DSP-ECR-A /quantite_disponible = "9"`}},
		{"G4 exactly enough units", func(w solvertest.World, _ *season.Task) { w["/disponibilites/DSP-ECR-A"]["quantite_disponible"] = "10" }, prodA, "met", nil},

		// G5
		{"G5 a zone not served", func(w solvertest.World, task *season.Task) { w[deliverA]["zones"] = []any{"bretagne"} },
			prodB, "G5 failed", []string{`/livraisons/LIV-A /zones = ["bretagne"]`}},
		{"G5 delivered on the last day", func(w solvertest.World, _ *season.Task) { w[deliverA]["delai_jours"] = "5" }, prodA, "met", nil},
		{"G5 delivered a day late", func(w solvertest.World, _ *season.Task) { w[deliverA]["delai_jours"] = "6" },
			prodB, "G5 failed", []string{`/livraisons/LIV-A /delai_jours = "6"`}},
		{"G5 P4: the annex excludes the zone", func(w solvertest.World, _ *season.Task) {
			withAnnex(w, solvertest.Doc{"zones_exclues": []any{"occitanie"}})
		},
			prodB, "G5 failed", []string{`/livraisons/LIV-A /annexe = "/livraisons/LIV-A-ANX"`, `/livraisons/LIV-A-ANX /zones_exclues/0 = "occitanie"`}},
		{"G5 P4: the annex's minimum is above the need", func(w solvertest.World, _ *season.Task) { withAnnex(w, solvertest.Doc{"quantite_minimum": "11"}) },
			prodB, "G5 failed", []string{`/livraisons/LIV-A-ANX /quantite_minimum = "11"`}},
		{"G5 the annex's maximum is below the need", func(w solvertest.World, _ *season.Task) { withAnnex(w, solvertest.Doc{"quantite_maximum": "9"}) }, prodB, "G5 failed", nil},
		{"G5 the annex's bounds include the need", func(w solvertest.World, _ *season.Task) {
			withAnnex(w, solvertest.Doc{"zones_exclues": []any{"corse"}, "quantite_minimum": "10", "quantite_maximum": "10"})
		}, prodA, "met", nil},
		{"G5 the annex answers existe: false", func(w solvertest.World, _ *season.Task) { w[deliverA]["annexe"] = annexA }, prodB, "G5 undetermined", nil},

		// G6 and the selection
		{"G6 the total exactly on the budget", func(w solvertest.World, task *season.Task) { needOf(*task).MaxBudgetInclTax = "1020.00" }, prodA, "met", nil},
		{"G6 the fees take the total over the budget", func(w solvertest.World, task *season.Task) {
			needOf(*task).MaxBudgetInclTax = "1019.99"
			w[deliverB]["frais_ttc"] = "50.00"
		}, NoValidOption, "G6 failed", nil},
		{"P5: the lowest displayed price loses on its fees", func(w solvertest.World, _ *season.Task) { w[deliverA]["frais_ttc"] = "100.01" },
			prodB, "met", []string{`/livraisons/LIV-A /frais_ttc = "100.01"`, `/tarifs/TAR-ECR-B /prix_unitaire_ttc = "110.00"`}},
		{"a tie goes to the smaller path", func(w solvertest.World, _ *season.Task) { w[deliverA]["frais_ttc"] = "100.00" }, prodA, "met", nil},
		{"a tie goes to the smaller path, whatever the order", func(w solvertest.World, _ *season.Task) {
			w[deliverA]["frais_ttc"] = "100.00"
			entries := w[page1]["entrees"].([]any)
			entries[0], entries[1] = entries[1], entries[0]
		}, prodA, "met", nil},
		{"exact cents: 3 × 33.33 + 0.01 = 100.00 is within 100.00", func(w solvertest.World, task *season.Task) {
			needOf(*task).Quantity, needOf(*task).MaxBudgetInclTax = "3", "100.00"
			w["/tarifs/TAR-ECR-A"]["prix_unitaire_ttc"] = "33.33"
			w[page1]["entrees"].([]any)[0].(solvertest.Doc)["prix_affiche_ttc"] = "33.33"
			w[deliverA]["frais_ttc"] = "0.01"
		}, prodA, "met", nil},
		{"no valid option", func(w solvertest.World, _ *season.Task) {
			w[supplierA]["statut"] = "suspendu"
			w[supplierB]["statut"] = "radie"
		}, NoValidOption, "G2 failed", nil},

		// Paging: the cheapest valid option on the second page.
		{"P4: the cheapest valid option is on the second page", func(w solvertest.World, _ *season.Task) {
			w[page1]["page_suivante"] = page2
			w[page2] = solvertest.Doc{"ressource": page2, "categorie": "ecrans", "page_suivante": nil, "entrees": []any{
				solvertest.Doc{"produit": "/produits/ECR-C", "prix_affiche_ttc": "90.00", "etat_affiche": "en_stock"},
			}}
			w["/produits/ECR-C"] = solvertest.Doc{
				"ressource": "/produits/ECR-C", "existe": true, "categorie": "ecrans", "fournisseur": supplierA,
				"caracteristiques": solvertest.Doc{"diagonale_pouces": "32", "dalle": "IPS"}, "tarif": "/tarifs/TAR-ECR-C", "disponibilite": "/disponibilites/DSP-ECR-A",
			}
			w["/tarifs/TAR-ECR-C"] = solvertest.Doc{"ressource": "/tarifs/TAR-ECR-C", "existe": true, "produit": "/produits/ECR-C",
				"prix_unitaire_ttc": "90.00", "date_debut": "2026-01-01", "date_fin_validite": "2026-12-31"}
		}, "/produits/ECR-C", "met", []string{`/tarifs/TAR-ECR-C /prix_unitaire_ttc = "90.00"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, task := market(), needTask()
			tt.edit(w, &task)
			res, err := solver.Solve(task, w.Fetcher(t))
			require.NoError(t, err)
			assert.Equal(t, tt.want, res.Verdict)
			if tt.outcomeA != "" {
				assert.Equal(t, tt.outcomeA, outcomeOf(res, prodA))
			}
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

// withAnnex gives supplier A's conditions an annex restricting what
// fields set; the others restrict nothing.
func withAnnex(w solvertest.World, fields solvertest.Doc) {
	annex := solvertest.Doc{"ressource": annexA, "existe": true, "fournisseur": supplierA,
		"zones_exclues": nil, "quantite_minimum": nil, "quantite_maximum": nil}
	for k, v := range fields {
		annex[k] = v
	}
	w[annexA] = annex
	w[deliverA]["annexe"] = annexA
}

// outcomeOf says what the rules came to for a candidate: "met", or the
// rule that excluded it and how.
func outcomeOf(res *solver.Result, product string) string {
	for _, c := range res.Criteria {
		if c.Code != product {
			continue
		}
		if c.Outcome == solver.Met {
			return "met"
		}
		return c.Reason[:2] + " " + string(c.Outcome)
	}
	return "not a candidate"
}

// The walk is an agent's: /regles-achat, the catalogue, then each
// candidate's resources in link order, each path once; a candidate the
// catalogue excludes costs no call.
func TestSolvePurchaseCalls(t *testing.T) {
	res, err := solver.Solve(needTask(), market().Fetcher(t))
	require.NoError(t, err)
	assert.Equal(t, []string{
		rules, page1,
		prodA, supplierA, deliverA, "/tarifs/TAR-ECR-A", "/disponibilites/DSP-ECR-A",
		prodB, supplierB, deliverB, "/tarifs/TAR-ECR-B", "/disponibilites/DSP-ECR-B",
	}, res.Calls)

	w := market()
	w[page1]["entrees"].([]any)[1].(solvertest.Doc)["etat_affiche"] = "rupture"
	w[supplierA]["statut"] = "suspendu"
	res, err = solver.Solve(needTask(), w.Fetcher(t))
	require.NoError(t, err)
	assert.Equal(t, solver.Verdict(NoValidOption), res.Verdict)
	assert.Equal(t, []string{rules, page1, prodA, supplierA}, res.Calls)
}

// A corpus or a statement that breaks the contract is an error, never a
// verdict.
func TestSolvePurchaseRefusesBrokenInput(t *testing.T) {
	tests := []struct {
		name string
		edit func(w solvertest.World, task *season.Task)
	}{
		{"a category /regles-achat does not know", func(_ solvertest.World, task *season.Task) { needOf(*task).Category = "tablettes" }},
		{"an order date that is not a date", func(_ solvertest.World, task *season.Task) { needOf(*task).OrderDate = "06/10/2026" }},
		{"a quantity that is not whole", func(_ solvertest.World, task *season.Task) { needOf(*task).Quantity = "2.5" }},
		{"a budget without cents", func(_ solvertest.World, task *season.Task) { needOf(*task).MaxBudgetInclTax = "1500" }},
		{"an unknown operator", func(_ solvertest.World, task *season.Task) { needOf(*task).Constraints[0].Operator = ">" }},
		{"a numeric constraint on a word", func(_ solvertest.World, task *season.Task) { needOf(*task).Constraints[0].Value = "grand" }},
		{"a displayed price that is not an amount", func(w solvertest.World, _ *season.Task) {
			w[page1]["entrees"].([]any)[0].(solvertest.Doc)["prix_affiche_ttc"] = "1e2"
		}},
		{"a tarif price that is not an amount", func(w solvertest.World, _ *season.Task) { w["/tarifs/TAR-ECR-A"]["prix_unitaire_ttc"] = "100" }},
		{"a delay that is not whole", func(w solvertest.World, _ *season.Task) { w[deliverA]["delai_jours"] = "3.5" }},
		{"a catalogue page loop", func(w solvertest.World, _ *season.Task) { w[page1]["page_suivante"] = page1 }},
		{"a number", func(w solvertest.World, _ *season.Task) { w[deliverA]["frais_ttc"] = 20 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, task := market(), needTask()
			tt.edit(w, &task)
			_, err := solver.Solve(task, w.Fetcher(t))
			assert.Error(t, err)
		})
	}
}

// The graph of a purchasing task: the catalogue pages are common, every
// candidate's resources are its own, absent ones included.
func TestPurchaseGraph(t *testing.T) {
	w, task := market(), needTask()
	withAnnex(w, nil)
	task.References = []string{"/produits/ECR-OLD"}
	g, err := season.TaskGraph(task, w.Fetcher(t))
	require.NoError(t, err)
	assert.Equal(t, map[string]bool{page1: true}, g.Common)
	for _, path := range []string{prodA, prodB, "/produits/ECR-OLD", supplierA, supplierB, deliverA, deliverB, annexA,
		"/tarifs/TAR-ECR-A", "/tarifs/TAR-ECR-B", "/disponibilites/DSP-ECR-A", "/disponibilites/DSP-ECR-B"} {
		assert.True(t, g.Own[path], path)
	}
	assert.Len(t, g.Own, 12)
	assert.False(t, g.Contains(rules), "the rules are asserted on by no one")
	assert.True(t, g.Concerns(page1, "/entrees/1/prix_affiche_ttc"))
	assert.False(t, g.Concerns(page1, "/page_suivante"), "a common list's link to its next page concerns no candidate")
	assert.False(t, g.Concerns(page1, "/entrees/2/prix_affiche_ttc"), "no such entry")
}

// A case that rests on an absence (a supplied reference on no catalogue
// page) founds nothing: a key built on it is refused, while each candidate
// excluded by facts founds its alternatives.
func TestDecidedRefusesACaseNoAssertionStates(t *testing.T) {
	w, task := market(), needTask()
	w[supplierA]["statut"] = "suspendu"
	w[supplierB]["statut"] = "radie"
	res, err := solver.Derive(task, w.Fetcher(t))
	require.NoError(t, err)
	require.Equal(t, solver.Verdict(NoValidOption), res.Verdict)
	cases, all, err := solver.Decided(Rules, res)
	require.NoError(t, err)
	assert.True(t, all)
	require.Len(t, cases, 2)
	assert.Equal(t, `/fournisseurs/FRN-A /statut = "suspendu"`, cases[0].Basis.String())

	// Supplied, on no catalogue page, its supplier active: only the
	// absence excludes it.
	w["/fournisseurs/FRN-C"] = solvertest.Doc{"ressource": "/fournisseurs/FRN-C", "existe": true, "statut": "actif", "conditions_livraison": deliverB}
	w["/produits/ECR-C"] = solvertest.Doc{
		"ressource": "/produits/ECR-C", "existe": true, "categorie": "ecrans", "fournisseur": "/fournisseurs/FRN-C",
		"caracteristiques": solvertest.Doc{"diagonale_pouces": "27", "dalle": "IPS"}, "tarif": "/tarifs/TAR-ECR-A", "disponibilite": "/disponibilites/DSP-ECR-A",
	}
	task.References = []string{"/produits/ECR-C"}
	res, err = solver.Derive(task, w.Fetcher(t))
	require.NoError(t, err)
	_, _, err = solver.Decided(Rules, res)
	assert.ErrorContains(t, err, "the candidate /produits/ECR-C is excluded (G3: on no page of the ecrans catalogue")
	assert.ErrorContains(t, err, "on nothing an assertion can state")

	// With its supplier radie, it is excluded by G2 as well, which founds.
	w["/fournisseurs/FRN-C"]["statut"] = "radie"
	res, err = solver.Derive(task, w.Fetcher(t))
	require.NoError(t, err)
	cases, _, err = solver.Decided(Rules, res)
	require.NoError(t, err)
	require.Len(t, cases, 3)
	assert.Equal(t, `/fournisseurs/FRN-C /statut = "radie"`, cases[2].Basis.String())
}
