package saison_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/tools/season"
	_ "github.com/arkforge/proveit-corpus/tools/tracks/all"
)

// Each track's files are where tools/season names them, from the
// repository's root: the statements, the key, the record and the frozen
// scoring section.
func TestTrackFilesExist(t *testing.T) {
	root := filepath.Join("..", "..")
	for _, track := range corpus.Tracks {
		for _, file := range []string{season.TasksFile(track), season.KeyFile(track), season.RecordFile(track), season.ScoringSectionFile(track)} {
			_, err := os.Stat(filepath.Join(root, file))
			assert.NoError(t, err, "%s: %s", track.Name, file)
		}
	}
	assert.Equal(t, filepath.Join(season.Dir, "bareme.md"), season.ScoringSectionFile(corpus.Conformity))
}
