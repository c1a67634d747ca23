package saison_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	saison "github.com/arkforge/proveit-corpus/corpus/saison-1"
)

// What the binary embeds is the folder's file, byte for byte: a tool's
// default is never another version than the checkout's; the keys, sealed
// until the close, are not embedded.
func TestFile(t *testing.T) {
	for _, name := range []string{"taches.json", "taches-generique.json", "preenregistrement.json", "preenregistrement-generique.json"} {
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(name)
			require.NoError(t, err)
			got, ok := saison.File(name)
			require.True(t, ok)
			assert.Equal(t, want, got)
		})
	}
	for _, name := range []string{"cle.json", "cle-generique.json", "conception.json"} {
		_, ok := saison.File(name)
		assert.False(t, ok, "%s is not embedded", name)
	}
}
