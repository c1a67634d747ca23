package corpushandler

import (
	"context"
	"crypto/tls"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/caddyserver/caddy/v2/modules/caddytls"
	"go.uber.org/zap"
)

func init() {
	caddy.RegisterModule(Limits{})
}

// Limits is a listener wrapper that bounds what one caller can make the
// server hold: connections per address, and over HTTP/2 streams per
// connection, the bytes buffered for each and the frame size.
//
// HTTP/2 lets a client hold memory it never pays for: a stream whose window
// is zero keeps its handler, its buffers and its goroutine until the write
// timeout, about 21 KB, and Go's default of 250 streams a connection makes
// that about 5 MB a connection (measured with harness/frontal's
// TestH2WindowFlood at 200 connections, without these limits). Caddy exposes no
// HTTP/2 setting; Go reads http.Server.HTTP2 for each connection it starts
// serving, and that server is reachable only from a connection's context.
// Counting connections per address bounds how many such connections one
// caller holds, whatever the protocol.
type Limits struct {
	// ConnectionsPerAddress caps the open connections of one IPv4 address or
	// one IPv6 /64; a connection past it is closed as soon as it is
	// accepted. 0: no cap.
	ConnectionsPerAddress int `json:"connections_per_address,omitempty"`
	// H2Streams is SETTINGS_MAX_CONCURRENT_STREAMS (Go: 250).
	H2Streams int `json:"h2_streams,omitempty"`
	// H2StreamBuffer and H2ConnectionBuffer are the receive windows, in
	// bytes, of a stream and of a connection: what a client may make the
	// server buffer of request bodies (Go: 1 MiB each).
	H2StreamBuffer     int `json:"h2_stream_buffer,omitempty"`
	H2ConnectionBuffer int `json:"h2_connection_buffer,omitempty"`
	// H2FrameSize is the largest frame read, in bytes (Go: 1 MiB).
	H2FrameSize int `json:"h2_frame_size,omitempty"`

	counts *addressCounts
	logger *zap.Logger
	// running reports whether the configuration this wrapper belongs to
	// has started; nil: taken as started (a wrapper built in a test).
	running func() bool
}

// startWait bounds how long a connection accepted before its
// configuration has started is held.
const startWait = 10 * time.Second

// CaddyModule returns the Caddy module information.
func (Limits) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "caddy.listeners.proveit_limits",
		New: func() caddy.Module { return new(Limits) },
	}
}

// The ranges Go accepts; outside them it would fall back to its defaults
// without a word, so they are refused here instead.
const (
	minH2ConnectionBuffer = 65535
	maxH2Buffer           = 4<<20 - 1
	minH2FrameSize        = 16 << 10
	maxH2FrameSize        = 16<<20 - 1
)

// Validate refuses a value Go would silently replace by its default.
func (l *Limits) Validate() error {
	checks := []struct {
		name        string
		value       int
		least, most int
	}{
		{"connections_per_address", l.ConnectionsPerAddress, 0, 1 << 30},
		{"h2_streams", l.H2Streams, 0, math.MaxInt32},
		{"h2_stream_buffer", l.H2StreamBuffer, 0, maxH2Buffer},
		{"h2_connection_buffer", l.H2ConnectionBuffer, minH2ConnectionBuffer, maxH2Buffer},
		{"h2_frame_size", l.H2FrameSize, minH2FrameSize, maxH2FrameSize},
	}
	for _, c := range checks {
		if c.value != 0 && (c.value < c.least || c.value > c.most) {
			return fmt.Errorf("%s %d: outside %d to %d", c.name, c.value, c.least, c.most)
		}
	}
	return nil
}

