package privatefile

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWrite(t *testing.T) {
	repo := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(repo, ".git"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "a", "b"), 0o755))
	insides := []string{filepath.Join(repo, "secret"), filepath.Join(repo, "a", "b", "secret")}
	link := filepath.Join(t.TempDir(), "into-repo")
	if err := os.Symlink(filepath.Join(repo, "a"), link); err == nil { // Windows may not allow links
		insides = append(insides, filepath.Join(link, "secret"))
	}
	outside := t.TempDir()

	writers := []struct {
		name  string
		write func(path string, data []byte) error
	}{{"Replace", Replace}, {"Create", Create}}
	for _, w := range writers {
		t.Run(w.name, func(t *testing.T) {
			for _, inside := range insides {
				err := w.write(inside, []byte("s"))
				require.ErrorContains(t, err, "inside the git work tree "+repo, inside)
				assert.NoFileExists(t, inside)
			}
			file := filepath.Join(outside, w.name)
			require.NoError(t, w.write(file, []byte("first")))
			info, err := os.Stat(file)
			require.NoError(t, err)
			if runtime.GOOS != "windows" {
				assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
			}
			entries, err := os.ReadDir(outside)
			require.NoError(t, err)
			for _, e := range entries {
				assert.NotContains(t, e.Name(), ".", "no temporary file is left behind")
			}
		})
	}

	replaced := filepath.Join(outside, "Replace")
	require.NoError(t, Replace(replaced, []byte("second")))
	data, err := os.ReadFile(replaced)
	require.NoError(t, err)
	assert.Equal(t, "second", string(data))

	created := filepath.Join(outside, "Create")
	require.ErrorContains(t, Create(created, []byte("second")), "exists")
	data, err = os.ReadFile(created)
	require.NoError(t, err)
	assert.Equal(t, "first", string(data), "Create never overwrites")
}
