//go:build !linux

package servertest

import "os/exec"

// dieWithParent is a no-op where the system cannot tie a child's life to
// its parent's: the child's lifetime (launch.lifetime) and Stop still end
// it.
func dieWithParent(*exec.Cmd, bool) {}

// processTree is the process alone: without Linux's /proc there is no
// portable way to list a process's children.
func processTree(pid int) []int { return []int{pid} }

// readMemory is zero: these systems have no /proc/<pid>/status (FreeBSD's
// procfs, when mounted, has another format), so Memory reads nothing.
func readMemory(int) Memory { return Memory{} }
