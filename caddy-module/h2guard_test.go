package corpushandler

import (
	"bytes"
	"crypto/tls"
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// serverFrames writes frames as Go's HTTP/2 server does: one encoder for the
// connection, so that later field sections refer to its table.
type serverFrames struct {
	buf bytes.Buffer
	fr  *http2.Framer
	enc *hpack.Encoder
	blk bytes.Buffer
}

func newServerFrames() *serverFrames {
	s := &serverFrames{}
	s.fr = http2.NewFramer(&s.buf, nil)
	s.enc = hpack.NewEncoder(&s.blk)
	return s
}

func (s *serverFrames) settings() []byte {
	_ = s.fr.WriteSettings(http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: 16})
	return s.take()
}

// headers writes a field section, in a HEADERS frame and, when split is
// set, a CONTINUATION frame for its second half.
func (s *serverFrames) headers(stream uint32, split bool, fields ...string) []byte {
	s.blk.Reset()
	for i := 0; i < len(fields); i += 2 {
		_ = s.enc.WriteField(hpack.HeaderField{Name: fields[i], Value: fields[i+1]})
	}
	block := s.blk.Bytes()
	if !split {
		_ = s.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: stream, BlockFragment: block, EndHeaders: true})
		return s.take()
	}
	half := len(block) / 2
	_ = s.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: stream, BlockFragment: block[:half]})
	_ = s.fr.WriteContinuation(stream, true, block[half:])
	return s.take()
}

func (s *serverFrames) data(stream uint32, body string) []byte {
	_ = s.fr.WriteData(stream, true, []byte(body))
	return s.take()
}

func (s *serverFrames) take() []byte {
	b := bytes.Clone(s.buf.Bytes())
	s.buf.Reset()
	return b
}

var (
	jsonResponse = []string{":status", "200", "content-type", contractContentType, "content-length", "2"}
	html431      = []string{":status", "431", "content-type", "text/html; charset=utf-8"}
	plain400     = []string{":status", "400", "content-type", "text/plain; charset=utf-8", "x-content-type-options", "nosniff"}
)

// guardedPipe returns a guarded end the test writes to as the server, and
// what reached the client, read until the guard closed or a pause.
func guardedPipe(t *testing.T) (*h2GuardConn, func() ([]byte, bool)) {
	t.Helper()
	server, client := net.Pipe()
	t.Cleanup(func() { server.Close(); client.Close() })
	received := make(chan []byte, 1)
	closed := make(chan bool, 1)
	go func() {
		var got bytes.Buffer
		buf := make([]byte, 1<<16)
		for {
			_ = client.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
			n, err := client.Read(buf)
			got.Write(buf[:n])
			if err != nil {
				received <- got.Bytes()
				closed <- err == io.EOF || !isTimeoutError(err)
				return
			}
		}
	}()
	return &h2GuardConn{Conn: server}, func() ([]byte, bool) { return <-received, <-closed }
}

func TestH2GuardPassesTheHandlersFrames(t *testing.T) {
	s := newServerFrames()
	settings := s.settings()
	first := append(s.headers(1, false, jsonResponse...), s.data(1, "{}")...)
	// The second response is written with the table the first filled in.
	second := append(s.headers(3, true, jsonResponse...), s.data(3, "{}")...)
	interim := s.headers(5, false, ":status", "100")
	all := bytes.Join([][]byte{settings, first, second, interim}, nil)

	tests := []struct {
		name   string
		writes [][]byte
	}{
		{"frame by frame", [][]byte{settings, first, second, interim}},
		{"in one write", [][]byte{all}},
		{"a byte at a time", splitEvery(all, 1)},
		{"in 7-byte pieces", splitEvery(all, 7)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			guard, received := guardedPipe(t)
			for _, w := range tt.writes {
				n, err := guard.Write(w)
				require.NoError(t, err)
				require.Equal(t, len(w), n)
			}
			got, closed := received()
			assert.False(t, closed)
			assert.Equal(t, all, got, "every frame, byte for byte")
		})
	}
}

func TestH2GuardClosesInsteadOfTheServersReplies(t *testing.T) {
	tests := []struct {
		name  string
		reply []string
		split bool
	}{
		{"431 in HTML", html431, false},
		{"400 in plain text", plain400, false},
		{"400 in plain text, in a CONTINUATION", plain400, true},
		{"an empty 200", []string{":status", "200", "content-length", "0"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServerFrames()
			settings := s.settings()
			good := append(s.headers(1, false, jsonResponse...), s.data(1, "{}")...)
			bad := append(s.headers(3, tt.split, tt.reply...), s.data(3, "<h1>HTTP Error</h1>")...)
			guard, received := guardedPipe(t)
			_, err := guard.Write(bytes.Join([][]byte{settings, good, bad}, nil))
			require.NoError(t, err)
			_, err = guard.Write(s.data(5, "more"))
			assert.ErrorIs(t, err, net.ErrClosed, "nothing goes out after the refusal")
			got, closed := received()
			assert.True(t, closed, "the connection is closed")
			assert.Equal(t, append(settings, good...), got, "the frames before the reply went out, and nothing of it")
		})
	}
}

// TestH2GuardFollowsTheTable: the 400 refers to fields the earlier answers
// put in the table, so only a decoder kept in step recognises it.
func TestH2GuardFollowsTheTable(t *testing.T) {
	s := newServerFrames()
	frames := [][]byte{s.settings(), s.headers(1, false, plain400[2:]...)} // trailers: no status
	frames = append(frames, s.headers(3, false, ":status", "400", "content-type", "text/plain; charset=utf-8"))
	guard, received := guardedPipe(t)
	_, err := guard.Write(bytes.Join(frames, nil))
	require.NoError(t, err)
	got, closed := received()
	assert.True(t, closed)
	assert.Equal(t, bytes.Join(frames[:2], nil), got)
}

func TestH2GuardLeavesHTTP1(t *testing.T) {
	reply := []byte("HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n\x00\x00\x00")
	guard, received := guardedPipe(t)
	_, err := guard.Write(reply)
	require.NoError(t, err)
	got, closed := received()
	assert.False(t, closed)
	assert.Equal(t, reply, got)
}

func TestH2GuardKeepsTheTLSState(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	wrapped := H2Guard{}.WrapListener(tls.NewListener(ln, &tls.Config{}))
	go func() {
		conn, err := net.Dial("tcp", ln.Addr().String())
		if err == nil {
			defer conn.Close()
			time.Sleep(200 * time.Millisecond)
		}
	}()
	conn, err := wrapped.Accept()
	require.NoError(t, err)
	defer conn.Close()
	_, ok := conn.(connectionStater)
	assert.True(t, ok, "a TLS connection still reports its state")

	plain := H2Guard{}.WrapListener(ln)
	go func() {
		conn, err := net.Dial("tcp", ln.Addr().String())
		if err == nil {
			defer conn.Close()
			time.Sleep(200 * time.Millisecond)
		}
	}()
	conn, err = plain.Accept()
	require.NoError(t, err)
	defer conn.Close()
	_, ok = conn.(connectionStater)
	assert.False(t, ok, "a cleartext connection reports none")
}

func splitEvery(b []byte, n int) [][]byte {
	var parts [][]byte
	for len(b) > n {
		parts = append(parts, b[:n])
		b = b[n:]
	}
	return append(parts, b)
}
