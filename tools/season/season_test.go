package season

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
)

// The repository's statements read strictly, each with its track's shape.
func TestReadSeasonFiles(t *testing.T) {
	for _, track := range corpus.Tracks {
		tasks, err := ReadTasks("../../" + TasksFile(track))
		require.NoError(t, err, track.Name)
		assert.Equal(t, track.Name, tasks.Piste)
		assert.Len(t, tasks.Taches, 10)
		for _, task := range tasks.Taches {
			assert.Same(t, track, task.Track(), task.ID)
		}
		_, err = ReadKey("../../" + KeyFile(track))
		require.NoError(t, err, track.Name)
		design, err := ReadDesign("../../"+DesignFile(track), track.Name)
		require.NoError(t, err, track.Name)
		assert.Len(t, design.Taches, 10)
		_, err = ReadDesign("../../"+DesignFile(track), "autre")
		assert.ErrorContains(t, err, `/piste: "`+track.Name+`", want "autre"`)
	}
	assert.Equal(t, "corpus/saison-1/taches.json", TasksFile(corpus.Conformite))
	assert.Equal(t, "corpus/saison-1/cle-generique.json", KeyFile(corpus.Generique))
	assert.Equal(t, "corpus/saison-1/conception.json", DesignFile(corpus.Conformite))
	assert.Equal(t, "corpus/saison-1/conception-generique.json", DesignFile(corpus.Generique))
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
		{"an unknown member", `{"saison": "1", "piste": "generique", "taches": [{` + gen + `, "marque": "x"}]}`, `unknown field "marque"`},
		{"the other track's member", `{"saison": "1", "piste": "generique", "taches": [{` + gen + `, "entite": "/entites/E"}]}`,
			`/taches/0/entite: not a member of a generique statement`},
		{"a conformity statement on the purchasing track", `{"saison": "1", "piste": "generique", "taches": [{` + conf + `}]}`,
			`/taches/0: member "categorie" is missing`},
		{"an empty member is still a member", `{"saison": "1", "piste": "generique", "taches": [{` + gen[:len(gen)-len(`, "question": "?"`)] + `}]}`,
			`/taches/0: member "question" is missing`},
		{"an unknown constraint member", `{"saison": "1", "piste": "generique", "taches": [{` + gen + `}], "x": 1}`, `unknown field "x"`},
		{"trailing data", `{"saison": "1", "piste": "generique", "taches": []} {}`, "data after the JSON value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tasks, err := DecodeTasks("taches.json", []byte(tt.data))
			if tt.err == "" {
				require.NoError(t, err)
				assert.Len(t, tasks.Taches, 1)
				return
			}
			assert.ErrorContains(t, err, tt.err)
			assert.ErrorContains(t, err, "taches.json")
		})
	}
}

func TestCitations(t *testing.T) {
	tasks := &Tasks{Taches: []Task{
		{ID: "conf-01", Entite: "/entites/E", References: []string{"/attestations/A"}},
		{ID: "gen-01", Categorie: "ecrans", References: []string{"/produits/P"}},
	}}
	assert.Equal(t, []string{"/entites/E", "/attestations/A", "/produits/P"}, tasks.Citations())
}
