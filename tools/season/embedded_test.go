package season_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/tools/season"
	_ "github.com/arkforge/proveit-corpus/tools/tracks/all"
)

// What the binary embeds of each track is the repository's file, byte for
// byte: a tool's default is never another version than the checkout's.
func TestEmbeddedPublicFiles(t *testing.T) {
	for _, track := range corpus.Tracks {
		for _, f := range []struct {
			file     string
			embedded func(*corpus.Track) (string, []byte)
		}{
			{season.TasksFile(track), season.EmbeddedTasks},
			{season.RecordFile(track), season.EmbeddedRecord},
		} {
			t.Run(f.file, func(t *testing.T) {
				want, err := os.ReadFile(filepath.Join("..", "..", f.file))
				require.NoError(t, err)
				name, got := f.embedded(track)
				assert.Equal(t, want, got)
				assert.Contains(t, name, filepath.ToSlash(f.file))
			})
		}
	}
}
