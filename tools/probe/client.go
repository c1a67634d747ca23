package probe

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Request is one HTTP/1.1 request written byte for byte as given: the target
// is sent exactly, never normalised the way an HTTP client library would.
type Request struct {
	Method string
	Target string
	Host   string      // empty: the host of the base URL
	Header [][2]string // in order, after Host
	Body   string
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
	// InsecureTLS accepts any certificate: for a staging server with a
	// private CA, never for the production one.
	InsecureTLS bool
}

// NewClient returns a client for a base URL (http or https, no path).
func NewClient(baseURL string, timeout time.Duration) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, err
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
	return c.Exchange(ctx, c.render(req), req.Method)
}

// render writes a request byte for byte.
func (c *Client) render(req Request) []byte {
	host := req.Host
	if host == "" {
		host = c.base.Host
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\n", req.Method, req.Target, host)
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
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	conn, err := c.dial(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if deadline, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(deadline)
	}
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

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func (c *Client) dial(ctx context.Context) (net.Conn, error) {
	addr := c.base.Host
	if c.base.Port() == "" {
		addr = net.JoinHostPort(c.base.Hostname(), map[string]string{"http": "80", "https": "443"}[c.base.Scheme])
	}
	if c.base.Scheme == "https" {
		d := tls.Dialer{Config: &tls.Config{ServerName: c.base.Hostname(), NextProtos: []string{"http/1.1"}, InsecureSkipVerify: c.InsecureTLS}}
		return d.DialContext(ctx, "tcp", addr)
	}
	var d net.Dialer
	return d.DialContext(ctx, "tcp", addr)
}
