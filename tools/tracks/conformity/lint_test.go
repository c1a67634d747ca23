package conformity

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/lint"
	"github.com/arkforge/proveit-corpus/tools/lint/linttest"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// baseDocs is a small corpus that lints clean: one entity with its
// agrément, attestation and prorogation, a two-page public list, a
// beneficial-owner page and a restrictive-measures page.
var baseDocs = map[string]string{
	"referentiel.json": `{"ressource": "/referentiel", "titre": "Référentiel", "version": "saison-1", "date_publication": "2026-09-01",
		"criteres": [{"code": "R1", "intitule": "Entité", "regle": "Elle existe."}],
		"bornes_de_dates": "incluses", "application_des_avenants": "la plus récente", "correspondance_mesures_restrictives": "trois champs", "precedence": "faux, puis indéterminable",
		"attestations_requises": {"change-manuel": ["assurance-rc-pro"]},
		"listes_agrees": {"change-manuel": "/listes/agrees/change-manuel"},
		"mesures_restrictives": "/mesures-restrictives/MR-1", ` + linttest.Notation(Rules) + `}`,
	"entites/ENT-1.json": `{"ressource": "/entites/ENT-1", "existe": true, "denomination": "Change du Vieux-Port", "siren": "732829321",
		"forme": "Société à responsabilité limitée (SARL)", "nombre_associes": "2", "siege": "12 rue des Trois-Cadrans, 00101 Valbrune",
		"date_immatriculation": "2010-01-04", "statut": "active", "agrements": ["/agrements/AGR-1"], "attestations": ["/attestations/ATT-1"],
		"beneficiaires": "/beneficiaires/ENT-1"}`,
	"agrements/AGR-1.json": `{"ressource": "/agrements/AGR-1", "existe": true, "entite": "/entites/ENT-1", "activite": "change-manuel", "autorite": "ASAFR",
		"numero_decision": "ASAFR-CM-2024-0001", "statut": "actif", "date_debut": "2024-01-01", "date_fin_validite": "2027-12-31"}`,
	"attestations/ATT-1.json": `{"ressource": "/attestations/ATT-1", "existe": true, "entite": "/entites/ENT-1", "type": "assurance-rc-pro", "emetteur": "Mutuelle",
		"date_emission": "2025-01-01", "date_fin_validite": "2026-06-30", "avenants": ["/avenants/AVN-1"]}`,
	"avenants/AVN-1.json": `{"ressource": "/avenants/AVN-1", "existe": true, "attestation": "/attestations/ATT-1", "objet": "prorogation",
		"date_effet": "2026-06-01", "nouvelle_date_fin": "2027-06-30", "activite_exclue": null, "description": "Prorogation."}`,
	"listes/agrees/change-manuel.json": `{"ressource": "/listes/agrees/change-manuel", "activite": "change-manuel", "autorite": "ASAFR", "date_publication": "2026-09-15", "page": "1",
		"entrees": [{"agrement": "/agrements/AGR-1", "entite": "/entites/ENT-1", "denomination": "Change du Vieux-Port", "statut": "actif"}],
		"page_suivante": "/listes/agrees/change-manuel-p2"}`,
	"listes/agrees/change-manuel-p2.json": `{"ressource": "/listes/agrees/change-manuel-p2", "activite": "change-manuel", "autorite": "ASAFR", "date_publication": "2026-09-15", "page": "2",
		"entrees": [], "page_suivante": null}`,
	"beneficiaires/ENT-1.json": `{"ressource": "/beneficiaires/ENT-1", "entite": "/entites/ENT-1", "statut_declaration": "complete", "date_declaration": "2026-01-10", "page": "1",
		"entrees": [{"nom": "Marchetti", "prenoms": "Lucie Anne", "date_naissance": "1979-04-12", "nationalite": "française", "detention": "60 %",
			"pourcentage_detention": "60", "controle_declare": false}],
		"page_suivante": null}`,
	"mesures-restrictives/MR-1.json": `{"ressource": "/mesures-restrictives/MR-1", "intitule": "Mesures", "date_mise_a_jour": "2026-09-25", "page": "1",
		"entrees": [{"reference": "MR-1-001", "nom": "Marchetti", "prenoms": "Lucie Anne", "date_naissance": "1981-09-03", "motif": "Gel des avoirs."}],
		"page_suivante": null}`,
	"_systeme/404.json": `{"erreur": "hors_corpus", "message": "Chemin hors corpus."}`,
}

// otherSIREN is a fictitious SIREN (it fails the Luhn check) that is not
// ENT-1's, for a second entity.
const otherSIREN = "443061842"

