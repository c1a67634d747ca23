//go:build unix

package tree

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// makeSpecialFiles puts in folder what a tree must refuse though its name
// is a resource's: a symbolic link to a file, AGR-7.json, and a FIFO,
// AGR-8.json.
func makeSpecialFiles(t *testing.T, folder string) {
	t.Helper()
	require.NoError(t, os.Symlink("AGR-1.json", filepath.Join(folder, "AGR-7.json")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(folder, "AGR-8.json"), 0o644))
}
