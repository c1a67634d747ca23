package corpushandler

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"net"
	"net/http"
	"testing"
	"time"

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

// goReply431 is the reply Go writes to headers over the limit.
const goReply431 = "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n431 Request Header Fields Too Large"

// TestGuardInsideTLS wraps the decrypted side of TLS connections, as Caddy
// does with the guard after its tls placeholder. The wrapped connection
// keeps reporting its TLS state, without which Caddy would serve HTTP/2 on
// it as cleartext; an HTTP/1.1 connection has Go's replies dropped and is
// closed, an HTTP/2 one passes every byte untouched.
func TestGuardInsideTLS(t *testing.T) {
	config := &tls.Config{Certificates: []tls.Certificate{testCertificate(t)}, NextProtos: []string{"h2", "http/1.1"}}
	tests := []struct {
		name, alpn, write string
		delivered         bool
	}{
		{"HTTP/1.1, Go's reply", "http/1.1", goReply431, false},
		{"HTTP/1.1, a contract answer", "http/1.1", "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: 2\r\n\r\n{}", true},
		{"no ALPN, Go's reply", "", goReply431, false},
		{"h2, the same bytes", "h2", goReply431, true},
		{"h2, a SETTINGS frame", "h2", "\x00\x00\x00\x04\x00\x00\x00\x00\x00", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			defer ln.Close()
			guarded := Guard{}.WrapListener(tls.NewListener(ln, config))

			var protos []string
			if tt.alpn != "" {
				protos = []string{tt.alpn}
			}
			// The client sends a request and reads to the end, while the
			// server side of the handshake runs in the test.
			answer := make(chan []byte, 1)
			go func() {
				defer close(answer)
				client, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{InsecureSkipVerify: true, NextProtos: protos})
				if err != nil {
					return
				}
				defer client.Close()
				_ = client.SetDeadline(time.Now().Add(10 * time.Second))
				if _, err := client.Write([]byte("request")); err != nil {
					return
				}
				got, _ := io.ReadAll(client)
				answer <- got
			}()
			server, err := guarded.Accept()
			require.NoError(t, err)
			defer server.Close()
			require.NoError(t, server.SetDeadline(time.Now().Add(10*time.Second)))

			stater, ok := server.(interface{ ConnectionState() tls.ConnectionState })
			require.True(t, ok, "a guarded TLS connection reports its TLS state")
			got := make([]byte, len("request"))
			_, err = io.ReadFull(server, got) // completes the handshake, as a server's first read does
			require.NoError(t, err)
			state := stater.ConnectionState()
			assert.True(t, state.HandshakeComplete)
			assert.Equal(t, tt.alpn, state.NegotiatedProtocol)

			n, err := server.Write([]byte(tt.write))
			assert.Equal(t, len(tt.write), n, "the writer is told every byte went")
			if tt.delivered {
				require.NoError(t, err)
				require.NoError(t, server.Close())
			}
			received, ok := <-answer
			require.True(t, ok, "the client connected and sent its request")
			if tt.delivered {
				assert.Equal(t, tt.write, string(received))
			} else {
				assert.Empty(t, received, "Go's reply is dropped and the connection closed")
			}
		})
	}
}

// TestGuardInClearReportsNoTLS: a cleartext connection must not claim a TLS
// state, or Caddy would take h2c for HTTP/2 over TLS.
func TestGuardInClearReportsNoTLS(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer client.Close()
	server, err := Guard{}.WrapListener(ln).Accept()
	require.NoError(t, err)
	defer server.Close()
	_, ok := server.(interface{ ConnectionState() tls.ConnectionState })
	assert.False(t, ok)
}

// testCertificate is a self-signed certificate for 127.0.0.1.
func testCertificate(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	template := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	require.NoError(t, err)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}
