package servertest

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
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

// processTree is the process and its children, as the kernel lists them
// (/proc/<pid>/task/<pid>/children); the process alone if it cannot.
func processTree(pid int) []int {
	pids := []int{pid}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err != nil {
		return pids
	}
	for _, f := range strings.Fields(string(data)) {
		if child, err := strconv.Atoi(f); err == nil {
			pids = append(pids, child)
		}
	}
	return pids
}

// readMemory reads a process's Memory from one read of /proc/<pid>/status,
// so that its fields describe one moment; zero when the process is gone.
func readMemory(pid int) Memory {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return Memory{}
	}
	return parseStatus(data)
}