// Provision makes the server the wrapper serves apply the HTTP/2 limits.
func (l *Limits) Provision(ctx caddy.Context) error {
	l.counts = &addressCounts{open: map[netip.Prefix]int{}}
	l.logger = ctx.Logger()
	// Caddy's HTTP app accepts connections before it has loaded the
	// certificates from storage, at the end of its start: a handshake in
	// between fails (a TLS internal error). When the listening socket is
	// inherited (docs/operating.md, "Socket activation"), every connection
	// that waited in its backlog through a restart arrives then, at once.
	// The configuration becomes Caddy's active one once every app started;
	// the certificates a server's TLS policies name by default are loaded
	// into the cache in the background, and are waited for too.
	previous := caddy.ActiveContext().Context
	srv, _ := ctx.Value(caddyhttp.ServerCtxKey).(*caddyhttp.Server)
	l.running = func() bool {
		return !sameContext(caddy.ActiveContext().Context, previous) && certificatesLoaded(srv)
	}
	if srv != nil {
		srv.RegisterConnContext(l.http2Config())
	}
	return nil
}

// certificatesLoaded reports whether the certificate cache holds one for
// each server name the server's TLS policies default to (default_sni, the
// Caddyfile's certificate): a handshake before then fails.
func certificatesLoaded(srv *caddyhttp.Server) bool {
	if srv == nil {
		return true
	}
	for _, p := range srv.TLSConnPolicies {
		if p.DefaultSNI != "" && len(caddytls.AllMatchingCertificates(p.DefaultSNI)) == 0 {
			return false
		}
	}
	return true
}

// http2Config returns a connection-context hook that sets the server's
// HTTP/2 configuration. It is written once, under a sync.Once every
// connection passes through before it is served, so every read of it (one
// for each HTTP/2 connection) happens after the write.
func (l *Limits) http2Config() func(context.Context, net.Conn) context.Context {
	var once sync.Once
	return func(ctx context.Context, _ net.Conn) context.Context {
		once.Do(func() {
			if srv, ok := ctx.Value(http.ServerContextKey).(*http.Server); ok {
				srv.HTTP2 = &http.HTTP2Config{
					MaxConcurrentStreams:          l.H2Streams,
					MaxReceiveBufferPerStream:     l.H2StreamBuffer,
					MaxReceiveBufferPerConnection: l.H2ConnectionBuffer,
					MaxReadFrameSize:              l.H2FrameSize,
					// Per-stream write deadlines end a stream the client
					// does not read; this ends a connection whose socket
					// takes no byte for as long.
					WriteByteTimeout: srv.WriteTimeout,
				}
			}
		})
		return ctx
	}
}

// WrapListener caps the connections each address holds.
func (l *Limits) WrapListener(ln net.Listener) net.Listener {
	if l.ConnectionsPerAddress == 0 {
		return ln
	}
	return &limitedListener{Listener: ln, limits: l}
}

// UnmarshalCaddyfile sets up the limits from Caddyfile tokens. Syntax:
//
//	proveit_limits {
//	    connections_per_address <n>
//	    h2_streams              <n>
//	    h2_stream_buffer        <bytes>
//	    h2_connection_buffer    <bytes>
//	    h2_frame_size           <bytes>
//	}
//
// A limit left out keeps Go's default (no cap for connections).
func (l *Limits) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the wrapper name
	if d.NextArg() {
		return d.ArgErr()
	}
	fields := map[string]*int{
		"connections_per_address": &l.ConnectionsPerAddress,
		"h2_streams":              &l.H2Streams,
		"h2_stream_buffer":        &l.H2StreamBuffer,
		"h2_connection_buffer":    &l.H2ConnectionBuffer,
		"h2_frame_size":           &l.H2FrameSize,
	}
	seen := map[string]bool{}
	for d.NextBlock(0) {
		name := d.Val()
		field, ok := fields[name]
		if !ok {
			return d.Errf("unknown limit %q", name)
		}
		if seen[name] {
			return d.Errf("%s: already specified", name)
		}
		seen[name] = true
		var value string
		if !d.Args(&value) || d.NextArg() {
			return d.ArgErr()
		}
		n, err := strconv.Atoi(value)
		if err != nil || n < 0 {
			return d.Errf("%s: %q is not a count", name, value)
		}
		*field = n
	}
	return nil
}

