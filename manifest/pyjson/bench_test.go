package pyjson_test

import (
	"io/fs"
	"testing"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
)

func corpusFiles(b *testing.B) [][]byte {
	b.Helper()
	var files [][]byte
	err := fs.WalkDir(corpus.Conformity.Embedded(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(corpus.Conformity.Embedded(), name)
		files = append(files, data)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return files
}

// BenchmarkParseCanonical parses and canonicalises every file of the corpus
// once per iteration.
func BenchmarkParseCanonical(b *testing.B) {
	files := corpusFiles(b)
	total := 0
	for _, f := range files {
		total += len(f)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	var buf []byte
	for b.Loop() {
		for _, f := range files {
			v, err := pyjson.Parse(f)
			if err != nil {
				b.Fatal(err)
			}
			buf = pyjson.AppendCanonical(buf[:0], v)
		}
	}
}
