package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Goals the run is measured against. A goal is a ratio or a bound, never a
// figure of one machine: the same run measures both sides.
const (
	// floorThroughput: the corpus server, as shipped (its own counters on,
	// Caddy's HTTP metrics off), serves at least this share of the
	// requests/s of the respond floor.
	floorThroughput = 0.95
	// floorP99: its p99 is at most this multiple of the floor's.
	floorP99 = 1.1
	// sha256sumBound: the manifest tool takes at most this multiple of
	// sha256sum's wall time over the same files.
	sha256sumBound = 1.0
	// pythonSpeedup: the manifest tool is at least this many times faster
	// than the Python reference.
	pythonSpeedup = 5.0
	// startupBound: start-up of a corpus, verification included.
	startupBound = time.Second
	// memoryAllowance, peakPerByte and afterPerByte bound the server's
	// memory: allowance + perByte × the corpus's bytes.
	memoryAllowance = 50_000_000
	peakPerByte     = 1.5
	afterPerByte    = 1.2
	// benchBound: the whole run.
	benchBound = 10 * time.Minute
	// ed25519Bound: a season's proofs (10,000 in 100 batches) verified
	// offline on one core within this multiple of the time of as many
	// standard-library Ed25519 verifications, the floor of any verifier
	// of them.
	ed25519Bound = 1.3
	// coresBound: the same on every core within this multiple of its
	// one-core time.
	coresBound = 0.6
)

// targets evaluates each goal on this run: only measured figures and the
// arithmetic on them.
func (r *report) targets() []target {
	var ts []target
	for _, c := range r.Corpora {
		corpus, floor := c.server(keyCorpus), c.server(keyRespond)
		if corpus == nil || floor == nil {
			continue
		}
		// The paired runs compare the two at the same moments; without
		// them, the serving table's runs.
		oneRPS := corpus.Closed.RPS() / floor.Closed.RPS()
		oneP99 := float64(corpus.Closed.P99US) / float64(floor.Closed.P99US)
		rps, p99 := oneRPS, oneP99
		measuredRPS := fmt.Sprintf("%.2f× (%.0f vs %.0f requests/s, one run each)", rps, corpus.Closed.RPS(), floor.Closed.RPS())
		measuredP99 := fmt.Sprintf("%.2f× (%s vs %s, one run each)", p99, us(corpus.Closed.P99US), us(floor.Closed.P99US))
		if rounds := c.Paired.rounds(); rounds > 0 {
			rps, p99 = c.Paired.MedianRPSRatio(), c.Paired.MedianP99Ratio()
			measuredRPS = fmt.Sprintf("%.2f×, median of %d paired rounds (one run each: %.2f×)", rps, rounds, oneRPS)
			measuredP99 = fmt.Sprintf("%.2f×, median of %d paired rounds (one run each: %.2f×)", p99, rounds, oneP99)
		}
		ts = append(ts, target{Name: fmt.Sprintf("%s: requests/s ≥ %g × the `respond` floor", c.Corpus.Name, floorThroughput),
			Met: rps >= floorThroughput, Measured: measuredRPS})
		ts = append(ts, target{Name: fmt.Sprintf("%s: p99 ≤ %g × the `respond` floor's p99", c.Corpus.Name, floorP99),
			Met: p99 <= floorP99, Measured: measuredP99})
		if withCaddy := c.server(keyCorpusCaddy); withCaddy != nil {
			ts = append(ts, target{Name: fmt.Sprintf("%s: requests/s with Caddy's metrics on, against the `respond` floor", c.Corpus.Name), Recorded: true,
				Measured: fmt.Sprintf("%.2f× (%.0f vs %.0f requests/s, one run each)", withCaddy.Closed.RPS()/floor.Closed.RPS(), withCaddy.Closed.RPS(), floor.Closed.RPS())})
		}
	}
	// The tools', start-up's and memory's goals are set on the large
	// generated corpus, where per-file and per-byte costs dominate; on the
	// season's few hundred files they would measure process start-up.
	for _, c := range r.Corpora {
		if c.Tools == nil || c.Corpus.Embedded {
			continue
		}
		for _, op := range []struct {
			name string
			t    toolTiming
		}{{"`proveit manifest`", c.Tools.Manifest}, {"`proveit verify`", c.Tools.Verify}} {
			floor := op.t.FloorRatio()
			ts = append(ts, target{Name: fmt.Sprintf("%s: %s ≤ %.1f × sha256sum", c.Corpus.Name, op.name, sha256sumBound),
				Met:      floor <= sha256sumBound,
				Measured: fmt.Sprintf("%.2f× (%s vs %s)", floor, sec(op.t.GoAllCPUs), sec(op.t.Floor))})
			python := op.t.PythonSpeedup()
			ts = append(ts, target{Name: fmt.Sprintf("%s: %s ≥ %.0f × faster than Python", c.Corpus.Name, op.name, pythonSpeedup),
				Met:      python >= pythonSpeedup,
				Measured: fmt.Sprintf("%.2f× (%s vs %s)", python, sec(op.t.GoAllCPUs), sec(op.t.Python))})
		}
	}
	for _, c := range r.Corpora {
		s := c.server(keyCorpus)
		if s == nil || c.Corpus.Embedded {
			continue
		}
		if c.StartupAllCPUs > 0 {
			ts = append(ts, target{Name: fmt.Sprintf("%s: start-up, verification included, < %s", c.Corpus.Name, startupBound),
				Met:      c.StartupAllCPUs < startupBound,
				Measured: fmt.Sprintf("%s with every CPU; %s pinned to one", c.StartupAllCPUs.Round(time.Millisecond), s.Startup.Round(time.Millisecond))})
		}
		peak := memoryAllowance + int64(peakPerByte*float64(c.Corpus.Bytes))
		ts = append(ts, target{Name: fmt.Sprintf("%s: peak RSS ≤ 50 MB + %.1f × corpus bytes (%s)", c.Corpus.Name, peakPerByte, size(peak)),
			Met: s.PeakRSS <= peak, Measured: size(s.PeakRSS)})
		after := memoryAllowance + int64(afterPerByte*float64(c.Corpus.Bytes))
		ts = append(ts, target{Name: fmt.Sprintf("%s: RSS after start ≤ 50 MB + %.1f × corpus bytes (%s)", c.Corpus.Name, afterPerByte, size(after)),
			Met: s.RSS <= after, Measured: fmt.Sprintf("%s, of which %s maps files", size(s.RSS), size(s.FileRSS))})
	}
	for _, line := range r.GoBench {
		switch {
		case strings.HasPrefix(line, "BenchmarkServeResource"):
			allocs := benchField(line, "allocs/op")
			ts = append(ts, target{Name: "the module's hot path for a resource hit makes no allocation of its own",
				Met: allocs == "0", Measured: "BenchmarkServeResource: " + allocs + " allocs/op"})
		}
	}
	if r.Index != nil {
		ts = append(ts, r.Index.targets()...)
	}
	if r.Season != nil {
		ts = append(ts, r.Season.targets()...)
	}
	ts = append(ts, r.proofTargets()...)
	took := r.Finished.Sub(r.Started)
	ts = append(ts, target{Name: fmt.Sprintf("the benchmark's run < %s", benchBound), Met: took < benchBound,
		Measured: took.Round(time.Second).String() + " (harness/bench alone, after `make build`)"})
	return ts
}

