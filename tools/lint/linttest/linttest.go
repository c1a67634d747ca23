// Package linttest edits small corpora for the tests of the tracks'
// checks: a World of parsed documents by file, changed member by member
// and written in the corpus's layout, and the findings a lint gives, one
// line each.
package linttest

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/lint"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// World is a corpus being edited for one test case: parsed documents by
// file, plus files written as raw bytes.
type World struct {
	Docs map[string]pyjson.Value
	Raw  map[string]string
}

// WorldOf parses docs, JSON text by file, into a world.
func WorldOf(t testing.TB, docs map[string]string) *World {
	t.Helper()
	w := &World{Docs: map[string]pyjson.Value{}, Raw: map[string]string{}}
	for file, doc := range docs {
		v, err := pyjson.Parse([]byte(doc))
		require.NoError(t, err, file)
		w.Docs[file] = v
	}
	return w
}

// Deleted, set at a pointer, removes the member.
type Deleted struct{}

// Set puts v at pointer in file's document (Deleted{} removes the member).
func (w *World) Set(file, pointer string, v pyjson.Value) *World {
	w.Docs[file] = setAt(w.Docs[file], strings.Split(pointer, "/")[1:], v)
	return w
}

func setAt(doc pyjson.Value, tokens []string, v pyjson.Value) pyjson.Value {
	if len(tokens) == 0 {
		return v
	}
	switch node := doc.(type) {
	case pyjson.Object:
		out := pyjson.Object{}
		found := false
		for _, m := range node {
			if m.Key == tokens[0] {
				found = true
				if _, remove := v.(Deleted); remove && len(tokens) == 1 {
					continue
				}
				m.Value = setAt(m.Value, tokens[1:], v)
			}
			out = append(out, m)
		}
		if !found {
			out = append(out, pyjson.Member{Key: tokens[0], Value: setAt(nil, tokens[1:], v)})
		}
		return out
	case pyjson.Array:
		i, err := strconv.Atoi(tokens[0])
		if err != nil {
			panic(err)
		}
		out := append(pyjson.Array{}, node...)
		if i == len(out) {
			out = append(out, nil)
		}
		out[i] = setAt(out[i], tokens[1:], v)
		return out
	}
	panic("set: no container at " + strings.Join(tokens, "/"))
}

// Tree is the world as files, each document in the corpus's layout.
func (w *World) Tree() fstest.MapFS {
	tree := fstest.MapFS{}
	for file, doc := range w.Docs {
		tree[file] = &fstest.MapFile{Data: append(pyjson.AppendIndented(nil, doc), '\n')}
	}
	for file, data := range w.Raw {
		tree[file] = &fstest.MapFile{Data: []byte(data)}
	}
	return tree
}

// FindingLines are a report's findings as the linter prints them.
func FindingLines(r *lint.Report) []string {
	var lines []string
	for _, f := range r.Findings {
		lines = append(lines, f.String())
	}
	return lines
}

// Notation is the notation member a rules document publishes for a
// rulebook, as JSON text: the scorer's probative table and short texts.
func Notation(r *season.Rules) string {
	table := r.PublishedProbative()
	var rows []string
	for _, collection := range slices.Sorted(maps.Keys(table)) {
		pointers, _ := json.Marshal(table[collection])
		rows = append(rows, fmt.Sprintf("%q: %s", collection, pointers))
	}
	return `"notation": {"graphe_de_la_tache": "Le graphe.", "ressources_propres": "Les ressources propres.", "champs_probants": {` +
		strings.Join(rows, ", ") + `}, "champs_non_probants": "Le reste.", "meme_fait": "Les formes.", "avertissement": "Tout est fictif."}`
}

// PublishProbative sets one collection's row of the probative table the
// rules document in file publishes, adding it where it is missing.
func PublishProbative(t testing.TB, w *World, file, collection string, pointers pyjson.Array) {
	t.Helper()
	v, ok := pyjson.Lookup(w.Docs[file], "/notation/champs_probants")
	require.True(t, ok)
	table := v.(pyjson.Object)
	if i := slices.IndexFunc(table, func(m pyjson.Member) bool { return m.Key == collection }); i >= 0 {
		table[i].Value = pointers
	} else {
		table = append(table, pyjson.Member{Key: collection, Value: pointers})
	}
	w.Set(file, "/notation/champs_probants", table)
}
