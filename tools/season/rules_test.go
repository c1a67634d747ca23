package season

import (
	"fmt"
	"testing"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A rulebook that does not fit its track is refused when its package
// registers it, before anything is registered.
func TestRegisterRefuses(t *testing.T) {
	probative := map[string][]string{}
	for _, c := range corpus.Conformity.Collections {
		probative[c] = []string{"/existe"}
	}
	tests := []struct {
		name  string
		rules *Rules
		want  string
	}{
		{"a track of no corpus", &Rules{Track: &corpus.Track{Name: "autre"}}, "a rulebook of no track"},
		{"a probative table of other collections", &Rules{Track: corpus.Conformity, Probative: map[string][]string{"entites": nil}},
			"the probative table of conformite has the collections [entites]"},
		{"statements that decode into no struct", &Rules{Track: corpus.Conformity, Probative: probative, Statement: func() any { return new(string) }},
			"decode into *string, not a pointer to a struct"},
		{"statements with no member of their own", &Rules{Track: corpus.Conformity, Probative: probative, Statement: func() any { return new(struct{}) }},
			"have no member of their own"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				r := recover()
				require.NotNil(t, r)
				assert.Contains(t, fmt.Sprint(r), tt.want)
			}()
			Register(tt.rules)
		})
	}
	assert.Empty(t, registered, "nothing registered")
}
