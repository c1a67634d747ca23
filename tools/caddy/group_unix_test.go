//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// inOwnGroup makes cmd the leader of a process group of its own, so that
// make and the server it runs are signalled together: killed whole when
// cmd's context ends, and, where the system offers it, when the test
// process dies (parentDeathSignal).
func inOwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	parentDeathSignal(cmd.SysProcAttr)
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// stopGroup asks cmd's process group, started by inOwnGroup, to stop.
func stopGroup(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
