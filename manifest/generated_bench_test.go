package manifest_test

import (
	"testing"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/internal/testcorpus"
)

// BenchmarkBuildGenerated builds the manifest of a generated tree of
// testcorpus.BenchmarkResources files held in memory: parsing, canonical encoding and
// hashing, without the file system.
func BenchmarkBuildGenerated(b *testing.B) {
	tree, _, size := testcorpus.Generated(b)
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
	_, m, _ := testcorpus.Generated(b)
	b.ReportAllocs()
	for b.Loop() {
		_ = m.Encode()
	}
}

// BenchmarkDecodeGenerated reads the manifest of a generated tree, as the
// server does before checking it.
func BenchmarkDecodeGenerated(b *testing.B) {
	_, m, _ := testcorpus.Generated(b)
	data := m.Encode()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := manifest.Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}