// proofTargets reads the proof verification's goals from its benchmarks'
// lines: each ratio is measured within one benchmark, the two sides
// alternating op by op (tools/proofs/bench_test.go).
func (r *report) proofTargets() []target {
	var ts []target
	for _, goal := range []struct {
		benchmark, metric, name string
		bound                   float64
	}{
		{"BenchmarkVerifySeason", "x-ed25519", "a season's proofs (10,000 in 100 batches) verified offline on one core ≤ %g × 10,000 standard-library Ed25519 verifications", ed25519Bound},
		{"BenchmarkVerifySeasonAllCores", "x-one-core", "the same on every core ≤ %g × its time on one", coresBound},
	} {
		for _, line := range r.ProofBench {
			f := strings.Fields(line)
			if len(f) == 0 || f[0] != goal.benchmark && !strings.HasPrefix(f[0], goal.benchmark+"-") {
				continue
			}
			ratio, err := strconv.ParseFloat(benchField(line, goal.metric), 64)
			ns, nsErr := strconv.ParseFloat(benchField(line, "ns/op"), 64)
			if err != nil || nsErr != nil {
				continue
			}
			ts = append(ts, target{Name: fmt.Sprintf(goal.name, goal.bound), Met: ratio <= goal.bound,
				Measured: fmt.Sprintf("%.2f×, op by op within %s (%s an op)", ratio, f[0], time.Duration(ns).Round(time.Millisecond))})
		}
	}
	return ts
}

func benchField(line, unit string) string {
	f := strings.Fields(line)
	for i := 1; i < len(f); i++ {
		if f[i] == unit {
			return f[i-1]
		}
	}
	return "?"
}
