package tracks_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/tools/lint"
	"github.com/arkforge/proveit-corpus/tools/lint/linttest"
	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/tracks/conformity"
	"github.com/arkforge/proveit-corpus/tools/tracks/purchasing"
)

// The season's rules as the two tracks register them: what season reads
// of each track's rulebook and files.

// Probative follows the table of the track the resource belongs to:
// "<n>" an RFC 6901 index, "<name>" any member; rules resources and fixed
// bodies have none.
func TestProbative(t *testing.T) {
	tests := []struct {
		resource, field string
		want            bool
	}{
		{"/entites/ENT-1", "/statut", true},
		{"/entites/ENT-1", "/agrements/0", true},
		{"/entites/ENT-1", "/agrements/12", true},
		{"/entites/ENT-1", "/agrements/01", false},
		{"/entites/ENT-1", "/agrements/-", false},
		{"/entites/ENT-1", "/denomination", false},
		{"/entites/ENT-1", "", false},
		{"/agrements/AGR-1", "/date_fin_validite", true},
		{"/agrements/AGR-1", "/numero_decision", false},
		{"/attestations/ATT-1", "/avenants/3", true},
		{"/avenants/AVN-1", "/nouvelle_date_fin", true},
		{"/avenants/AVN-1", "/description", false},
		{"/listes/agrees/change-manuel", "/entrees/2/statut", true},
		{"/listes/agrees/change-manuel", "/entrees/2/denomination", false},
		{"/listes/agrees/change-manuel", "/page_suivante", false},
		{"/beneficiaires/ENT-1", "/page_suivante", true},
		{"/beneficiaires/ENT-1", "/entrees/0/date_naissance", true},
		{"/beneficiaires/ENT-1", "/entrees/0/nationalite", false},
		{"/mesures-restrictives/MR-2026", "/entrees/4/prenoms", true},
		{"/mesures-restrictives/MR-2026", "/entrees/4/motif", false},
		{"/mesures-restrictives/MR-2026", "/page_suivante", false},
		{"/referentiel", "/attestations_requises", false},
		{"/_systeme/404", "/message", false},
		{"/catalogues/ecrans", "/entrees/0/prix_affiche_ttc", true},
		{"/catalogues/ecrans", "/page_suivante", false},
		{"/catalogues/ecrans", "/categorie", false},
		{"/produits/ECR-2701", "/caracteristiques/dalle", true},
		{"/produits/ECR-2701", "/caracteristiques", false},
		{"/produits/ECR-2701", "/designation", false},
		{"/fournisseurs/FRN-101", "/statut", true},
		{"/tarifs/TAR-ECR-2701", "/prix_unitaire_ttc", true},
		{"/tarifs/TAR-ECR-2701", "/mention", false},
		{"/disponibilites/DSP-ECR-2701", "/date_releve", true},
		{"/livraisons/LIV-107-ANX", "/zones_exclues/0", true},
		{"/livraisons/LIV-107", "/zones/01", false},
		{"/regles-achat", "/catalogues/ecrans", false},
	}
	for _, tt := range tests {
		t.Run(tt.resource+tt.field, func(t *testing.T) {
			assert.Equal(t, tt.want, season.Probative(tt.resource, tt.field))
		})
	}
}

// Each track has one rulebook, the one its statements name.
func TestRulesOfEveryTrack(t *testing.T) {
	require.Len(t, season.Tracks(), len(corpus.Tracks))
	for i, track := range corpus.Tracks {
		r := season.RulesOf(track)
		assert.Same(t, season.Tracks()[i], r)
		named, err := season.RulesNamed(track.Name)
		require.NoError(t, err)
		assert.Same(t, r, named)
		assert.Equal(t, track.Name, r.Name())
		for _, v := range r.Verdicts {
			assert.True(t, r.ValidVerdict(v), v)
		}
	}
	_, err := season.RulesNamed("tertiaire")
	assert.ErrorContains(t, err, `unknown track "tertiaire"`)
}

// A verdict is a named one or a path of the Choice collection, character
// for character.
func TestValidVerdict(t *testing.T) {
	tests := []struct {
		rules   *season.Rules
		verdict string
		want    bool
	}{
		{conformity.Rules, conformity.Compliant, true},
		{conformity.Rules, "Conforme", false},
		{conformity.Rules, purchasing.NoValidOption, false},
		{conformity.Rules, "/produits/ECR-2701", false},
		{purchasing.Rules, purchasing.NoValidOption, true},
		{purchasing.Rules, "/produits/ECR-2701", true},
		{purchasing.Rules, "produits/ECR-2701", false},
		{purchasing.Rules, "/fournisseurs/FRN-101", false},
		{purchasing.Rules, conformity.Compliant, false},
	}
	for _, tt := range tests {
		t.Run(tt.rules.Name()+" "+tt.verdict, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.rules.ValidVerdict(tt.verdict))
		})
	}
}

