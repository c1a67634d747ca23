//go:build unix && !linux && !freebsd

package main

import "syscall"

// parentDeathSignal does nothing where the system cannot signal a child
// when its parent dies: there, a test process that dies without ending the
// child's context leaves the child's group running.
func parentDeathSignal(*syscall.SysProcAttr) {}
