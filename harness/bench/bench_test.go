package main

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
)

func TestFixedRate(t *testing.T) {
	run := func(rps float64) *serverRun {
		return &serverRun{Closed: &closedResult{Requests: int64(rps * 10), DurationUS: 10_000_000}}
	}
	tests := []struct {
		name string
		runs []*serverRun
		want float64
	}{
		{"half the slowest, rounded down to a hundred", []*serverRun{run(33_000), run(12_345), run(20_000)}, 6100},
		{"skipped servers do not count", []*serverRun{run(30_000), {Skipped: "no nginx"}}, 15_000},
		{"never below a hundred", []*serverRun{run(90)}, 100},
		{"nothing measured", []*serverRun{{Skipped: "x"}}, 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, fixedRate(tt.runs))
		})
	}
}

func TestParseTop(t *testing.T) {
	listing := `File: caddy
Showing nodes accounting for 2.78s, 39.27% of 7.08s total
      flat  flat%   sum%        cum   cum%
         0     0%     0%      6.58s 92.94%  main.main
     2.57s 36.30% 36.72%      2.57s 36.30%  internal/runtime/syscall/linux.Syscall6
     0.02s  0.28%  0.42%         3s 42.37%  os.ReadFile
     0.05s  1.01% 61.34%      0.63s 12.75%  github.com/arkforge/proveit-corpus/caddy-module.(*Handler).ServeHTTP
`
	assert.Equal(t, map[string]float64{
		"main.main": 92.94,
		"internal/runtime/syscall/linux.Syscall6": 36.30,
		"os.ReadFile": 42.37,
		"github.com/arkforge/proveit-corpus/caddy-module.(*Handler).ServeHTTP": 12.75,
	}, parseTop(listing))
}

// TestWriteMix checks the request mix of each track's season corpus: every
// resource once with the secret, and the shares of absent references and of
// calls without the secret.
func TestWriteMix(t *testing.T) {
	for _, track := range corpus.Tracks {
		t.Run(track.Name, func(t *testing.T) { writeMix(t, track) })
	}
}

func writeMix(t *testing.T, track *corpus.Track) {
	c, err := seasonCorpus("../..", track.Name, track)
	require.NoError(t, err)
	assert.Same(t, track, c.Track)
	b := &bench{work: t.TempDir()}
	file, err := b.writeMix(c)
	require.NoError(t, err)
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	docs := c.documents()
	resources, absent, forbidden := 0, 0, 0
	isDoc := map[string]bool{}
	for _, d := range docs {
		isDoc[d] = true
	}
	for _, line := range lines {
		mark, path, ok := strings.Cut(line, " ")
		require.True(t, ok, line)
		switch {
		case mark == "-":
			forbidden++
		case isDoc[path]:
			resources++
		default:
			absent++
		}
	}
	assert.Equal(t, len(docs), resources, "every resource once")
	assert.Equal(t, int(float64(len(docs))*absentShare), absent)
	assert.Equal(t, int(float64(len(docs))*forbiddenShare), forbidden)
	again, err := b.writeMix(c)
	require.NoError(t, err)
	againData, err := os.ReadFile(again)
	require.NoError(t, err)
	assert.Equal(t, string(data), string(againData), "the same mix every run")
}

func TestBenchField(t *testing.T) {
	line := "BenchmarkServeResource-2 872852 1422 ns/op 0 B/op 0 allocs/op"
	assert.Equal(t, "0", benchField(line, "allocs/op"))
	assert.Equal(t, "1422", benchField(line, "ns/op"))
	assert.Equal(t, "?", benchField(line, "MB/s"))
}

func TestReadProcStat(t *testing.T) {
	st, ok := readProcStat(os.Getpid())
	require.True(t, ok)
	assert.False(t, st.kthread)
	assert.Equal(t, os.Getppid(), st.ppid)
	_, ok = readProcStat(-1)
	assert.False(t, ok)
}

func TestOthersTicksOf(t *testing.T) {
	const self = 100
	procs := map[int]procStat{
		1:   {ppid: 0, ticks: 1},                   // init: someone else's
		2:   {ppid: 0, kthread: true, ticks: 1000}, // a kernel thread: never counted
		50:  {ppid: 1, ticks: 20},                  // another program
		51:  {ppid: 50, ticks: 300},                // and its child
		100: {ppid: 50, ticks: 4000},               // the benchmark
		101: {ppid: self, ticks: 50000},            // a server it started
		102: {ppid: 101, ticks: 600000},            // and that server's child
	}
	assert.Equal(t, int64(1+20+300), othersTicksOf(procs, self))
	assert.Equal(t, int64(1+20+300+4000+50000+600000), othersTicksOf(procs, 999), "no process is ours")
}

