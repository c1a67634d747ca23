// Package testcorpus hands the manifest packages' tests a track's
// checked-in manifest and a copy of its tree they may break.
package testcorpus

import (
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/tools/gencorpus"
)

// CheckedIn decodes the manifest of a track compiled into the binary.
func CheckedIn(t testing.TB, track *corpus.Track) *manifest.Manifest {
	t.Helper()
	m, err := manifest.Decode(manifest.Embedded(track))
	require.NoError(t, err)
	require.Equal(t, track.Name, m.Piste)
	return m
}

// TreeCopy copies a track's embedded tree into an in-memory tree a test
// may break.
func TreeCopy(t testing.TB, track *corpus.Track) fstest.MapFS {
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

// GeneratedResources is the size of the synthetic tree the benchmarks
// build and check: large enough for per-file costs to dominate, small enough
// to generate in a fraction of a second. `make bench` times 100,000.
const GeneratedResources = 10_000

// Generated generates the tree in memory and builds its manifest; size
// is the total of the files' bytes.
func Generated(b *testing.B) (tree fstest.MapFS, m *manifest.Manifest, size int64) {
	b.Helper()
	tree, err := gencorpus.Tree(gencorpus.Options{Resources: GeneratedResources, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	if m, err = manifest.Build(tree, corpus.Conformite.Name, manifest.DefaultOrigin, nil); err != nil {
		b.Fatal(err)
	}
	for _, f := range tree {
		size += int64(len(f.Data))
	}
	return tree, m, size
}
