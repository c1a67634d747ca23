package corpushandler

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIsGoErrorReply(t *testing.T) {
	tests := []struct {
		name  string
		write string
		want  bool
	}{
		{"400", "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request", true},
		{"431", "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n431 Request Header Fields Too Large", true},
		{"505", "HTTP/1.1 505 HTTP Version Not Supported: unsupported protocol version\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n505 HTTP Version Not Supported: unsupported protocol version", true},
		{"501", "HTTP/1.1 501 Not Implemented\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\nUnsupported transfer encoding", true},
		{"plain HTTP on the TLS port", "HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n", true},
		{"a contract answer", "HTTP/1.1 400 Bad Request\r\nCache-Control: no-store\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: 2\r\n\r\n{}", false},
		{"a body that quotes the shape", "HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: 90\r\n\r\n\"\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n\"", false},
		{"100 Continue", "HTTP/1.1 100 Continue\r\n\r\n", false},
		{"HTTP/1.0 OPTIONS *", "HTTP/1.0 200 OK\r\nContent-Length: 0\r\nDate: Mon, 30 Nov 2026 06:00:00 GMT\r\n\r\n", true},
		{"HTTP/1.0 417", "HTTP/1.0 417 Expectation Failed\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", true},
		{"HTTP/1.0 400 text", "HTTP/1.0 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request", true},
		{"HTTP/1.0 contract answer", "HTTP/1.0 403 Forbidden\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: 2\r\n\r\n{}", false},
		{"a bare status prefix", "HTTP/1.1 ", false},
		{"OPTIONS *", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nDate: Mon, 30 Nov 2026 06:00:00 GMT\r\n\r\n", true},
		{"empty server refusal", "HTTP/1.1 405 Method Not Allowed\r\nServer: Caddy\r\nDate: Mon, 30 Nov 2026 06:00:00 GMT\r\nContent-Length: 0\r\n\r\n", true},
		{"a partial head", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n", false},
		{"error headers with more headers", "HTTP/1.1 400 Bad Request\r\nX: y\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400", false},
		{"a body chunk", "{\n  \"ressource\": \"/referentiel\"\n}\n", false},
		{"HTTP/2 frame", "\x00\x00\x12\x04\x00\x00\x00\x00\x00", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, isGoErrorReply([]byte(tt.write)))
		})
	}
}

// TestGuardConnCloseWrite checks that net/http can still half-close a
// guarded connection, so a refusal sent before the body was read arrives
// whole instead of in a reset.
func TestGuardConnCloseWrite(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	guarded := Guard{}.WrapListener(ln)
	client, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer client.Close()
	server, err := guarded.Accept()
	require.NoError(t, err)
	defer server.Close()

	cw, ok := server.(interface{ CloseWrite() error })
	require.True(t, ok, "a guarded connection offers CloseWrite")
	_, err = server.Write([]byte("answer"))
	require.NoError(t, err)
	require.NoError(t, cw.CloseWrite())
	got, err := io.ReadAll(client)
	require.NoError(t, err, "the peer reads to a clean end of stream")
	assert.Equal(t, "answer", string(got))
	_, err = client.Write([]byte("still open the other way"))
	assert.NoError(t, err)
}

func TestOptionsToHandlers(t *testing.T) {
	srv := &http.Server{}
	hook := optionsToHandlers()
	ctx := context.WithValue(context.Background(), http.ServerContextKey, srv)
	assert.Same(t, ctx, hook(ctx, nil))
	assert.True(t, srv.DisableGeneralOptionsHandler)
	assert.NotPanics(t, func() { optionsToHandlers()(context.Background(), nil) }, "no server in the context")
}
