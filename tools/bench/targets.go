package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"time"
)

// targets evaluates each target of issue 5 on this run.
func (r *report) targets() []target {
	var ts []target
	season := r.Corpora[0]
	corpus, noLogs := season.server(keyCorpus), season.server(keyCorpusNoLogs)
	respond, fileServer := season.server(keyRespond), season.server(keyFileServer)

	// Throughput against the respond floor, and against file_server.
	if corpus != nil && respond != nil {
		got := corpus.Closed.RPS() / respond.Closed.RPS()
		t := target{Name: "season corpus: requests/s ≥ 0.9 × Caddy's static `respond`", Met: got >= 0.9,
			Measured: fmt.Sprintf("%.2f× (%.0f vs %.0f requests/s)", got, corpus.Closed.RPS(), respond.Closed.RPS())}
		if noLogs != nil {
			module := noLogs.Closed.RPS() / respond.Closed.RPS()
			t.Measured += fmt.Sprintf("; without logs %.2f×", module)
			if !t.Met {
				t.Why = fmt.Sprintf("Missed by %.0f%% of the floor with the shipped Caddyfile. ", (0.9-got)/0.9*100)
				if module >= 0.9 {
					t.Why += fmt.Sprintf("The module alone meets it (%.2f× with telemetry and access log discarded): "+
						"the gap is the two JSON log records written to files for every call, which `respond` does not write. ", module)
				} else {
					t.Why += fmt.Sprintf("Even without logs the module reaches %.2f× only: besides its own decision (a few percent of the CPU, see below), "+
						"each of its answers carries the contract's five headers, which `respond` does not send and net/http must write. ", module)
				}
				t.Why += "See *Where the time goes* and the recommendations below."
			}
		}
		ts = append(ts, t)
	}
	if corpus != nil && fileServer != nil {
		got := corpus.Closed.RPS() / fileServer.Closed.RPS()
		t := target{Name: "season corpus: requests/s ≥ 2.5 × Caddy `file_server` (gated)", Met: got >= 2.5,
			Measured: fmt.Sprintf("%.2f× (%.0f vs %.0f requests/s)", got, corpus.Closed.RPS(), fileServer.Closed.RPS())}
		if !t.Met {
			t.Why = fmt.Sprintf("Missed by %.0f%%. The shipped Caddyfile writes two log records a call, which the plain `file_server` Caddyfile does not.", (2.5-got)/2.5*100)
			if fileServer.Closed.RPS() > 1.5*5500 {
				t.Why += fmt.Sprintf(" And this machine serves `file_server` much faster than the issue's first measurement "+
					"(%.0f requests/s here, 5,500 there; `respond`: %.0f here, 16,000 there), so the bar moved up with it.", fileServer.Closed.RPS(), respond.Closed.RPS())
			}
			if noLogs != nil {
				t.Why += fmt.Sprintf(" Without logs the module serves %.2f× `file_server`.", noLogs.Closed.RPS()/fileServer.Closed.RPS())
			}
		}
		ts = append(ts, t)
	}
	if corpus != nil && respond != nil {
		got := float64(corpus.Closed.P99US) / float64(respond.Closed.P99US)
		t := target{Name: "season corpus: p99 ≤ 1.1 × the `respond` floor's p99", Met: got <= 1.1,
			Measured: fmt.Sprintf("%.2f× (%s vs %s)", got, us(corpus.Closed.P99US), us(respond.Closed.P99US))}
		if noLogs != nil {
			t.Measured += fmt.Sprintf("; without logs %.2f×", float64(noLogs.Closed.P99US)/float64(respond.Closed.P99US))
		}
		if !t.Met {
			t.Why = fmt.Sprintf("Missed by %.0f%%: with one CPU and 50 connections, latency is queueing, so p99 follows the cost of a request, "+
				"logging included (see the throughput target).", (got-1.1)/1.1*100)
		}
		ts = append(ts, t)
	}
	// Memory, on each corpus: the target as written, then what the module
	// adds to stock Caddy on the same binary.
	for _, c := range r.Corpora {
		s, floor := c.server(keyCorpus), c.server(keyRespond)
		if s == nil {
			continue
		}
		limit := 50_000_000 + int64(1.5*float64(c.Corpus.Bytes))
		t := target{Name: fmt.Sprintf("%s: peak RSS ≤ 50 MB + 1.5 × corpus bytes (%s)", c.Corpus.Name, size(limit)),
			Met: s.PeakRSS <= limit, Measured: fmt.Sprintf("%s peak, %s after start-up", size(s.PeakRSS), size(s.RSS))}
		if floor != nil {
			t.Measured += fmt.Sprintf("; the `respond` floor peaks at %s", size(floor.PeakRSS))
		}
		if !t.Met {
			t.Why = fmt.Sprintf("Missed by %s (%.0f%%). ", size(s.PeakRSS-limit), float64(s.PeakRSS-limit)/float64(limit)*100)
			if floor != nil {
				added := s.PeakRSS - floor.PeakRSS
				above := "within"
				if floor.PeakRSS > 50_000_000 {
					above = "already above"
				}
				t.Why += fmt.Sprintf("Stock Caddy alone (the same %s binary answering `respond`) peaks at %s, %s the 50 MB allowance; "+
					"the module adds %s to it, %.1f× the corpus bytes. ", size(binarySize(r.Config.caddy)), size(floor.PeakRSS), above, size(added), float64(added)/float64(c.Corpus.Bytes))
			}
			if s.LiveHeap > 0 && s.PeakRSS-s.RSS > 50*(1<<20) {
				t.Why += fmt.Sprintf("The peak is start-up's: the decoded manifest, the tree read into memory and the check's work coexist "+
					"until the handler hands the garbage back (debug.FreeOSMemory); after it the server holds %s, with a live Go heap of %s "+
					"(the bodies, a response record and a hex SHA-256 per resource).", size(s.RSS), size(s.LiveHeap))
			}
		}
		ts = append(ts, t)
	}
	// The manifest tool.
	for _, c := range r.Corpora {
		t := c.Tools
		got := t.Manifest.Python.Seconds() / t.Manifest.Go.Seconds()
		tg := target{Name: fmt.Sprintf("%s: manifest generation ≥ 5 × faster than the Python reference", c.Corpus.Name),
			Met: got >= 5, MetAllCPUs: t.Manifest.Python.Seconds()/t.Manifest.GoAllCPUs.Seconds() >= 5,
			Measured: fmt.Sprintf("%.2f× on one CPU (%s vs %s); %.2f× with every CPU (%s)", got, sec(t.Manifest.Go), sec(t.Manifest.Python),
				t.Manifest.Python.Seconds()/t.Manifest.GoAllCPUs.Seconds(), sec(t.Manifest.GoAllCPUs))}
		if !tg.Met {
			tg.Why = fmt.Sprintf("Missed by %.0f%%. Python's json module parses and serialises in C. proveit reads every file through os.DirFS "+
				"(open, fstat, read, close), parses it into a tree of interface values, canonicalises and hashes it, builds and sorts a "+
				"request_data object for every target, and writes the manifest with encoding/json's reflection and indentation.", (5-got)/5*100)
		}
		ts = append(ts, tg)
		floor := t.Manifest.Go.Seconds() / t.Manifest.Floor.Seconds()
		tf := target{Name: fmt.Sprintf("%s: manifest generation within 2 × sha256sum", c.Corpus.Name),
			Met: floor <= 2, MetAllCPUs: t.Manifest.GoAllCPUs.Seconds()/t.Manifest.Floor.Seconds() <= 2,
			Measured: fmt.Sprintf("%.2f× on one CPU (%s vs %s); %.2f× with every CPU", floor, sec(t.Manifest.Go), sec(t.Manifest.Floor),
				t.Manifest.GoAllCPUs.Seconds()/t.Manifest.Floor.Seconds())}
		if !tf.Met {
			tf.Why = fmt.Sprintf("Missed by %.0f%%. sha256sum only reads and hashes; the manifest also parses every file as Python would, "+
				"canonicalises it, hashes three times (bytes, response, request) and writes %s of JSON.", (floor-2)/2*100, manifestSize(c))
		}
		ts = append(ts, tf)
	}
	// Start-up of the large corpus.
	if c := r.Corpora[len(r.Corpora)-1]; c.Corpus.Generation > 0 {
		if s := c.server(keyCorpus); s != nil {
			t := target{Name: fmt.Sprintf("%s: start-up, verification included, < 3 s", c.Corpus.Name),
				Met: s.Startup < 3*time.Second, Measured: fmt.Sprintf("%s on one CPU", s.Startup.Round(time.Millisecond))}
			if c.StartupAllCPUs > 0 {
				t.Measured += fmt.Sprintf("; %s with every CPU", c.StartupAllCPUs.Round(time.Millisecond))
				t.MetAllCPUs = c.StartupAllCPUs < 3*time.Second
			}
			if !t.Met && !t.MetAllCPUs {
				t.Why = fmt.Sprintf("Missed by %s. At start-up the handler decodes the %s manifest with encoding/json, then manifest.Check "+
					"reads every file through afero and hashes it, and the handler hashes every body once more for its telemetry record.",
					(min(s.Startup, c.StartupAllCPUs) - 3*time.Second).Round(time.Millisecond), manifestSize(c))
			}
			ts = append(ts, t)
		}
	}
	// The hot path allocates nothing of its own.
	for _, line := range r.GoBench {
		if strings.HasPrefix(line, "BenchmarkServeResource") {
			allocs := benchField(line, "allocs/op")
			ts = append(ts, target{Name: "the module's hot path for a resource hit makes no allocation of its own",
				Met: allocs == "0", Measured: "BenchmarkServeResource: " + allocs + " allocs/op"})
		}
	}
	return ts
}

