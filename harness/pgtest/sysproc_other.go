//go:build !linux

package pgtest

import (
	"errors"
	"os/exec"
	"os/user"
)

// errRunAs: switching users for PostgreSQL is done on Linux only, where CI
// runs as root; elsewhere, run the tests as an unprivileged user.
var errRunAs = errors.New("running as root: on this system, run the PostgreSQL tests as an unprivileged user")

// runAs runs cmd as this process. Nothing ties the server's life to this
// process's here: Stop ends it, and a killed test leaves it running.
func runAs(cmd *exec.Cmd, account *user.User) error {
	if account != nil {
		return errRunAs
	}
	return nil
}

func chownTo(string, *user.User) error { return errRunAs }
