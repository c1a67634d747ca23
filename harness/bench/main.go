// Command bench measures the corpus server and its manifest tool, side by
// side on one machine, and writes docs/performance.md (`make bench`).
//
// On the season's corpus, then on a generated one of 100,000 resources, it
// serves the tree several ways on loopback, one at a time, each server pinned
// to one CPU with the load generator on the other: this project's Caddy build
// with the shipped Caddyfile (with and without its telemetry), the same
// binary answering one fixed body with `respond` (the floor of any Caddy
// handler), stock Caddy `file_server` gated on the secret header, and nginx
// with the vhost `proveit nginx` generates. wrk drives each at a fixed
// connection count over a mix of every resource, absent references and the
// 403 path; package harness/loadgen then drives each at a fixed rate below
// saturation. It records
// requests per second, latency percentiles and peak RSS, profiles the corpus
// server under load through Caddy's admin pprof endpoint, and times manifest
// generation and verification against a plain Python reference
// (harness/bench/reference.py) and sha256sum over the same files, and on the
// generated corpus, the tree reader (manifest/tree) against the Linux
// system-call reader it replaced. Then it verifies a season's proofs
// (package tools/proofs) on one core and on every core, against as many
// standard-library Ed25519 verifications; `-only proofs` runs that part
// alone and prints it, writing no document. Last, it plays a deadline on
// the season service (bin/caddy's proveit_season on loopback, package
// harness/seasonload): 1,000 enrollments' ten submissions each handed in
// at once by concurrent clients, on SQLite and on PostgreSQL, against the
// store alone committing the same rows; `-only season` runs that part
// alone and prints it.
//
// Benchmarks never fail on a number: the document gives each goal's ratio
// as measured, and whether it is met.
package main

import (
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/harness/loadgen"

	// Every track of the season, for the commands that read its files.
	_ "github.com/arkforge/proveit-corpus/tools/tracks/all"
)

// bench holds the configuration of a run.
type bench struct {
	caddy, proveit, wrk, nginx, python, goTool  string
	self                                        string // this program, which also runs the open-loop load
	reference                                   string // reference.py
	caddyfile                                   string // the shipped Caddyfile
	out                                         string
	work                                        string // scratch folder, removed at the end
	serverCPU, loadCPU                          string
	conns                                       int
	duration, warmup, openDuration, profileTime time.Duration
	pairs                                       int // rounds of the paired runs
	pairDuration                                time.Duration
	rate                                        float64
	repeat, pythonRepeat                        int
	generated                                   int
	indexPerTrack                               int    // enrollments a track of the Index's season
	seasonEntrants, seasonConns, seasonRounds   int    // the season service's deadline: enrollments, clients at once, rounds a store
	only                                        string // run only this part: "index", "season", or "proofs" (the proof verification's benchmarks)
	keep                                        bool   // keep the scratch folder, for a look at logs and profiles
	maxLoad                                     float64
	waitLoad                                    time.Duration
	// secret opens the gate of every server; it lives in memory and in the
	// environment of the processes that need it, never in a file or output.
	secret string
	log    func(format string, args ...any)
	// started is when measuring began, after waiting for an idle machine.
	started time.Time
}

// loadgenCommand is the first argument that makes this program the
// open-loop load generator (package loadgen), so that the benchmark can pin
// it to the load CPU.
const loadgenCommand = "loadgen"

