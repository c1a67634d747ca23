package main

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/harness/loadgen"
	"github.com/arkforge/proveit-corpus/harness/seasonload"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden documents of TestMarkdownGolden")

// TestMarkdownGolden renders fixed results and compares them with the
// documents checked in under testdata: the rendering of docs/performance.md,
// proven without a ten-minute run.
func TestMarkdownGolden(t *testing.T) {
	tests := []struct {
		name   string
		report *report
		golden string
	}{
		{"every section measured", fixedReport(false), "performance-full.md"},
		{"servers skipped, runs failed, goals missed", fixedReport(true), "performance-failures.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.report.markdown()
			path := filepath.Join("testdata", tt.golden)
			if *updateGolden {
				require.NoError(t, os.WriteFile(path, got, 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got))
		})
	}
}

// fixedReport is a run's result with every kind of figure; failing, it
// holds a skipped server, failed paired runs and profiles, and missed goals.
func fixedReport(failing bool) *report {
	started := time.Date(2026, 11, 30, 9, 15, 0, 0, time.UTC)
	closed := func(rps, p50, p99, p999 int64, non2xx int64) *closedResult {
		return &closedResult{Requests: rps * 8, DurationUS: 8_000_000, Non2xx3xx: non2xx, P50US: p50, P99US: p99, P999US: p999}
	}
	open := func(p50, p99, p999 float64, errors int) *loadgen.Result {
		return &loadgen.Result{Rate: 6000, P50: p50, P99: p99, P999: p999, Errors: errors}
	}
	servers := func(scale int64) []*serverRun {
		corpus := &serverRun{Setup: setupOf(keyCorpus), Startup: 212 * time.Millisecond, RSS: 48 << 20, FileRSS: 21 << 20, PeakRSS: 61 << 20,
			LiveHeap: 9 << 20, GoSys: 27 << 20, Closed: closed(24_000*scale, 1_700, 8_400, 15_300, 9_600*scale), Open: open(0.84, 3.1, 142.5, 0),
			ClosedOther: 0.04, OpenOther: 0.02}
		var rest []*serverRun
		for i, s := range setups() {
			if s.Key == keyCorpus {
				continue
			}
			run := &serverRun{Setup: s, Startup: time.Duration(30+i) * time.Millisecond, RSS: int64(20+i) << 20, FileRSS: 8 << 20,
				PeakRSS: int64(30+i) << 20, Closed: closed(int64(20_000+1_000*i)*scale, 1_500, 7_000+int64(i)*100, 12_000, 400), Open: open(0.7, 2.4, 9.8, 0),
				ClosedOther: 0.01 * float64(i), OpenOther: -0.01}
			rest = append(rest, run)
		}
		return append([]*serverRun{corpus}, rest...)
	}
	tools := &toolRun{Manifest: toolTiming{GoAllCPUs: 410 * time.Millisecond, Python: 6100 * time.Millisecond, Floor: 450 * time.Millisecond, Go: 690 * time.Millisecond},
		Verify: toolTiming{GoAllCPUs: 380 * time.Millisecond, Python: 5900 * time.Millisecond, Floor: 420 * time.Millisecond, Go: 640 * time.Millisecond},
		Other:  0.07, Agree: true}
	season := &corpusRun{Corpus: &corpusSet{Name: "season 1", Embedded: true, Files: 412, Bytes: 930_000, Entries: 415, ManifestBytes: 3_000_000},
		Servers: servers(1), Rate: 6000, Tools: tools, StartupAllCPUs: 150 * time.Millisecond,
		Paired: &pairedRun{Rounds: []pairedRound{
			{Corpus: closed(23_000, 0, 8_000, 0, 0), Floor: closed(25_000, 0, 7_500, 0, 0), CorpusFirst: true},
			{Corpus: closed(22_500, 0, 8_200, 0, 0), Floor: closed(24_000, 0, 7_900, 0, 0)},
			{Corpus: closed(23_400, 0, 8_100, 0, 0), Floor: closed(24_800, 0, 7_000, 0, 0), CorpusFirst: true},
		}}}
	generated := &corpusRun{Corpus: &corpusSet{Name: "generated, 100000 resources", Files: 100_000, Bytes: 310 << 20, Entries: 100_003, ManifestBytes: 3_000_000},
		Servers: servers(2), Rate: 6000, StartupAllCPUs: 740 * time.Millisecond,
		Tools: &toolRun{Manifest: toolTiming{GoAllCPUs: 2100 * time.Millisecond, Python: 24 * time.Second, Floor: 1900 * time.Millisecond, Go: 3 * time.Second},
			Verify: toolTiming{GoAllCPUs: 1800 * time.Millisecond, Python: 22 * time.Second, Floor: 2 * time.Second, Go: 2900 * time.Millisecond}, Other: 0.12, Agree: true},
		Readers: &readerRun{Timings: []readerTiming{
			{CPUs: 1, Portable: 900 * time.Millisecond, Syscalls: 800 * time.Millisecond, PortableCPU: 1100 * time.Millisecond, SyscallsCPU: 1 * time.Second},
			{CPUs: 2, Portable: 500 * time.Millisecond, Syscalls: 480 * time.Millisecond, PortableCPU: 1200 * time.Millisecond, SyscallsCPU: 1150 * time.Millisecond},
		}, Other: 0.05}}
	shares := func(scale float64) []share {
		var s []share
		for i, part := range shareParts {
			s = append(s, share{Part: part.part, Percent: scale * float64(60-3*i)})
		}
		return s
	}
	r := &report{
		Started: started, Finished: started.Add(9*time.Minute + 12*time.Second),
		Machine: machine{CPU: "AMD EPYC 7B13", Cores: "2", Memory: "7.8 GiB", Kernel: "Linux 6.1.0", Go: "go version go1.26.0 linux/amd64",
			Nginx: "nginx/1.22.1", Wrk: "wrk 4.1.0", Python: "Python 3.11.2", Caddy: "v2.11.9", LoadBefore: "0.42 0.51 0.60"},
		LoadAfter: "1.10 0.90 0.70",
		Config: &bench{serverCPU: "0", loadCPU: "1", conns: 50, duration: 8 * time.Second, warmup: 2 * time.Second,
			openDuration: 5 * time.Second, profileTime: 8 * time.Second, pairs: 3, pairDuration: 4 * time.Second,
			repeat: 3, pythonRepeat: 1, generated: 100_000, secret: "never-rendered"},
		Generation: 41 * time.Second,
		Corpora:    []*corpusRun{season, generated},
		Profiles: []*profileResult{
			{Setup: "shipped", Seconds: 8, Samples: 7.1, RPS: 23_800, Shares: shares(1), Top: "  flat  flat%\n 2.57s 36.30%  syscall\n"},
			{Setup: "respond", Seconds: 8, Samples: 6.9, RPS: 25_100, Shares: shares(0.9), Top: " 2.40s 34.10%  syscall"},
		},
		GoBench: []string{"goos: linux", "BenchmarkServeResource-2   	 3000000	       402 ns/op	       0 B/op	       0 allocs/op", "PASS"},
		Index: &indexRun{PerTrack: 100, Tracks: 2, Ranked: 180, Proofs: 4500, SeasonBuilt: 5 * time.Minute,
			Verify: 4 * time.Second, Build: 5 * time.Second, Check: 4500 * time.Millisecond,
			VerifyRSS: 60 << 20, BuildRSS: 70 << 20, CheckRSS: 72 << 20},
		Season: &seasonRun{Entrants: 1000, Tasks: 10, Conns: 50, Narrative: 2048, Rounds: 3, ServerCPU: "0", LoadCPU: "1", FileSystem: "ext2/ext3",
			Rows: []*seasonRow{
				{Store: "SQLite", Enrollment: 4200 * time.Millisecond, Counts: []seasonload.Count{{Kind: "acknowledged", N: 10_000}},
					Elapsed: 12500 * time.Millisecond, Rate: 800, P50: 58 * time.Millisecond, P99: 140 * time.Millisecond, Max: 310 * time.Millisecond,
					Other: 0.03, Exported: 10_000, StoreElapsed: 11 * time.Second, StoreRate: 909, StoreP50: 52 * time.Millisecond,
					StoreP99: 90 * time.Millisecond, StoreOther: 0.02, Attempts: 1, Rounds: []float64{0.93, 0.8801, 0.71}},
				{Store: "PostgreSQL 15.8", Enrollment: 6 * time.Second, Counts: []seasonload.Count{{Kind: "acknowledged", N: 10_000}},
					Elapsed: 20 * time.Second, Rate: 500, P50: 95 * time.Millisecond, P99: 220 * time.Millisecond, Max: 400 * time.Millisecond,
					Other: 0.01, Exported: 10_000, StoreElapsed: 18 * time.Second, StoreRate: 555, StoreP50: 88 * time.Millisecond,
					StoreP99: 180 * time.Millisecond, StoreOther: 0.01, Attempts: 1, Rounds: []float64{0.9009, 0.85, 0.95}},
			}},
		ProofBench: []string{"BenchmarkVerifySeason-2 3 560000000 ns/op 1.217 x-ed25519 128553474 B/op 2797221 allocs/op",
			"BenchmarkVerifySeasonAllCores-2 3 300000000 ns/op 0.5357 x-one-core 128553474 B/op 2797221 allocs/op",
			"BenchmarkEd25519Season-2 3 460000000 ns/op 0 B/op 0 allocs/op"},
	}
	if failing {
		r.Index = nil
		r.Season.Rows = []*seasonRow{
			{Store: "SQLite", Enrollment: 4 * time.Second, Counts: []seasonload.Count{{Kind: "acknowledged", N: 9_990}, {Kind: "refused: 503 indisponible", N: 10}},
				Elapsed: 20 * time.Second, Rate: 500, P50: 90 * time.Millisecond, P99: 900 * time.Millisecond, Max: 1200 * time.Millisecond,
				Other: 0.2, Exported: 9_990, StoreElapsed: 11 * time.Second, StoreRate: 900, StoreErrors: 2, StoreP50: 50 * time.Millisecond,
				StoreP99: 95 * time.Millisecond, StoreOther: 0.01, Attempts: 3},
			{Store: "PostgreSQL", Skipped: "PostgreSQL's binaries are absent (apt-get install postgresql)"},
		}
		season.Servers[2] = &serverRun{Setup: season.Servers[2].Setup, Skipped: "nginx: not found\nsecond line | with a bar"}
		season.Servers[0].Open.Errors = 17
		season.Servers[0].Closed.ConnectErrors, season.Servers[0].Closed.Timeouts = 3, 2
		season.Paired = &pairedRun{Error: "wrk: exit status 1\ndetails"}
		season.Tools.Agree = false
		generated.Readers = nil
		generated.StartupAllCPUs = 0
		generated.Servers[0].PeakRSS = 900 << 20
		r.Corpora = []*corpusRun{season}
		r.Profiles = nil
		r.ProfileError = "pprof: connection refused\nmore"
		r.GoBench = []string{"BenchmarkServeResource-2   	 3000000	       450 ns/op	      16 B/op	       1 allocs/op"}
		r.ProofBench = []string{"BenchmarkVerifySeason-2 3 770000000 ns/op 1.674 x-ed25519", "BenchmarkVerifySeasonAllCores-2 3 700000000 ns/op 0.9091 x-one-core"}
		r.Finished = started.Add(11 * time.Minute)
		r.Corpora = append(r.Corpora, generated)
		generated.Paired = nil
	}
	return r
}

