//go:build !linux

package main

import (
	"os/exec"
	"os/user"
)

// runAs: the benchmark's PostgreSQL runs on Linux only, where it can run
// as another user and die with the benchmark.
func runAs(cmd *exec.Cmd, account *user.User) error {
	return &errNoPostgres{"the benchmark's PostgreSQL server runs on Linux only"}
}

func chownTo(path string, account *user.User) error { return nil }
