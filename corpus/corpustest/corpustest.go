// Package corpustest hands tests a copy of a track's tree they may break,
// or grow to any size: trees of the season's own bytes, with no other
// package's help.
package corpustest

import (
	"fmt"
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
)

// Copy copies a track's embedded tree into an in-memory tree a test
// may break.
func Copy(t testing.TB, track *corpus.Track) fstest.MapFS {
	t.Helper()
	tree := fstest.MapFS{}
	err := fs.WalkDir(track.Embedded(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(track.Embedded(), name)
		tree[name] = &fstest.MapFile{Data: data}
		return err
	})
	require.NoError(t, err)
	return tree
}

// Grown is a copy of a track's embedded tree with n more documents, each
// a resource of the track's first collection that cites one absent
// reference: a tree, and a manifest, as large as a test needs.
func Grown(t testing.TB, track *corpus.Track, n int) fstest.MapFS {
	t.Helper()
	tree := Copy(t, track)
	collection := track.Collections[0]
	for i := range n {
		path := fmt.Sprintf("/%s/GROWN-%06d", collection, i)
		cited := fmt.Sprintf("/%s/GROWN-ABSENT-%06d", collection, i)
		body := fmt.Sprintf("{\n  \"ressource\": %q,\n  \"existe\": true,\n  \"cite\": %q\n}\n", path, cited)
		tree[corpus.FileOf(path)] = &fstest.MapFile{Data: []byte(body)}
	}
	return tree
}
