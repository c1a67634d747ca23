package verify_test

import (
	"testing"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
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