// The proof verification's goals read the lines of one run: the season on
// one core against its Ed25519 floor, and on every core against one.
func TestProofTargets(t *testing.T) {
	tests := []struct {
		name  string
		lines []string
		want  []bool // met, goal by goal; absent goals are not set
	}{
		{"both met", []string{"BenchmarkVerifySeason-2 3 590000000 ns/op 1.28 x-ed25519 1 B/op", "BenchmarkVerifySeasonAllCores-2 3 350000000 ns/op 0.59 x-one-core", "BenchmarkEd25519Season-2 3 460000000 ns/op"}, []bool{true, true}},
		{"both missed", []string{"BenchmarkVerifySeason-2 3 770000000 ns/op 1.674 x-ed25519", "BenchmarkVerifySeasonAllCores-2 3 470000000 ns/op 0.61 x-one-core"}, []bool{false, false}},
		{"on a machine of one CPU", []string{"BenchmarkVerifySeason 3 590000000 ns/op 1.1 x-ed25519", "BenchmarkVerifySeasonAllCores 3 590000000 ns/op 1.0 x-one-core"}, []bool{true, false}},
		{"no ratio reported", []string{"BenchmarkVerifySeason-2 3 590000000 ns/op", "BenchmarkVerifySeasonAllCores-2 4 300000000 ns/op 0.5 x-one-core"}, []bool{true}},
		{"nothing measured", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &report{ProofBench: tt.lines}
			var met []bool
			for _, target := range r.proofTargets() {
				met = append(met, target.Met)
			}
			assert.Equal(t, tt.want, met)
		})
	}
}
