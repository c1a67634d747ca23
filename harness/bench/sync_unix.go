//go:build unix

package main

import "syscall"

// writeBack writes every file written so far out to disk, so that their
// writeback does not run during the measurements that follow.
func writeBack() { syscall.Sync() }
