package corpushandler

import (
	"crypto/tls"
	"net"
	"strings"
	"sync"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

func init() {
	caddy.RegisterModule(H2Guard{})
}

// H2Guard is a listener wrapper that keeps HTTP/2 replies no handler wrote
// off the wire. Go's HTTP/2 server answers some requests itself, in frames,
// before any handler runs: a decoded field section over the limit gets a
// 431 in text/html, a connection-specific field (Connection, Keep-Alive,
// Proxy-Connection, Transfer-Encoding, Upgrade, TE other than trailers) a
// 400 in text/plain. Every final response the corpus handler writes carries
// its JSON content type, so the guard reads the field section of each
// response the server writes and, at the first without it, closes the
// connection instead of sending it, which the contract allows. Frames before
// that response go out unchanged.
//
// It must stand after the tls placeholder, where it sees what TLS decrypts;
// on a cleartext listener it sees h2c. An HTTP/1.x connection passes
// through untouched.
type H2Guard struct{}

// CaddyModule returns the Caddy module information.
func (H2Guard) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "caddy.listeners.proveit_h2_guard",
		New: func() caddy.Module { return new(H2Guard) },
	}
}

// WrapListener wraps every connection the listener accepts.
func (H2Guard) WrapListener(l net.Listener) net.Listener {
	return h2GuardListener{l}
}

// UnmarshalCaddyfile sets up the guard from Caddyfile tokens. Syntax:
//
//	proveit_h2_guard
func (*H2Guard) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the wrapper name
	if d.NextArg() {
		return d.ArgErr()
	}
	return nil
}

type h2GuardListener struct {
	net.Listener
}

// Accept wraps a connection so that it keeps reporting its TLS state when it
// has one: Caddy keeps HTTP/2's ALPN only for a connection that does.
func (l h2GuardListener) Accept() (net.Conn, error) {
	conn, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	guarded := &h2GuardConn{Conn: conn}
	if tc, ok := conn.(connectionStater); ok {
		return h2GuardTLSConn{guarded, tc}, nil
	}
	return guarded, nil
}

type h2GuardTLSConn struct {
	*h2GuardConn
	tls connectionStater
}

func (c h2GuardTLSConn) ConnectionState() tls.ConnectionState { return c.tls.ConnectionState() }

// What a connection turned out to speak, from the server's first write.
const (
	speaksUnknown = iota
	speaksHTTP1
	speaksHTTP2
)

// contractContentType is the content type of every final response the corpus
// handler writes.
const contractContentType = "application/json; charset=utf-8"

// h2FrameHeaderLen is the length of an HTTP/2 frame header (RFC 9113 4.1).
const h2FrameHeaderLen = 9

// h2GuardConn reads the frames the server writes. Only whole frames go out,
// and a field section only once all of it is read and found to be the
// handler's; the bytes of a frame not yet whole wait for the next write,
// which the HTTP/2 server makes at once (it writes whole frames, flushing
// its buffer as it fills).
type h2GuardConn struct {
	net.Conn
	mu      sync.Mutex // the HTTP/2 server writes from one goroutine at a time; this keeps the state safe regardless
	speaks  int
	pending []byte // written by the server, not yet sent: the end of a frame, or an unfinished field section
	decoder *hpack.Decoder
	closed  bool
}

// Write passes frames through, and closes the connection instead of
// sending a response the handler did not write.
func (c *h2GuardConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.speaks == speaksUnknown && len(p) > 0 {
		// HTTP/2's first write is the server's SETTINGS frame, whose
		// length's first byte is zero; an HTTP/1.x reply starts with "HTTP/".
		c.speaks = speaksHTTP1
		if p[0] == 0 {
			c.speaks = speaksHTTP2
			c.decoder = hpack.NewDecoder(4096, nil)
			// The server's encoder announces its table size in the block
			// that changes it; any size it may choose is followed.
			c.decoder.SetAllowedMaxDynamicTableSize(1 << 24)
		}
	}
	if c.speaks != speaksHTTP2 {
		return c.Conn.Write(p)
	}
	if c.closed {
		return 0, net.ErrClosed
	}
	c.pending = append(c.pending, p...)
	ready, refused := c.scan()
	if ready > 0 {
		if _, err := c.Conn.Write(c.pending[:ready]); err != nil {
			return 0, err
		}
	}
	if refused {
		c.closed = true
		c.pending = nil
		return len(p), c.Conn.Close()
	}
	c.pending = append(c.pending[:0], c.pending[ready:]...)
	return len(p), nil
}

// scan reads the whole frames of pending and returns how many of its bytes
// may go out: whole frames, up to the first field section not yet whole, or
// up to the first response the handler did not write, when refused is set.
// pending always starts on a frame that is not inside a field section.
func (c *h2GuardConn) scan() (ready int, refused bool) {
	var block []byte // the field section being gathered
	inBlock := false
	for i := 0; len(c.pending)-i >= h2FrameHeaderLen; {
		head := c.pending[i : i+h2FrameHeaderLen]
		length := int(head[0])<<16 | int(head[1])<<8 | int(head[2])
		end := i + h2FrameHeaderLen + length
		if end > len(c.pending) {
			break
		}
		kind, flags := http2.FrameType(head[3]), http2.Flags(head[4])
		payload := c.pending[i+h2FrameHeaderLen : end]
		switch {
		case kind == http2.FrameHeaders && !inBlock:
			fragment, ok := headersFragment(payload, flags)
			if !ok {
				return ready, true
			}
			block, inBlock = append(block[:0], fragment...), true
		case kind == http2.FrameContinuation && inBlock:
			block = append(block, payload...)
		case inBlock || kind == http2.FrameContinuation:
			return ready, true // a field section is never interrupted: not the server's frames
		}
		if inBlock && flags.Has(http2.FlagHeadersEndHeaders) {
			if !c.handlerWrote(block) {
				return ready, true
			}
			inBlock = false
		}
		i = end
		if !inBlock {
			ready = i
		}
	}
	return ready, false
}

// headersFragment returns the field block fragment of a HEADERS frame's
// payload, without its padding and priority.
func headersFragment(payload []byte, flags http2.Flags) ([]byte, bool) {
	pad := 0
	if flags.Has(http2.FlagHeadersPadded) {
		if len(payload) < 1 {
			return nil, false
		}
		pad, payload = int(payload[0]), payload[1:]
	}
	if flags.Has(http2.FlagHeadersPriority) {
		if len(payload) < 5 {
			return nil, false
		}
		payload = payload[5:]
	}
	if pad > len(payload) {
		return nil, false
	}
	return payload[:len(payload)-pad], true
}

// handlerWrote decodes a field section the server writes, which keeps the
// decoder's table in step with the server's encoder, and tells whether it
// is one the handler may have written: an interim response, trailers, or a
// final response with the contract's content type.
func (c *h2GuardConn) handlerWrote(block []byte) bool {
	fields, err := c.decoder.DecodeFull(block)
	if err != nil {
		return false
	}
	status, contentType := "", ""
	for _, f := range fields {
		switch f.Name {
		case ":status":
			status = f.Value
		case "content-type":
			contentType = f.Value
		}
	}
	return status == "" || strings.HasPrefix(status, "1") || contentType == contractContentType
}

// CloseWrite half-closes the connection when the one beneath can.
func (c *h2GuardConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// Interface guards
var (
	_ caddy.ListenerWrapper = (*H2Guard)(nil)
	_ caddyfile.Unmarshaler = (*H2Guard)(nil)
)
