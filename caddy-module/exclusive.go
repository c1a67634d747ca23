package corpushandler

import (
	"encoding/json"
	"fmt"
	"net"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func init() {
	caddy.RegisterModule(Exclusive{})
	httpcaddyfile.RegisterGlobalOption("proveit_exclusive", parseExclusive)
}

// tcpNetworks are the networks a server's listener shares by SO_REUSEPORT.
var tcpNetworks = map[string]bool{"tcp": true, "tcp4": true, "tcp6": true}

// exclusiveDialTimeout bounds the probe of one address: a local address
// that nothing serves refuses at once.
const exclusiveDialTimeout = time.Second

// Exclusive is a Caddy app (global option proveit_exclusive) that refuses
// a configuration whose server would listen on a TCP address another
// process already serves. Caddy binds with SO_REUSEPORT, so a second server
// on a served address starts without an error and the kernel splits the
// calls between the two: an old corpus could keep answering part of them.
//
// Each address is probed by a connection before any app starts, so before
// Caddy binds it. An address this process already serves is not probed: a
// reload binds the new configuration's listeners while the old one's are
// still open. A socket handed over by systemd (fd/N) is not probed either:
// the socket unit holds it across restarts, and it is the server's own
// (docs/operating.md, "Socket activation").
type Exclusive struct {
	// served reports whether another process serves a TCP address; a dial
	// by default, replaced in tests.
	served func(address string) bool
}

// CaddyModule returns the Caddy module information.
func (Exclusive) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "proveit_exclusive",
		New: func() caddy.Module { return new(Exclusive) },
	}
}

// Provision refuses the configuration when one of the http app's addresses
// is served by another process.
func (e *Exclusive) Provision(ctx caddy.Context) error {
	app, err := ctx.AppIfConfigured("http")
	if err != nil {
		return nil // no http app, no address
	}
	if e.served == nil {
		e.served = dialable
	}
	for _, srv := range app.(*caddyhttp.App).Servers {
		for _, listen := range srv.Listen {
			if err := e.check(listen); err != nil {
				return err
			}
		}
	}
	return nil
}

// check probes each TCP address of one listen value.
func (e *Exclusive) check(listen string) error {
	na, err := caddy.ParseNetworkAddress(listen)
	if err != nil || !tcpNetworks[na.Network] {
		return nil // Caddy reports a malformed address itself; unix and fd sockets are not shared this way
	}
	for offset := range uint(na.PortRangeSize()) {
		address := na.JoinHostPort(offset)
		if caddy.ListenerUsage(na.Network, address) > 0 {
			continue // this process serves it: a reload
		}
		if e.served(address) {
			return fmt.Errorf("%s is already served by another process: stop that server, or listen elsewhere (two servers on one address split its calls)", address)
		}
	}
	return nil
}

// dialable reports whether something accepts a TCP connection at address;
// an empty host is this machine.
func dialable(address string) bool {
	conn, err := net.DialTimeout("tcp", address, exclusiveDialTimeout)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

// Start does nothing: the check is made at provisioning, before any
// listener is bound.
func (*Exclusive) Start() error { return nil }

// Stop does nothing.
func (*Exclusive) Stop() error { return nil }

// parseExclusive reads the global option proveit_exclusive, which takes no
// argument.
func parseExclusive(d *caddyfile.Dispenser, _ any) (any, error) {
	d.Next() // the option's name
	if d.NextArg() {
		return nil, d.ArgErr()
	}
	return httpcaddyfile.App{Name: "proveit_exclusive", Value: json.RawMessage("{}")}, nil
}

var (
	_ caddy.App         = (*Exclusive)(nil)
	_ caddy.Provisioner = (*Exclusive)(nil)
)
