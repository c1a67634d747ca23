//go:build unix

package index_test

import "syscall"

// mkfifo makes a named pipe, which reading never ends: a hostile file.
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }
