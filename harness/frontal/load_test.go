package frontal

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/tools/probe"
)

// loadRun drives a server with conns clients, each with a keep-alive
// connection of its own, sending the checks of the probe's catalogue in turn
// for a duration, and judges every answer as the probe does: status, the
// contract's headers, the body's SHA-256 and response_hash against the
// manifest.
type loadRun struct {
	url      string
	conns    int
	duration time.Duration
	// checks returns the catalogue to draw from, read before every request:
	// a test may switch it under load (a new secret).
	checks func() []probe.Check
	// tolerate accepts an answer that is not the check's, counted apart:
	// the 503 body while the corpus is down.
	tolerate func(*probe.Response) bool
	// tolerateCut counts apart an answer cut off before its Content-Length
	// (the corpus killed as it sent it): a closed connection, which the
	// contract allows and no client accepts as an answer.
	tolerateCut bool
	// resendCut sends once more, on a new connection, a call whose
	// connection closed before its answer was whole (a crash cuts what it
	// held in flight), counted apart (CutInFlight); the second answer is
	// judged like any other. An idempotent GET may be sent again: net/http
	// does so by itself on a reused connection.
	resendCut bool
	// tolerateRefused counts a refused connection apart (Refused) instead of
	// as an error: the measure of a restart without socket activation. The
	// client waits refusedPause before its next call.
	tolerateRefused bool
}

// refusedPause is how long a client waits after a refused connection: a
// client that redials at once would spin and take the CPUs from the server
// that is starting.
const refusedPause = 10 * time.Millisecond

// loadResult is what a run measured.
type loadResult struct {
	Requests, Errors, Mismatches, Tolerated int
	Retried                                 int // sent again after the server closed an idle connection
	Cut                                     int // cut off mid-answer, when tolerateCut
	Refused                                 int // connections refused (also errors, unless tolerateRefused)
	CutInFlight                             int // closed before a whole answer and sent again, when resendCut
	FirstTolerated, LastTolerated           time.Time
	Elapsed                                 time.Duration
	Latencies                               []time.Duration // sorted
	Examples                                []string        // the first errors and mismatches
}

func (r loadResult) percentile(p float64) time.Duration {
	if len(r.Latencies) == 0 {
		return 0
	}
	return r.Latencies[min(len(r.Latencies)-1, int(float64(len(r.Latencies))*p/100))]
}

func (r loadResult) rate() float64 { return float64(r.Requests) / r.Elapsed.Seconds() }

func (r loadResult) String() string {
	return fmt.Sprintf("%d requests in %s (%.0f/s), %d errors, %d mismatches, %d tolerated, %d cut, %d sent again, %d refused, %d cut in flight; latency p50 %s p99 %s max %s",
		r.Requests, r.Elapsed.Round(time.Millisecond), r.rate(), r.Errors, r.Mismatches, r.Tolerated, r.Cut, r.Retried, r.Refused, r.CutInFlight,
		r.percentile(50).Round(time.Microsecond), r.percentile(99).Round(time.Microsecond), r.percentile(100).Round(time.Microsecond))
}

// requireClean fails the test on any error or mismatch, naming the first few.
func (r loadResult) requireClean(t *testing.T) {
	t.Helper()
	require.Zero(t, r.Errors+r.Mismatches, "%s\n%s", r, strings.Join(r.Examples, "\n"))
}

func (l loadRun) run() loadResult {
	base, err := url.Parse(l.url)
	if err != nil {
		panic(err) // the URL of a server the test started
	}
	ctx, cancel := context.WithTimeout(context.Background(), l.duration)
	defer cancel()
	var (
		mu     sync.Mutex
		total  loadResult
		wg     sync.WaitGroup
		start  = time.Now()
		record = func(r *loadResult) {
			mu.Lock()
			defer mu.Unlock()
			total.Requests += r.Requests
			total.Errors += r.Errors
			total.Mismatches += r.Mismatches
			total.Tolerated += r.Tolerated
			total.Retried += r.Retried
			total.Cut += r.Cut
			total.Refused += r.Refused
			total.CutInFlight += r.CutInFlight
			total.Latencies = append(total.Latencies, r.Latencies...)
			total.Examples = append(total.Examples, r.Examples...)
			if !r.FirstTolerated.IsZero() && (total.FirstTolerated.IsZero() || r.FirstTolerated.Before(total.FirstTolerated)) {
				total.FirstTolerated = r.FirstTolerated
			}
			if r.LastTolerated.After(total.LastTolerated) {
				total.LastTolerated = r.LastTolerated
			}
		}
	)
	for worker := range l.conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine loadResult
			client := &http.Client{
				Transport: &http.Transport{MaxConnsPerHost: 1, MaxIdleConnsPerHost: 1, DisableCompression: true,
					// Caddy's internal CA, over TLS as the unit serves.
					TLSClientConfig: &tls.Config{InsecureSkipVerify: true}},
				Timeout: 10 * time.Second,
			}
			defer client.CloseIdleConnections()
			for i := worker; ctx.Err() == nil; i++ {
				checks := l.checks()
				l.one(base, client, checks[i%len(checks)], &mine)
			}
			record(&mine)
		}()
	}
	wg.Wait()
	total.Elapsed = time.Since(start)
	slices.Sort(total.Latencies)
	if len(total.Examples) > 5 {
		total.Examples = total.Examples[:5]
	}
	return total
}

