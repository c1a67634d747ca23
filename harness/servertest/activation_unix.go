//go:build unix

package servertest

import (
	"fmt"
	"strings"
)

// activate hands l.sockets to the process as systemd's socket activation
// does (docs/operating.md, "Socket activation"): the sockets from file
// descriptor 3 on, LISTEN_FDS their count, LISTEN_FDNAMES their names, and
// LISTEN_PID the pid of the process that receives them. systemd sets
// LISTEN_PID between fork and exec; here a shell, which knows its own pid,
// sets it and execs the server, which keeps that pid.
func (l *launch) activate() error {
	if len(l.sockets) == 0 {
		return nil
	}
	if l.cpus != "" {
		return fmt.Errorf("socket activation and a CPU list cannot be combined")
	}
	names := make([]string, len(l.sockets))
	for i, s := range l.sockets {
		names[i] = s.Name
	}
	l.env = append(l.env, fmt.Sprintf("LISTEN_FDS=%d", len(l.sockets)), "LISTEN_FDNAMES="+strings.Join(names, ":"))
	l.args = append([]string{"-c", `LISTEN_PID=$$; export LISTEN_PID; exec "$0" "$@"`, l.bin}, l.args...)
	l.bin = "/bin/sh"
	return nil
}

// SocketActivation reports whether this system can hand listening sockets
// to a server as systemd does.
const SocketActivation = true
