//go:build !unix

package main

import "errors"

// mkfifo: a system without named pipes in its file system.
func mkfifo(string) error { return errors.ErrUnsupported }
