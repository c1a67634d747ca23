package pgtest

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"syscall"
)

// runAs makes cmd run as account (nil: as this process), and die with
// this process: a PostgreSQL left running by a killed test or benchmark
// would hold its port, its folder and its shared memory.
func runAs(cmd *exec.Cmd, account *user.User) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if account == nil {
		return nil
	}
	uid, gid, err := ids(account)
	if err != nil {
		return err
	}
	cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uid, Gid: gid, NoSetGroups: true}
	return nil
}

// chownTo gives path to account, so that the server running as it can
// write there.
func chownTo(path string, account *user.User) error {
	uid, gid, err := ids(account)
	if err != nil {
		return err
	}
	return os.Chown(path, int(uid), int(gid))
}

func ids(account *user.User) (uid, gid uint32, err error) {
	u, err := strconv.ParseUint(account.Uid, 10, 32)
	if err != nil {
		return 0, 0, fmt.Errorf("user %s: uid %q: %w", account.Username, account.Uid, err)
	}
	g, err := strconv.ParseUint(account.Gid, 10, 32)
	if err != nil {
		return 0, 0, fmt.Errorf("user %s: gid %q: %w", account.Username, account.Gid, err)
	}
	return uint32(u), uint32(g), nil
}
