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

// Guard is a listener wrapper that keeps replies no handler wrote off the
// wire. Go's net/http answers a request it cannot parse (a malformed request
// line, headers over the size limit, an unknown HTTP version or transfer
// coding, plain HTTP on the TLS port) before any handler runs, with a short
// text/plain body, and answers "OPTIONS *" itself with an empty 200: none is
// a contract body. The guard drops such a reply and closes the connection
// instead, which the contract allows.
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

// The shapes of reply Go writes without a handler. Every response the corpus
// handler writes carries its JSON content type and a non-empty body.
var (
	goErrorHeaders = []byte("\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n")
	goPlainOnTLS   = []byte("HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.")
	emptyBody      = []byte("\r\nContent-Length: 0\r\n")
	contractType   = []byte("\r\nContent-Type: application/json; charset=utf-8\r\n")
)

func isGoErrorReply(p []byte) bool {
	if bytes.HasPrefix(p, goPlainOnTLS) {
		return true
	}
	if !bytes.HasPrefix(p, []byte("HTTP/1.1 ")) || bytes.HasPrefix(p, []byte("HTTP/1.1 1")) {
		return false // not a response head, or an interim 1xx one
	}
	end := bytes.Index(p, []byte("\r\n\r\n"))
	if end < 0 {
		return false
	}
	head := p[:end+2]
	// Go's error reply: exactly the status line and these two headers.
	if bytes.Equal(p[bytes.IndexByte(p, '\r'):end+4], goErrorHeaders) {
		return true
	}
	// An empty answer without the contract's content type: Go's own
	// "OPTIONS *" reply, or a server-level refusal no handler saw.
	return bytes.Contains(head, emptyBody) && !bytes.Contains(head, contractType)
}

// Interface guards
var (
	_ caddy.ListenerWrapper = (*Guard)(nil)
	_ caddyfile.Unmarshaler = (*Guard)(nil)
)
