package manifest

import (
	"strings"
	"testing"

	"github.com/arkforge/proveit-corpus/corpus"

	"github.com/stretchr/testify/assert"
)

// TestDirectReaderTakes checks which documents the direct reader reads
// itself: the manifest as Encode writes it, and not one it would have to
// guess about.
func TestDirectReaderTakes(t *testing.T) {
	season := string(Embedded(corpus.Conformity))
	tests := []struct {
		name string
		doc  string
		want bool
	}{
		{"as Encode writes it", season, true},
		{"an escape in a string", strings.Replace(season, `"piste": "conformite"`, `"piste": "conform\u0069te"`, 1), false},
		{"an unknown field", strings.Replace(season, `"piste"`, `"later": 1, "piste"`, 1), false},
		{"a duplicate field", strings.Replace(season, `"piste"`, `"piste": "x", "piste"`, 1), false},
		{"a fraction in status", strings.Replace(season, `"status": 400`, `"status": 400.5`, 1), false},
		{"trailing data", season + "x", false},
	}
	for _, tt := range tests {
		r := reader{data: []byte(tt.doc)}
		var m Manifest
		assert.Equal(t, tt.want, r.manifest(&m) == nil, tt.name)
	}
}
