package purchasing

import (
	"io/fs"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/lint"
	"github.com/arkforge/proveit-corpus/tools/lint/linttest"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// purchaseDocs is a small purchasing tree that lints clean: one category
// on two catalogue pages, a product with its tarif and availability
// record, a supplier whose conditions carry an annex.
var purchaseDocs = map[string]string{
	"regles-achat.json": `{"ressource": "/regles-achat", "titre": "Règles d'achat", "version": "saison-1", "date_publication": "2026-09-01",
		"regles": [{"code": "G1", "intitule": "Produit", "regle": "Il existe."}],
		"option_valide": "Toutes les règles.", "selection": "Le total le plus bas.", "bornes_de_dates": "incluses",
		"fraicheur_des_releves": "quinze jours", "application_des_annexes": "elles restreignent",
		"catalogues": {"ecrans": "/catalogues/ecrans"}, ` + linttest.Notation(Rules) + `}`,
	"catalogues/ecrans.json": `{"ressource": "/catalogues/ecrans", "categorie": "ecrans", "date_publication": "2026-10-01", "page": "1",
		"entrees": [{"produit": "/produits/ECR-1", "prix_affiche_ttc": "289.90", "etat_affiche": "en_stock"}],
		"page_suivante": "/catalogues/ecrans-p2"}`,
	"catalogues/ecrans-p2.json": `{"ressource": "/catalogues/ecrans-p2", "categorie": "ecrans", "date_publication": "2026-10-01", "page": "2",
		"entrees": [], "page_suivante": null}`,
	"produits/ECR-1.json": `{"ressource": "/produits/ECR-1", "existe": true, "designation": "Écran Lumérac 27", "categorie": "ecrans",
		"fournisseur": "/fournisseurs/FRN-1", "caracteristiques": {"diagonale_pouces": "27", "dalle": "IPS"},
		"tarif": "/tarifs/TAR-ECR-1", "disponibilite": "/disponibilites/DSP-ECR-1"}`,
	"tarifs/TAR-ECR-1.json": `{"ressource": "/tarifs/TAR-ECR-1", "existe": true, "produit": "/produits/ECR-1", "prix_unitaire_ttc": "289.90",
		"date_debut": "2026-09-01", "date_fin_validite": "2027-03-31"}`,
	"disponibilites/DSP-ECR-1.json": `{"ressource": "/disponibilites/DSP-ECR-1", "existe": true, "produit": "/produits/ECR-1", "etat": "en_stock",
		"quantite_disponible": "40", "date_releve": "2026-10-02"}`,
	"fournisseurs/FRN-1.json": `{"ressource": "/fournisseurs/FRN-1", "existe": true, "raison_sociale": "Comptoir Rhône-Alpes", "siret": "73282932100017",
		"siege": "3 impasse du Héron-Cendré, 00102 Port-Sérenne", "statut": "actif",
		"conditions_livraison": "/livraisons/LIV-1"}`,
	"livraisons/LIV-1.json": `{"ressource": "/livraisons/LIV-1", "existe": true, "fournisseur": "/fournisseurs/FRN-1", "zones": ["corse", "occitanie"],
		"delai_jours": "4", "frais_ttc": "39.00", "annexe": "/livraisons/LIV-1-ANX"}`,
	"livraisons/LIV-1-ANX.json": `{"ressource": "/livraisons/LIV-1-ANX", "existe": true, "fournisseur": "/fournisseurs/FRN-1", "zones_exclues": ["corse"],
		"quantite_minimum": null, "quantite_maximum": "200"}`,
	"_systeme/404.json": `{"erreur": "hors_corpus", "message": "Chemin hors corpus."}`,
}

func newPurchaseWorld(t *testing.T) *linttest.World {
	t.Helper()
	return linttest.WorldOf(t, purchaseDocs)
}

// withHeadset adds a headset category to a purchasing world: its catalogue
// page and one product, CSQ-1, with the given designation and connexion and,
// unless autonomy is "", autonomie_heures.
func withHeadset(t *testing.T, w *linttest.World, designation, connexion, autonomy string) {
	t.Helper()
	chars := `{"reduction_bruit": "active", "connexion": "` + connexion + `"`
	if autonomy != "" {
		chars += `, "autonomie_heures": "` + autonomy + `"`
	}
	chars += `}`
	more := linttest.WorldOf(t, map[string]string{
		"catalogues/casques-audio.json": `{"ressource": "/catalogues/casques-audio", "categorie": "casques-audio", "date_publication": "2026-10-01", "page": "1",
			"entrees": [{"produit": "/produits/CSQ-1", "prix_affiche_ttc": "119.00", "etat_affiche": "en_stock"}], "page_suivante": null}`,
		"produits/CSQ-1.json": `{"ressource": "/produits/CSQ-1", "existe": true, "designation": "` + designation + `", "categorie": "casques-audio",
			"fournisseur": "/fournisseurs/FRN-1", "caracteristiques": ` + chars + `, "tarif": "/tarifs/TAR-CSQ-1", "disponibilite": "/disponibilites/DSP-CSQ-1"}`,
		"tarifs/TAR-CSQ-1.json": `{"ressource": "/tarifs/TAR-CSQ-1", "existe": true, "produit": "/produits/CSQ-1", "prix_unitaire_ttc": "119.00",
			"date_debut": "2026-09-01", "date_fin_validite": "2027-03-31"}`,
		"disponibilites/DSP-CSQ-1.json": `{"ressource": "/disponibilites/DSP-CSQ-1", "existe": true, "produit": "/produits/CSQ-1", "etat": "en_stock",
			"quantite_disponible": "60", "date_releve": "2026-10-02"}`,
	})
	for file, doc := range more.Docs {
		w.Docs[file] = doc
	}
	w.Set("regles-achat.json", "/catalogues/casques-audio", "/catalogues/casques-audio")
}

// Each broken purchasing tree gives exactly the findings listed.
func TestLintBrokenPurchasingTrees(t *testing.T) {
	const (
		rules   = "regles-achat.json"
		page    = "catalogues/ecrans.json"
		page2   = "catalogues/ecrans-p2.json"
		product = "produits/ECR-1.json"
		tarif   = "tarifs/TAR-ECR-1.json"
		record  = "disponibilites/DSP-ECR-1.json"
		vendor  = "fournisseurs/FRN-1.json"
		terms   = "livraisons/LIV-1.json"
		annex   = "livraisons/LIV-1-ANX.json"
	)
	tests := []struct {
		name string
		edit func(w *linttest.World)
		want []string
	}{
		{"clean", func(*linttest.World) {}, nil},
		{"another track's resource in the tree", func(w *linttest.World) {
			w.Raw["entites/ENT-1.json"] = "{\n  \"existe\": true\n}\n"
		}, []string{`entites/ENT-1.json: /entites/ENT-1 belongs to the track conformite, not generique (rule: file-name)`}},
		{"a supplier statut outside the vocabulary", func(w *linttest.World) { w.Set(vendor, "/statut", "inactif") },
			[]string{`fournisseurs/FRN-1.json /statut: statut "inactif" is not one of actif, suspendu, radie (rule: vocabulary)`}},
		{"an availability state outside the vocabulary", func(w *linttest.World) { w.Set(record, "/etat", "disponible") },
			[]string{`disponibilites/DSP-ECR-1.json /etat: etat "disponible" is not one of en_stock, rupture, sur_commande (rule: vocabulary)`}},
		{"a displayed state outside the vocabulary", func(w *linttest.World) { w.Set(page, "/entrees/0/etat_affiche", "stock") },
			[]string{`catalogues/ecrans.json /entrees/0/etat_affiche: etat_affiche "stock" is not one of en_stock, rupture, sur_commande (rule: vocabulary)`}},
		{"an amount with one decimal", func(w *linttest.World) { w.Set(tarif, "/prix_unitaire_ttc", "289.9") },
			[]string{`tarifs/TAR-ECR-1.json /prix_unitaire_ttc: amount "289.9" is not euros with two decimals, like "1249.90" (rule: decimal)`}},
		{"an amount with a comma", func(w *linttest.World) { w.Set(terms, "/frais_ttc", "39,00") },
			[]string{`livraisons/LIV-1.json /frais_ttc: amount "39,00" is not euros with two decimals, like "1249.90" (rule: decimal)`}},
		{"a quantity with a leading zero", func(w *linttest.World) { w.Set(record, "/quantite_disponible", "040") },
			[]string{`disponibilites/DSP-ECR-1.json /quantite_disponible: quantity "040" is not a whole number written in digits, like "12" (rule: decimal)`}},
		{"a JSON number", func(w *linttest.World) { w.Raw[terms] = "{\n  \"delai_jours\": 4\n}\n" },
			[]string{`livraisons/LIV-1.json /delai_jours: numbers are not allowed in the corpus (strings, booleans and null only) (byte 0) (rule: json)`}},
		{"a characteristic that is not a string", func(w *linttest.World) { w.Set(product, "/caracteristiques/dalle", true) },
			[]string{`produits/ECR-1.json /caracteristiques/dalle: want a string, got a boolean (rule: schema)`}},
		{"a category /regles-achat does not know", func(w *linttest.World) { w.Set(product, "/categorie", "tablettes") }, []string{
			`catalogues/ecrans.json /entrees/0/produit: /produits/ECR-1 is in category "tablettes", this catalogue is "ecrans" (rule: links)`,
			`produits/ECR-1.json /categorie: categorie "tablettes" is not a category of /regles-achat (rule: vocabulary)`,
		}},
		{"ressource is not the own path", func(w *linttest.World) { w.Set(tarif, "/ressource", "/tarifs/TAR-ECR-2") },
			[]string{`tarifs/TAR-ECR-1.json /ressource: ressource "/tarifs/TAR-ECR-2" is not the file's own path /tarifs/TAR-ECR-1 (rule: ressource)`}},
		{"a tarif into the wrong collection", func(w *linttest.World) { w.Set(product, "/tarif", "/disponibilites/DSP-ECR-1") }, []string{
			`produits/ECR-1.json /tarif: "/disponibilites/DSP-ECR-1" points into /disponibilites, want /tarifs (rule: references)`,
			`tarifs/TAR-ECR-1.json /produit: /produits/ECR-1 names /disponibilites/DSP-ECR-1 as its tarif, not this resource (rule: links)`,
		}},
		{"a tarif for another product", func(w *linttest.World) { w.Set(tarif, "/produit", "/produits/ECR-2") }, []string{
			`produits/ECR-1.json /tarif: /tarifs/TAR-ECR-1 names /produits/ECR-2 as its produit, not this resource (rule: links)`,
			`tarifs/TAR-ECR-1.json /produit: "/produits/ECR-2" does not resolve: no file produits/ECR-2.json (rule: references)`,
		}},
		{"conditions naming another supplier", func(w *linttest.World) {
			w.Docs["fournisseurs/FRN-2.json"] = w.Docs[vendor]
			w.Set("fournisseurs/FRN-2.json", "/ressource", "/fournisseurs/FRN-2")
			w.Set("fournisseurs/FRN-2.json", "/siret", "44306184200021").Set("fournisseurs/FRN-2.json", "/siege", "8 rue des Trois-Cadrans, 00101 Valbrune")
			w.Set(terms, "/fournisseur", "/fournisseurs/FRN-2")
		}, []string{
			`fournisseurs/FRN-1.json /conditions_livraison: /livraisons/LIV-1 names /fournisseurs/FRN-2 as its fournisseur, not this resource (rule: links)`,
		}},
		{"an annex no conditions apply", func(w *linttest.World) { w.Set(terms, "/annexe", nil) },
			[]string{`livraisons/LIV-1-ANX.json /fournisseur: the conditions /livraisons/LIV-1 of /fournisseurs/FRN-1 do not name this annex (rule: links)`}},
		{"an annex bound that is not a count", func(w *linttest.World) { w.Set(annex, "/quantite_minimum", "5.5") },
			[]string{`livraisons/LIV-1-ANX.json /quantite_minimum: quantity "5.5" is not a whole number written in digits, like "12" (rule: decimal)`}},
		{"conditions without zones", func(w *linttest.World) { w.Set(terms, "/zones", linttest.Deleted{}) },
			[]string{`livraisons/LIV-1.json: required field "zones" is missing (rule: schema)`}},
		{"a catalogue page nobody reaches", func(w *linttest.World) { w.Set(page, "/page_suivante", nil) },
			[]string{`catalogues/ecrans-p2.json: not reached from any first page through page_suivante (rule: pages)`}},
		{"a catalogue page of another category in the chain", func(w *linttest.World) { w.Set(page2, "/categorie", "tablettes") }, []string{
			`catalogues/ecrans-p2.json /categorie: categorie "tablettes" is not a category of /regles-achat (rule: vocabulary)`,
			`catalogues/ecrans-p2.json /categorie: "tablettes", but the page is in the chain from /regles-achat /catalogues/ecrans, for "ecrans" (rule: links)`,
		}},
		{"a date that is not a date", func(w *linttest.World) { w.Set(record, "/date_releve", "2026-09-31") },
			[]string{`disponibilites/DSP-ECR-1.json /date_releve: date "2026-09-31" is not a calendar date (rule: dates)`}},

		// identifiers
		{"a SIRET of 13 digits", func(w *linttest.World) { w.Set(vendor, "/siret", "7328293210001") },
			[]string{`fournisseurs/FRN-1.json /siret: siret "7328293210001" is not 14 digits (rule: identifier)`}},
		{"a SIRET that passes the Luhn check", func(w *linttest.World) { w.Set(vendor, "/siret", "73282932100015") },
			[]string{`fournisseurs/FRN-1.json /siret: siret "73282932100015" passes the Luhn check: a number INSEE may have issued; a fictitious SIRET fails it (rule: identifier)`}},
		{"a SIRET whose SIREN passes the Luhn check", func(w *linttest.World) { w.Set(vendor, "/siret", "73282932000018") },
			[]string{`fournisseurs/FRN-1.json /siret: siret "73282932000018" begins with a SIREN that passes the Luhn check: 732829320, a number INSEE may have issued; a fictitious SIREN fails it (rule: identifier)`}},
		{"two suppliers with one SIRET", func(w *linttest.World) {
			w.Docs["fournisseurs/FRN-2.json"] = w.Docs[vendor]
			w.Set("fournisseurs/FRN-2.json", "/ressource", "/fournisseurs/FRN-2")
			w.Set("fournisseurs/FRN-2.json", "/siege", "8 rue des Trois-Cadrans, 00101 Valbrune")
		}, []string{
			`fournisseurs/FRN-2.json /conditions_livraison: /livraisons/LIV-1 names /fournisseurs/FRN-1 as its fournisseur, not this resource (rule: links)`,
			`fournisseurs/FRN-2.json /siret: siret "73282932100017" is also /fournisseurs/FRN-1's (rule: identifier)`,
		}},
		{"a supplier without a SIRET", func(w *linttest.World) { w.Set(vendor, "/siret", linttest.Deleted{}) },
			[]string{`fournisseurs/FRN-1.json: required field "siret" is missing (rule: schema)`}},

		// addresses
		{"a supplier at a real address", func(w *linttest.World) { w.Set(vendor, "/siege", "14 quai Perrache, 69002 Lyon") },
			[]string{`fournisseurs/FRN-1.json /siege: siege "14 quai Perrache, 69002 Lyon" is not a fictional address "<numéro> <voie>, 00NNN <commune>" (no real postal code begins with 00) (rule: address)`}},

		// products' kinds
		{"a wireless headset", func(w *linttest.World) { withHeadset(t, w, "Lumérac Silence 30", "Bluetooth et USB-C", "30") }, nil},
		{"a wired headset", func(w *linttest.World) { withHeadset(t, w, "Ivrelle Studio filaire", "USB-A", "") }, nil},
		{"a wired headset with a battery", func(w *linttest.World) { withHeadset(t, w, "Ivrelle Studio filaire", "USB-A", "40") },
			[]string{`produits/CSQ-1.json /caracteristiques/autonomie_heures: a wired headset (connexion "USB-A") has no battery, so no autonomie_heures (rule: product-kind)`}},
		{"a wireless headset without a battery", func(w *linttest.World) { withHeadset(t, w, "Orvéane Calme 24", "Bluetooth", "") },
			[]string{`produits/CSQ-1.json /caracteristiques: a wireless headset (connexion "Bluetooth") runs on a battery: autonomie_heures is missing (rule: product-kind)`}},
		{"a headset named wired that is wireless", func(w *linttest.World) { withHeadset(t, w, "Ivrelle Studio filaire", "Bluetooth", "40") },
			[]string{`produits/CSQ-1.json /designation: designation "Ivrelle Studio filaire" says wired, connexion "Bluetooth" is wireless (rule: product-kind)`}},
		{"a yes-or-no characteristic that is neither", func(w *linttest.World) { w.Set(product, "/caracteristiques/ethernet", "peut-être") },
			[]string{`produits/ECR-1.json /caracteristiques/ethernet: ethernet "peut-être" is neither oui nor non (rule: product-kind)`}},
		{"a measure in words", func(w *linttest.World) { w.Set(product, "/caracteristiques/poids_kg", "léger") },
			[]string{`produits/ECR-1.json /caracteristiques/poids_kg: poids_kg is a measure, "léger" is not a decimal string (rule: product-kind)`}},

		// the rules' numbered references
		{"a rule numbered out of order", func(w *linttest.World) { w.Set(rules, "/regles/0/code", "G2") },
			[]string{`regles-achat.json /regles/0/code: code "G2" is the criterion at position 1: want "G1" (rule: rules-text)`}},
		{"a text naming a rule that does not exist", func(w *linttest.World) { w.Set(rules, "/option_valide", "Les règles G1 à G6.") },
			[]string{`regles-achat.json /option_valide: names G6, which is not a code of /regles (rule: rules-text)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newPurchaseWorld(t)
			tt.edit(w)
			report := lint.Lint(w.Tree(), lint.Options{Track: corpus.Purchasing})
			assert.Equal(t, tt.want, linttest.FindingLines(report))
		})
	}
}

// The statements of the purchasing track are checked like its files.
func TestLintPurchasingTasks(t *testing.T) {
	good := Need{
		Category:    "ecrans",
		Constraints: []Constraint{{Characteristic: "diagonale_pouces", Operator: ">=", Value: "27"}},
		Quantity:    "12", Zone: "occitanie", OrderDate: "2026-10-06", DeliveryDeadline: "2026-10-16", MaxBudgetInclTax: "6000.00",
	}
	tests := []struct {
		name string
		edit func(task *season.Task, w *linttest.World)
		want []string
	}{
		{"clean", func(*season.Task, *linttest.World) {}, nil},
		{"an unknown category", func(task *season.Task, _ *linttest.World) { needOf(*task).Category = "tablettes" },
			[]string{`taches-generique.json /taches/0/categorie: categorie "tablettes" is not a category of /regles-achat (rule: vocabulary)`}},
		{"an unknown operator", func(task *season.Task, _ *linttest.World) { needOf(*task).Constraints[0].Operator = ">" },
			[]string{`taches-generique.json /taches/0/contraintes/0/operateur: operateur ">" is not one of >=, <=, = (rule: vocabulary)`}},
		{"a numeric comparison with a word", func(task *season.Task, _ *linttest.World) { needOf(*task).Constraints[0].Value = "grand" },
			[]string{`taches-generique.json /taches/0/contraintes/0/valeur: valeur "grand" is compared as a number but is not a decimal string (rule: decimal)`}},
		{"a product that spells a compared characteristic as a word", func(_ *season.Task, w *linttest.World) {
			w.Set("produits/ECR-1.json", "/caracteristiques/diagonale_pouces", "vingt-sept")
		}, []string{
			`produits/ECR-1.json /caracteristiques/diagonale_pouces: diagonale_pouces is a measure, "vingt-sept" is not a decimal string (rule: product-kind)`,
			`taches-generique.json /taches/0/contraintes/0/caracteristique: diagonale_pouces is compared as a number, but /produits/ECR-1 spells it "vingt-sept" (rule: decimal)`,
		}},
		{"a quantity that is not whole", func(task *season.Task, _ *linttest.World) { needOf(*task).Quantity = "1.5" },
			[]string{`taches-generique.json /taches/0/quantite: quantity "1.5" is not a whole number written in digits, like "12" (rule: decimal)`}},
		{"a budget without cents", func(task *season.Task, _ *linttest.World) { needOf(*task).MaxBudgetInclTax = "6000" },
			[]string{`taches-generique.json /taches/0/budget_max_ttc: amount "6000" is not euros with two decimals, like "1249.90" (rule: decimal)`}},
		{"a zone that is not a word", func(task *season.Task, _ *linttest.World) { needOf(*task).Zone = "Corse" },
			[]string{`taches-generique.json /taches/0/zone: zone "Corse" is not lowercase ASCII words joined by '-' (rule: vocabulary)`}},
		{"an order placed before the rules were published", func(task *season.Task, _ *linttest.World) { needOf(*task).OrderDate = "2026-08-15" },
			[]string{`taches-generique.json /taches/0/date_commande: date_commande 2026-08-15 is before /regles-achat was published (2026-09-01) (rule: rules-text)`}},
		{"a date that is not a date", func(task *season.Task, _ *linttest.World) { needOf(*task).DeliveryDeadline = "2026-11-31" },
			[]string{`taches-generique.json /taches/0/date_livraison_max: date "2026-11-31" is not a calendar date (rule: dates)`}},
		{"a reference outside the products", func(task *season.Task, _ *linttest.World) {
			task.References = []string{"/tarifs/TAR-ECR-1"}
			task.Question = "Le client a communiqué la référence /tarifs/TAR-ECR-1."
		},
			[]string{`taches-generique.json /taches/0/references/0: "/tarifs/TAR-ECR-1" points into /tarifs, want /produits (rule: references)`}},
		{"a reference that resolves nowhere", func(task *season.Task, _ *linttest.World) {
			task.References = []string{"/produits/ECR-9"}
			task.Question = "Le client a communiqué la référence /produits/ECR-9."
		},
			[]string{`taches-generique.json /taches/0/references/0: "/produits/ECR-9" does not resolve: no file produits/ECR-9.json (rule: references)`}},
		{"a reference the question does not name", func(task *season.Task, _ *linttest.World) { task.Question = "Douze écrans." },
			[]string{`taches-generique.json /taches/0/references/0: /produits/ECR-1 is not named in the question (rule: references)`}},
		{"a question naming a product the references lack", func(task *season.Task, _ *linttest.World) { task.References = nil },
			[]string{`taches-generique.json /taches/0/question: the question names /produits/ECR-1, which references does not list (rule: references)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			need := good
			need.Constraints = slices.Clone(good.Constraints)
			w, task := newPurchaseWorld(t), season.Task{
				ID: "gen-01", Own: &need,
				References: []string{"/produits/ECR-1"},
				Question:   "Douze écrans ; le client a communiqué la référence /produits/ECR-1.",
			}
			tt.edit(&task, w)
			tasks := &season.Tasks{Track: corpus.Purchasing.Name, Tasks: []season.Task{task}}
			report := lint.Lint(w.Tree(), lint.Options{Track: corpus.Purchasing, Tasks: tasks, TasksFile: "taches-generique.json"})
			assert.Equal(t, tt.want, linttest.FindingLines(report))
		})
	}
}

// The purchasing tree has the size the track's design asks for: at least six
// categories, sixty products, fifteen suppliers and 150 resources, most of
// them with a character outside ASCII.
func TestPurchasingCorpusSize(t *testing.T) {
	tree := corpus.Purchasing.Embedded()
	report := lint.Lint(tree, lint.Options{Track: corpus.Purchasing})
	require.True(t, report.OK(), "%v", linttest.FindingLines(report))
	assert.GreaterOrEqual(t, report.Files["produits"], 60)
	assert.GreaterOrEqual(t, report.Files["fournisseurs"], 15)
	resources, nonASCII := 0, 0
	err := fs.WalkDir(tree, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(name, "_systeme/") {
			return err
		}
		data, err := fs.ReadFile(tree, name)
		resources++
		if strings.IndexFunc(string(data), func(r rune) bool { return r > unicode.MaxASCII }) >= 0 {
			nonASCII++
		}
		return err
	})
	require.NoError(t, err)
	assert.GreaterOrEqual(t, resources, 150)
	assert.Greater(t, 2*nonASCII, resources, "most resources hold a character outside ASCII")

	rules, err := fs.ReadFile(tree, corpus.FileOf(corpus.ReglesAchat))
	require.NoError(t, err)
	doc, err := pyjson.Parse(rules)
	require.NoError(t, err)
	categories, _ := lint.Member[pyjson.Object](doc.(pyjson.Object), "catalogues")
	assert.GreaterOrEqual(t, len(categories), 6)
}
