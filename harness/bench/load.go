package main

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/arkforge/proveit-corpus/harness/loadgen"
)

//go:embed mix.lua
var mixScript []byte

// closedResult is what mix.lua prints when a wrk run is done.
type closedResult struct {
	Requests      int64   `json:"requests"`
	DurationUS    int64   `json:"duration_us"`
	Bytes         int64   `json:"bytes"`
	ConnectErrors int64   `json:"connect_errors"`
	ReadErrors    int64   `json:"read_errors"`
	WriteErrors   int64   `json:"write_errors"`
	Timeouts      int64   `json:"timeouts"`
	Non2xx3xx     int64   `json:"non_2xx_3xx"`
	P50US         int64   `json:"p50_us"`
	P99US         int64   `json:"p99_us"`
	P999US        int64   `json:"p999_us"`
	MaxUS         int64   `json:"max_us"`
	MeanUS        float64 `json:"mean_us"`
}

// RPS is the throughput of the run.
func (r *closedResult) RPS() float64 {
	return float64(r.Requests) / (float64(r.DurationUS) / 1e6)
}

// Errors counts the requests that got no answer.
func (r *closedResult) Errors() int64 {
	return r.ConnectErrors + r.ReadErrors + r.WriteErrors + r.Timeouts
}

// NonSuccessPercent is the share of answers outside 2xx and 3xx.
func (r *closedResult) NonSuccessPercent() float64 {
	return 100 * float64(r.Non2xx3xx) / float64(r.Requests)
}

// serverRun is one setup on one corpus.
type serverRun struct {
	Setup   setup
	Skipped string // why the setup did not run
	Startup time.Duration
	RSS     int64 // after start-up, before load
	FileRSS int64 // the part of RSS that maps files, the executable's pages mostly
	PeakRSS int64 // VmHWM over every run
	// Go runtime of a Caddy server after the closed-loop run: the live heap
	// (after a forced collection) and the memory obtained from the OS.
	LiveHeap, GoSys int64
	Closed          *closedResult
	Open            *loadgen.Result
	// CPU, in cores, that other processes of the machine used during the
	// runs kept.
	ClosedOther, OpenOther float64
}

// OpenOtherCPU is the others' CPU of the fixed-rate run, 0 when it failed
// (quietest then reports -1).
func (s *serverRun) OpenOtherCPU() float64 { return max(s.OpenOther, 0) }

// closedLoop starts a setup, warms it up, then drives it with wrk at a
// fixed connection count; a run disturbed by other processes is measured
// again.
func (b *bench) closedLoop(c *corpusSet, st setup, mix string) *serverRun {
	sr := &serverRun{Setup: st}
	s, err := b.startServer(c, st)
	if err != nil {
		sr.Skipped = err.Error()
		b.log("%s", sr.Skipped)
		return sr
	}
	defer s.Stop()
	// One reading: resident and file-backed memory of one moment.
	mem := s.Memory()
	sr.Startup, sr.RSS, sr.FileRSS = s.Startup(), mem.RSS, mem.FileRSS
	if _, err := b.runWrk(s, mix, b.warmup); err != nil {
		sr.Skipped = err.Error()
		return sr
	}
	sr.Closed, sr.ClosedOther, err = quietest(b, func() (*closedResult, float64, error) {
		var r *closedResult
		other, err := foreignCPU(func() (err error) {
			r, err = b.runWrk(s, mix, b.duration)
			return err
		})
		return r, other, err
	})
	if err != nil {
		sr.Skipped = err.Error()
		return sr
	}
	sr.PeakRSS = s.PeakRSS()
	sr.LiveHeap, sr.GoSys = s.heapStats(true)
	return sr
}

