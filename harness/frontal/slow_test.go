package frontal

import (
	"bufio"
	"bytes"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// slowKind is a client that never finishes its request: it writes head at
// once, then the endless trickle one byte a second.
type slowKind struct {
	name    string
	head    string
	trickle string // repeated for ever
}

func slowKinds(host, secret string) []slowKind {
	request := "GET /referentiel HTTP/1.1\r\nHost: " + host + "\r\nX-Challenge-Secret: " + secret + "\r\n"
	return []slowKind{
		{"headers sent a byte a second", "", request + "X-Slow: " + strings.Repeat("a", 4096)},
		{"a body that never ends", request + "Content-Length: 1000000000\r\n\r\n", "a"},
		{"a chunked body that never ends", request + "Transfer-Encoding: chunked\r\n\r\n", "1\r\na\r\n"},
	}
}

// slowResult is what became of one slow client.
type slowResult struct {
	kind     string
	cutAfter time.Duration // until the server closed the connection
	cut      bool          // false: still open when the test stopped waiting
	received []byte
}

// runSlowClients starts n clients of each kind, and returns a function that
// waits until the server cut each off, or limit passed.
func runSlowClients(t *testing.T, baseURL, secret string, n int, limit time.Duration) func() []slowResult {
	t.Helper()
	u, err := url.Parse(baseURL)
	require.NoError(t, err)
	var (
		mu      sync.Mutex
		results []slowResult
		wg      sync.WaitGroup
	)
	stop := make(chan struct{})
	for _, kind := range slowKinds(u.Host, secret) {
		for range n {
			conn, err := net.Dial("tcp", u.Host)
			require.NoError(t, err)
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer conn.Close()
				r := slowResult{kind: kind.name}
				start := time.Now()
				closed := make(chan struct{})
				go func() {
					r.received, _ = io.ReadAll(conn) // until the server closes, or stop closes conn
					r.cutAfter = time.Since(start)
					close(closed)
				}()
				_, _ = io.WriteString(conn, kind.head)
				tick := time.NewTicker(time.Second)
				defer tick.Stop()
				for i := 0; ; i++ {
					// A write after the server cut the connection off fails;
					// the reader sees the cut too.
					_, _ = conn.Write([]byte{kind.trickle[i%len(kind.trickle)]})
					select {
					case <-closed:
						r.cut = true
					case <-stop: // never cut off: end it, so the reader returns
						conn.Close()
						<-closed
					case <-tick.C:
						continue
					}
					break
				}
				mu.Lock()
				results = append(results, r)
				mu.Unlock()
			}()
		}
	}
	return func() []slowResult {
		timer := time.AfterFunc(limit, func() { close(stop) })
		wg.Wait()
		timer.Stop()
		return results
	}
}

// TestSlowClients hangs clients that send a request a byte a second, or a
// body that never ends, on each topology, while others keep calling: every
// slow client is cut off by the configured timeouts (5 s in the Caddyfile
// and the vhost), whatever it got is a contract answer, and the others get
// every byte right. Their latency before and while the slow ones hang is
// recorded, not asserted.
func TestSlowClients(t *testing.T) {
	c := newCorpusCopy(t)
	secrets := newSecrets(t, 1)
	bodies, err := newContractBodies(c.manifest, c.root)
	require.NoError(t, err)
	for _, name := range topologyNames {
		t.Run(name, func(t *testing.T) {
			tp := c.start(t, name, secrets)
			others := loadRun{url: tp.url, conns: 8, checks: always(loadChecks(t, c.manifest, secrets, tp)), duration: scaled(2 * time.Second)}
			before := others.run()
			const perKind = 15
			wait := runSlowClients(t, tp.url, secrets[0], perKind, 30*time.Second)
			others.duration = 5 * time.Second // the slow ones hang this long at least
			during := others.run()
			slow := wait()
			t.Logf("%s: others before: %s", tp.name, before)
			t.Logf("%s: others while %d slow clients hang: %s", tp.name, len(slow), during)
			before.requireClean(t)
			during.requireClean(t)

			cuts := map[string][]time.Duration{}
			refusals := map[string]int{} // Caddy alone: what Go wrote before cutting
			var longest time.Duration
			for _, s := range slow {
				require.True(t, s.cut, "%s: a client sending %s was never cut off", tp.name, s.kind)
				cuts[s.kind] = append(cuts[s.kind], s.cutAfter)
				longest = max(longest, s.cutAfter)
				if len(s.received) > 0 {
					resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(s.received)), nil)
					require.NoError(t, err, "%s: %s: %q", tp.name, s.kind, s.received)
					body, _ := io.ReadAll(resp.Body)
					a := answer{Status: resp.StatusCode, Header: resp.Header, Body: body}
					if kind := refusedBeforeHandler(a); tp.name == caddyAlone && kind != "" {
						refusals[kind]++
						continue
					}
					assert.NoError(t, bodies.contractProblem(a, http.MethodGet), "%s: %s", tp.name, s.kind)
				}
			}
			x := slowFigures{PerKind: perKind, Others: others.conns, BeforeP50: before.percentile(50), BeforeP99: before.percentile(99),
				DuringP50: during.percentile(50), DuringP99: during.percentile(99)}
			for _, kind := range slowKinds("", "") {
				d := cuts[kind.name]
				slices.Sort(d)
				require.Len(t, d, perKind)
				x.Cuts = append(x.Cuts, slowCut{Kind: kind.name, First: d[0], Last: d[len(d)-1]})
			}
			// Sorted, so that the report reads the same from run to run.
			for _, kind := range slices.Sorted(maps.Keys(refusals)) {
				x.Refusals = append(x.Refusals, kindCount{kind, refusals[kind]})
				figures.refusedBeforeCaddy(map[string]int{kind + ", to a client slower than the timeout": refusals[kind]})
			}
			t.Logf("%s: %+v", tp.name, x)
			figures.add(fault{Name: "slow clients", Topology: tp.name, Requests: before.Requests + during.Requests,
				Errors: before.Errors + during.Errors, Mismatches: before.Mismatches + during.Mismatches,
				Recovery: "cut off ≤ " + ms(longest), Figures: x})
		})
	}
}
