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
		if !recorded[name] || len(f.probes) < 3 || f.differential == "" || f.hostile == "" {
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
	p("## What Caddy alone answers before its handler")
	p("")
	p("Requests Go or Caddy's server refuse before the corpus handler runs get no contract body from Caddy alone. " +
		"Trust Layer, which builds its requests with an HTTP library, sends none of them; in front of Caddy, nginx " +
		"turns each into the 400 body. Seen in this run:")
	p("")
	for _, kind := range slices.Sorted(maps.Keys(f.beforeCaddy)) {
		p("- %s: %d", kind, f.beforeCaddy[kind])
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
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