// Each track's rules document publishes, under notation/champs_probants,
// the probative table the scorer applies, collection for collection and
// pointer for pointer ("<nom>" there is "<name>" here): a rule that rejects
// a submission is one a participant could read.
func TestRulesDocumentPublishesTheProbativeTable(t *testing.T) {
	for _, rules := range season.Tracks() {
		t.Run(rules.Track.Name, func(t *testing.T) {
			data, err := fs.ReadFile(rules.Track.Embedded(), corpus.FileOf(rules.Track.Rules))
			require.NoError(t, err)
			notation, err := season.ReadNotation(rules.Track.Rules, data)
			require.NoError(t, err)
			assert.Equal(t, rules.PublishedProbative(), notation.Table())
			for _, text := range []string{notation.Graph, notation.OwnResources, notation.NotProbative, notation.SameFact, notation.Fictitious} {
				assert.NotEmpty(t, text)
			}
		})
	}
}

// The repository's statements read strictly, each with its track's shape.
func TestReadSeasonFiles(t *testing.T) {
	for _, track := range corpus.Tracks {
		tasks, err := season.ReadTasks("../../" + season.TasksFile(track))
		require.NoError(t, err, track.Name)
		assert.Equal(t, track.Name, tasks.Track)
		assert.Len(t, tasks.Tasks, 10)
		for _, task := range tasks.Tasks {
			assert.Same(t, track, task.Rules().Track, task.ID)
		}
		_, err = season.ReadKey("../../" + season.KeyFile(track))
		require.NoError(t, err, track.Name)
		design, err := season.ReadDesign("../../"+season.DesignFile(track), track.Name)
		require.NoError(t, err, track.Name)
		assert.Len(t, design.Tasks, 10)
		_, err = season.ReadDesign("../../"+season.DesignFile(track), "autre")
		assert.ErrorContains(t, err, `/piste: "`+track.Name+`", want "autre"`)
	}
	assert.Equal(t, "corpus/saison-1/taches.json", season.TasksFile(corpus.Conformity))
	assert.Equal(t, "corpus/saison-1/cle-generique.json", season.KeyFile(corpus.Purchasing))
	assert.Equal(t, "corpus/saison-1/conception.json", season.DesignFile(corpus.Conformity))
	assert.Equal(t, "corpus/saison-1/conception-generique.json", season.DesignFile(corpus.Purchasing))
}

func TestDecodeTasksIsStrict(t *testing.T) {
	const (
		conf = `"id": "conf-01", "entite": "/entites/E", "activite": "a", "date_examen": "2026-10-05", "references": [], "assertions_min": 2, "assertions_max": 4, "question": "?"`
		gen  = `"id": "gen-01", "categorie": "ecrans", "contraintes": [{"caracteristique": "dalle", "operateur": "=", "valeur": "IPS"}], "quantite": "2", "zone": "corse", "date_commande": "2026-10-05", "date_livraison_max": "2026-10-09", "budget_max_ttc": "10.00", "references": [], "assertions_min": 2, "assertions_max": 4, "question": "?"`
	)
	tests := []struct {
		name, data, err string
	}{
		{"a conformity statement", `{"saison": "1", "piste": "conformite", "taches": [{` + conf + `}]}`, ""},
		{"a purchasing statement", `{"saison": "1", "piste": "generique", "taches": [{` + gen + `}]}`, ""},
		{"an unknown track", `{"saison": "1", "piste": "autre", "taches": []}`, `/piste: unknown track "autre"`},
		{"an unknown member", `{"saison": "1", "piste": "generique", "taches": [{` + gen + `, "marque": "x"}]}`, `/taches/0/marque: unknown member (want id, references, assertions_min, assertions_max, question, categorie,`},
		{"the other track's member", `{"saison": "1", "piste": "generique", "taches": [{` + gen + `, "entite": "/entites/E"}]}`,
			`/taches/0/entite: unknown member (want id, references, assertions_min, assertions_max, question, categorie,`},
		{"a conformity statement on the purchasing track", `{"saison": "1", "piste": "generique", "taches": [{` + conf + `}]}`,
			`/taches/0/entite: unknown member`},
		{"an empty member is still a member", `{"saison": "1", "piste": "generique", "taches": [{` + gen[:len(gen)-len(`, "question": "?"`)] + `}]}`,
			`/taches/0: member "question" is missing`},
		{"an unknown constraint member", `{"saison": "1", "piste": "generique", "taches": [{` + gen + `}], "x": 1}`, `taches.json /x: unknown member (want piste, saison, taches)`},
		{"trailing data", `{"saison": "1", "piste": "generique", "taches": []} {}`, "data after the JSON value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tasks, err := season.DecodeTasks("taches.json", []byte(tt.data))
			if tt.err == "" {
				require.NoError(t, err)
				assert.Len(t, tasks.Tasks, 1)
				return
			}
			assert.ErrorContains(t, err, tt.err)
			assert.ErrorContains(t, err, "taches.json")
		})
	}
}

