//go:build unix

package proofs_test

import (
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
