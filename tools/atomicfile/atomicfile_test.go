package atomicfile

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Replace leaves the new bytes under the path with the permission asked,
// whether a file was there or not, and no temporary file beside it.
func TestReplace(t *testing.T) {
	tests := []struct {
		name     string
		existing []byte
		perm     os.FileMode
	}{
		{"a new public file", nil, 0o644},
		{"a new private file", nil, 0o600},
		{"over an older file", []byte("old"), 0o644},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "record.json")
			if tt.existing != nil {
				require.NoError(t, os.WriteFile(path, tt.existing, 0o600))
			}
			require.NoError(t, Replace(path, []byte("new\n"), tt.perm))
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, "new\n", string(got))
			if runtime.GOOS != "windows" { // Windows keeps a read-only bit only
				info, err := os.Stat(path)
				require.NoError(t, err)
				assert.Equal(t, tt.perm, info.Mode().Perm())
			}
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Len(t, entries, 1, "no temporary file left beside it")
		})
	}
}

// A write that cannot start leaves nothing; the temporary file a caller
// gets holds the data until it moves it.
func TestTemp(t *testing.T) {
	dir := t.TempDir()
	_, err := Temp(filepath.Join(dir, "missing", "x.json"), []byte("x"), 0o644)
	assert.Error(t, err)
	assert.NoFileExists(t, filepath.Join(dir, "missing", "x.json"))

	tmp, err := Temp(filepath.Join(dir, "x.json"), []byte("x"), 0o600)
	require.NoError(t, err)
	assert.Equal(t, dir, filepath.Dir(tmp))
	assert.Equal(t, byte('.'), filepath.Base(tmp)[0])
	got, err := os.ReadFile(tmp)
	require.NoError(t, err)
	assert.Equal(t, "x", string(got))
	assert.NoFileExists(t, filepath.Join(dir, "x.json"), "the path itself is untouched")
}

// ReplaceIn writes inside its root only: a link at the name is replaced,
// not written through, and a folder on the way that links out of the root
// is an error that leaves nothing behind, outside or in.
func TestReplaceInStaysInside(t *testing.T) {
	tests := []struct {
		name    string
		link    string // the link made inside the root, to outside
		write   string // the name written inside the root
		wantErr bool
	}{
		{"a link at the name is replaced", "x.json", "x.json", false},
		{"a folder linked outside is refused", "rekor", "rekor/x.json", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, outside := t.TempDir(), t.TempDir()
			target := filepath.Join(outside, "target")
			if tt.wantErr {
				target = outside
			} else {
				require.NoError(t, os.WriteFile(target, []byte("outside"), 0o600))
			}
			if err := os.Symlink(target, filepath.Join(dir, tt.link)); err != nil {
				t.Skipf("no symbolic links here: %v", err)
			}
			root, err := os.OpenRoot(dir)
			require.NoError(t, err)
			defer root.Close()
			err = ReplaceIn(root, tt.write, []byte("new"), 0o644)
			if tt.wantErr {
				require.Error(t, err)
				entries, err := os.ReadDir(outside)
				require.NoError(t, err)
				assert.Empty(t, entries, "nothing written outside")
				entries, err = os.ReadDir(dir)
				require.NoError(t, err)
				assert.Len(t, entries, 1, "only the link, no temporary file")
				return
			}
			require.NoError(t, err)
			got, err := os.ReadFile(target)
			require.NoError(t, err)
			assert.Equal(t, "outside", string(got), "the link's target is untouched")
			info, err := os.Lstat(filepath.Join(dir, tt.write))
			require.NoError(t, err)
			assert.True(t, info.Mode().IsRegular(), "the link gave way to the file")
		})
	}
}
