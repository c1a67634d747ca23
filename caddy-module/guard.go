package corpushandler

import (
	"bytes"
	"net"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

func init() {
	caddy.RegisterModule(Guard{})
}

// Guard is a listener wrapper that keeps Go's own plain-text replies off the
// wire. Go's net/http answers a request it cannot parse (a malformed request
// line, headers over the size limit, an unknown HTTP version, plain HTTP on
// the TLS port) before any handler runs, with a short text/plain body that is
// none of the contract's bodies. The guard drops that reply and closes the
// connection instead, which the contract allows.
//
// It sees cleartext only where it stands before TLS in the listener chain:
// on a plain-HTTP server (behind a frontal, or local), and for the reply Go
// writes beneath TLS to a client speaking plain HTTP to the HTTPS port. Inside
// a TLS connection it sees ciphertext and lets everything through.
type Guard struct{}

// CaddyModule returns the Caddy module information.
func (Guard) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "caddy.listeners.proveit_guard",
		New: func() caddy.Module { return new(Guard) },
	}
}

// WrapListener wraps every connection the listener accepts.
func (Guard) WrapListener(l net.Listener) net.Listener {
	return guardListener{l}
}

// UnmarshalCaddyfile sets up the guard from Caddyfile tokens. Syntax:
//
//	proveit_guard
func (*Guard) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the wrapper name
	if d.NextArg() {
		return d.ArgErr()
	}
	return nil
}

type guardListener struct {
	net.Listener
}

func (l guardListener) Accept() (net.Conn, error) {
	conn, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return guardConn{conn}, nil
}

type guardConn struct {
	net.Conn
}

// Write passes everything through but Go's plain-text error replies, which it
// replaces by closing the connection.
func (c guardConn) Write(p []byte) (int, error) {
	if isGoErrorReply(p) {
		return len(p), c.Conn.Close()
	}
	return c.Conn.Write(p)
}

// The two shapes of reply net/http writes straight to the connection when a
// request cannot be read; nothing the handler sends looks like either.
var (
	goErrorHeaders = []byte("\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n")
	goPlainOnTLS   = []byte("HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.")
)

func isGoErrorReply(p []byte) bool {
	if bytes.HasPrefix(p, goPlainOnTLS) {
		return true
	}
	if !bytes.HasPrefix(p, []byte("HTTP/1.1 ")) {
		return false
	}
	// The headers end at the first blank line: the error shape is exactly
	// the status line followed by these two headers.
	end := bytes.Index(p, []byte("\r\n\r\n"))
	return end >= 0 && bytes.Contains(p[:end+4], goErrorHeaders) && bytes.Count(p[:end], []byte("\r\n")) == 2
}

// Interface guards
var (
	_ caddy.ListenerWrapper = (*Guard)(nil)
	_ caddyfile.Unmarshaler = (*Guard)(nil)
)