func (r *report) targetsSection(w *bytes.Buffer) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	p("## Targets of issue 5")
	p("")
	p("| target | measured | |")
	p("|---|---|---|")
	ts := r.targets()
	for _, t := range ts {
		verdict := "**missed**"
		switch {
		case t.Met:
			verdict = "met"
		case t.MetAllCPUs:
			verdict = "**missed** on one CPU, met with every CPU"
		}
		p("| %s | %s | %s |", t.Name, t.Measured, verdict)
	}
	p("")
	for _, t := range ts {
		if !t.Met && t.Why != "" {
			p("- *%s*: %s", t.Name, t.Why)
		}
	}
	p("")
	p("%s", tried)
}

// tried is what was done about the targets, and what would close the gaps
// outside this benchmark's own files. The figures quoted were measured on a
// scratch copy of the code (never committed) and in-process harnesses, on
// the 100,000-resource corpus, pinned to one CPU; the code they measured
// has since changed as said.
const tried = `### What was tried, and what would help

The benchmark's own code (tools/bench, tools/loadgen, tools/gencorpus) is not
on the measured path; the code that is (caddy-module/, manifest/, the shipped
Caddyfile) belongs to other issues, so what follows was measured on scratch
copies and harnesses and is recommended, not committed here.

- **Serving.** The module's request path allocates nothing (Go benchmarks
  below) and its own decision is about 5% of the CPU under load. The rest is
  Caddy and the kernel and, with the shipped Caddyfile, two JSON log records
  a call: the access log (about a quarter of the CPU: Caddy's encoding of the
  request, one write(2)) and the telemetry record (about 7%). The four corpus
  rows of the tables separate them: a ` + "`discard`" + ` output makes Caddy drop
  the logger, so nothing is encoded. To meet the throughput and p99 targets
  with logging on: keep the telemetry and drop the access log, whose fields
  it already holds (remote, method, target, status, bytes, duration, plus the
  outcome and the SHA-256 served); and give the log a buffered writer (Caddy
  2.11's file writer issues one write(2) a record; a writer module around
  ` + "`bufio`" + `, flushed every few milliseconds and at shutdown, would
  remove those system calls, at the price of the last milliseconds of
  records on a crash).
- **Done meanwhile by the owners of manifest/ and caddy-module/**, after this
  benchmark's first runs pointed at them: each file parsed once (Build and
  Check used to call CheckBody, then ResponseHash on the same bytes: 42% fewer
  allocations), files read into exact-size slices (afero's ReadAll kept 106 MB
  of buffers for 44 MB of bodies), reading and checking spread over
  GOMAXPROCS goroutines, the server's start-up check reduced to the bytes'
  SHA-256 (manifest.Bytes), and the loading garbage handed back to the system
  (debug.FreeOSMemory: RSS after start-up fell from about 580 MB to 135 MB at
  100,000 resources).
- **Still open, measured:**
  1. reading: 100,000 small files take 0.55 s with open, one read into an
     exact-size buffer and close, against 0.95 s with os.ReadFile, 1.3 s
     through os.DirFS and 1.6 s through afero (manifest.Check at Bytes
     depth); the file system is most of the start-up and of
     ` + "`proveit manifest`" + ` (a scratch ` + "`fs.ReadFileFS`" + ` doing so took the
     latter from 3.3 s to 2.9 s);
  2. decoding the manifest at start-up: encoding/json takes 0.4 to 0.6 s for
     the 46 MB manifest of 100,000 entries; a reader for this one shape, or a
     compact index beside it, would take a fraction of that;
  3. hashing every body a second time for the telemetry record at start-up
     (newResponse): the manifest's bytes_sha256, just checked, is the same
     string (70 ms at 100,000 resources);
  4. request_data: its canonical form can be written from a constant
     template (` + "`{\"amount\":0.0,...,\"target\":`" + ` + the canonical target + ` + "`}`" + `)
     instead of building and sorting a pyjson.Object for every entry;
  5. writing the manifest: encoding/json's reflection and indentation take
     0.5 s of ` + "`proveit manifest`" + ` at 100,000 entries;
  6. the start-up memory peak: hash each file as it is read and keep only its
     bytes, instead of holding the decoded manifest, the whole tree and the
     check's work at once; a lower collector target while provisioning
     (GOGC=25) cut the memory the runtime took at start-up from 565 MB to
     383 MB.

Each can be measured with ` + "`go test -bench Generated -benchmem ./manifest/`" + `
(manifest/generated_bench_test.go builds, checks, encodes and decodes a
10,000-resource generated tree) before ` + "`make bench`" + `.
`

func benchField(line, unit string) string {
	f := strings.Fields(line)
	for i := 1; i < len(f); i++ {
		if f[i] == unit {
			return f[i-1]
		}
	}
	return "?"
}

func binarySize(name string) int64 {
	n, _ := fileSize(name)
	return n
}

func manifestSize(c *corpusRun) string {
	n, _ := fileSize(c.Corpus.Manifest)
	return size(n)
}

func fileSize(name string) (int64, error) {
	info, err := os.Stat(name)
	if err != nil {
		return 0, err
	}
	return info.Size(), nil
}