func (l loadRun) one(base *url.URL, client *http.Client, check probe.Check, r *loadResult) {
	start := time.Now()
	r.Requests++
	answer, err := l.exchange(base, client, check, r)
	if err != nil && l.resendCut && !refused(err) && !timedOut(err) {
		// The connection closed with the call on it, before its answer
		// was whole: sent again, on a new connection.
		r.CutInFlight++
		client.CloseIdleConnections()
		answer, err = l.exchange(base, client, check, r)
	}
	switch {
	case err == nil:
	case refused(err) && l.tolerateRefused:
		r.Refused++
		time.Sleep(refusedPause)
		return
	case errors.Is(err, io.ErrUnexpectedEOF) && l.tolerateCut:
		r.Cut++
		return
	default:
		if refused(err) {
			r.Refused++
		}
		r.Errors++
		r.Examples = append(r.Examples, fmt.Sprintf("%s: %v", check.Name, err))
		return
	}
	r.Latencies = append(r.Latencies, time.Since(start))
	problems := probe.Problems(check.Expect, answer)
	switch {
	case len(problems) == 0:
	case l.tolerate != nil && l.tolerate(answer):
		r.Tolerated++
		if now := time.Now(); r.FirstTolerated.IsZero() {
			r.FirstTolerated = now
		}
		r.LastTolerated = time.Now()
	default:
		r.Mismatches++
		r.Examples = append(r.Examples, fmt.Sprintf("%s: %s", check.Name, strings.Join(problems, "; ")))
	}
}

// exchange sends one call and reads its whole answer. A body cut short of
// its Content-Length is io.ErrUnexpectedEOF.
func (l loadRun) exchange(base *url.URL, client *http.Client, check probe.Check, r *loadResult) (*probe.Response, error) {
	resp, resent, err := l.send(base, client, check)
	lost := &r.Retried
	if l.resendCut {
		// A crash is what closes connections here: what they held was in
		// flight, and one sends it again.
		lost = &r.CutInFlight
	}
	*lost += resent
	if errors.Is(err, errClosedBetweenRequests) && !l.resendCut {
		// The server closed an idle keep-alive connection as the request
		// left (a reload does): nothing was answered, and a client sends it
		// again, as net/http does by itself for a GET.
		r.Retried++
		resp, resent, err = l.send(base, client, check)
		*lost += resent
	}
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("reading the body: %w", err)
	}
	return &probe.Response{Status: resp.StatusCode, Header: resp.Header, Body: body}, nil
}

// refused reports a connection the server's address refused: nothing
// listened there.
func refused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }

// timedOut reports a call that waited its client's whole timeout.
func timedOut(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// errClosedBetweenRequests is a request that failed on a reused connection
// before any byte of an answer came back.
var errClosedBetweenRequests = errors.New("connection closed between requests")

// send sends one call; resent counts the times net/http sent it again by
// itself, on a new connection, after a reused one closed before any byte of
// an answer (it does so for a GET): each is a call some connection lost.
func (l loadRun) send(base *url.URL, client *http.Client, check probe.Check) (resp *http.Response, resent int, err error) {
	req, err := newHTTPRequest(base, check.Request)
	if err != nil {
		panic(err) // loadChecks keeps only requests net/http can send
	}
	reused, answered, conns := false, false, 0
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) {
			reused = info.Reused
			conns++
		},
		GotFirstResponseByte: func() { answered = true },
	}))
	resp, err = client.Do(req)
	resent = max(conns-1, 0)
	if err != nil && reused && !answered {
		return nil, resent, fmt.Errorf("%w: %w", errClosedBetweenRequests, err)
	}
	return resp, resent, err
}

// newHTTPRequest writes a probe request for net/http: the target goes on the
// wire as written (as the URL's opaque part), repeated headers stay repeated.
func newHTTPRequest(base *url.URL, r probe.Request) (*http.Request, error) {
	var body io.Reader
	if r.Body != "" {
		body = strings.NewReader(r.Body)
	}
	req, err := http.NewRequest(r.Method, base.String(), body)
	if err != nil {
		return nil, err
	}
	req.URL = &url.URL{Scheme: base.Scheme, Host: base.Host, Opaque: r.Target}
	if r.Host != "" {
		req.Host = r.Host
	}
	for _, h := range r.Header {
		req.Header[h[0]] = append(req.Header[h[0]], h[1])
	}
	return req, nil
}

// loadChecks is the probe's catalogue for these secrets, every manifest
// entry and every contract row, less the few requests net/http cannot write
// as the probe does (a target it would rewrite), and less the check a
// documented residual of the topology changes (R1, for nginx alone).
func loadChecks(t *testing.T, m *manifest.Manifest, secrets []string, tp *topology) []probe.Check {
	t.Helper()
	all, err := probe.Catalogue(m, probe.Options{Secrets: secrets})
	require.NoError(t, err)
	dropRepeatedSecret := tp.name == nginxAlone && !nginxJoinsRepeatedHeaders(t)
	var checks []probe.Check
	for _, c := range all {
		switch {
		case strings.HasPrefix(c.Request.Target, "//"), strings.ContainsFunc(c.Request.Target, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		case dropRepeatedSecret && c.Name == probeSecretTwice:
		default:
			checks = append(checks, c)
		}
	}
	return checks
}

// always returns the same catalogue.
func always(checks []probe.Check) func() []probe.Check {
	return func() []probe.Check { return checks }
}

// scaled is the length of a load or of a pause within one: as written
// when the run writes docs/reliability.md (make reliability), whose figures
// are those of the full runs; half of it otherwise (make test), the same
// checks over fewer requests; a quarter under go test -short.
func scaled(d time.Duration) time.Duration {
	switch {
	case os.Getenv(reportEnv) != "":
		return d
	case testing.Short():
		return d / 4
	}
	return d / 2
}
