package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/tools/index"
	"github.com/arkforge/proveit-corpus/tools/index/indextest"
)

// indexBound: building the Index of a season, and re-deriving it with
// -check, each take at most this multiple of `proveit proofs verify` on
// the same proofs: the replay and the pages cost little beside the proofs'
// verification, which the Index does once for the season.
const indexBound = 1.5

// indexRun is the Index built and checked on a season of generated
// enrollments, against the verification of the proofs they cite.
type indexRun struct {
	PerTrack, Tracks int // enrollments per track, tracks
	Ranked           int // enrollments ranked, every track
	Proofs           int // proofs verified: those the ranked enrollments cite
	Verify, Build    time.Duration
	Check            time.Duration
	// Peak RSS of each command, bytes: its VmHWM sampled every 5 ms (0
	// where /proc does not say).
	VerifyRSS, BuildRSS, CheckRSS int64
	// SeasonBuilt is how long building the season took, unmeasured.
	SeasonBuilt time.Duration
}

func (r *indexRun) BuildRatio() float64 { return r.Build.Seconds() / r.Verify.Seconds() }
func (r *indexRun) CheckRatio() float64 { return r.Check.Seconds() / r.Verify.Seconds() }

// measureIndex builds a season of perTrack enrollments a track through the
// Trust Layer stand-in (package indextest), then times, pinned to the
// server CPU, round by round, `proveit proofs verify` of the proofs the
// ranked enrollments cite, `proveit index` and `proveit index -check`, and
// keeps each one's median and peak RSS.
func (b *bench) measureIndex(perTrack int) (*indexRun, error) {
	dir, err := os.MkdirTemp(b.work, "index-")
	if err != nil {
		return nil, err
	}
	seasonDir, site := filepath.Join(dir, "season"), filepath.Join(dir, "site")
	r := &indexRun{PerTrack: perTrack, Tracks: len(corpus.Tracks)}
	b.log("index: building a season of %d enrollments a track through the Trust Layer stand-in", perTrack)
	start := time.Now()
	if err := buildSeason(seasonDir, perTrack); err != nil {
		return nil, err
	}
	r.SeasonBuilt = time.Since(start)
	var files []string
	var record string
	for _, t := range corpus.Tracks {
		e, err := index.ReadEnrollments(filepath.Join(seasonDir, t.Name, "inscriptions.json"), t.Name)
		if err != nil {
			return nil, err
		}
		for _, en := range e.Rank().Ranked {
			r.Ranked++
			subs, err := filepath.Glob(filepath.Join(seasonDir, t.Name, "soumissions", en.ID, "*.json"))
			if err != nil {
				return nil, err
			}
			files = append(files, subs...)
		}
		record = filepath.Join(seasonDir, t.Name, "preenregistrement.json") // every track's has the same dates
	}
	trust, views := indextest.TrustOf(seasonDir), filepath.Join(seasonDir, "views")
	verify := append([]string{b.proveit, "proofs", "verify", "-views", views, "-trust", trust, "-record", record}, files...)
	build := []string{b.proveit, "index", "-season", seasonDir, "-o", site, "-trust", trust}
	check := []string{b.proveit, "index", "-check", site, "-season", seasonDir, "-trust", trust}
	out, _, err := b.timedRSS(verify)
	if err != nil { // warms the page cache, and counts the proofs
		return nil, err
	}
	r.Proofs = strings.Count(out, " valide\n")
	if _, _, err := b.timedRSS(build); err != nil {
		return nil, err
	}
	writeBack()
	timings := []struct {
		cmd  []string
		into *time.Duration
		rss  *int64
	}{{verify, &r.Verify, &r.VerifyRSS}, {build, &r.Build, &r.BuildRSS}, {check, &r.Check, &r.CheckRSS}}
	times := make([][]time.Duration, len(timings))
	for round := range max(b.repeat, 1) {
		for i, t := range timings {
			b.log("index: round %d, %s", round+1, strings.Join(t.cmd[1:3], " "))
			_, rss, err := b.timedRSS(t.cmd)
			if err != nil {
				return nil, err
			}
			times[i] = append(times[i], rss.took)
			*t.rss = max(*t.rss, rss.peak)
		}
	}
	for i, t := range timings {
		*t.into = median(times[i])
	}
	return r, nil
}

