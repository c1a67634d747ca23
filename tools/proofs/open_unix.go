//go:build unix

package proofs

import (
	"os"
	"syscall"
)

// openReadOnly opens a folder's file without waiting: a named pipe put in
// place of a file between its check and its opening does not block the
// open, and the open file's own metadata then refuses it.
const openReadOnly = os.O_RDONLY | syscall.O_NONBLOCK
