package probe

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Request is one request written byte for byte as given: the target is sent
// exactly, never normalised the way an HTTP client library would.
type Request struct {
	// Proto is the protocol spoken: HTTP/1.1 (empty), HTTP/1.0, HTTP/2 (h2c
	// with prior knowledge on http, ALPN h2 on https) or HTTP/3 (https only).
	Proto  string
	Method string
	Target string
	Host   string      // empty: the host of the base URL
	Header [][2]string // in order, after Host
	Body   string
	// Fields, over HTTP/2 and HTTP/3 only, replace the field section built
	// from the fields above: pseudo-headers and headers sent as given.
	Fields [][2]string
}

// Protocols a Request may speak.
const (
	HTTP10 = "HTTP/1.0"
	HTTP11 = "HTTP/1.1"
	HTTP2  = "HTTP/2"
	HTTP3  = "HTTP/3"
)

// Scheme is the base URL's scheme, http or https.
func (c *Client) Scheme() string { return c.base.Scheme }

// ProtocolsNamed maps protocol names as a Caddyfile's protocols option
// writes them (h1, h2, h2c, h3), and http1.0, to the protocols a server at
// scheme is checked over besides HTTP/1.1: h1 adds nothing, http1.0 adds
// HTTP/1.0, h2 (over TLS) and h2c (in clear) HTTP/2, h3 HTTP/3. A name the
// scheme cannot carry is an error: h2 and h3 need https, h2c http.
func ProtocolsNamed(names []string, scheme string) ([]string, error) {
	var protos []string
	for _, name := range names {
		proto, want := "", ""
		switch name {
		case "h1":
			continue // HTTP/1.1 is always checked
		case "http1.0":
			proto = HTTP10
		case "h2":
			proto, want = HTTP2, "https"
		case "h2c":
			proto, want = HTTP2, "http"
		case "h3":
			proto, want = HTTP3, "https"
		default:
			return nil, fmt.Errorf("protocol %q: want h1, h2, h2c, h3 (as the Caddyfile names them) or http1.0", name)
		}
		if want != "" && want != scheme {
			return nil, fmt.Errorf("protocol %s is served over %s only, and the URL is %s", name, want, scheme)
		}
		if !slices.Contains(protos, proto) {
			protos = append(protos, proto)
		}
	}
	return protos, nil
}

// Response is what came back: status, headers and the body read in full.
type Response struct {
	Status  int
	Header  http.Header
	Body    []byte
	Interim bool // an interim 1xx response (100 Continue) came first
}

// ErrClosed reports a connection closed without a whole answer: before a
// byte, or in the middle of the body.
var ErrClosed = errors.New("connection closed without an answer")

// NotHTTPError reports bytes that are no HTTP/1.x response (an HTTP/0.9
// answer, or garbage).
type NotHTTPError struct {
	Bytes []byte
}

func (e *NotHTTPError) Error() string {
	return fmt.Sprintf("not an HTTP/1.x response: %q", shorten(string(e.Bytes)))
}

// Client sends raw requests to one server.
type Client struct {
	base    *url.URL
	timeout time.Duration
	// RootCAs, when set, are the only authorities a certificate may chain
	// to: a staging server's private CA (Caddy's internal one). Nil is the
	// system's roots.
	RootCAs *x509.CertPool
	// InsecureTLS accepts any certificate: for tests, never for a server
	// whose answers count.
	InsecureTLS bool
}

// NewClient returns a client for a base URL (http or https, no path).
func NewClient(baseURL string, timeout time.Duration) (*Client, error) {
	if !strings.Contains(baseURL, "://") {
		// url.Parse reads host:port as a scheme, or fails on it.
		return nil, fmt.Errorf("base URL %q has no scheme: write http://%s or https://%s", baseURL, baseURL, baseURL)
	}
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("base URL %q: want http(s)://host[:port] with no path", baseURL)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.Trim(u.Path, "/") != "" {
		return nil, fmt.Errorf("base URL %q: want http(s)://host[:port] with no path", baseURL)
	}
	return &Client{base: u, timeout: timeout}, nil
}

// Host is the Host header the base URL implies.
func (c *Client) Host() string { return c.base.Host }