// A tree that cannot be read is one finding, whatever the manifest and the
// statements would find missing.
func TestLintUnreadableTree(t *testing.T) {
	m, err := manifest.Decode(manifest.Embedded(corpus.Conformity))
	require.NoError(t, err)
	tasks, err := season.ReadTasks("../../../" + season.TasksFile(corpus.Conformity))
	require.NoError(t, err)
	report := lint.Lint(os.DirFS(t.TempDir()+"/missing"), lint.Options{Manifest: m, ManifestFile: "m.json", Tasks: tasks, TasksFile: "taches.json"})
	require.Len(t, report.Findings, 1, linttest.FindingLines(report))
	assert.Contains(t, report.Findings[0].String(), "the tree cannot be read")
	assert.False(t, report.OK())
}

func TestLintBaseWorldIsClean(t *testing.T) {
	report := lint.Lint(linttest.WorldOf(t, baseDocs).Tree(), lint.Options{})
	assert.Empty(t, linttest.FindingLines(report))
}

// Each broken tree gives exactly the findings listed, no more, no fewer.
func TestLintBrokenTrees(t *testing.T) {
	const (
		entity  = "entites/ENT-1.json"
		licence = "agrements/AGR-1.json"
		att     = "attestations/ATT-1.json"
		avn     = "avenants/AVN-1.json"
		list    = "listes/agrees/change-manuel.json"
		list2   = "listes/agrees/change-manuel-p2.json"
		owners  = "beneficiaires/ENT-1.json"
		mr      = "mesures-restrictives/MR-1.json"
		sys     = "_systeme/404.json"
	)
	tests := []struct {
		name string
		edit func(w *linttest.World)
		want []string
	}{
		// strict JSON
		{"a number", func(w *linttest.World) { w.Raw[sys] = `{"a": 1}` },
			[]string{`_systeme/404.json /a: numbers are not allowed in the corpus (strings, booleans and null only) (byte 0) (rule: json)`}},
		{"a duplicate key", func(w *linttest.World) { w.Raw[sys] = `{"a": "x", "a": "y"}` },
			[]string{`_systeme/404.json /a: duplicate key "a" (Python keeps only the last one) (byte 11) (rule: json)`}},
		{"an empty object", func(w *linttest.World) { w.Raw[sys] = "{}\n" },
			[]string{`_systeme/404.json: the document must be a non-empty JSON object (byte 0) (rule: json)`}},
		{"a byte order mark", func(w *linttest.World) { w.Raw[sys] = "\xef\xbb\xbf{\"a\": \"x\"}" },
			[]string{`_systeme/404.json: byte order mark before the document (byte 0) (rule: json)`}},
		{"invalid UTF-8", func(w *linttest.World) { w.Raw[sys] = "{\"a\": \"\xff\"}" },
			[]string{`_systeme/404.json: invalid UTF-8 (byte 7) (rule: json)`}},
		{"not JSON", func(w *linttest.World) { w.Raw[sys] = `{"a": "x",}` },
			[]string{`_systeme/404.json: expected a string key (byte 10) (rule: json)`}},

		// layout
		{"compact layout", func(w *linttest.World) { w.Raw[sys] = "{\"erreur\": \"x\"}\n" },
			[]string{`_systeme/404.json: line 1 differs from json.dumps(obj, ensure_ascii=False, indent=2) + "\n" (rule: format)`}},
		{"an accent written as an escape", func(w *linttest.World) { w.Raw[sys] = "{\n  \"erreur\": \"\\u00e9\"\n}\n" },
			[]string{`_systeme/404.json: line 2 differs from json.dumps(obj, ensure_ascii=False, indent=2) + "\n" (rule: format)`}},
		{"no final newline", func(w *linttest.World) { w.Raw[sys] = "{\n  \"erreur\": \"x\"\n}" },
			[]string{`_systeme/404.json: line 3 differs from json.dumps(obj, ensure_ascii=False, indent=2) + "\n" (rule: format)`}},

		// file names
		{"not a .json file", func(w *linttest.World) { w.Raw["notes.txt"] = "x" },
			[]string{`notes.txt: not a .json file (rule: file-name)`}},
		{"an id outside the grammar", func(w *linttest.World) { w.Raw["agrements/AGR 2.json"] = `{"a": "x"}` },
			[]string{`agrements/AGR 2.json: not a rules resource (/referentiel, /regles-achat) nor /<collection>/<id> with an id in [A-Za-z0-9][A-Za-z0-9._-]{0,63} (rule: file-name)`}},
		{"an unknown fixed body", func(w *linttest.World) { w.Raw["_systeme/500.json"] = `{"a": "x"}` },
			[]string{`_systeme/500.json: not one of the fixed bodies 400, 403, 404, 503 (rule: file-name)`}},
		{"outside every collection", func(w *linttest.World) { w.Raw["registres/R-1.json"] = `{"a": "x"}` },
			[]string{`registres/R-1.json: not a rules resource (/referentiel, /regles-achat) nor /<collection>/<id> with an id in [A-Za-z0-9][A-Za-z0-9._-]{0,63} (rule: file-name)`}},

		// dates
		{"not a calendar date", func(w *linttest.World) { w.Set(licence, "/date_debut", "2026-02-30") },
			[]string{`agrements/AGR-1.json /date_debut: date "2026-02-30" is not a calendar date (rule: dates)`}},
		{"not YYYY-MM-DD", func(w *linttest.World) { w.Set(att, "/date_emission", "2025-1-01") },
			[]string{`attestations/ATT-1.json /date_emission: date "2025-1-01" is not YYYY-MM-DD (rule: dates)`}},
		{"a date in the French order", func(w *linttest.World) { w.Set(licence, "/date_fin_validite", "31/12/2027") },
			[]string{`agrements/AGR-1.json /date_fin_validite: date "31/12/2027" is not YYYY-MM-DD (rule: dates)`}},
		{"a null date the schema requires", func(w *linttest.World) { w.Set(licence, "/date_fin_validite", nil) },
			[]string{`agrements/AGR-1.json /date_fin_validite: date_fin_validite is null: the schema wants a date (rule: dates)`}},
		{"a date in a list entry", func(w *linttest.World) { w.Set(owners, "/entrees/0/date_naissance", "1979-13-01") },
			[]string{`beneficiaires/ENT-1.json /entrees/0/date_naissance: date "1979-13-01" is not a calendar date (rule: dates)`}},
		{"a boolean date", func(w *linttest.World) { w.Set(avn, "/date_effet", true) },
			[]string{`avenants/AVN-1.json /date_effet: want a YYYY-MM-DD string, got a boolean (rule: dates)`}},
		{"a descriptive date field", func(w *linttest.World) { w.Set(entity, "/date_immatriculation", "2010-04-31") },
			[]string{`entites/ENT-1.json /date_immatriculation: date "2010-04-31" is not a calendar date (rule: dates)`}},

		// references
		{"a reference with no file", func(w *linttest.World) { w.Set(att, "/avenants/1", "/avenants/AVN-9") },
			[]string{`attestations/ATT-1.json /avenants/1: "/avenants/AVN-9" does not resolve: no file avenants/AVN-9.json (rule: references)`}},
		{"a reference outside the grammar", func(w *linttest.World) { w.Set(att, "/avenants/1", "/avenants/AVN 9") },
			[]string{`attestations/ATT-1.json /avenants/1: "/avenants/AVN 9" is not a canonical path /<collection>/<id> (rule: references)`}},
		{"a reference written as a URL", func(w *linttest.World) { w.Set(att, "/avenants/1", "https://corpus.arkforge.tech/avenants/AVN-1") },
			[]string{`attestations/ATT-1.json /avenants/1: "https://corpus.arkforge.tech/avenants/AVN-1" is not a canonical path /<collection>/<id> (rule: references)`}},
		{"a reference into the wrong collection", func(w *linttest.World) { w.Set(mr, "/page_suivante", "/beneficiaires/ENT-1") },
			[]string{`mesures-restrictives/MR-1.json /page_suivante: "/beneficiaires/ENT-1" points into /beneficiaires, want /mesures-restrictives (rule: references)`}},
		{"a referentiel list that does not resolve", func(w *linttest.World) {
			w.Set("referentiel.json", "/mesures_restrictives", "/mesures-restrictives/MR-2")
		},
			[]string{
				`mesures-restrictives/MR-1.json: not reached from any first page through page_suivante (rule: pages)`,
				`referentiel.json /mesures_restrictives: "/mesures-restrictives/MR-2" does not resolve: no file mesures-restrictives/MR-2.json (rule: references)`,
			}},

		// ressource
		{"ressource is another path", func(w *linttest.World) { w.Set(licence, "/ressource", "/agrements/AGR-2") },
			[]string{`agrements/AGR-1.json /ressource: ressource "/agrements/AGR-2" is not the file's own path /agrements/AGR-1 (rule: ressource)`}},
		{"ressource of the referentiel", func(w *linttest.World) { w.Set("referentiel.json", "/ressource", "/referentiels") },
			[]string{`referentiel.json /ressource: ressource "/referentiels" is not the file's own path /referentiel (rule: ressource)`}},

		// vocabularies
		{"an entity statut", func(w *linttest.World) { w.Set(entity, "/statut", "Active") },
			[]string{`entites/ENT-1.json /statut: statut "Active" is not one of active, radiee, en_liquidation (rule: vocabulary)`}},
		{"an agrément statut", func(w *linttest.World) { w.Set(licence, "/statut", "valide") },
			[]string{`agrements/AGR-1.json /statut: statut "valide" is not one of actif, suspendu, retire (rule: vocabulary)`}},
		{"a list entry statut", func(w *linttest.World) { w.Set(list, "/entrees/0/statut", "active") },
			[]string{`listes/agrees/change-manuel.json /entrees/0/statut: statut "active" is not one of actif, suspendu, retire (rule: vocabulary)`}},
		{"a statut_declaration", func(w *linttest.World) { w.Set(owners, "/statut_declaration", "partielle") },
			[]string{`beneficiaires/ENT-1.json /statut_declaration: statut_declaration "partielle" is not one of complete, incomplete (rule: vocabulary)`}},
		{"an avenant objet", func(w *linttest.World) { w.Set(avn, "/objet", "resiliation") },
			[]string{`avenants/AVN-1.json /objet: objet "resiliation" is not one of prorogation, exclusion (rule: vocabulary)`}},
		{"a prorogation without a new end", func(w *linttest.World) { w.Set(avn, "/nouvelle_date_fin", nil) },
			[]string{`avenants/AVN-1.json /nouvelle_date_fin: objet "prorogation" sets nouvelle_date_fin: it must not be null (rule: vocabulary)`}},
		{"an exclusion that prorogates", func(w *linttest.World) { w.Set(avn, "/objet", "exclusion") },
			[]string{
				`avenants/AVN-1.json /activite_exclue: objet "exclusion" sets activite_exclue: it must not be null (rule: vocabulary)`,
				`avenants/AVN-1.json /nouvelle_date_fin: objet "exclusion" leaves nouvelle_date_fin null, got a string (rule: vocabulary)`,
			}},
		{"an attestation type", func(w *linttest.World) { w.Set(att, "/type", "RC_Pro") },
			[]string{`attestations/ATT-1.json /type: type "RC_Pro" is not lowercase ASCII words joined by '-' (rule: vocabulary)`}},
		{"an unknown activity", func(w *linttest.World) {
			w.Set(avn, "/objet", "exclusion").Set(avn, "/nouvelle_date_fin", nil).Set(avn, "/activite_exclue", "crypto-actifs")
		}, []string{`avenants/AVN-1.json /activite_exclue: activite_exclue "crypto-actifs" is not an activity of /referentiel (rule: vocabulary)`}},
		{"a referentiel activity code", func(w *linttest.World) {
			w.Set("referentiel.json", "/attestations_requises", pyjson.Object{{Key: "Change manuel", Value: pyjson.Array{"assurance-rc-pro"}}})
		}, []string{
			`agrements/AGR-1.json /activite: activite "change-manuel" is not an activity of /referentiel (rule: vocabulary)`,
			`listes/agrees/change-manuel-p2.json /activite: activite "change-manuel" is not an activity of /referentiel (rule: vocabulary)`,
			`listes/agrees/change-manuel.json /activite: activite "change-manuel" is not an activity of /referentiel (rule: vocabulary)`,
			`referentiel.json /attestations_requises: activity "change-manuel" has a public list but no required attestations (rule: schema)`,
			`referentiel.json /attestations_requises/Change manuel: activity code "Change manuel" is not lowercase ASCII words joined by '-' (rule: vocabulary)`,
			`referentiel.json /listes_agrees: activity "Change manuel" requires attestations but has no public list (rule: schema)`,
		}},

		// schemas
		{"a required field missing", func(w *linttest.World) { w.Set(licence, "/statut", linttest.Deleted{}) },
			[]string{`agrements/AGR-1.json: required field "statut" is missing (rule: schema)`}},
		{"a list entry field missing", func(w *linttest.World) { w.Set(owners, "/entrees/0/nom", linttest.Deleted{}) },
			[]string{`beneficiaires/ENT-1.json /entrees/0: required field "nom" is missing (rule: schema)`}},
		{"existe false in a file", func(w *linttest.World) { w.Set(entity, "/existe", false) },
			[]string{`entites/ENT-1.json /existe: want true (a file of the tree exists; absence is the server's answer), got a boolean (rule: schema)`}},
		{"a reference list as a string", func(w *linttest.World) { w.Set(att, "/avenants", "/avenants/AVN-1") },
			[]string{
				`attestations/ATT-1.json /avenants: want an array of references, got a string (rule: schema)`,
				`avenants/AVN-1.json /attestation: /attestations/ATT-1 does not list this resource in /avenants (rule: links)`,
			}},
		{"a page number as a boolean", func(w *linttest.World) { w.Set(mr, "/page", true) },
			[]string{`mesures-restrictives/MR-1.json /page: want a string, got a boolean (rule: schema)`}},
		{"entries as an object", func(w *linttest.World) { w.Set(mr, "/entrees", pyjson.Object{{Key: "nom", Value: "x"}}) },
			[]string{`mesures-restrictives/MR-1.json /entrees: want an array of objects, got an object (rule: schema)`}},
		{"a null beneficiaires is allowed", func(w *linttest.World) {
			w.Set(entity, "/beneficiaires", nil)
			delete(w.Docs, owners)
		}, nil},

		// links
		{"an avenant its attestation does not list", func(w *linttest.World) { w.Set(att, "/avenants", pyjson.Array{}) },
			[]string{`avenants/AVN-1.json /attestation: /attestations/ATT-1 does not list this resource in /avenants (rule: links)`}},
		{"a list entry for another entity", func(w *linttest.World) {
			w.Docs["entites/ENT-2.json"] = w.Docs[entity]
			w.Set("entites/ENT-2.json", "/ressource", "/entites/ENT-2")
			w.Set("entites/ENT-2.json", "/agrements", pyjson.Array{}).Set("entites/ENT-2.json", "/attestations", pyjson.Array{}).Set("entites/ENT-2.json", "/beneficiaires", nil)
			w.Set("entites/ENT-2.json", "/siren", otherSIREN)
			w.Set(list, "/entrees/0/entite", "/entites/ENT-2")
		}, []string{`listes/agrees/change-manuel.json /entrees/0/entite: "/entites/ENT-2", but /agrements/AGR-1 belongs to /entites/ENT-1 (rule: links)`}},

		// page chains
		{"a loop", func(w *linttest.World) { w.Set(list2, "/page_suivante", "/listes/agrees/change-manuel") },
			[]string{`listes/agrees/change-manuel-p2.json /page_suivante: "/listes/agrees/change-manuel" loops back to a page of the chain from /referentiel /listes_agrees/change-manuel (rule: pages)`}},
		{"a page nothing leads to", func(w *linttest.World) {
			w.Docs["listes/agrees/change-manuel-p3.json"] = w.Docs[list2]
			w.Set("listes/agrees/change-manuel-p3.json", "/ressource", "/listes/agrees/change-manuel-p3")
		}, []string{`listes/agrees/change-manuel-p3.json: not reached from any first page through page_suivante (rule: pages)`}},
		{"pages out of order", func(w *linttest.World) { w.Set(list2, "/page", "3") },
			[]string{`listes/agrees/change-manuel-p2.json /page: page "3" is page 2 of the chain from /referentiel /listes_agrees/change-manuel (rule: pages)`}},
		{"two entities share a declaration", func(w *linttest.World) {
			w.Docs["entites/ENT-2.json"] = w.Docs[entity]
			w.Set("entites/ENT-2.json", "/ressource", "/entites/ENT-2")
			w.Set("entites/ENT-2.json", "/agrements", pyjson.Array{}).Set("entites/ENT-2.json", "/attestations", pyjson.Array{})
			w.Set("entites/ENT-2.json", "/siren", otherSIREN)
		}, []string{`beneficiaires/ENT-1.json: reached twice: from /entites/ENT-1 and from /entites/ENT-2 (rule: pages)`}},

		// identifiers
		{"a SIREN of 8 digits", func(w *linttest.World) { w.Set(entity, "/siren", "73282932") },
			[]string{`entites/ENT-1.json /siren: siren "73282932" is not 9 digits (rule: identifier)`}},
		{"a SIREN with spaces", func(w *linttest.World) { w.Set(entity, "/siren", "732 829 321") },
			[]string{`entites/ENT-1.json /siren: siren "732 829 321" is not 9 digits (rule: identifier)`}},
		{"a SIREN that passes the Luhn check", func(w *linttest.World) { w.Set(entity, "/siren", "732829320") },
			[]string{`entites/ENT-1.json /siren: siren "732829320" passes the Luhn check: a number INSEE may have issued; a fictitious SIREN fails it (rule: identifier)`}},
		{"two entities with one SIREN", func(w *linttest.World) {
			w.Docs["entites/ENT-2.json"] = w.Docs[entity]
			w.Set("entites/ENT-2.json", "/ressource", "/entites/ENT-2")
			w.Set("entites/ENT-2.json", "/agrements", pyjson.Array{}).Set("entites/ENT-2.json", "/attestations", pyjson.Array{}).Set("entites/ENT-2.json", "/beneficiaires", nil)
			w.Set("entites/ENT-2.json", "/siege", "3 impasse du Héron-Cendré, 00102 Port-Sérenne")
		}, []string{`entites/ENT-2.json /siren: siren "732829321" is also /entites/ENT-1's (rule: identifier)`}},
		{"an entity without a SIREN", func(w *linttest.World) { w.Set(entity, "/siren", linttest.Deleted{}) },
			[]string{`entites/ENT-1.json: required field "siren" is missing (rule: schema)`}},

		// legal forms
		{"an SARL with a single partner", func(w *linttest.World) { w.Set(entity, "/nombre_associes", "1") },
			[]string{`entites/ENT-1.json /nombre_associes: a single partner makes this SARL an EURL, but forme is "Société à responsabilité limitée (SARL)" (rule: legal-form)`}},
		{"an SAS with a single partner", func(w *linttest.World) {
			w.Set(entity, "/forme", "Société par actions simplifiée (SAS)").Set(entity, "/nombre_associes", "1")
		}, []string{`entites/ENT-1.json /nombre_associes: a single partner makes this SAS an SASU, but forme is "Société par actions simplifiée (SAS)" (rule: legal-form)`}},
		{"an EURL with two partners", func(w *linttest.World) {
			w.Set(entity, "/forme", "Entreprise unipersonnelle à responsabilité limitée (EURL)")
		}, []string{`entites/ENT-1.json /nombre_associes: the form EURL allows a single partner, nombre_associes is "2" (rule: legal-form)`}},
		{"an SARL with 120 partners", func(w *linttest.World) { w.Set(entity, "/nombre_associes", "120") },
			[]string{`entites/ENT-1.json /nombre_associes: the form SARL allows 2 to 100 partners, nombre_associes is "120" (rule: legal-form)`}},
		{"a form the rule does not know", func(w *linttest.World) { w.Set(entity, "/forme", "Association loi de 1901") },
			[]string{`entites/ENT-1.json /forme: forme "Association loi de 1901" is none of the legal forms EURL, SASU, SARL, SAS, SA (rule: legal-form)`}},
		{"a number of partners in words", func(w *linttest.World) { w.Set(entity, "/nombre_associes", "deux") },
			[]string{`entites/ENT-1.json /nombre_associes: quantity "deux" is not a whole number written in digits, like "12" (rule: decimal)`}},
		{"one owner holds everything of a company of two", func(w *linttest.World) {
			w.Set(owners, "/entrees/0/pourcentage_detention", "100").Set(owners, "/entrees/0/detention", "100 % du capital")
		}, []string{`beneficiaires/ENT-1.json /entrees/0/pourcentage_detention: one owner holds 100 %, but /entites/ENT-1 has nombre_associes "2" (rule: legal-form)`}},

		// addresses
		{"a real street address", func(w *linttest.World) { w.Set(entity, "/siege", "9 rue Grenette, 69002 Lyon") },
			[]string{`entites/ENT-1.json /siege: siege "9 rue Grenette, 69002 Lyon" is not a fictional address "<numéro> <voie>, 00NNN <commune>" (no real postal code begins with 00) (rule: address)`}},
		{"a town without a street", func(w *linttest.World) { w.Set(entity, "/siege", "00101 Valbrune") },
			[]string{`entites/ENT-1.json /siege: siege "00101 Valbrune" is not a fictional address "<numéro> <voie>, 00NNN <commune>" (no real postal code begins with 00) (rule: address)`}},

		// beneficial owners
		{"an owner at 25 %", func(w *linttest.World) {
			w.Set(owners, "/entrees/0/pourcentage_detention", "25").Set(owners, "/entrees/0/detention", "25 % du capital")
		}, []string{`beneficiaires/ENT-1.json /entrees/0/pourcentage_detention: 25 % is not more than 25 % and control is not declared: not a beneficial owner (rule: beneficial-owner)`}},
		{"an owner at 25 % declared for control", func(w *linttest.World) {
			w.Set(owners, "/entrees/0/pourcentage_detention", "25").Set(owners, "/entrees/0/detention", "25 % du capital, contrôle conjoint").Set(owners, "/entrees/0/controle_declare", true)
		}, nil},
		{"an owner with neither holding nor control", func(w *linttest.World) { w.Set(owners, "/entrees/0/pourcentage_detention", nil) },
			[]string{`beneficiaires/ENT-1.json /entrees/0: declares neither a holding (pourcentage_detention) nor control (controle_declare): not a beneficial owner (rule: beneficial-owner)`}},
		{"a detention text that says another share", func(w *linttest.World) { w.Set(owners, "/entrees/0/detention", "55 % du capital") },
			[]string{`beneficiaires/ENT-1.json /entrees/0/pourcentage_detention: "60", but detention says "55 % du capital" (rule: beneficial-owner)`}},
		{"a share above 100", func(w *linttest.World) {
			w.Set(owners, "/entrees/0/pourcentage_detention", "160").Set(owners, "/entrees/0/detention", "160 %")
		}, []string{`beneficiaires/ENT-1.json /entrees/0/pourcentage_detention: pourcentage_detention "160" is not a share above 0 and up to 100 (rule: beneficial-owner)`}},
		{"owners holding more than all of it", func(w *linttest.World) {
			w.Set(owners, "/entrees/1", pyjson.Object{
				{Key: "nom", Value: "Sarrazin"}, {Key: "prenoms", Value: "Inès"}, {Key: "date_naissance", Value: "1981-06-22"}, {Key: "nationalite", Value: "française"},
				{Key: "detention", Value: "45 %"}, {Key: "pourcentage_detention", Value: "45"}, {Key: "controle_declare", Value: false},
			})
		}, []string{`beneficiaires/ENT-1.json /entrees/1/pourcentage_detention: the owners declared for /entites/ENT-1 hold 105 % in all, more than 100 % (rule: beneficial-owner)`}},
		{"a share with a comma", func(w *linttest.World) { w.Set(owners, "/entrees/0/pourcentage_detention", "60,5") },
			[]string{`beneficiaires/ENT-1.json /entrees/0/pourcentage_detention: percentage "60,5" is not a decimal string, like "26" or "12.5" (rule: decimal)`}},
		{"control declared as a word", func(w *linttest.World) { w.Set(owners, "/entrees/0/controle_declare", "non") },
			[]string{`beneficiaires/ENT-1.json /entrees/0/controle_declare: want a boolean, got a string (rule: schema)`}},

		// numbering
		{"a decision number of another activity", func(w *linttest.World) { w.Set(licence, "/numero_decision", "ASAFR-TF-2024-0001") },
			[]string{`agrements/AGR-1.json /numero_decision: numero_decision "ASAFR-TF-2024-0001" names TF, the activity "change-manuel" is CM (rule: numbering)`}},
		{"a decision number of another year", func(w *linttest.World) { w.Set(licence, "/numero_decision", "ASAFR-CM-2021-0001") },
			[]string{`agrements/AGR-1.json /numero_decision: numero_decision "ASAFR-CM-2021-0001" names the year 2021, date_debut is 2024-01-01 (rule: numbering)`}},
		{"a decision number out of pattern", func(w *linttest.World) { w.Set(licence, "/numero_decision", "D-1") },
			[]string{`agrements/AGR-1.json /numero_decision: numero_decision "D-1" is not <autorité>-<initiales>-<année>-<numéro> (rule: numbering)`}},
		{"a restrictive measure numbered out of order", func(w *linttest.World) { w.Set(mr, "/entrees/0/reference", "MR-1-2") },
			[]string{`mesures-restrictives/MR-1.json /entrees/0/reference: reference "MR-1-2" is entry 1 of the list: want MR-1-1 (any zero padding) (rule: numbering)`}},

		// the referentiel's numbered references
		{"a criterion numbered out of order", func(w *linttest.World) { w.Set("referentiel.json", "/criteres/0/code", "R2") },
			[]string{`referentiel.json /criteres/0/code: code "R2" is the criterion at position 1: want "R1" (rule: rules-text)`}},
		{"a rule naming a criterion that does not exist", func(w *linttest.World) { w.Set("referentiel.json", "/precedence", "R1 puis R7.") },
			[]string{`referentiel.json /precedence: names R7, which is not a code of /criteres (rule: rules-text)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := linttest.WorldOf(t, baseDocs)
			tt.edit(w)
			report := lint.Lint(w.Tree(), lint.Options{})
			assert.Equal(t, tt.want, linttest.FindingLines(report))
			assert.Equal(t, len(tt.want) == 0, report.OK())
		})
	}
}

// With a manifest, the tree must be exactly what it lists, and a reference
// may have no file only if the manifest records it as absent.
func TestLintManifest(t *testing.T) {
	const att = "attestations/ATT-1.json"
	build := func(t *testing.T, w *linttest.World, citations ...string) *manifest.Manifest {
		t.Helper()
		m, err := manifest.Build(w.Tree(), corpus.Conformity.Name, manifest.DefaultOrigin, citations)
		require.NoError(t, err)
		return m
	}
	tasks := func(refs ...string) *season.Tasks {
		question := "L'entité /entites/ENT-1 est-elle conforme ?"
		if len(refs) > 0 {
			question += " Le client a communiqué les références " + strings.Join(refs, " et ") + "."
		}
		return &season.Tasks{Track: "conformite", Tasks: []season.Task{{ID: "conf-01", Own: &Statement{Entity: "/entites/ENT-1", Activity: "change-manuel", ExaminationDate: "2026-10-05"}, References: refs, Question: question}}}
	}
	tests := []struct {
		name       string
		edit       func(w *linttest.World) *manifest.Manifest // returns the manifest to lint against
		tasks      *season.Tasks
		want       []string // substrings, one per finding, in order
		wantAbsent []string
	}{
		{"the manifest of the tree", func(w *linttest.World) *manifest.Manifest { return build(t, w) }, tasks(), nil, nil},
		{"an absent reference the manifest records", func(w *linttest.World) *manifest.Manifest {
			w.Set(att, "/avenants/1", "/avenants/AVN-9")
			return build(t, w)
		}, tasks(), nil, []string{"/avenants/AVN-9"}},
		{"a cited absence the manifest records", func(w *linttest.World) *manifest.Manifest { return build(t, w, "/attestations/ATT-7") },
			tasks("/attestations/ATT-7"), nil, []string{"/attestations/ATT-7"}},
		{"a cited absence the manifest lacks", func(w *linttest.World) *manifest.Manifest { return build(t, w) },
			tasks("/attestations/ATT-7"), []string{
				`taches.json /taches/0/references/0: "/attestations/ATT-7" does not resolve: no file attestations/ATT-7.json and no absent entry in the manifest (rule: references)`,
			}, nil},
		{"a cited reference the question does not name", func(w *linttest.World) *manifest.Manifest { return build(t, w) },
			&season.Tasks{Track: "conformite", Tasks: []season.Task{{ID: "conf-01", Own: &Statement{Entity: "/entites/ENT-1", Activity: "change-manuel", ExaminationDate: "2026-10-05"},
				References: []string{"/attestations/ATT-1"}, Question: "L'entité /entites/ENT-1 et son agrément /agrements/AGR-1 ?"}}},
			[]string{
				`taches.json /taches/0/question: the question names /agrements/AGR-1, which references does not list (rule: references)`,
				`taches.json /taches/0/references/0: /attestations/ATT-1 is not named in the question (rule: references)`,
			}, nil},
		{"a statement dated before the referentiel", func(w *linttest.World) *manifest.Manifest { return build(t, w) },
			&season.Tasks{Track: "conformite", Tasks: []season.Task{{ID: "conf-01", Own: &Statement{Entity: "/entites/ENT-1", Activity: "change-manuel", ExaminationDate: "2026-08-31"}}}},
			[]string{`taches.json /taches/0/date_examen: date_examen 2026-08-31 is before /referentiel was published (2026-09-01) (rule: rules-text)`}, nil},
		{"a statement with a bad date and activity", func(w *linttest.World) *manifest.Manifest { return build(t, w) },
			&season.Tasks{Track: "conformite", Tasks: []season.Task{{ID: "conf-01", Own: &Statement{Entity: "/entites/ENT-1", Activity: "change", ExaminationDate: "2026-10-32"}}}},
			[]string{
				`taches.json /taches/0/activite: activite "change" is not an activity of /referentiel (rule: vocabulary)`,
				`taches.json /taches/0/date_examen: date "2026-10-32" is not a calendar date (rule: dates)`,
			}, nil},
		{"an extra file", func(w *linttest.World) *manifest.Manifest {
			m := build(t, w)
			w.Raw["_systeme/503.json"] = "{\n  \"erreur\": \"maintenance\"\n}\n"
			return m
		}, tasks(), []string{`_systeme/503.json: extra: not in the manifest (rule: manifest)`}, nil},
		{"a missing file", func(w *linttest.World) *manifest.Manifest {
			m := build(t, w)
			delete(w.Docs, "_systeme/404.json")
			return m
		}, tasks(), []string{`_systeme/404.json: missing from the tree (rule: manifest)`}, nil},
		{"a changed file", func(w *linttest.World) *manifest.Manifest {
			m := build(t, w)
			w.Set("_systeme/404.json", "/message", "Autre message.")
			return m
		}, tasks(), []string{`_systeme/404.json: bytes changed: sha256 `, `_systeme/404.json: response_hash `}, nil},
		{"a new dangling reference on a stale manifest", func(w *linttest.World) *manifest.Manifest {
			m := build(t, w)
			w.Set(att, "/avenants/1", "/avenants/AVN-9")
			return m
		}, tasks(), []string{
			`attestations/ATT-1.json: bytes changed`,
			`attestations/ATT-1.json: response_hash`,
			`attestations/ATT-1.json /avenants/1: "/avenants/AVN-9" does not resolve: no file avenants/AVN-9.json and no absent entry in the manifest (rule: references)`,
			`manifest.json: /avenants/AVN-9: cited by the corpus but has neither a file nor an absent entry (rule: manifest)`,
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := linttest.WorldOf(t, baseDocs)
			m := tt.edit(w)
			report := lint.Lint(w.Tree(), lint.Options{Manifest: m, ManifestFile: "manifest.json", Tasks: tt.tasks, TasksFile: "taches.json"})
			got := linttest.FindingLines(report)
			require.Len(t, got, len(tt.want), "findings: %q", got)
			for i, want := range tt.want {
				assert.Contains(t, got[i], want)
			}
			assert.Equal(t, tt.wantAbsent, report.Absent)
		})
	}
}

// A rules document that does not publish what is scored, or publishes
// another probative table than the scorer's, is named.
func TestLintNotation(t *testing.T) {
	tests := []struct {
		name string
		edit func(w *linttest.World)
		want []string
	}{
		{"no notation", func(w *linttest.World) { w.Set("referentiel.json", "/notation", linttest.Deleted{}) },
			[]string{"referentiel.json /notation: /referentiel /notation: want the object that publishes the scoring rules (rule: schema)"}},
		{"a text missing", func(w *linttest.World) { w.Set("referentiel.json", "/notation/meme_fait", linttest.Deleted{}) },
			[]string{"referentiel.json /notation: /referentiel /notation/meme_fait: missing (rule: schema)"}},
		{"a pointer the scorer refuses", func(w *linttest.World) {
			linttest.PublishProbative(t, w, "referentiel.json", "/agrements/<id>", pyjson.Array{"/existe"})
		}, []string{`referentiel.json /notation/champs_probants: /agrements/<id> publishes [/existe], the scorer's table is [/existe /entite /activite /statut /date_debut /date_fin_validite] (rule: schema)`}},
		{"a collection of no track", func(w *linttest.World) {
			linttest.PublishProbative(t, w, "referentiel.json", "/registres/<id>", pyjson.Array{"/existe"})
		}, []string{"referentiel.json /notation/champs_probants: /registres/<id> is no collection of the track (rule: schema)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := linttest.WorldOf(t, baseDocs)
			tt.edit(w)
			assert.Equal(t, tt.want, linttest.FindingLines(lint.Lint(w.Tree(), lint.Options{})))
		})
	}
}
