package season

import (
	"encoding/json"
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
		assert.Equal(t, track.Name, tasks.Track)
		assert.Len(t, tasks.Tasks, 10)
		for _, task := range tasks.Tasks {
			assert.Same(t, track, task.Rules().Track, task.ID)
		}
		_, err = ReadKey("../../" + KeyFile(track))
		require.NoError(t, err, track.Name)
		design, err := ReadDesign("../../"+DesignFile(track), track.Name)
		require.NoError(t, err, track.Name)
		assert.Len(t, design.Tasks, 10)
		_, err = ReadDesign("../../"+DesignFile(track), "autre")
		assert.ErrorContains(t, err, `/piste: "`+track.Name+`", want "autre"`)
	}
	assert.Equal(t, "corpus/saison-1/taches.json", TasksFile(corpus.Conformity))
	assert.Equal(t, "corpus/saison-1/cle-generique.json", KeyFile(corpus.Purchasing))
	assert.Equal(t, "corpus/saison-1/conception.json", DesignFile(corpus.Conformity))
	assert.Equal(t, "corpus/saison-1/conception-generique.json", DesignFile(corpus.Purchasing))
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
		{"an unknown member", `{"saison": "1", "piste": "generique", "taches": [{` + gen + `, "marque": "x"}]}`, `/taches/0/marque: unknown member (want activite,`},
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
			tasks, err := DecodeTasks("taches.json", []byte(tt.data))
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
	tasks := &Tasks{Tasks: []Task{
		{ID: "conf-01", Entity: "/entites/E", References: []string{"/attestations/A"}},
		{ID: "gen-01", Category: "ecrans", References: []string{"/produits/P"}},
	}}
	assert.Equal(t, []string{"/entites/E", "/attestations/A", "/produits/P"}, tasks.Citations())
}

// DecodeStrict reads as a submission is read: names exact to the letter,
// no duplicate key, no trailing data, and says where.
func TestDecodeStrict(t *testing.T) {
	type inner struct {
		Value string `json:"value"`
	}
	type doc struct {
		Name  string           `json:"name"`
		Items []inner          `json:"items"`
		ByID  map[string]inner `json:"by_id"`
		Flag  bool             `json:"flag"`
		Note  *inner           `json:"note"`
	}
	tests := []struct {
		name, data, err string
	}{
		{"exact", `{"name": "a", "items": [{"value": "x"}], "by_id": {"K": {"value": "y"}}, "flag": true, "note": null}`, ""},
		{"a name in another case", `{"Name": "a"}`, `f.json /Name: unknown member (want by_id, flag, items, name, note)`},
		{"a nested name in another case", `{"items": [{"value": "x"}, {"VALUE": "y"}]}`, `f.json /items/1/VALUE: unknown member (want value)`},
		{"in a map's value", `{"by_id": {"K": {"Value": "y"}}}`, `f.json /by_id/K/Value: unknown member (want value)`},
		{"an unknown name", `{"name": "a", "other": 1}`, `f.json /other: unknown member (want by_id, flag, items, name, note)`},
		{"a duplicate key", `{"name": "a", "name": "b"}`, `f.json /name: not JSON as Python reads it: duplicate key "name"`},
		{"a duplicate key in a map", `{"by_id": {"K": {}, "K": {}}}`, `duplicate key "K"`},
		{"trailing data", `{"name": "a"} {}`, `f.json`},
		{"a wrong type", `{"items": [{"value": 1}]}`, `f.json /items/0/value: want a string, not a number`},
		{"null for a string", `{"name": null}`, `f.json /name: want a string, not null`},
		{"null for a list", `{"items": null}`, `f.json /items: want an array, not null`},
		{"a pointer's member in another case", `{"note": {"Value": "x"}}`, `f.json /note/Value: unknown member (want value)`},
		{"not an object", `[]`, `f.json (root): want an object, not an array`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d doc
			err := DecodeStrict("f.json", []byte(tt.data), &d)
			if tt.err == "" {
				require.NoError(t, err)
				assert.Equal(t, doc{Name: "a", Items: []inner{{"x"}}, ByID: map[string]inner{"K": {"y"}}, Flag: true}, d)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
}

// A member that decodes itself (json.RawMessage, a type with UnmarshalJSON)
// is left to its own decoder; duplicates in it are still refused.
func TestDecodeStrictLeavesSelfDecodingMembers(t *testing.T) {
	var d struct {
		Raw json.RawMessage `json:"raw"`
	}
	require.NoError(t, DecodeStrict("f.json", []byte(`{"raw": {"Any": 1}}`), &d))
	assert.JSONEq(t, `{"Any": 1}`, string(d.Raw))
	err := DecodeStrict("f.json", []byte(`{"raw": {"a": 1, "a": 2}}`), &d)
	assert.ErrorContains(t, err, `f.json /raw/a: not JSON as Python reads it: duplicate key "a"`)
}
