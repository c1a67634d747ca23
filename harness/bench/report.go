package main

import (
	"bytes"
	_ "embed"
	"fmt"
	"math"
	"strings"
	"text/template"
	"time"
)

// report is everything one run measured.
type report struct {
	Started, Finished time.Time
	Machine           machine
	LoadAfter         string
	Config            *bench
	Generation        time.Duration
	Corpora           []*corpusRun
	// Profiles are the corpus server's, then the floor's, under load.
	Profiles     []*profileResult
	ProfileError string
	GoBench      []string
	// Index is the Index built and checked on a generated season; nil
	// when skipped or failed.
	Index *indexRun
	// ProofBench are the lines of the proof verification's benchmarks.
	ProofBench []string
	// Season is the season service's deadline; nil when skipped or
	// failed.
	Season *seasonRun
}

// corpusRun is what was measured on one corpus.
type corpusRun struct {
	Corpus  *corpusSet
	Servers []*serverRun
	Rate    float64
	Tools   *toolRun
	// StartupAllCPUs is the corpus server's start-up unpinned.
	StartupAllCPUs time.Duration
	// Paired is the corpus server and the floor driven in turn.
	Paired *pairedRun
	// Readers is the tree reader timed, on a corpus on disk.
	Readers *readerRun
}

func (c *corpusRun) server(key string) *serverRun {
	for _, s := range c.Servers {
		if s.Setup.Key == key && s.Closed != nil {
			return s
		}
	}
	return nil
}

// target is one goal and how the run fared.
type target struct {
	Name     string
	Measured string
	Met      bool
	Recorded bool // a figure set beside the goals, with no goal of its own
}

//go:embed performance.md.tmpl
var performanceTemplate string

// performancePage renders docs/performance.md; its helpers only format
// figures.
var performancePage = template.Must(template.New("performance").Funcs(template.FuncMap{
	"ratio": ratio, "us": us, "ms": ms, "sec": sec, "size": size, "oneLine": oneLine, "dms": dms,
	"milliseconds": func(d time.Duration) time.Duration { return d.Round(time.Millisecond) },
	"inc":          func(i int) int { return i + 1 },
	"trim":         strings.TrimSpace,
}).Parse(performanceTemplate))

// performanceData is what docs/performance.md shows: the run's figures and
// the settings it measured with, nothing else.
type performanceData struct {
	Started       time.Time
	Took          time.Duration
	Machine       machine
	LoadAfter     string
	Method        *method
	Generation    time.Duration
	Corpora       []corpusView
	ReaderCorpora []corpusView // those whose tree reader was timed
	Profiles      []*profileResult
	Summary       *profileSummary // of the first profile, the corpus server's
	ProfileError  string
	Targets       []target
	GoBench       []string
	Index         *indexRun
	ProofBench    []string
	Season        *seasonRun
}

// method is how the run measured, as the document states it.
type method struct {
	ServerCPU, LoadCPU                            string
	Conns, Pairs, Repeat, PythonRepeat, Generated int
	Duration, Warmup, OpenDuration, PairDuration  time.Duration
	AbsentPercent, ForbiddenPercent, QuietEnough  float64
	Attempts, ReaderBenchTimes, StartupRuns       int
	FastPathGain                                  float64
}

// corpusView is one corpus's figures, with the servers its ratios and its
// growth row read.
type corpusView struct {
	*corpusRun
	Method                  *method
	Shipped, Nginx, Respond *serverRun
}

func (r *report) markdown() []byte {
	b := r.Config
	data := performanceData{
		Started: r.Started, Took: r.Finished.Sub(r.Started).Round(time.Second),
		Machine: r.Machine, LoadAfter: r.LoadAfter, Generation: r.Generation,
		Method: &method{
			ServerCPU: b.serverCPU, LoadCPU: b.loadCPU, Conns: b.conns, Pairs: b.pairs, Repeat: b.repeat,
			PythonRepeat: b.pythonRepeat, Generated: b.generated,
			Duration: b.duration, Warmup: b.warmup, OpenDuration: b.openDuration, PairDuration: b.pairDuration,
			AbsentPercent: absentShare * 100, ForbiddenPercent: forbiddenShare * 100, QuietEnough: quietEnough,
			Attempts: attempts, ReaderBenchTimes: readerBenchTimes, StartupRuns: startupRuns, FastPathGain: fastPathGain,
		},
		Profiles: r.Profiles, ProfileError: r.ProfileError, Targets: r.targets(), GoBench: r.GoBench, Index: r.Index, ProofBench: r.ProofBench,
		Season: r.Season,
	}
	for _, c := range r.Corpora {
		view := corpusView{corpusRun: c, Method: data.Method,
			Shipped: c.server(keyCorpus), Nginx: c.server(keyNginx), Respond: c.server(keyRespond)}
		data.Corpora = append(data.Corpora, view)
		if c.Readers != nil {
			data.ReaderCorpora = append(data.ReaderCorpora, view)
		}
	}
	if len(r.Profiles) > 0 {
		data.Summary = r.Profiles[0].summary()
	}
	var w bytes.Buffer
	if err := performancePage.Execute(&w, data); err != nil {
		// The template and the data's types are fixed at build time, and
		// TestMarkdownGolden renders every branch.
		panic("bench: rendering performance.md: " + err.Error())
	}
	return w.Bytes()
}

// profileSummary is where the time goes, from a profile's shares, in
// percent of the server's CPU.
type profileSummary struct {
	Seconds                                      int
	SystemCalls, LogWrites, Telemetry, AccessLog float64
	Parsing, Allocation, GC                      float64
	// Decision is the module's own work: its ServeHTTP less its telemetry.
	Decision float64
}

func (pr *profileResult) summary() *profileSummary {
	get := func(part string) float64 {
		for _, s := range pr.Shares {
			if strings.HasPrefix(s.Part, part) {
				return s.Percent
			}
		}
		return 0
	}
	module, telemetry := get("the module's ServeHTTP"), get("the module's telemetry")
	return &profileSummary{
		Seconds:     pr.Seconds,
		SystemCalls: get("system calls"), LogWrites: get("log file writes"), Telemetry: telemetry,
		AccessLog: get("access log"), Parsing: get("net/http"), Allocation: get("memory allocation"),
		GC: get("garbage collection"), Decision: math.Max(module-telemetry, 0),
	}
}

func ratio(v float64, base *serverRun) string {
	if base == nil {
		return "–"
	}
	return fmt.Sprintf("%.2f", v/base.Closed.RPS())
}

func us(v int64) string { return ms(float64(v) / 1000) }

func ms(v float64) string {
	if v >= 100 {
		return fmt.Sprintf("%.0f ms", v)
	}
	return fmt.Sprintf("%.2f ms", v)
}

// dms formats a latency in milliseconds, as ms does.
func dms(d time.Duration) string { return ms(float64(d) / float64(time.Millisecond)) }

func sec(d time.Duration) string { return fmt.Sprintf("%.3f s", d.Seconds()) }

func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.0f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func oneLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.ReplaceAll(line, "|", "\\|")
}
