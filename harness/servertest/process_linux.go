package servertest

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the child die with the process that starts it
// (Pdeathsig) and, when newPID is set, gives it a PID namespace of its own,
// so that its own children die with it.
func dieWithParent(cmd *exec.Cmd, newPID bool) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if newPID {
		cmd.SysProcAttr.Cloneflags = syscall.CLONE_NEWPID
	}
}
