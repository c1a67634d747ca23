// Package solvertest builds small synthetic corpora for the tests of the
// tracks' criteria: a World of documents by canonical path, served as the
// server would serve its files.
package solvertest

import (
	"encoding/json"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/solver"
)

// Doc is one synthetic resource; member order does not matter to the
// solver.
type Doc = map[string]any

// World is a synthetic corpus by canonical path.
type World map[string]Doc

// Fetcher serves the world as the server would, through solver.ServeTree.
func (w World) Fetcher(t testing.TB) season.Fetcher {
	t.Helper()
	tree := fstest.MapFS{}
	for path, d := range w {
		data, err := json.Marshal(d)
		require.NoError(t, err)
		tree[corpus.FileOf(path)] = &fstest.MapFile{Data: data}
	}
	return solver.ServeTree(tree)
}