// Do sends one request on a fresh connection and reads the whole response.
func (c *Client) Do(ctx context.Context, req Request) (*Response, error) {
	switch req.Proto {
	case "", HTTP11, HTTP10:
		return c.Exchange(ctx, c.render(req), req.Method)
	case HTTP2:
		return c.exchangeH2(ctx, req)
	case HTTP3:
		return c.exchangeH3(ctx, req)
	}
	return nil, fmt.Errorf("protocol %q: want %s, %s, %s or %s", req.Proto, HTTP10, HTTP11, HTTP2, HTTP3)
}

// render writes an HTTP/1.x request byte for byte.
func (c *Client) render(req Request) []byte {
	host := req.Host
	if host == "" {
		host = c.base.Host
	}
	version := req.Proto
	if version == "" {
		version = HTTP11
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s %s\r\n", req.Method, req.Target, version)
	if host != noHost {
		fmt.Fprintf(&b, "Host: %s\r\n", host)
	}
	for _, h := range req.Header {
		fmt.Fprintf(&b, "%s: %s\r\n", h[0], h[1])
	}
	if req.Body != "" {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(req.Body))
	}
	b.WriteString("Connection: close\r\n\r\n")
	b.WriteString(req.Body)
	return b.Bytes()
}

// Exchange sends raw bytes on a fresh connection and reads one response,
// past any interim 1xx one, for a request of the given method. A connection
// closed without a whole answer is ErrClosed, bytes that are no response a
// *NotHTTPError; a server that neither answers nor closes before the timeout
// is an error of its own, since hanging is not an answer.
func (c *Client) Exchange(ctx context.Context, raw []byte, method string) (*Response, error) {
	conn, cancel, err := c.connect(ctx, c.dial)
	if err != nil {
		return nil, err
	}
	defer cancel()
	defer conn.Close()
	_, _ = conn.Write(raw) // a server may close before reading everything: its answer still counts

	var read bytes.Buffer
	br := bufio.NewReader(io.TeeReader(conn, &read))
	resp, err := http.ReadResponse(br, &http.Request{Method: method})
	interim := false
	for err == nil && resp.StatusCode >= 100 && resp.StatusCode < 200 && resp.StatusCode != http.StatusSwitchingProtocols {
		interim = true // an interim response has no body: clients read on
		resp, err = http.ReadResponse(br, &http.Request{Method: method})
	}
	if err != nil {
		if _, rest := io.Copy(io.Discard, br); isTimeout(err) || isTimeout(rest) {
			return nil, fmt.Errorf("no answer, connection still open: %w", err)
		}
		if read.Len() == 0 {
			return nil, ErrClosed
		}
		return nil, &NotHTTPError{Bytes: read.Bytes()}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	switch {
	case isTimeout(err):
		return nil, fmt.Errorf("body never ends: %w", err)
	case err != nil:
		return nil, ErrClosed // cut mid-body: nothing whole came back
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: body, Interim: interim}, nil
}

// tlsConfig is the TLS configuration of a connection offering protos.
func (c *Client) tlsConfig(protos ...string) *tls.Config {
	return &tls.Config{ServerName: c.base.Hostname(), NextProtos: protos, RootCAs: c.RootCAs, InsecureSkipVerify: c.InsecureTLS}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// connect dials a fresh connection within the client's timeout, which
// bounds the whole exchange: it is the connection's deadline too.
func (c *Client) connect(ctx context.Context, dial func(context.Context) (net.Conn, error)) (net.Conn, context.CancelFunc, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	conn, err := dial(ctx)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	if deadline, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(deadline)
	}
	return conn, cancel, nil
}

// address is the host and port to dial.
func (c *Client) address() string {
	if c.base.Port() == "" {
		return net.JoinHostPort(c.base.Hostname(), map[string]string{"http": "80", "https": "443"}[c.base.Scheme])
	}
	return c.base.Host
}

func (c *Client) dial(ctx context.Context) (net.Conn, error) {
	addr := c.address()
	if c.base.Scheme == "https" {
		d := tls.Dialer{Config: c.tlsConfig("http/1.1")}
		return d.DialContext(ctx, "tcp", addr)
	}
	var d net.Dialer
	return d.DialContext(ctx, "tcp", addr)
}