// usage is a command's wall time and peak RSS.
type usage struct {
	took time.Duration
	peak int64
}

// timedRSS runs a command pinned to the server CPU and returns its output,
// wall time and peak RSS.
func (b *bench) timedRSS(args []string) (string, usage, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "taskset", append([]string{"-c", b.serverCPU}, args...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return "", usage{}, err
	}
	// The rusage of a child would not do: Linux carries the parent's peak
	// over fork and exec, and this process holds the whole season. The
	// command's own high-water mark is its VmHWM, sampled until it exits.
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var peak int64
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				return "", usage{}, fmt.Errorf("%s: %v: %s", strings.Join(args[:min(len(args), 8)], " "), err, tail(out.String(), 1000))
			}
			return out.String(), usage{time.Since(start), peak}, nil
		case <-tick.C:
			peak = max(peak, highWaterMark(cmd.Process.Pid))
		}
	}
}

// highWaterMark is a process's VmHWM in bytes, 0 where /proc does not say.
func highWaterMark(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			fmt.Sscanf(strings.TrimSpace(rest), "%d", &kb)
			return kb * 1024
		}
	}
	return 0
}

// buildSeason writes a season of perTrack enrollments a track
// (indextest.Crowd) into dir, its proofs anchored in batches of 100 and
// the cited ones' views fetched.
func buildSeason(dir string, perTrack int) (err error) {
	tb := &harnessT{}
	defer tb.cleanup()
	defer func() {
		if v := recover(); v != nil {
			if v != errHarnessFailed {
				panic(v)
			}
			err = tb.err
		}
	}()
	s := indextest.NewBatched(tb, dir, 100) // Trust Layer's batches
	for _, t := range corpus.Tracks {
		s.Track(tb, t, indextest.Crowd(perTrack))
	}
	s.CloseBatch(tb)
	s.WriteViews(tb)
	return nil
}

// harnessT is the builder's indextest.T outside a test: the first failure
// ends the build with its message.
type harnessT struct {
	err      error
	cleanups []func()
}

var errHarnessFailed = errors.New("season build failed")

func (t *harnessT) Errorf(format string, args ...any) {
	if t.err == nil {
		t.err = fmt.Errorf(format, args...)
	}
}
func (t *harnessT) FailNow()         { panic(errHarnessFailed) }
func (t *harnessT) Helper()          {}
func (t *harnessT) Cleanup(f func()) { t.cleanups = append(t.cleanups, f) }

func (t *harnessT) cleanup() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
}

// indexTargets are the Index's goals on this run.
func (r *indexRun) targets() []target {
	return []target{
		{Name: fmt.Sprintf("the Index of %d enrollments a track built ≤ %.1f × `proveit proofs verify` of its %d proofs", r.PerTrack, indexBound, r.Proofs),
			Met: r.BuildRatio() <= indexBound, Measured: fmt.Sprintf("%.2f× (%s vs %s)", r.BuildRatio(), sec(r.Build), sec(r.Verify))},
		{Name: fmt.Sprintf("`proveit index -check` of the same ≤ %.1f × `proveit proofs verify`", indexBound),
			Met: r.CheckRatio() <= indexBound, Measured: fmt.Sprintf("%.2f× (%s vs %s)", r.CheckRatio(), sec(r.Check), sec(r.Verify))},
	}
}

// printPart prints one part of the benchmark alone: its section of
// docs/performance.md, from data, and whether each goal was met.
func printPart(section string, data any, targets []target) error {
	var w bytes.Buffer
	if err := performancePage.ExecuteTemplate(&w, section, data); err != nil {
		return err
	}
	for _, t := range targets {
		met := "missed"
		if t.Met {
			met = "met"
		}
		fmt.Fprintf(&w, "- %s: %s, %s\n", t.Name, t.Measured, met)
	}
	_, err := os.Stdout.Write(w.Bytes())
	return err
}

// onlyIndex runs the Index's part alone and prints its section and goals,
// writing no document.
func (b *bench) onlyIndex() error {
	r, err := b.measureIndex(b.indexPerTrack)
	if err != nil {
		return err
	}
	return printPart("index", r, r.targets())
}
