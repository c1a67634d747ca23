//go:build unix

package tree

import "syscall"

// openNonblock opens a file without waiting: a FIFO's open would otherwise
// wait for a writer.
const openNonblock = syscall.O_NONBLOCK