func main() {
	if len(os.Args) > 1 && os.Args[1] == loadgenCommand {
		os.Exit(loadgen.Main(os.Args[2:], os.Stdout, os.Stderr))
	}
	b := &bench{log: func(format string, args ...any) {
		fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
	}}
	flag.StringVar(&b.caddy, "caddy", "bin/caddy", "this project's Caddy build")
	flag.StringVar(&b.proveit, "proveit", "bin/proveit", "the proveit tool")
	flag.StringVar(&b.wrk, "wrk", "wrk", "wrk")
	flag.StringVar(&b.nginx, "nginx", "nginx", "nginx")
	flag.StringVar(&b.python, "python", "python3", "Python 3")
	flag.StringVar(&b.goTool, "go", "go", "the go command (for pprof and the Go benchmarks)")
	flag.StringVar(&b.reference, "reference", "harness/bench/reference.py", "the Python reference")
	flag.StringVar(&b.caddyfile, "caddyfile", "Caddyfile", "the shipped Caddyfile")
	flag.StringVar(&b.out, "out", "docs/performance.md", "document to write")
	flag.StringVar(&b.serverCPU, "server-cpu", "0", "CPU the servers and timed tools are pinned to")
	flag.StringVar(&b.loadCPU, "load-cpu", "1", "CPU the load generators are pinned to")
	flag.IntVar(&b.conns, "conns", 50, "connections of the closed-loop and open-loop runs")
	flag.DurationVar(&b.duration, "duration", 8*time.Second, "length of each closed-loop run")
	flag.DurationVar(&b.warmup, "warmup", 2*time.Second, "unmeasured load before each closed-loop run")
	flag.DurationVar(&b.openDuration, "open-duration", 5*time.Second, "length of each fixed-rate run")
	flag.IntVar(&b.pairs, "pairs", 3, "rounds of the paired runs of the shipped configuration and the floor (0: none)")
	flag.DurationVar(&b.pairDuration, "pair-duration", 4*time.Second, "length of each server's run in a round of the paired runs")
	flag.DurationVar(&b.profileTime, "profile", 8*time.Second, "length of the CPU profile under load")
	flag.Float64Var(&b.rate, "rate", 0, "fixed request rate; 0: half the slowest server's closed-loop rate on the season corpus")
	flag.IntVar(&b.repeat, "repeat", 3, "runs of each timed tool (the median is kept)")
	flag.IntVar(&b.pythonRepeat, "python-repeat", 1, "runs of the Python reference (the median is kept): slow, and only compared with a wide margin")
	flag.IntVar(&b.generated, "n", 100_000, "resources of the generated corpus (0: skip it)")
	flag.IntVar(&b.indexPerTrack, "index", 100, "enrollments a track of the season the Index is built from (0: skip it)")
	flag.IntVar(&b.seasonEntrants, "season", 1000, "enrollments of the season service's deadline, each handing in its ten submissions at once (0: skip it)")
	flag.IntVar(&b.seasonConns, "season-conns", 50, "clients handing the deadline's submissions in at once")
	flag.IntVar(&b.seasonRounds, "season-rounds", 3, "rounds of the deadline on each store, the service and the store alone back to back in each (the round of the median ratio is kept)")
	flag.StringVar(&b.only, "only", "", `run only this part and print its figures, writing no document: "index" (the Index of a generated season), "season" (the season service's deadline) or "proofs" (the proof verification's benchmarks)`)
	flag.BoolVar(&b.keep, "keep", false, "keep the scratch folder (servers' logs, profile, generated corpus)")
	flag.Float64Var(&b.maxLoad, "max-load", 1, "wait until the 1-minute load average is below this before measuring")
	flag.DurationVar(&b.waitLoad, "wait-load", time.Minute, "how long to wait for the load to drop; then measure anyway and say so")
	flag.Parse()
	run := b.run
	switch b.only {
	case "", "index", "season":
	case "proofs":
		run = b.runProofs
	default:
		fmt.Fprintf(os.Stderr, "bench: -only %q: want index, season or proofs\n", b.only)
		os.Exit(2)
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func (b *bench) run() error {
	if err := b.preflight(); err != nil {
		return err
	}
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return err
	}
	b.secret = hex.EncodeToString(secret)
	work, err := os.MkdirTemp("", "proveit-bench-")
	if err != nil {
		return err
	}
	if b.keep {
		b.log("scratch folder kept: %s", work)
	} else {
		defer os.RemoveAll(work)
		// Interrupted, the servers die with the benchmark (Pdeathsig); the
		// scratch folder, generated corpus included, goes too.
		interrupted := make(chan os.Signal, 1)
		signal.Notify(interrupted, os.Interrupt, syscall.SIGTERM)
		go func() {
			<-interrupted
			os.RemoveAll(work)
			os.Exit(1)
		}()
	}
	b.work = work

	b.waitIdle()
	b.started = time.Now()
	switch b.only {
	case "index":
		return b.onlyIndex()
	case "season":
		return b.onlySeason()
	}
	r := &report{Started: b.started, Machine: describeMachine(b), Config: b}
	// Every track's tree, served by the same binary: the first is the one
	// the serving comparisons are made on.
	var corpora []*corpusSet
	for i, track := range corpus.Tracks {
		name := "season 1"
		if i > 0 {
			name += ", " + track.Name
		}
		season, err := seasonCorpus(".", name, track)
		if err != nil {
			return err
		}
		corpora = append(corpora, season)
	}
	if b.generated > 0 {
		gen, err := b.generateCorpus(b.generated)
		if err != nil {
			return err
		}
		r.Generation = gen.Generation
		corpora = append(corpora, gen)
	}
	for i, c := range corpora {
		b.log("%s: %d files, %d bytes, %d manifest entries", c.Name, c.Files, c.Bytes, c.Entries)
		run, err := b.measureCorpus(c, i == 0)
		if err != nil {
			return err
		}
		r.Corpora = append(r.Corpora, run)
		if i == 0 && b.rate == 0 {
			b.rate = run.Rate // the same fixed rate for every corpus
		}
	}
	if r.Profiles, err = b.profiles(corpora[0]); err != nil {
		b.log("profile: %v", err)
		r.ProfileError = err.Error()
	}
	if r.GoBench, err = b.goBenchmarks(); err != nil {
		b.log("go benchmarks: %v", err)
	}
	if r.ProofBench, err = b.proofBenchmarks(); err != nil {
		b.log("proof benchmarks: %v", err)
	}
	if b.indexPerTrack > 0 {
		if r.Index, err = b.measureIndex(b.indexPerTrack); err != nil {
			b.log("index: %v", err)
		}
	}
	if b.seasonEntrants > 0 {
		if r.Season, err = b.measureSeason(b.seasonEntrants); err != nil {
			b.log("season: %v", err)
		}
	}
	r.Finished = time.Now()
	r.LoadAfter = loadAverage()
	if err := os.MkdirAll(filepath.Dir(b.out), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(b.out, r.markdown(), 0o644); err != nil {
		return err
	}
	b.log("wrote %s", b.out)
	return nil
}

// runProofs measures the proof verification alone, on a machine others may
// be using: its benchmark lines and goals go to standard output.
func (b *bench) runProofs() error {
	goTool, err := lookPath(b.goTool)
	if err != nil {
		return fmt.Errorf("missing: %s", b.goTool)
	}
	b.goTool = goTool
	b.waitIdle()
	r := &report{Started: time.Now(), Machine: machine{Cores: strconv.Itoa(runtime.NumCPU())}}
	if r.ProofBench, err = b.proofBenchmarks(); err != nil {
		return err
	}
	for _, line := range r.ProofBench {
		fmt.Println(line)
	}
	for _, t := range r.proofTargets() {
		met := "missed"
		if t.Met {
			met = "met"
		}
		fmt.Printf("%s: %s: %s\n", t.Name, t.Measured, met)
	}
	return nil
}

// measureCorpus serves a corpus every way, then times the tools on it.
func (b *bench) measureCorpus(c *corpusSet, first bool) (*corpusRun, error) {
	run := &corpusRun{Corpus: c}
	mix, err := b.writeMix(c)
	if err != nil {
		return nil, err
	}
	for _, s := range setups() {
		b.log("%s / %s: closed loop, %d connections, %s", c.Name, s.Name, b.conns, b.duration)
		run.Servers = append(run.Servers, b.closedLoop(c, s, mix))
	}
	if b.pairs > 0 && run.server(keyCorpus) != nil && run.server(keyRespond) != nil {
		b.log("%s: paired runs of the shipped configuration and the floor, %d rounds of %s", c.Name, b.pairs, b.pairDuration)
		run.Paired = b.pairedLoop(c, mix)
	}
	run.Rate = b.rate
	if run.Rate == 0 {
		run.Rate = fixedRate(run.Servers)
	}
	for _, sr := range run.Servers {
		if sr.Skipped != "" {
			continue
		}
		b.log("%s / %s: open loop, %.0f requests/s, %s", c.Name, sr.Setup.Name, run.Rate, b.openDuration)
		b.openLoop(c, sr, mix, run.Rate)
	}
	if sr := run.server(keyCorpus); sr != nil {
		b.log("%s: start-up with every CPU", c.Name)
		run.StartupAllCPUs = b.startupAllCPUs(c)
	}
	timings, err := b.timeTools(c)
	if err != nil {
		return nil, err
	}
	run.Tools = timings
	if !c.Embedded {
		if run.Readers, err = b.timeReaders(c); err != nil {
			b.log("%s: tree readers: %v", c.Name, err)
		}
	}
	return run, nil
}

// waitIdle waits, up to b.waitLoad, until the machine's 1-minute load
// average is below b.maxLoad: other work on the machine would show in every
// figure. The document records the load before and after the run.
func (b *bench) waitIdle() {
	deadline := time.Now().Add(b.waitLoad)
	for {
		load := oneMinuteLoad()
		if load < b.maxLoad {
			return
		}
		if time.Now().After(deadline) {
			b.log("load average %.2f is still above %.2f: measuring anyway (the document records it)", load, b.maxLoad)
			return
		}
		b.log("load average %.2f is above %.2f: waiting", load, b.maxLoad)
		time.Sleep(30 * time.Second)
	}
}

// startupAllCPUs is the start-up of the corpus server with the shipped
// Caddyfile when it may use every CPU, as in production (loading and
// checking the tree is spread over GOMAXPROCS goroutines); 0 if it failed.
func (b *bench) startupAllCPUs(c *corpusSet) time.Duration {
	all := *b
	all.serverCPU = fmt.Sprintf("0-%d", runtime.NumCPU()-1)
	// The quickest of a few starts, as for the pinned start-up: another
	// process's burst slows one start, never speeds it up.
	var quickest time.Duration
	for range startupRuns {
		s, err := all.startServer(c, setupOf(keyCorpus))
		if err != nil {
			b.log("%v", err)
			return 0
		}
		s.Stop()
		if quickest == 0 || s.Startup() < quickest {
			quickest = s.Startup()
		}
	}
	return quickest
}

// startupRuns is how many times the corpus server is started free to use
// every CPU.
const startupRuns = 3

func (b *bench) preflight() error {
	switch b.only {
	case "":
	case "index":
		if b.indexPerTrack < 1 {
			return fmt.Errorf("-only index: -index must be at least 1")
		}
	case "season":
		if b.seasonEntrants < 1 || b.seasonConns < 1 {
			return fmt.Errorf("-only season: -season and -season-conns must be at least 1")
		}
	default:
		return fmt.Errorf("-only %q: the parts run alone are index, season and proofs", b.only)
	}
	var missing []string
	// Servers run in folders of their own: every path is made absolute.
	self, err := os.Executable()
	if err != nil {
		return err
	}
	b.self = self
	tools := []*string{&b.caddy, &b.proveit, &b.wrk, &b.nginx, &b.python, &b.goTool}
	switch b.only {
	case "index":
		tools = []*string{&b.proveit}
	case "season":
		tools = []*string{&b.caddy}
	}
	for _, tool := range tools {
		path, err := lookPath(*tool)
		if err != nil {
			missing = append(missing, *tool)
			continue
		}
		*tool = path
	}
	files := []*string{&b.reference, &b.caddyfile}
	switch b.only {
	case "index":
		files = nil
	case "season":
		files = []*string{&b.caddyfile} // and the repository beside it, whose files the records seal
	}
	for _, file := range files {
		path, err := filepath.Abs(*file)
		if _, statErr := os.Stat(path); err != nil || statErr != nil {
			missing = append(missing, *file)
			continue
		}
		*file = path
	}
	for _, tool := range []string{"taskset", "sha256sum", "find", "xargs", "lscpu"} {
		if _, err := lookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("missing: %v (make bench installs wrk and nginx when run as root)", missing)
	}
	return nil
}