func TestTotalSamplesAndMicrosPerRequest(t *testing.T) {
	assert.Equal(t, 7.96, totalSamples("Duration: 8.01s, Total samples = 7.96s (99.42%)"))
	assert.Equal(t, 0.25, totalSamples("Duration: 1s, Total samples = 250ms (25%)"))
	assert.Zero(t, totalSamples("no header"))
	// 8 s of samples over 8 s at 20,000 requests/s: 50 µs a request, 10 of
	// them in a part of 20%.
	pr := &profileResult{Seconds: 8, Samples: 8, RPS: 20_000}
	assert.InDelta(t, 50, pr.MicrosPerRequest(100), 1e-9)
	assert.InDelta(t, 10, pr.MicrosPerRequest(20), 1e-9)
	assert.Zero(t, (&profileResult{}).MicrosPerRequest(50))
}

func TestPairedMedian(t *testing.T) {
	result := func(rps float64, p99 int64) *closedResult {
		return &closedResult{Requests: int64(rps * 10), DurationUS: 10_000_000, P99US: p99}
	}
	round := func(corpus, floor float64, corpusP99, floorP99 int64) pairedRound {
		return pairedRound{Corpus: result(corpus, corpusP99), Floor: result(floor, floorP99)}
	}
	tests := []struct {
		name     string
		run      *pairedRun
		rps, p99 float64
	}{
		{"the middle round of three", &pairedRun{Rounds: []pairedRound{
			round(900, 1000, 110, 100), round(1200, 1000, 300, 100), round(500, 1000, 100, 100),
		}}, 0.9, 1.1},
		{"the lower middle one of an even count", &pairedRun{Rounds: []pairedRound{
			round(800, 1000, 100, 100), round(1000, 1000, 120, 100),
		}}, 0.8, 1.0},
		{"no round", &pairedRun{}, 0, 0},
		{"no run", nil, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.InDelta(t, tt.rps, tt.run.MedianRPSRatio(), 1e-9)
			assert.InDelta(t, tt.p99, tt.run.MedianP99Ratio(), 1e-9)
		})
	}
}

// TestServingTargetsReadThePairedRuns checks that the serving goals read the
// paired rounds when there are some, and the serving table's runs otherwise.
func TestServingTargetsReadThePairedRuns(t *testing.T) {
	result := func(rps float64, p99 int64) *closedResult {
		return &closedResult{Requests: int64(rps * 10), DurationUS: 10_000_000, P99US: p99}
	}
	servers := []*serverRun{
		{Setup: setupOf(keyCorpus), Closed: result(800, 200)},
		{Setup: setupOf(keyRespond), Closed: result(1000, 100)},
	}
	met := func(r *report) map[string]bool {
		got := map[string]bool{}
		for _, target := range r.targets() {
			if strings.Contains(target.Name, "floor") {
				got[strings.SplitN(target.Name, ": ", 2)[1]] = target.Met
			}
		}
		return got
	}
	alone := &report{Corpora: []*corpusRun{{Corpus: &corpusSet{Name: "c"}, Servers: servers}}}
	assert.Equal(t, map[string]bool{
		"requests/s ≥ 0.95 × the `respond` floor": false,
		"p99 ≤ 1.1 × the `respond` floor's p99":   false,
	}, met(alone))
	paired := &report{Corpora: []*corpusRun{{Corpus: &corpusSet{Name: "c"}, Servers: servers,
		Paired: &pairedRun{Rounds: []pairedRound{{Corpus: result(950, 105), Floor: result(1000, 100)}}}}}}
	assert.Equal(t, map[string]bool{
		"requests/s ≥ 0.95 × the `respond` floor": true,
		"p99 ≤ 1.1 × the `respond` floor's p99":   true,
	}, met(paired))
}

// TestToolAndMemoryGoalsAreTheGeneratedCorpus's checks that the tools',
// start-up's and memory's goals are set on the generated corpus only.
func TestToolAndMemoryGoalsAreTheGeneratedCorpus(t *testing.T) {
	tools := &toolRun{Manifest: toolTiming{GoAllCPUs: 1, Floor: 1, Python: 10}, Verify: toolTiming{GoAllCPUs: 1, Floor: 1, Python: 10}}
	corpusServer := []*serverRun{{Setup: setupOf(keyCorpus), Closed: &closedResult{Requests: 1, DurationUS: 1}, RSS: 1, PeakRSS: 1}}
	r := &report{Corpora: []*corpusRun{
		{Corpus: &corpusSet{Name: "season", Embedded: true}, Servers: corpusServer, Tools: tools, StartupAllCPUs: 1},
		{Corpus: &corpusSet{Name: "generated"}, Servers: corpusServer, Tools: tools, StartupAllCPUs: 1},
	}}
	var goals []string
	for _, target := range r.targets() {
		for _, about := range []string{"sha256sum", "Python", "start-up", "RSS"} {
			if strings.Contains(target.Name, about) {
				goals = append(goals, target.Name)
			}
		}
	}
	require.NotEmpty(t, goals)
	for _, goal := range goals {
		assert.True(t, strings.HasPrefix(goal, "generated: "), goal)
	}
	assert.Len(t, goals, 7)
}