// addressCounts counts the open connections of each address.
type addressCounts struct {
	mu   sync.Mutex
	open map[netip.Prefix]int
	// refused counts the connections closed at once, for the log.
	refused atomic.Int64
}

func (c *addressCounts) acquire(key netip.Prefix, limit int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.open[key] >= limit {
		return false
	}
	c.open[key]++
	return true
}

func (c *addressCounts) release(key netip.Prefix) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.open[key]--; c.open[key] <= 0 {
		delete(c.open, key)
	}
}

// addressKey is what a connection counts against: its IPv4 address, or the
// /64 of its IPv6 address, the smallest block a subscriber is given. A
// connection without an IP address (a unix socket) counts against nothing.
func addressKey(addr net.Addr) (netip.Prefix, bool) {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return netip.Prefix{}, false
	}
	ip, ok := netip.AddrFromSlice(tcp.IP)
	if !ok {
		return netip.Prefix{}, false
	}
	ip = ip.Unmap()
	bits := 32
	if ip.Is6() {
		bits = 64
	}
	prefix, err := ip.Prefix(bits)
	return prefix, err == nil
}

// awaitStart holds the caller until the configuration has started, or for
// startWait at most (a start that takes longer serves as Caddy would).
func (l *limitedListener) awaitStart() {
	if l.limits.running == nil || l.started.Load() {
		return
	}
	for deadline := time.Now().Add(startWait); !l.limits.running() && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	l.started.Store(true)
}

// sameContext reports whether two contexts are one (a derived value
// context shares its parent's Done channel); nil is the context of no
// configuration.
func sameContext(a, b context.Context) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Done() == b.Done()
}

type limitedListener struct {
	net.Listener
	limits  *Limits
	started atomic.Bool
}

// Accept returns the next connection whose address is under its cap, and
// closes the others as it goes.
func (l *limitedListener) Accept() (net.Conn, error) {
	for {
		conn, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		key, ok := addressKey(conn.RemoteAddr())
		if !ok {
			return conn, nil
		}
		l.awaitStart()
		if l.limits.counts.acquire(key, l.limits.ConnectionsPerAddress) {
			limited := &limitedConn{Conn: conn, key: key, counts: l.limits.counts}
			if tc, ok := conn.(connectionStater); ok { // listed after the tls placeholder
				return limitedTLSConn{limited, tc}, nil
			}
			return limited, nil
		}
		// Counted before the close, so that a caller that sees its
		// connection closed finds it counted.
		n := l.limits.counts.refused.Add(1)
		_ = conn.Close()
		if n&(n-1) == 0 { // 1, 2, 4, 8...: a flood writes a few lines
			l.limits.logger.Warn("connections refused: address over its cap",
				zap.String("address", key.String()), zap.Int("cap", l.limits.ConnectionsPerAddress),
				zap.Int64("refused_since_start", n))
		}
	}
}

type limitedConn struct {
	net.Conn
	key      netip.Prefix
	counts   *addressCounts
	released atomic.Bool
}

// Close frees the connection's place under its address's cap, once.
func (c *limitedConn) Close() error {
	if c.released.CompareAndSwap(false, true) {
		c.counts.release(c.key)
	}
	return c.Conn.Close()
}

// CloseWrite half-closes the connection when the one beneath can (net/http
// does so after an answer sent before the request body was read).
func (c *limitedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// limitedTLSConn keeps reporting the TLS state of the connection beneath, by
// which Caddy still treats it as TLS.
type limitedTLSConn struct {
	*limitedConn
	tls connectionStater
}

func (c limitedTLSConn) ConnectionState() tls.ConnectionState { return c.tls.ConnectionState() }

// Interface guards
var (
	_ caddy.ListenerWrapper = (*Limits)(nil)
	_ caddy.Provisioner     = (*Limits)(nil)
	_ caddy.Validator       = (*Limits)(nil)
	_ caddyfile.Unmarshaler = (*Limits)(nil)
)