// openLoop starts the setup again and drives it at a fixed rate; a run
// disturbed by other processes is measured again.
func (b *bench) openLoop(c *corpusSet, sr *serverRun, mix string, rate float64) {
	var err error
	sr.Open, sr.OpenOther, err = quietest(b, func() (*loadgen.Result, float64, error) {
		s, err := b.startServer(c, sr.Setup)
		if err != nil {
			return nil, 0, err
		}
		defer s.Stop()
		var r *loadgen.Result
		other, err := foreignCPU(func() (err error) {
			r, err = b.runLoadgen(s, mix, rate)
			return err
		})
		sr.PeakRSS = max(sr.PeakRSS, s.PeakRSS())
		sr.Startup = min(sr.Startup, s.Startup()) // the quickest start: others' disk writes may slow one
		return r, other, err
	})
	if err != nil {
		b.log("%s: open loop: %v", sr.Setup.Name, err)
	}
}

// quietest runs measure, which returns a result and the CPU other
// processes took meanwhile, again while they took more than quietEnough (up
// to attempts, and within the retry budget), and keeps the quietest run.
func quietest[T any](b *bench, measure func() (T, float64, error)) (best T, bestOther float64, err error) {
	bestOther = -1
	for attempt := 1; ; attempt++ {
		r, other, err := measure()
		if err != nil {
			return best, bestOther, err
		}
		if bestOther < 0 || other < bestOther {
			best, bestOther = r, other
		}
		if other <= quietEnough || attempt == attempts || !b.mayRetry() {
			return best, bestOther, nil
		}
		b.log("other processes took %.2f cores during the run: measuring again once they calm down", other)
		b.waitQuiet()
	}
}

// runWrk drives a server with wrk, pinned to the load CPU.
func (b *bench) runWrk(s *server, mix string, d time.Duration) (*closedResult, error) {
	script := filepath.Join(b.work, "mix.lua")
	if err := os.WriteFile(script, mixScript, 0o644); err != nil {
		return nil, err
	}
	seconds := fmt.Sprintf("%ds", int(math.Ceil(d.Seconds())))
	out, err := b.loadCommand(d, []string{loadgen.SecretEnv + "=" + b.secret},
		b.wrk, "-t1", fmt.Sprintf("-c%d", b.conns), "-d"+seconds, "--timeout", "5s",
		"-s", script, "http://"+s.Addr, "--", mix)
	if err != nil {
		return nil, fmt.Errorf("wrk: %v: %s", err, tail(string(out), 500))
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, `{"requests"`) {
			var r closedResult
			return &r, json.Unmarshal([]byte(line), &r)
		}
	}
	return nil, fmt.Errorf("wrk printed no result: %s", tail(string(out), 500))
}

// runLoadgen drives a server at a fixed rate with package loadgen, run by
// this program itself (its loadgen command) so that it can be pinned to the
// load CPU.
func (b *bench) runLoadgen(s *server, mix string, rate float64) (*loadgen.Result, error) {
	out, err := b.loadCommand(b.openDuration, []string{loadgen.SecretEnv + "=" + b.secret},
		b.self, loadgenCommand, "-addr", s.Addr, "-targets", mix, "-rate", fmt.Sprint(rate),
		"-duration", b.openDuration.String(), "-conns", fmt.Sprint(b.conns))
	if err != nil {
		return nil, fmt.Errorf("%v: %s", err, tail(string(out), 500))
	}
	var r loadgen.Result
	return &r, json.Unmarshal(out, &r)
}

// loadCommand runs a load generator pinned to the load CPU, bounded in time.
func (b *bench) loadCommand(d time.Duration, env []string, name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "taskset", append([]string{"-c", b.loadCPU, name}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return append(out, stderr.Bytes()...), err
	}
	return out, nil
}

// fixedRate is the rate of the open-loop runs: half the closed-loop
// throughput of the slowest server, rounded down to a hundred.
func fixedRate(runs []*serverRun) float64 {
	slowest := math.Inf(1)
	for _, r := range runs {
		if r.Closed != nil {
			slowest = min(slowest, r.Closed.RPS())
		}
	}
	if math.IsInf(slowest, 1) {
		return 1000
	}
	return max(100, math.Floor(slowest/2/100)*100)
}
