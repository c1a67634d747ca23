// Package testcorpus hands the manifest packages' tests a track's
// checked-in manifest and a copy of its tree they may break, and the
// generated tree their benchmarks share.
package testcorpus

import (
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/harness/gencorpus"
	"github.com/arkforge/proveit-corpus/manifest"
)

// CheckedIn decodes the manifest of a track compiled into the binary.
func CheckedIn(t testing.TB, track *corpus.Track) *manifest.Manifest {
	t.Helper()
	m, err := manifest.Decode(manifest.Embedded(track))
	require.NoError(t, err)
	require.Equal(t, track.Name, m.Track)
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

// BenchmarkResources is the size of the synthetic tree the manifest's
// benchmarks build and check: large enough for per-file costs to dominate,
// small enough to generate in a fraction of a second. `make bench` times
// 100,000.
const BenchmarkResources = 10_000

// Generated is the synthetic tree of BenchmarkResources files the
// manifest's benchmarks share, its manifest, and the total of its files'
// bytes.
func Generated(tb testing.TB) (tree fstest.MapFS, m *manifest.Manifest, size int64) {
	tb.Helper()
	tree, err := gencorpus.Tree(gencorpus.Options{Resources: BenchmarkResources, Seed: 1})
	if err != nil {
		tb.Fatal(err)
	}
	if m, err = manifest.Build(tree, gencorpus.Track.Name, manifest.DefaultOrigin, nil); err != nil {
		tb.Fatal(err)
	}
	for _, f := range tree {
		size += int64(len(f.Data))
	}
	return tree, m, size
}
