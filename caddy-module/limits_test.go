package corpushandler

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/netip"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
)

func TestLimitsCaddyfile(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  Limits
		err   string
	}{
		{"every limit", "proveit_limits {\nconnections_per_address 256\nh2_streams 16\nh2_stream_buffer 16384\nh2_connection_buffer 65535\nh2_frame_size 16384\n}",
			Limits{ConnectionsPerAddress: 256, H2Streams: 16, H2StreamBuffer: 16384, H2ConnectionBuffer: 65535, H2FrameSize: 16384}, ""},
		{"none", "proveit_limits", Limits{}, ""},
		{"an argument", "proveit_limits 5", Limits{}, "wrong argument count"},
		{"unknown limit", "proveit_limits {\nstreams 16\n}", Limits{}, `unknown limit "streams"`},
		{"twice", "proveit_limits {\nh2_streams 16\nh2_streams 8\n}", Limits{}, "already specified"},
		{"no value", "proveit_limits {\nh2_streams\n}", Limits{}, "wrong argument count"},
		{"two values", "proveit_limits {\nh2_streams 16 8\n}", Limits{}, "wrong argument count"},
		{"not a count", "proveit_limits {\nh2_frame_size 16KiB\n}", Limits{}, `"16KiB" is not a count`},
		{"negative", "proveit_limits {\nh2_streams -1\n}", Limits{}, "is not a count"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Limits
			err := got.UnmarshalCaddyfile(caddyfile.NewTestDispenser(tt.input))
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestLimitsValidate(t *testing.T) {
	tests := []struct {
		name   string
		limits Limits
		err    string
	}{
		{"Go's defaults", Limits{}, ""},
		{"the smallest Go takes", Limits{H2Streams: 1, H2StreamBuffer: 1, H2ConnectionBuffer: 65535, H2FrameSize: 16384}, ""},
		{"a connection window under 64 KiB", Limits{H2ConnectionBuffer: 65534}, "h2_connection_buffer 65534"},
		{"a stream window of 4 MiB", Limits{H2StreamBuffer: 4 << 20}, "h2_stream_buffer"},
		{"frames under 16 KiB", Limits{H2FrameSize: 16383}, "h2_frame_size"},
		{"frames of 16 MiB", Limits{H2FrameSize: 16 << 20}, "h2_frame_size"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.limits.Validate()
			if tt.err == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
}

func TestAddressKey(t *testing.T) {
	tests := []struct {
		name string
		addr net.Addr
		want string // empty: counts against nothing
	}{
		{"IPv4", &net.TCPAddr{IP: net.ParseIP("192.0.2.7"), Port: 4000}, "192.0.2.7/32"},
		{"IPv4 mapped in IPv6", &net.TCPAddr{IP: net.ParseIP("::ffff:192.0.2.7"), Port: 4000}, "192.0.2.7/32"},
		{"IPv6: its /64", &net.TCPAddr{IP: net.ParseIP("2001:db8:1:2:aaaa:bbbb:cccc:dddd"), Port: 4000}, "2001:db8:1:2::/64"},
		{"a unix socket", &net.UnixAddr{Name: "/run/x.sock", Net: "unix"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key, ok := addressKey(tt.addr)
			if tt.want == "" {
				assert.False(t, ok)
				return
			}
			require.True(t, ok)
			assert.Equal(t, netip.MustParsePrefix(tt.want), key)
		})
	}
}

// TestConnectionsPerAddress wraps a loopback listener with a cap of two: the
// third connection is closed at once, and a place freed by a close is taken
// again.
func TestConnectionsPerAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	limits := &Limits{ConnectionsPerAddress: 2, counts: &addressCounts{open: map[netip.Prefix]int{}}, logger: zap.NewNop()}
	wrapped := limits.WrapListener(ln)
	defer wrapped.Close()
	accepted := make(chan net.Conn, 8)
	go func() {
		for {
			conn, err := wrapped.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- conn
		}
	}()
	dial := func() net.Conn {
		conn, err := net.Dial("tcp", ln.Addr().String())
		require.NoError(t, err)
		t.Cleanup(func() { conn.Close() })
		return conn
	}
	closedAtOnce := func(conn net.Conn) bool {
		_ = conn.SetReadDeadline(time.Now().Add(2 * time.Second))
		_, err := conn.Read(make([]byte, 1))
		return err == io.EOF || (err != nil && !isTimeoutError(err))
	}
	dial() // both stay open until the test ends
	dial()
	served := []net.Conn{<-accepted, <-accepted}
	assert.True(t, closedAtOnce(dial()), "a third connection of the address is closed")
	assert.EqualValues(t, 1, limits.counts.refused.Load())
	require.NoError(t, served[0].Close())
	_ = served[0].Close()
	limits.counts.mu.Lock()
	assert.Equal(t, 1, limits.counts.open[netip.MustParsePrefix("127.0.0.1/32")], "a second close frees nothing more")
	limits.counts.mu.Unlock()
	dial()
	select {
	case conn := <-accepted:
		served = append(served, conn)
	case <-time.After(2 * time.Second):
		t.Fatal("the place a close freed was not taken again")
	}
	assert.True(t, closedAtOnce(dial()), "the address is at its cap again")
	for _, c := range served[1:] {
		c.Close()
	}
	assert.Eventually(t, func() bool {
		limits.counts.mu.Lock()
		defer limits.counts.mu.Unlock()
		return len(limits.counts.open) == 0
	}, time.Second, 10*time.Millisecond, "every place is freed")
}

func isTimeoutError(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

func TestNoCapLeavesTheListener(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	assert.Same(t, ln, (&Limits{}).WrapListener(ln))
}

// TestHTTP2ConfigHook: the hook writes the limits into the server of the
// connection it sees, with the write timeout as the write-byte timeout.
func TestHTTP2ConfigHook(t *testing.T) {
	limits := &Limits{H2Streams: 16, H2StreamBuffer: 16384, H2ConnectionBuffer: 65535, H2FrameSize: 16384}
	srv := &http.Server{WriteTimeout: 10 * time.Second}
	hook := limits.http2Config()
	ctx := context.WithValue(context.Background(), http.ServerContextKey, srv)
	assert.Equal(t, ctx, hook(ctx, nil))
	require.NotNil(t, srv.HTTP2)
	assert.Equal(t, http.HTTP2Config{MaxConcurrentStreams: 16, MaxReceiveBufferPerStream: 16384,
		MaxReceiveBufferPerConnection: 65535, MaxReadFrameSize: 16384, WriteByteTimeout: 10 * time.Second}, *srv.HTTP2)
	srv.HTTP2 = nil
	hook(ctx, nil)
	assert.Nil(t, srv.HTTP2, "written once")
}

// TestLimitsKeepTheTLSState: listed after the tls placeholder, the wrapper
// still reports a connection's TLS state; before it, none.
func TestLimitsKeepTheTLSState(t *testing.T) {
	for _, useTLS := range []bool{false, true} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		defer ln.Close()
		inner := ln
		if useTLS {
			inner = tls.NewListener(ln, &tls.Config{})
		}
		limits := &Limits{ConnectionsPerAddress: 4, counts: &addressCounts{open: map[netip.Prefix]int{}}, logger: zap.NewNop()}
		wrapped := limits.WrapListener(inner)
		client, err := net.Dial("tcp", ln.Addr().String())
		require.NoError(t, err)
		defer client.Close()
		conn, err := wrapped.Accept()
		require.NoError(t, err)
		defer conn.Close()
		_, reports := conn.(connectionStater)
		assert.Equal(t, useTLS, reports, "TLS %v", useTLS)
	}
}

// TestAcceptAwaitsTheStart: a connection accepted before the wrapper's
// configuration has started is handed out only once it has.
func TestAcceptAwaitsTheStart(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var running atomic.Bool
	limits := &Limits{ConnectionsPerAddress: 2, counts: &addressCounts{open: map[netip.Prefix]int{}}, logger: zap.NewNop(),
		running: running.Load}
	wrapped := limits.WrapListener(ln)
	defer wrapped.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		if conn, err := wrapped.Accept(); err == nil {
			accepted <- conn
		}
	}()
	conn, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	select {
	case <-accepted:
		t.Fatal("a connection handed out before the configuration started")
	case <-time.After(100 * time.Millisecond):
	}
	running.Store(true)
	select {
	case c := <-accepted:
		c.Close()
	case <-time.After(2 * time.Second):
		t.Fatal("the connection was not handed out once the configuration started")
	}
}
