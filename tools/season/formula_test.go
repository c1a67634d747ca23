package season

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/manifest/pyjson"
)

func triple(resource, field, value string) Fact {
	return Fact{Resource: resource, Field: field, Value: json.RawMessage(value)}
}

func fact(resource, field, value string, forms ...Fact) Formula {
	f := triple(resource, field, value)
	f.EquivalentForms = forms
	return FactOf(f)
}

// A formula reads as strictly as a submission, each error naming its
// pointer.
func TestDecodeFormulaIsStrict(t *testing.T) {
	const f = `{"resource": "/entites/E", "field": "/statut", "value": "active", "formes_equivalentes": []}`
	tests := []struct {
		name, data, err string
	}{
		{"a fact", f, ""},
		{"a fact with a form", `{"resource": "/entites/E", "field": "/agrements/0", "value": "/agrements/A", "formes_equivalentes": [{"resource": "/entites/E", "field": "/agrements", "value": ["/agrements/A"]}]}`, ""},
		{"tous and un_de", `{"tous": [` + f + `, {"un_de": [` + f + `, ` + f + `]}]}`, ""},
		{"an unknown member", `{"resource": "/entites/E", "field": "/statut", "value": "active", "formes_equivalentes": [], "note": 1}`, `/taches/0/fondement/note: unknown member (want resource, field, value, formes_equivalentes)`},
		{"a member in another case", `{"Resource": "/entites/E", "field": "/statut", "value": "active", "formes_equivalentes": []}`, `a formula is a fact`},
		{"a duplicate member", `{"tous": [` + f + `], "tous": [` + f + `]}`, `duplicate key "tous"`},
		{"two shapes in one node", `{"tous": [` + f + `], "un_de": [` + f + `]}`, `exactly one shape per node`},
		{"a fact and a list in one node", `{"tous": [` + f + `], "resource": "/entites/E"}`, `exactly one shape per node`},
		{"an empty tous", `{"tous": []}`, `/tous: want a non-empty array`},
		{"an empty un_de, deep", `{"tous": [{"un_de": []}]}`, `/tous/0/un_de: want a non-empty array`},
		{"no forms member", `{"resource": "/entites/E", "field": "/statut", "value": "active"}`, `member "formes_equivalentes" is missing`},
		{"a form with forms of its own", `{"resource": "/entites/E", "field": "/statut", "value": "active", "formes_equivalentes": [` + f + `]}`, `/taches/0/fondement/formes_equivalentes/0/formes_equivalentes: unknown member (want resource, field, value)`},
		{"a form without a value", `{"resource": "/entites/E", "field": "/statut", "value": "active", "formes_equivalentes": [{"resource": "/entites/E", "field": "/statut"}]}`, `/formes_equivalentes/0: member "value" is missing`},
		{"a field that is not a string", `{"resource": "/entites/E", "field": 3, "value": "active", "formes_equivalentes": []}`, `resource and field are strings`},
		{"not an object", `[]`, `a formula is an object`},
		{"not JSON", `{"tous": [}`, `/taches/0/fondement: at /tous/0`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := decodeFormula([]byte(tt.data), "/taches/0/fondement")
			if tt.err == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
}

// A key reads strictly.
func TestDecodeKey(t *testing.T) {
	const task = `{"id": "conf-01", "verdict": "conforme", "familles": [], "controle": true, "fondement": {"resource": "/entites/E", "field": "/statut", "value": "active", "formes_equivalentes": []}}`
	tests := []struct {
		name, data, err string
	}{
		{"a key", `{"taches": [` + task + `]}`, ""},
		{"a task member in another case", `{"taches": [{"ID": "conf-01", "verdict": "conforme", "familles": [], "controle": true, "fondement": {}}]}`, `cle.json /taches/0/ID: unknown member (want id, verdict, familles, controle, fondement)`},
		{"a task without its formula", `{"taches": [{"id": "conf-01", "verdict": "conforme", "familles": [], "controle": true}]}`, `/taches/0: member "fondement" is missing`},
		{"the flat faits of old", `{"taches": [{"id": "conf-01", "verdict": "conforme", "familles": [], "controle": true, "faits": []}]}`, `/taches/0/faits: unknown member (want id,`},
		{"a bad formula", `{"taches": [{"id": "conf-01", "verdict": "conforme", "familles": [], "controle": true, "fondement": {"tous": []}}]}`, `cle.json /taches/0/fondement/tous: want a non-empty array`},
		{"a duplicate task member", `{"taches": [{"id": "conf-01", "id": "conf-02", "verdict": "conforme", "familles": [], "controle": true, "fondement": {}}]}`, `duplicate key "id"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k, err := DecodeKey("cle.json", []byte(tt.data))
			if tt.err == "" {
				require.NoError(t, err)
				require.Len(t, k.Tasks, 1)
				assert.Equal(t, "/statut", k.Tasks[0].Founding.Fact.Field)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
			assert.Contains(t, err.Error(), "cle.json")
		})
	}
}

// conf-02's shape: the agrément's link in three forms, then any one reason.
func sampleFormula() Formula {
	link := fact("/entites/E", "/agrements/0", `"/agrements/A"`,
		triple("/entites/E", "/agrements", `["/agrements/A","/agrements/B"]`),
		triple("/agrements/A", "/entite", `"/entites/E"`))
	linkB := fact("/entites/E", "/agrements/1", `"/agrements/B"`,
		triple("/entites/E", "/agrements", `["/agrements/A","/agrements/B"]`))
	return AnyOf(
		AllOf(link, AnyOf(fact("/agrements/A", "/statut", `"retire"`), fact("/agrements/A", "/date_fin_validite", `"2026-01-01"`)),
			linkB, fact("/agrements/B", "/activite", `"autre"`)),
		fact("/entites/E", "/statut", `"radiee"`),
	)
}

func carried(facts ...Fact) Carried {
	c := Carried{}
	for _, f := range facts {
		c.AddFact(f)
	}
	return c
}

func TestFormulaHolds(t *testing.T) {
	f := sampleFormula()
	tests := []struct {
		name   string
		claims []Fact
		want   bool
	}{
		{"nothing", nil, false},
		{"the other alternative", []Fact{triple("/entites/E", "/statut", `"radiee"`)}, true},
		{"each link as its element, one reason", []Fact{
			triple("/entites/E", "/agrements/0", `"/agrements/A"`), triple("/entites/E", "/agrements/1", `"/agrements/B"`),
			triple("/agrements/A", "/statut", `"retire"`), triple("/agrements/B", "/activite", `"autre"`)}, true},
		{"the whole array for both links, the other reason", []Fact{
			triple("/entites/E", "/agrements", `["/agrements/A","/agrements/B"]`),
			triple("/agrements/A", "/date_fin_validite", `"2026-01-01"`), triple("/agrements/B", "/activite", `"autre"`)}, true},
		{"the link stated back", []Fact{
			triple("/agrements/A", "/entite", `"/entites/E"`), triple("/entites/E", "/agrements/1", `"/agrements/B"`),
			triple("/agrements/A", "/statut", `"retire"`), triple("/agrements/B", "/activite", `"autre"`)}, true},
		{"one agrément short", []Fact{
			triple("/entites/E", "/agrements", `["/agrements/A","/agrements/B"]`), triple("/agrements/A", "/statut", `"retire"`)}, false},
		{"another value", []Fact{triple("/entites/E", "/statut", `"active"`)}, false},
		{"the same value written otherwise", []Fact{triple("/entites/E", "/statut", `"radi\u0065e"`)}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, f.Holds(carried(tt.claims...)))
		})
	}
}

// The smallest founding set counts claims, not facts: one whole array
// carries every link it holds.
func TestFormulaSmallest(t *testing.T) {
	tests := []struct {
		name    string
		formula Formula
		want    int
	}{
		{"the shorter alternative", sampleFormula(), 1},
		{"the whole array carries both links", sampleFormula().Any[0], 3},
		{"a fact shared by two members counts once", AllOf(
			AnyOf(fact("/a/1", "/x", `"1"`), fact("/a/2", "/y", `"2"`)),
			AnyOf(fact("/a/3", "/z", `"3"`), fact("/a/2", "/y", `"2"`))), 1},
		{"one fact", fact("/a/1", "/x", `"1"`), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.formula.Smallest()
			require.NoError(t, err)
			assert.Len(t, got, tt.want, "%v", got)
			assert.True(t, tt.formula.Holds(carried(got...)), "the smallest set founds the formula")
		})
	}
}

// The missing facts are those of the alternative that came closest,
// without their forms; none when the formula holds.
func TestFormulaMissing(t *testing.T) {
	f := sampleFormula()
	missing, err := f.Missing(carried(triple("/entites/E", "/statut", `"radiee"`)))
	require.NoError(t, err)
	assert.Nil(t, missing)

	missing, err = f.Missing(carried(
		triple("/entites/E", "/agrements", `["/agrements/A","/agrements/B"]`), triple("/agrements/A", "/statut", `"retire"`)))
	require.NoError(t, err)
	assert.Equal(t, []Fact{triple("/agrements/B", "/activite", `"autre"`)}, missing)

	missing, err = f.Missing(Carried{})
	require.NoError(t, err)
	assert.Equal(t, []Fact{triple("/entites/E", "/statut", `"radiee"`)}, missing, "the closest is the one-fact alternative")
}

func TestFormulaAlternativesAreBounded(t *testing.T) {
	member := AnyOf(fact("/a/1", "/x", `"1"`), fact("/a/2", "/x", `"2"`), fact("/a/3", "/x", `"3"`), fact("/a/4", "/x", `"4"`))
	var wide []Formula
	for range 7 { // 4^7 = 16384 alternatives
		wide = append(wide, member)
	}
	_, err := AllOf(wide...).Alternatives()
	assert.ErrorContains(t, err, "more than 4096 alternatives")
	alts, err := AllOf(wide[:5]...).Alternatives()
	require.NoError(t, err)
	assert.Len(t, alts, 1024)
}

// Carried compares values as Python's json reads them.
func TestCarried(t *testing.T) {
	c := Carried{}
	c.Add("/a/1", "/x", pyjson.Array{"é"})
	assert.True(t, c.Has(triple("/a/1", "/x", `["\u00e9"]`)))
	assert.True(t, c.Has(triple("/a/1", "/x", `[ "é" ]`)))
	assert.False(t, c.Has(triple("/a/1", "/x", `"é"`)))
	assert.False(t, c.Has(triple("/a/1", "/x", `not json`)))
}

// An empty formula, which no key decodes to, founds nothing and says so.
func TestEmptyFormula(t *testing.T) {
	var empty Formula
	assert.True(t, empty.IsZero())
	assert.False(t, empty.Holds(Carried{}))
	_, err := empty.Smallest()
	assert.ErrorContains(t, err, "an empty formula founds nothing")
	_, err = empty.Missing(Carried{})
	assert.ErrorContains(t, err, "an empty formula founds nothing")
	_, err = json.Marshal(empty)
	assert.ErrorContains(t, err, "an empty formula founds nothing")
}
