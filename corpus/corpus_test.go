package corpus

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A track that would make a path name two tracks is refused, and leaves
// the grammar as it was.
func TestRegisterRefusesAnOverlap(t *testing.T) {
	tracks, collections := slices.Clone(Tracks), slices.Clone(Collections)
	tests := []struct {
		name  string
		track *Track
		want  string
	}{
		{"the name of another", &Track{Name: "conformite", Rules: "/regles-autres"}, `the track "conformite" has the name or rules resource of "conformite"`},
		{"the rules resource of another", &Track{Name: "autre", Rules: ReglesAchat}, `has the name or rules resource of "generique"`},
		{"a collection of another", &Track{Name: "autre", Rules: "/regles-autres", Collections: []string{"jouets", "produits"}}, `collection "produits" belongs to two tracks`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() { assert.Contains(t, fmt.Sprint(recover()), tt.want) }()
			Register(tt.track)
		})
	}
	assert.Equal(t, tracks, Tracks)
	assert.Equal(t, collections, Collections)
}
