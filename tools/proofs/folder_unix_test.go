//go:build unix

package proofs_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/tools/proofs"
)

// A named pipe in place of a view is refused before it is opened: opened,
// a read of it would wait forever for a writer.
func TestNamedPipeView(t *testing.T) {
	dir, entry := hostileFolder(t)
	require.NoError(t, syscall.Unlink(proofs.ViewFile(dir, gelID)))
	require.NoError(t, syscall.Mkfifo(proofs.ViewFile(dir, gelID), 0o644))
	require.NoError(t, syscall.Unlink(dir+"/"+entry))
	require.NoError(t, syscall.Mkfifo(dir+"/"+entry, 0o644))
	results := newVerifier(t, pinned(t), gelSeason).VerifyFolder(dir,
		[]proofs.Citation{{ProofID: gelID}, {ProofID: rekorID}})
	assert.Equal(t, []proofs.Check{proofs.CheckViewUnreadable}, results[gelID].Failures)
	assert.Contains(t, results[gelID].Details[proofs.CheckViewUnreadable], "a named pipe, not a regular file")
	assert.Contains(t, results[rekorID].Failures, proofs.CheckRekorMissing)
	assert.Contains(t, results[rekorID].Details[proofs.CheckRekorMissing], "a named pipe, not a regular file")
}

// A device in place of a view (tar restores one as root) is refused
// before it is opened: /dev/zero's own node would be read forever.
func TestDeviceView(t *testing.T) {
	if syscall.Geteuid() != 0 {
		t.Skip("only root makes a device node")
	}
	dir, _ := hostileFolder(t)
	require.NoError(t, syscall.Unlink(proofs.ViewFile(dir, gelID)))
	require.NoError(t, syscall.Mknod(proofs.ViewFile(dir, gelID), syscall.S_IFCHR|0o644, 1<<8|5)) // 1,5: /dev/zero
	results := newVerifier(t, pinned(t), gelSeason).VerifyFolder(dir, []proofs.Citation{{ProofID: gelID}})
	assert.Equal(t, []proofs.Check{proofs.CheckViewUnreadable}, results[gelID].Failures)
	assert.Contains(t, results[gelID].Details[proofs.CheckViewUnreadable], "a device, not a regular file")
}

// Trust material a flag names is someone else's folder: a file of it that
// is a pipe, a link to a device or out of the folder, or too large, is
// refused by name, at once.
func TestHostileTrustFolder(t *testing.T) {
	tests := []struct {
		name  string
		spoil func(t *testing.T, file string)
		want  string
	}{
		{"a pipe", func(t *testing.T, file string) { require.NoError(t, syscall.Mkfifo(file, 0o644)) }, "a named pipe, not a regular file"},
		{"a link to a device", func(t *testing.T, file string) { require.NoError(t, os.Symlink("/dev/zero", file)) }, "out of the folder: not followed"},
		{"too large", func(t *testing.T, file string) {
			require.NoError(t, os.WriteFile(file, nil, 0o644))
			require.NoError(t, os.Truncate(file, proofs.TrustFileLimit.Bytes+1))
		}, "over the"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.CopyFS(dir, os.DirFS("trust")))
			file := filepath.Join(dir, "published_keys.json")
			require.NoError(t, os.Remove(file))
			tt.spoil(t, file)
			_, err := proofs.ReadTrust(dir)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "published_keys.json")
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	// Untouched, it is read, each file named with its SHA-256.
	tr, err := proofs.ReadTrust("trust")
	require.NoError(t, err)
	assert.False(t, tr.Pinned)
	require.NotEmpty(t, tr.Files)
	assert.Equal(t, "published_keys.json", tr.Files[0].Name)
	pinned, err := proofs.PinnedTrust()
	require.NoError(t, err)
	assert.True(t, pinned.Pinned)
	assert.Equal(t, tr.Files, pinned.Files, "the pinned material is the trust folder's files")
}
