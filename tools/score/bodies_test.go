package score

import (
	// Every track, whose rules walk the graphs.
	_ "github.com/arkforge/proveit-corpus/tools/tracks/all"

	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/solver"
)

// Walked through one Bodies, every task of a season reads each body once,
// however many graphs hold it, and each graph is the one a walk of its
// own finds.
func TestBodiesReadEachBodyOnce(t *testing.T) {
	for _, track := range corpus.Tracks {
		t.Run(track.Name, func(t *testing.T) {
			root := "../.."
			tasks, err := season.ReadTasks(filepath.Join(root, season.TasksFile(track)))
			require.NoError(t, err)
			serve := solver.ServeTree(os.DirFS(filepath.Join(root, "corpus", track.Name)))
			reads := map[string]int{}
			bodies := season.NewBodies(func(path string) ([]byte, error) {
				reads[path]++
				return serve(path)
			})
			held := 0 // bodies held, summed over the graphs
			for _, task := range tasks.Tasks {
				shared, err := bodies.TaskGraph(task)
				require.NoError(t, err)
				alone, err := season.TaskGraph(task, serve)
				require.NoError(t, err)
				assert.Equal(t, alone.Own, shared.Own, task.ID)
				assert.Equal(t, alone.Common, shared.Common, task.ID)
				for path := range shared.Own {
					assert.Equal(t, alone.Body(path), shared.Body(path), "%s %s", task.ID, path)
					held++
				}
				held += len(shared.Common)
			}
			for path, n := range reads {
				assert.Equal(t, 1, n, "%s read %d times", path, n)
			}
			assert.Less(t, len(reads), held, "the graphs share bodies: the rules and common lists at least")
		})
	}
}
