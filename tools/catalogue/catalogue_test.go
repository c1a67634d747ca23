package catalogue

import (
	// Every track, whose files the tests read.
	_ "github.com/arkforge/proveit-corpus/tools/tracks/all"

	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/pyjson/pyref"
	"github.com/arkforge/proveit-corpus/tools/season"
)

const (
	manifestFile   = "../../manifest/conformite.json"
	statementsFile = "../../corpus/saison-1/taches.json"
	rulesFile      = "../../corpus/conformite/referentiel.json"
)

func build(t *testing.T) (*Catalogue, *manifest.Manifest, []string) {
	t.Helper()
	m, data, err := manifest.ReadFile(manifestFile)
	require.NoError(t, err)
	statements, err := os.ReadFile(statementsFile)
	require.NoError(t, err)
	tasks, err := season.DecodeTasks(statementsFile, statements)
	require.NoError(t, err)
	named := tasks.Citations()
	require.NoError(t, err)
	rules, err := os.ReadFile(rulesFile)
	require.NoError(t, err)
	c, err := Build(m, data, "1", named, rules)
	require.NoError(t, err)
	return c, m, named
}

// Every request_data and hash the catalogue shows is Python's: request_data
// is written loosely (another key order, spaces, 0.0 as a float literal) and
// python3 reads it and writes the canonical form.
func TestExamplesAgainstPython(t *testing.T) {
	if !pyref.Available() {
		t.Skip("python3 not found")
	}
	c, _, _ := build(t)
	type shown struct{ name, target, canonical, hash string }
	var all []shown
	add := func(name string, e Example) {
		all = append(all, shown{name, e.Target, e.CanonicalJSON, e.RequestHash})
	}
	add("exemple", c.Example)
	for _, r := range c.Resources {
		add(r.Path, r.Example)
	}
	for _, col := range c.Collections {
		all = append(all, shown{col.Collection + " template", col.Template, col.RequestData, ""})
		for _, e := range col.Examples {
			add(e.Path, e)
		}
	}
	for _, r := range c.RefusedForms {
		all = append(all, shown{r.Form, r.Target, "", r.RequestHash})
	}
	all = append(all, shown{"gabarit", "{target}", c.RequestData.Template, ""})
	docs := make([][]byte, len(all))
	for i, s := range all {
		docs[i] = fmt.Appendf(nil, `{"target": %q, "method": "GET", "payload": {}, "amount": 0.0, "currency": "eur"}`, s.target)
	}
	results, err := pyref.Canonicalize(docs)
	require.NoError(t, err)
	require.Greater(t, len(all), 20)
	for i, s := range all {
		require.Empty(t, results[i].Error, s.name)
		if s.canonical != "" {
			assert.Equal(t, results[i].Canonical, s.canonical, s.name)
		}
		if s.hash != "" {
			assert.Equal(t, results[i].SHA256, s.hash, s.name)
		}
	}
}

// Every template, given an id in the grammar, is a canonical target of its
// collection; the origin is the manifest's.
func TestTemplates(t *testing.T) {
	c, m, _ := build(t)
	ids := []string{"A", "ENT-0007-p2", "a.b_c-D9", strings.Repeat("x", 64)}
	outside := []string{"", "-A", ".A", "A/B", strings.Repeat("x", 65), "A%41"}
	grammar := regexp.MustCompile("^" + c.IDGrammar + "$")
	for _, id := range append(ids, outside...) {
		assert.Equal(t, corpus.ValidID(id), grammar.MatchString(id), "the published grammar says of %q what ValidID says", id)
	}
	require.NotEmpty(t, c.Collections)
	for _, col := range c.Collections {
		rest, ok := strings.CutPrefix(col.Template, m.Origin)
		require.True(t, ok, col.Template)
		for _, id := range ids {
			path := strings.Replace(rest, "{id}", id, 1)
			got, err := corpus.CheckTarget(path)
			require.NoError(t, err, path)
			ref, ok := corpus.ParseReference(got)
			name, gotID := ref.Collection(), ref.ID()
			assert.True(t, ok, path)
			assert.Equal(t, col.Collection, name)
			assert.Equal(t, id, gotID)
		}
		for _, id := range outside {
			assert.False(t, corpus.IsReference(strings.Replace(rest, "{id}", id, 1)), "%q is outside the grammar", id)
		}
	}
	for _, r := range c.RefusedForms {
		if rest, ok := strings.CutPrefix(r.Target, m.Origin); ok && strings.HasPrefix(rest, "/") {
			_, err := corpus.CheckTarget(rest)
			assert.Equal(t, err != nil, r.ServerStatus != nil, r.Form)
		}
		assert.NotEqual(t, c.Example.RequestHash, r.RequestHash, r.Form)
	}
}

