package probe

import (
	"bufio"
	"context"
	"crypto/tls"
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
	Status int
	Header http.Header
	Body   []byte
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
	host := req.Host
	if host == "" {
		host = c.base.Host
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\n", req.Method, req.Target, host)
	for _, h := range req.Header {
		fmt.Fprintf(&b, "%s: %s\r\n", h[0], h[1])
	}
	if req.Body != "" {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(req.Body))
	}
	b.WriteString("Connection: close\r\n\r\n")
	b.WriteString(req.Body)
	if _, err := io.WriteString(conn, b.String()); err != nil {
		return nil, err
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: req.Method})
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: body}, nil
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
