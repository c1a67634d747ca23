//go:build !unix

package tree

import "testing"

// makeSpecialFiles makes nothing where symbolic links need a privilege and
// there are no FIFOs.
func makeSpecialFiles(t *testing.T, folder string) {
	t.Helper()
	t.Log("no symbolic link nor FIFO in", folder)
}
