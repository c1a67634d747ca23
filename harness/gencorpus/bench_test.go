package gencorpus_test

// The manifest's benchmarks on a generated tree, which `make bench`
// reports beside the manifest package's own.

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/harness/gencorpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/tree"
	"github.com/arkforge/proveit-corpus/manifest/verify"
)

// benchmarkResources is the size of the tree the benchmarks build and
// check: large enough for per-file costs to dominate, small enough to
// generate in a fraction of a second. `make bench` times 100,000.
const benchmarkResources = 10_000

// generated is the tree of benchmarkResources files the benchmarks share,
// its manifest, and the total of its files' bytes.
func generated(b *testing.B) (files fstest.MapFS, m *manifest.Manifest, size int64) {
	b.Helper()
	files, err := gencorpus.Tree(gencorpus.Options{Resources: benchmarkResources, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	if m, err = manifest.Build(files, gencorpus.Track.Name, manifest.DefaultOrigin, nil); err != nil {
		b.Fatal(err)
	}
	for _, f := range files {
		size += int64(len(f.Data))
	}
	return files, m, size
}

// BenchmarkBuildGenerated builds the manifest of a generated tree of
// benchmarkResources files held in memory: parsing, canonical encoding and
// hashing, without the file system.
func BenchmarkBuildGenerated(b *testing.B) {
	tree, _, size := generated(b)
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := manifest.Build(tree, corpus.Conformity.Name, manifest.DefaultOrigin, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeGenerated writes the manifest of a generated tree.
func BenchmarkEncodeGenerated(b *testing.B) {
	_, m, _ := generated(b)
	b.ReportAllocs()
	for b.Loop() {
		_ = m.Encode()
	}
}

// BenchmarkDecodeGenerated reads the manifest of a generated tree, as the
// server does before checking it.
func BenchmarkDecodeGenerated(b *testing.B) {
	_, m, _ := generated(b)
	data := m.Encode()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := manifest.Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckGenerated checks a generated tree against its manifest at
// each depth: Bytes, what the server does at start-up, and Full, what
// `proveit verify` does.
func BenchmarkCheckGenerated(b *testing.B) {
	files, m, size := generated(b)
	for _, depth := range []struct {
		name  string
		depth verify.Depth
	}{{"Bytes", verify.Bytes}, {"Full", verify.Full}} {
		b.Run(depth.name, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := verify.Tree(m, files, depth.depth, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLoadGenerated loads a generated tree on disk against its
// manifest file, as the server does at start-up: the manifest streamed,
// the tree read and checked at Bytes depth.
func BenchmarkLoadGenerated(b *testing.B) {
	files, m, size := generated(b)
	root := b.TempDir()
	if err := os.CopyFS(root, files); err != nil {
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
		served, _, err := verify.Load(src, tree.Dir(root), corpus.Conformity, func(s verify.Served) []byte { return s.Body })
		src.Close()
		if err != nil || len(served) != len(m.Resources) {
			b.Fatalf("%d entries served, %v", len(served), err)
		}
	}
}
