package probe

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/quic-go/qpack"
	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/quicvarint"
)

// HTTP/3 requests, like HTTP/2 ones, are written frame by frame with their
// fields as given (RFC 9114 7.2): a HEADERS frame, then a DATA frame when
// there is a body, on a fresh QUIC connection.

// HTTP/3 frame types (RFC 9114 7.2).
const (
	h3FrameData    = 0x0
	h3FrameHeaders = 0x1
)

// maxH3Frame bounds what is read of one response frame.
const maxH3Frame = 1 << 20

func (c *Client) exchangeH3(ctx context.Context, req Request) (*Response, error) {
	if c.base.Scheme != "https" {
		return nil, fmt.Errorf("HTTP/3 needs an https base URL")
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	conn, err := quic.DialAddr(ctx, c.address(), c.tlsConfig("h3"), &quic.Config{})
	if err != nil {
		return nil, err
	}
	defer conn.CloseWithError(0, "")
	stream, err := conn.OpenStreamSync(ctx)
	if err != nil {
		return nil, err
	}
	if deadline, ok := ctx.Deadline(); ok {
		_ = stream.SetDeadline(deadline)
	}
	if _, err := stream.Write(h3Request(c.fieldsOf(req), req.Body)); err != nil {
		return nil, ErrClosed
	}
	_ = stream.Close() // ends the request; the response is still read
	resp, err := readH3Response(bufio.NewReader(stream))
	if isTimeout(err) {
		return nil, fmt.Errorf("no answer, stream still open: %w", err)
	}
	return resp, err
}

// h3Request encodes a request's frames. Field names are those of HTTP/2:
// lower case, with the same pseudo-headers.
func h3Request(fields [][2]string, body string) []byte {
	var block bytes.Buffer
	enc := qpack.NewEncoder(&block)
	for _, f := range fields {
		_ = enc.WriteField(qpack.HeaderField{Name: f[0], Value: f[1]}) // writes to memory: cannot fail
	}
	frames := appendH3Frame(nil, h3FrameHeaders, block.Bytes())
	if body != "" {
		frames = appendH3Frame(frames, h3FrameData, []byte(body))
	}
	return frames
}

func appendH3Frame(b []byte, frameType uint64, payload []byte) []byte {
	b = quicvarint.Append(b, frameType)
	b = quicvarint.Append(b, uint64(len(payload)))
	return append(b, payload...)
}

func readH3Response(r *bufio.Reader) (*Response, error) {
	var resp *Response
	var body bytes.Buffer
	for {
		frameType, err := quicvarint.Read(r)
		if err != nil {
			return endOfH3Stream(resp, &body, err)
		}
		length, err := quicvarint.Read(r)
		if err != nil || length > maxH3Frame {
			return nil, ErrClosed
		}
		payload := make([]byte, length)
		if _, err := io.ReadFull(r, payload); err != nil {
			return nil, ErrClosed
		}
		switch frameType {
		case h3FrameHeaders:
			fields, err := decodeQPACK(payload)
			if err != nil {
				return nil, err
			}
			status, err := strconv.Atoi(fields.Get(":status"))
			if err != nil {
				return nil, errors.New("HTTP/3 response without a valid :status")
			}
			if status < 200 {
				continue // an interim response; the final one follows
			}
			fields.Del(":status")
			resp = &Response{Status: status, Header: fields}
		case h3FrameData:
			body.Write(payload)
		}
	}
}

// endOfH3Stream turns the end of a response stream into a response, when
// its headers came and the stream ended cleanly, or into ErrClosed.
func endOfH3Stream(resp *Response, body *bytes.Buffer, err error) (*Response, error) {
	if isTimeout(err) {
		return nil, err
	}
	if err != io.EOF || resp == nil {
		return nil, ErrClosed // reset, or closed before a whole answer
	}
	resp.Body = body.Bytes()
	return resp, nil
}

func decodeQPACK(block []byte) (http.Header, error) {
	decode := qpack.NewDecoder().Decode(block)
	fields := http.Header{}
	for {
		f, err := decode()
		if err == io.EOF {
			return fields, nil
		}
		if err != nil {
			return nil, fmt.Errorf("HTTP/3 response headers: %w", err)
		}
		fields[http.CanonicalHeaderKey(f.Name)] = append(fields[http.CanonicalHeaderKey(f.Name)], f.Value)
	}
}
