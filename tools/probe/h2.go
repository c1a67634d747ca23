package probe

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// HTTP/2 requests are written frame by frame, with the pseudo-header fields
// and header fields exactly as given: an HTTP/2 client library would refuse
// or repair most of what a hostile caller sends.

// fieldsOf returns the field section of an HTTP/2 or HTTP/3 request: the
// pseudo-header fields from its method, target and Host, then its header
// fields lower-cased. A Request whose Fields are set sends those instead,
// untouched.
func (c *Client) fieldsOf(req Request) [][2]string {
	if req.Fields != nil {
		return req.Fields
	}
	host := req.Host
	if host == "" {
		host = c.base.Host
	}
	fields := [][2]string{{":method", req.Method}, {":scheme", c.base.Scheme}, {":authority", host}, {":path", req.Target}}
	for _, h := range req.Header {
		fields = append(fields, [2]string{strings.ToLower(h[0]), h[1]})
	}
	if req.Body != "" {
		fields = append(fields, [2]string{"content-length", strconv.Itoa(len(req.Body))})
	}
	return fields
}

// exchangeH2 sends one request on stream 1 of a fresh HTTP/2 connection
// (prior knowledge on http, ALPN h2 on https) and reads its answer. A stream
// or connection ended without a whole answer is ErrClosed.
func (c *Client) exchangeH2(ctx context.Context, req Request) (*Response, error) {
	conn, cancel, err := c.connect(ctx, c.dialH2)
	if err != nil {
		return nil, err
	}
	defer cancel()
	defer conn.Close()
	if err := writeH2Request(conn, c.fieldsOf(req), req.Body); err != nil {
		return nil, ErrClosed // the server closed before taking the whole request
	}
	return readH2Response(conn)
}

func (c *Client) dialH2(ctx context.Context) (net.Conn, error) {
	addr := c.address()
	if c.base.Scheme == "https" {
		// HTTP/1.1 is offered too, so that a server without HTTP/2 says so
		// by choosing it, rather than by failing the handshake.
		d := tls.Dialer{Config: c.tlsConfig("h2", "http/1.1")}
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return nil, err
		}
		if proto := conn.(*tls.Conn).ConnectionState().NegotiatedProtocol; proto != "h2" {
			conn.Close()
			return nil, fmt.Errorf("%w: HTTP/2 over TLS (ALPN chose %q)", ErrNotOffered, proto)
		}
		return conn, nil
	}
	var d net.Dialer
	return d.DialContext(ctx, "tcp", addr)
}

// ErrNotOffered reports a server that does not offer the protocol asked for.
var ErrNotOffered = errors.New("protocol not offered by the server")

// maxH2Fragment is the largest header block fragment a frame may carry
// before the peer's SETTINGS are known (RFC 9113 4.2).
const maxH2Fragment = 16384

func writeH2Request(conn net.Conn, fields [][2]string, body string) error {
	if _, err := io.WriteString(conn, http2.ClientPreface); err != nil {
		return err
	}
	fr := http2.NewFramer(conn, nil)
	if err := fr.WriteSettings(); err != nil {
		return err
	}
	var block bytes.Buffer
	enc := hpack.NewEncoder(&block)
	for _, f := range fields {
		if err := enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]}); err != nil {
			return err
		}
	}
	// A block over one frame goes on in CONTINUATION frames.
	fragment := block.Bytes()
	first := fragment[:min(len(fragment), maxH2Fragment)]
	fragment = fragment[len(first):]
	if err := fr.WriteHeaders(http2.HeadersFrameParam{
		StreamID: 1, BlockFragment: first, EndStream: body == "", EndHeaders: len(fragment) == 0,
	}); err != nil {
		return err
	}
	for len(fragment) > 0 {
		next := fragment[:min(len(fragment), maxH2Fragment)]
		fragment = fragment[len(next):]
		if err := fr.WriteContinuation(1, len(fragment) == 0, next); err != nil {
			return err
		}
	}
	if body != "" {
		return fr.WriteData(1, true, []byte(body))
	}
	return nil
}

func readH2Response(conn net.Conn) (*Response, error) {
	fr := http2.NewFramer(conn, conn)
	fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	fr.MaxHeaderListSize = 1 << 20
	var resp *Response
	var body bytes.Buffer
	for {
		frame, err := fr.ReadFrame()
		if err != nil {
			if isTimeout(err) {
				return nil, fmt.Errorf("no answer, connection still open: %w", err)
			}
			return nil, ErrClosed
		}
		switch f := frame.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				if err := fr.WriteSettingsAck(); err != nil {
					return nil, ErrClosed
				}
			}
		case *http2.PingFrame:
			if !f.IsAck() {
				_ = fr.WritePing(true, f.Data)
			}
		case *http2.GoAwayFrame, *http2.RSTStreamFrame:
			return nil, ErrClosed
		case *http2.MetaHeadersFrame:
			if f.StreamID != 1 {
				continue
			}
			status, err := strconv.Atoi(f.PseudoValue("status"))
			if err != nil {
				return nil, errors.New("HTTP/2 response without a valid :status")
			}
			if status >= 100 && status < 200 {
				continue // an interim response; the final one follows
			}
			resp = &Response{Status: status, Header: http.Header{}}
			for _, field := range f.RegularFields() {
				resp.Header.Add(field.Name, field.Value)
			}
			if f.StreamEnded() {
				return resp, nil
			}
		case *http2.DataFrame:
			if f.StreamID != 1 || resp == nil {
				continue
			}
			body.Write(f.Data())
			if f.StreamEnded() {
				resp.Body = body.Bytes()
				return resp, nil
			}
		}
	}
}
