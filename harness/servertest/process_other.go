//go:build !linux

package servertest

import "os/exec"

// dieWithParent is a no-op where the system cannot tie a child's life to
// its parent's: the child's lifetime (launch.lifetime) and Stop still end
// it.
func dieWithParent(*exec.Cmd, bool) {}
