//go:build !unix

package servertest

import "errors"

// activate refuses sockets to hand over: socket activation is systemd's,
// and this system cannot pass a file descriptor to a child by number.
func (l *launch) activate() error {
	if len(l.sockets) == 0 {
		return nil
	}
	return errors.New("socket activation needs a Unix system")
}

// SocketActivation reports whether this system can hand listening sockets
// to a server as systemd does.
const SocketActivation = false
