package lint

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/arkforge/proveit-corpus/corpus"
)

func TestDates(t *testing.T) {
	tests := []struct {
		in           string
		shape, valid bool
	}{
		{"2026-10-05", true, true},
		{"2024-02-29", true, true},
		{"2026-02-29", true, false},
		{"2026-02-30", true, false},
		{"2026-04-31", true, false},
		{"2026-00-10", true, false},
		{"2026-13-01", true, false},
		{"2026-1-05", false, false},
		{"2026-10-05T00:00:00Z", false, false},
		{"05/10/2026", false, false},
		{"２０２６-10-05", false, false},
		{"", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			assert.Equal(t, tt.shape, dateShape(tt.in))
			assert.Equal(t, tt.valid, corpus.IsDate(tt.in))
		})
	}
}