func TestCitations(t *testing.T) {
	tasks := &season.Tasks{Tasks: []season.Task{
		{ID: "conf-01", Own: &conformity.Statement{Entity: "/entites/E"}, References: []string{"/attestations/A"}},
		{ID: "gen-01", Own: &purchasing.Need{Category: "ecrans"}, References: []string{"/produits/P"}},
	}}
	assert.Equal(t, []string{"/entites/E", "/attestations/A", "/produits/P"}, tasks.Citations())
}

// Each track's key reads strictly from its file, and writes back to the
// same bytes.
func TestKeyFilesWriteBackToTheirBytes(t *testing.T) {
	for _, track := range corpus.Tracks {
		data, err := os.ReadFile("../../" + season.KeyFile(track))
		require.NoError(t, err)
		k, err := season.DecodeKey(season.KeyFile(track), data)
		require.NoError(t, err)
		again, err := k.Encode()
		require.NoError(t, err)
		assert.Equal(t, string(data), string(again), "%s writes back to its own bytes", season.KeyFile(track))
	}
}

// A statement has exactly the members of its file's track, refused with
// the messages every reader of the season's files gives.
func TestStatementMemberRefusals(t *testing.T) {
	const conf = `"id": "conf-01", "entite": "/entites/E", "activite": "a", "date_examen": "2026-10-05", "references": [], "assertions_min": 2, "assertions_max": 4`
	tests := []struct {
		name, data, err string
	}{
		{"the other track's member", `{"saison": "1", "piste": "conformite", "taches": [{` + conf + `, "question": "?", "zone": "corse"}]}`,
			`taches.json /taches/0/zone: unknown member (want id, references, assertions_min, assertions_max, question, entite, activite, date_examen)`},
		{"no question", `{"saison": "1", "piste": "conformite", "taches": [{` + conf + `}]}`,
			`taches.json /taches/0: member "question" is missing`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := season.DecodeTasks("taches.json", []byte(tt.data))
			assert.EqualError(t, err, tt.err)
		})
	}
}

// The repository's own trees, manifests and statements lint clean, track
// by track.
func TestLintRealCorpus(t *testing.T) {
	for _, track := range corpus.Tracks {
		t.Run(track.Name, func(t *testing.T) {
			data, err := os.ReadFile("../../manifest/" + manifest.FileName(track))
			require.NoError(t, err)
			m, err := manifest.Decode(data)
			require.NoError(t, err)
			tasks, err := season.ReadTasks("../../" + season.TasksFile(track))
			require.NoError(t, err)

			report := lint.Lint(os.DirFS("../../corpus/"+track.Name), lint.Options{
				Track:    track,
				Manifest: m, ManifestFile: "manifest/" + manifest.FileName(track),
				Tasks: tasks, TasksFile: season.TasksFile(track),
			})
			assert.Empty(t, linttest.FindingLines(report), "the real corpus must lint clean")
			assert.True(t, report.OK())
			assert.Equal(t, 1, report.Files[strings.TrimPrefix(track.Rules, "/")])
			assert.Equal(t, 4, report.Files["_systeme"])
			assert.Len(t, tasks.Tasks, report.Tasks)
			assert.True(t, strings.HasPrefix(report.Summary(), "OK "), report.Summary())
		})
	}
}

// The checked-in manifest of each track is the build of its tree with
// what its statements cite.
func TestCheckedInManifestIsTheBuildOfTheTree(t *testing.T) {
	for _, track := range corpus.Tracks {
		t.Run(track.Name, func(t *testing.T) {
			tasks, err := season.ReadTasks(filepath.Join("../..", season.TasksFile(track)))
			require.NoError(t, err)
			citations := tasks.Citations()
			built, err := manifest.Build(track.Embedded(), track.Name, manifest.DefaultOrigin, citations)
			require.NoError(t, err)
			assert.Equal(t, string(manifest.Embedded(track)), string(built.Encode()))

			again, err := manifest.Build(track.Embedded(), track.Name, manifest.DefaultOrigin, citations)
			require.NoError(t, err)
			assert.Equal(t, string(built.Encode()), string(again.Encode()), "same tree, same bytes")
		})
	}
}