// reference finds path-like words; those in the reference grammar must be
// the statements' own.
var reference = regexp.MustCompile(`/[a-z-]+(?:/[a-z-]+)?/[A-Za-z0-9][A-Za-z0-9._-]*`)

// The catalogue names no resource beyond the statements' references.
func TestNamesOnlyTheStatementsReferences(t *testing.T) {
	c, _, named := build(t)
	for name, text := range map[string]string{"markdown": string(c.Markdown()), "json": string(c.JSON())} {
		found := 0
		for _, word := range reference.FindAllString(text, -1) {
			if corpus.IsReference(word) {
				found++
				assert.Contains(t, named, word, "%s names %s", name, word)
			}
		}
		assert.Greater(t, found, 10, name)
	}
}

// What is published at the opening may not name a trap nor hold the
// manifest; the season's own files pass.
func TestOpening(t *testing.T) {
	c, m, named := build(t)
	statements, err := os.ReadFile(statementsFile)
	require.NoError(t, err)
	manifestBytes, err := os.ReadFile(manifestFile)
	require.NoError(t, err)
	var absent, document manifest.Entry
	for _, e := range m.Resources {
		switch {
		case e.Kind == manifest.Absent && !strings.Contains(string(statements), e.Path):
			absent = e
		case e.Kind == manifest.Document && document.Path == "":
			document = e
		}
	}
	require.NotEmpty(t, absent.Path, "the corpus holds an absent reference no statement names")
	assert.Empty(t, Opening(map[string][]byte{"taches.json": statements, "c.md": c.Markdown(), "c.json": c.JSON()}, m, named))

	tests := []struct {
		name, text, what string
	}{
		{"absent path", "voir " + absent.Path, "names the absent reference " + absent.Path},
		{"absent path escaped", strings.ReplaceAll(absent.Path, "/", `\/`), "names the absent reference"},
		{"absent request hash", strings.ToUpper(*absent.RequestHash), "(its request_hash)"},
		{"the manifest", string(manifestBytes), "holds the manifest"},
		{"a body hash", document.ResponseHash, "holds a hash of the body of " + document.Path},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			leaks := Opening(map[string][]byte{"c.md": append(c.Markdown(), tt.text...)}, m, named)
			require.NotEmpty(t, leaks)
			assert.True(t, strings.HasPrefix(leaks[0].String(), "c.md: "), leaks[0].String())
			assert.Contains(t, leaks[0].String(), tt.what)
		})
	}
	named3 := append([]string{absent.Path}, named...)
	assert.Empty(t, Opening(map[string][]byte{"c.md": []byte(absent.Path)}, m, named3), "a reference a statement names may be published")
}

// The catalogue repeats, word for word, the scoring rules the rules
// document publishes, and refuses a document the manifest does not list or
// one that publishes none.
func TestRepeatsTheScoringRules(t *testing.T) {
	c, _, _ := build(t)
	page := string(c.Markdown())
	for _, text := range []string{c.Scoring.Graph, c.Scoring.OwnResources, c.Scoring.NotProbative, c.Scoring.SameFact, c.Scoring.Fictitious} {
		require.NotEmpty(t, text)
		assert.Contains(t, page, text)
	}
	require.Len(t, c.Scoring.Probative, 7)
	assert.Equal(t, season.ProbativeRow{Collection: "/agrements/<id>", Pointers: []string{"/existe", "/entite", "/activite", "/statut", "/date_debut", "/date_fin_validite"}}, c.Scoring.Probative[1])
	assert.Contains(t, page, "| `/agrements/<id>` | `/existe`, `/entite`, `/activite`, `/statut`, `/date_debut`, `/date_fin_validite` |")

	m, data, err := manifest.ReadFile(manifestFile)
	require.NoError(t, err)
	rules, err := os.ReadFile(rulesFile)
	require.NoError(t, err)
	_, err = Build(m, data, "1", []string{"/agrements/AGR-4417"}, append(rules, ' '))
	assert.ErrorContains(t, err, "/referentiel: the rules document given is not the one the manifest of conformite lists")
	_, err = season.ReadNotation("/referentiel", []byte(`{"ressource": "/referentiel"}`))
	assert.ErrorContains(t, err, "/referentiel /notation: want the object that publishes the scoring rules")
	_, err = season.ReadNotation("/referentiel", []byte(`{"notation": {"graphe_de_la_tache": "x"}}`))
	assert.ErrorContains(t, err, "/referentiel /notation/ressources_propres: missing")
}
