package corpushandler

import (
	"bytes"
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"sync"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func init() {
	caddy.RegisterModule(Guard{})
}

// Guard is a listener wrapper that keeps replies no handler wrote off the
// wire. Go's net/http answers a request it cannot parse (a malformed request
// line, headers over the size limit, an unknown HTTP version or transfer
// coding, an Expect it does not know) before any handler runs, with a short
// text/plain or empty body: none is a contract body. The guard drops such an
// HTTP/1.x reply and closes the connection instead, which the contract allows.
//
// It also hands "OPTIONS *" to the handlers, over every protocol served
// through net/http: left alone, net/http answers it with an empty 200 of its
// own, and over HTTP/2 no listener wrapper could tell that reply apart.
//
// Listed with no tls placeholder before it, it runs after TLS and wraps the
// decrypted connection, so it guards HTTP/1.x inside TLS as in clear. A
// wrapped TLS connection keeps reporting its TLS state, by which Caddy still
// treats it as TLS and serves HTTP/2 on it; a connection whose handshake chose
// HTTP/2 passes untouched, since Go writes no HTTP/1.x reply on it. Placed
// before the tls placeholder, it would see ciphertext, and only the reply Go
// writes beneath TLS to a client speaking plain HTTP to the HTTPS port.
type Guard struct{}

// CaddyModule returns the Caddy module information.
func (Guard) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "caddy.listeners.proveit_guard",
		New: func() caddy.Module { return new(Guard) },
	}
}

// Provision makes the server the guard wraps listeners for pass "OPTIONS *"
// on to its handlers.
func (*Guard) Provision(ctx caddy.Context) error {
	if srv, ok := ctx.Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server); ok {
		srv.RegisterConnContext(optionsToHandlers())
	}
	return nil
}

// optionsToHandlers returns a connection-context hook that switches off
// net/http's own "OPTIONS *" answer. Caddy exposes no setting for it, and its
// http.Server is reachable only from a connection's context. The switch is
// written once, under a sync.Once that every connection passes through
// before its goroutine starts, so every read of it happens after the write.
func optionsToHandlers() func(context.Context, net.Conn) context.Context {
	var once sync.Once
	return func(ctx context.Context, _ net.Conn) context.Context {
		once.Do(func() {
			if srv, ok := ctx.Value(http.ServerContextKey).(*http.Server); ok {
				srv.DisableGeneralOptionsHandler = true
			}
		})
		return ctx
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
	if tlsConn, ok := conn.(connectionStater); ok {
		return &guardTLSConn{guardConn: guardConn{conn}, tls: tlsConn}, nil
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

// CloseWrite half-closes the connection when the one beneath can. net/http
// does so after a response sent before the request body was read, so that
// the client reads the whole answer instead of a reset.
func (c guardConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil // net/http closes the whole connection next
}

// connectionStater is what Caddy and net/http read a connection's TLS state
// through when it is not a *tls.Conn itself.
type connectionStater interface {
	ConnectionState() tls.ConnectionState
}

// guardTLSConn guards the decrypted side of a TLS connection. It reports the
// connection's TLS state: without it, Caddy would take the connection for
// cleartext (and warn), and its requests would carry no TLS state.
type guardTLSConn struct {
	guardConn
	tls connectionStater
	// Set at the first write after the handshake, when the protocol it
	// chose is known for good. A connection's writes are never concurrent
	// (net/http writes HTTP/1.x replies from the connection's goroutine; the
	// HTTP/2 server writes one batch of frames at a time, handing over
	// through channels), so they need no lock.
	handshakeSeen, http2 bool
}

// ConnectionState reports the TLS state of the connection beneath.
func (c *guardTLSConn) ConnectionState() tls.ConnectionState { return c.tls.ConnectionState() }

// Write guards HTTP/1.x replies and passes HTTP/2 frames untouched. Neither
// protocol writes before it has read from the client, so the handshake is
// over by the first write; were it not, the write is guarded as HTTP/1.x,
// which no HTTP/2 frame resembles, and the protocol is asked again.
func (c *guardTLSConn) Write(p []byte) (int, error) {
	if !c.handshakeSeen {
		state := c.tls.ConnectionState()
		c.handshakeSeen, c.http2 = state.HandshakeComplete, state.NegotiatedProtocol == "h2"
	}
	if c.http2 {
		return c.Conn.Write(p)
	}
	return c.guardConn.Write(p)
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
	// Go answers an HTTP/1.0 request with an HTTP/1.0 status line.
	status, ok := bytes.CutPrefix(p, []byte("HTTP/1.1 "))
	if !ok {
		status, ok = bytes.CutPrefix(p, []byte("HTTP/1.0 "))
	}
	if !ok || bytes.HasPrefix(status, []byte("1")) {
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
	_ caddy.Provisioner     = (*Guard)(nil)
	_ caddyfile.Unmarshaler = (*Guard)(nil)
	_ connectionStater      = (*guardTLSConn)(nil)
)
