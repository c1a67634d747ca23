//go:build !unix

package proofs

import "os"

// openReadOnly opens a folder's file for reading (open_unix.go says why
// unix adds O_NONBLOCK).
const openReadOnly = os.O_RDONLY
