//go:build linux || freebsd

package main

import "syscall"

// parentDeathSignal has the child killed when the test process dies.
func parentDeathSignal(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
