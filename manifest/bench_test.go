package manifest_test

import (
	"testing"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
)

func BenchmarkBuild(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := manifest.Build(corpus.Conformity.Embedded(), corpus.Conformity.Name, manifest.DefaultOrigin, nil); err != nil {
			b.Fatal(err)
		}
	}
}
