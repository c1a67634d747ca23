//go:build !unix

package main

import "os/exec"

// inOwnGroup leaves cmd as it is where the system has no process groups:
// when cmd's context ends, only cmd is killed, and a server it runs may
// outlive it.
func inOwnGroup(*exec.Cmd) {}

// stopGroup kills cmd, without signals to ask it to stop nor a group to
// reach the server it runs.
func stopGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
