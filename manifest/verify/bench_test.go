package verify_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/internal/testcorpus"
	"github.com/arkforge/proveit-corpus/manifest/tree"
	"github.com/arkforge/proveit-corpus/manifest/verify"
)

func BenchmarkCheck(b *testing.B) {
	m, err := manifest.Decode(manifest.Embedded(corpus.Conformity))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := verify.Tree(m, corpus.Conformity.Embedded(), verify.Full, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckGenerated checks a generated tree against its manifest at
// each depth: Bytes, what the server does at start-up, and Full, what
// `proveit verify` does.
func BenchmarkCheckGenerated(b *testing.B) {
	files, m, size := testcorpus.Generated(b)
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
	files, m, size := testcorpus.Generated(b)
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
