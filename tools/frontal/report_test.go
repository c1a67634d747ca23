package frontal

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// reportEnv names the file a passing run writes its figures to.
const reportEnv = "PROVEIT_RELIABILITY_REPORT"

func TestMain(m *testing.M) {
	start := time.Now()
	code := m.Run()
	if path := os.Getenv(reportEnv); path != "" && code == 0 {
		if err := figures.write(path, time.Since(start)); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", reportEnv, err)
			code = 1
		}
	}
	os.Exit(code)
}

// fault is the row of one fault: what was sent, what came back, how long
// the service took to recover, and the sentence that says it.
type fault struct {
	Name, Topology                          string
	Requests, Errors, Mismatches, Tolerated int
	Cut                                     int // answers cut off mid-body
	Recovery                                string
	Sentence                                string
}

// reportFigures collects what the tests measured, for the report.
type reportFigures struct {
	mu           sync.Mutex
	nginxVersion string
	probes       []string // one table row a topology
	differential string
	hostile      string
	beforeCaddy  map[string]int
	faults       []fault
	matrix       []matrixCell
	flood        []floodFigures
	h2Replies    []h2ReplyRow
}

var figures = &reportFigures{beforeCaddy: map[string]int{}}

func (f *reportFigures) add(x fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults = append(f.faults, x)
}

func (f *reportFigures) probe(topology string, checks, passed, residual int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.probes = append(f.probes, fmt.Sprintf("| %s | %d | %d | %d |", topology, checks, passed, residual))
}

func (f *reportFigures) setDifferential(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.differential = s
}

// refusedBeforeCaddy counts answers Caddy alone wrote before its handler.
func (f *reportFigures) refusedBeforeCaddy(kinds map[string]int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for kind, n := range kinds {
		f.beforeCaddy[kind] += n
	}
}

func (f *reportFigures) setHostile(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hostile = s
}

func (f *reportFigures) setMatrix(cells []matrixCell) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.matrix = cells
}

func (f *reportFigures) setNginxVersion(v string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nginxVersion = v
}

