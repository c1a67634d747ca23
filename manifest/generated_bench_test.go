package manifest_test

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/tools/gencorpus"
)

// generatedResources is the size of the synthetic tree the benchmarks below
// build and check: large enough for per-file costs to dominate, small enough
// to generate in a fraction of a second. `make bench` times 100,000.
const generatedResources = 10_000

// generatedTree generates the tree in memory and builds its manifest; size
// is the total of the files' bytes.
func generatedTree(b *testing.B) (tree fstest.MapFS, m *manifest.Manifest, size int64) {
	b.Helper()
	tree, err := gencorpus.Tree(gencorpus.Options{Resources: generatedResources, Seed: 1})
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

// BenchmarkBuildGenerated builds the manifest of a generated tree of
// generatedResources files held in memory: parsing, canonical encoding and
// hashing, without the file system.
func BenchmarkBuildGenerated(b *testing.B) {
	tree, _, size := generatedTree(b)
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := manifest.Build(tree, corpus.Conformite.Name, manifest.DefaultOrigin, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckGenerated checks a generated tree against its manifest at
// each depth: Bytes, what the server does at start-up, and Full, what
// `proveit verify` does.
func BenchmarkCheckGenerated(b *testing.B) {
	tree, m, size := generatedTree(b)
	for _, depth := range []struct {
		name  string
		depth manifest.Depth
	}{{"Bytes", manifest.Bytes}, {"Full", manifest.Full}} {
		b.Run(depth.name, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.Check(tree, depth.depth); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEncodeGenerated writes the manifest of a generated tree.
func BenchmarkEncodeGenerated(b *testing.B) {
	_, m, _ := generatedTree(b)
	b.ReportAllocs()
	for b.Loop() {
		_ = m.Encode()
	}
}

// BenchmarkDecodeGenerated reads the manifest of a generated tree, as the
// server does before checking it.
func BenchmarkDecodeGenerated(b *testing.B) {
	_, m, _ := generatedTree(b)
	data := m.Encode()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := manifest.Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadGenerated loads a generated tree on disk against its
// manifest file, as the server does at start-up: the manifest streamed,
// the tree read and checked at Bytes depth.
func BenchmarkLoadGenerated(b *testing.B) {
	tree, m, size := generatedTree(b)
	root := b.TempDir()
	if err := os.CopyFS(root, tree); err != nil {
		b.Fatal(err)
	}
	manifestPath := filepath.Join(b.TempDir(), "manifest.json")
	if err := os.WriteFile(manifestPath, m.Encode(), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		src, err := os.Open(manifestPath)
		if err != nil {
			b.Fatal(err)
		}
		served, _, err := manifest.Load(src, manifest.Dir(root), corpus.Conformite, func(s manifest.Served) []byte { return s.Body })
		src.Close()
		if err != nil || len(served) != len(m.Resources) {
			b.Fatalf("%d entries served, %v", len(served), err)
		}
	}
}