// write renders docs/reliability.md. A run that skipped a test (go test
// -run) has not measured everything: it writes nothing.
func (f *reportFigures) write(path string, elapsed time.Duration) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	recorded := map[string]bool{}
	for _, x := range f.faults {
		recorded[x.Name] = true
	}
	for _, name := range faultsRecorded {
		if !recorded[name] || len(f.probes) < 3 || f.differential == "" || f.hostile == "" || len(f.matrix) == 0 || len(f.flood) < len(floodChannels) || len(f.h2Replies) == 0 {
			return fmt.Errorf("the run did not measure everything (%q, the probe, the differential): run the whole package", name)
		}
	}
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	p("# Reliability: three topologies, one contract, faults survived")
	p("")
	p("Written by `make reliability` on %s: the tests of `tools/frontal` with `%s` set, %s in all, "+
		"on %s/%s with %d CPUs, %s, nginx %s from Debian. Every figure is measured by a test that fails if one "+
		"byte is served wrong; no figure is asserted against a time. Run it again to refresh them.",
		time.Now().UTC().Format("2006-01-02"), reportEnv, elapsed.Round(time.Second), runtime.GOOS, runtime.GOARCH,
		runtime.NumCPU(), runtime.Version(), f.nginxVersion)
	p("")
	p("The corpus runs three ways: **(a) Caddy alone**; **(b) nginx → Caddy**, the vhost `proveit nginx -upstream` " +
		"writes, in front of Caddy on loopback; **(c) nginx alone**, the vhost `proveit nginx -root` writes, serving " +
		"the tree from disk. The vhost is generated from the manifest: its fixed bodies are the manifest's files, " +
		"checked again by `proveit nginx -check`.")
	p("")
	p("## One contract")
	p("")
	p("The conformance probe (`proveit probe`: every row of the contract, every entry of the manifest, bytes and both hashes):")
	p("")
	p("| topology | checks | passed | documented residual |")
	p("|---|---|---|---|")
	for _, row := range f.probes {
		p("%s", row)
	}
	p("")
	p("%s", f.differential)
	p("")
	p("%s", f.hostile)
	p("")
	p("## Faults")
	p("")
	p("| fault | topology | requests | errors | mismatches | 503 bodies | cut mid-body | recovery, cut-off |")
	p("|---|---|---|---|---|---|---|---|")
	for _, x := range f.faults {
		p("| %s | %s | %d | %d | %d | %d | %d | %s |", x.Name, x.Topology, x.Requests, x.Errors, x.Mismatches, x.Tolerated, x.Cut, x.Recovery)
	}
	p("")
	p("Errors are requests that got no answer at all; mismatches, answers whose status, headers, bytes or " +
		"response_hash are not the manifest's for that request; 503 bodies, the contract's answer while the corpus " +
		"is down; cut mid-body, answers whose connection closed short of their Content-Length, which no client takes " +
		"for an answer. Every answer of every fault was checked.")
	p("")
	for _, x := range f.faults {
		p("- **%s, %s.** %s", x.Name, x.Topology, x.Sentence)
	}
	p("")
	f.writeFlood(p)
	p("")
	f.writeH2Replies(p)
	p("")
	p("## What nginx cannot match")
	p("")
	p("Each difference below is allowed by the differential test only where its rule holds, and counted there.")
	p("")
	counts := residuals.counts()
	for _, r := range residualList {
		seen := "not measured in this run"
		if r.measured {
			seen = times(counts[r.id])
		}
		p("- **%s. %s** (%s). %s", r.id, r.title, seen, r.text)
	}
	p("")
	p("## Before the handler: every protocol")
	p("")
	p("Go's `net/http`, its HTTP/2 server, quic-go and Caddy's server each answer some requests before any handler " +
		"runs. `TestPreHandlerMatrix` sends each such request (with the secret, but where a row says otherwise) " +
		"over every protocol each topology serves: Caddy alone over TLS as the shipped Caddyfile serves it, HTTP/1.x " +
		"only, then with `CORPUS_PROTOCOLS=\"h1 h2 h3\"`. It requires a contract body with the contract's headers, " +
		"or a closed connection. Measured in this run:")
	p("")
	f.writeMatrix(p)
	p("")
	p("A cell marked *left open* is a reply of the protocol stack's own that no code of this project's can rewrite " +
		"(in QUIC streams; README, \"What comes before the handler\"): the shipped configuration serves no HTTP/3. " +
		"Over HTTP/1.x, in clear and inside TLS, the listener wrapper `proveit_guard` closes the connection on every " +
		"reply Go writes by itself, and over HTTP/2 `proveit_h2_guard` on every reply of the HTTP/2 server's own. " +
		"Trust Layer, which builds its requests with an HTTP/1.1 library, sends none of these requests; the nginx " +
		"frontal, which terminates TLS and speaks HTTP/1.x only, answers every one of them with a contract body.")
	if len(f.beforeCaddy) > 0 {
		p("")
		p("Among the hostile requests of the differential, Caddy alone answered before its handler:")
		p("")
		for _, kind := range slices.Sorted(maps.Keys(f.beforeCaddy)) {
			p("- %s: %d", kind, f.beforeCaddy[kind])
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// writeMatrix renders the matrix: a row a request, a column a channel.
func (f *reportFigures) writeMatrix(p func(string, ...any)) {
	var channels []string
	cells := map[[2]string]matrixCell{}
	var requests []string
	for _, c := range f.matrix {
		ch := c.channel.String()
		if !slices.Contains(channels, ch) {
			channels = append(channels, ch)
		}
		if !slices.Contains(requests, c.request) {
			requests = append(requests, c.request)
		}
		cells[[2]string{c.request, ch}] = c
	}
	p("| request | %s |", strings.Join(channels, " | "))
	p("|---|%s", strings.Repeat("---|", len(channels)))
	for _, r := range requests {
		row := make([]string, len(channels))
		for i, ch := range channels {
			row[i] = cells[[2]string{r, ch}].verdict()
		}
		p("| %s | %s |", r, strings.Join(row, " | "))
	}
}

// verdict names a cell's answer in a few words.
func (c matrixCell) verdict() string {
	a := c.answer
	switch {
	case c.note != "":
		return "n/a (" + c.note + ")"
	case a.Closed:
		return "closed"
	case c.http09:
		return "403 body alone (HTTP/0.9, R6)"
	case a.Raw != nil:
		return "left open: not HTTP"
	}
	if _, open := insideCaddyOnly[c.channel.String()+" × "+c.request]; open && a.Header.Get("Content-Type") != "application/json; charset=utf-8" {
		kind := a.Header.Get("Content-Type")
		if len(a.Body) == 0 {
			kind = "empty body"
		}
		return fmt.Sprintf("**left open**: %d, %s", a.Status, kind)
	}
	return fmt.Sprintf("%d body", a.Status)
}

// faultsRecorded are the faults a full run records.
var faultsRecorded = []string{"load", "reload: secrets", "reload: tampered tree", "nginx reload: secrets",
	"corpus killed", "slow clients", "hostile targets"}

// ms formats a duration for the report.
func ms(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%d µs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}

// times writes a count of occurrences.
func times(n int) string {
	switch n {
	case 0:
		return "not observed in this run"
	case 1:
		return "observed once in this run"
	}
	return fmt.Sprintf("observed %d times in this run", n)
}
