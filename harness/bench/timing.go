package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// toolTiming is one operation done three ways over the same tree: medians,
// each free to use every CPU, and proveit once more pinned to one.
type toolTiming struct {
	GoAllCPUs, Python, Floor time.Duration
	Go                       time.Duration // proveit pinned to one CPU
}

// PythonSpeedup is how many times faster proveit is than the Python
// reference; FloorRatio, proveit's time over sha256sum's.
func (t toolTiming) PythonSpeedup() float64 { return t.Python.Seconds() / t.GoAllCPUs.Seconds() }
func (t toolTiming) FloorRatio() float64    { return t.GoAllCPUs.Seconds() / t.Floor.Seconds() }

// toolOperation is one timed operation of the manifest tool.
type toolOperation struct {
	Name string
	toolTiming
}

// Operations are the two timings, generation first.
func (t *toolRun) Operations() []toolOperation {
	return []toolOperation{{"generate", t.Manifest}, {"verify", t.Verify}}
}

// toolRun is the manifest tool measured on one corpus.
type toolRun struct {
	Manifest, Verify toolTiming
	// Other is the CPU, in cores, that other processes of the machine took
	// on average while these were timed.
	Other float64
	// Agree says that Python's manifest is byte for byte Go's, hence every
	// hash of it.
	Agree bool
}

// timeTools times manifest generation and full verification: proveit,
// the Python reference and sha256sum over the same files, each free to use
// every CPU, and proveit once more pinned to the server CPU; the median of
// b.repeat runs (b.pythonRepeat for Python), after one to warm the cache.
func (b *bench) timeTools(c *corpusSet) (*toolRun, error) {
	dir, err := os.MkdirTemp(b.work, "tools-")
	if err != nil {
		return nil, err
	}
	goOut, pyOut, sums := filepath.Join(dir, "go.json"), filepath.Join(dir, "python.json"), filepath.Join(dir, "SHA256SUMS")
	py := func(args ...string) []string {
		args = append([]string{b.reference}, args...)
		args = append(args, "--track", c.Track.Name, "--rules", c.Track.Rules, "--collections", strings.Join(c.Track.Collections, ","))
		if c.Tasks != "" {
			args = append(args, "--tasks", c.Tasks)
		}
		return append([]string{b.python}, args...)
	}
	manifest := []string{b.proveit, "manifest", "-track", c.Track.Name, "-tree", c.Tree, "-manifest", goOut, "-tasks", c.Tasks}
	verify := []string{b.proveit, "verify", "-track", c.Track.Name, "-tree", c.Tree, "-manifest", c.Manifest, "-tasks", c.Tasks}
	hashAll := []string{"sh", "-c", `cd "$1" && find . -type f -print0 | xargs -0 sha256sum > "$2"`, "sh", c.Tree, sums}
	checkAll := []string{"sh", "-c", `cd "$1" && sha256sum -c --quiet "$2"`, "sh", c.Tree, sums}

	r := &toolRun{}
	b.log("%s: timing manifest generation (proveit, Python, sha256sum)", c.Name)
	if _, err := b.timed(b.serverCPU, hashAll); err != nil { // warms the page cache
		return nil, err
	}
	all := fmt.Sprintf("0-%d", runtime.NumCPU()-1)
	timings := []struct {
		into   *time.Duration
		cpus   string
		cmd    []string
		repeat int
	}{
		{&r.Manifest.Go, b.serverCPU, manifest, b.repeat},
		{&r.Manifest.GoAllCPUs, all, manifest, b.repeat},
		{&r.Manifest.Python, all, py("manifest", c.Tree, pyOut), b.pythonRepeat},
		{&r.Manifest.Floor, all, hashAll, b.repeat},
		{&r.Verify.Go, b.serverCPU, verify, b.repeat},
		{&r.Verify.GoAllCPUs, all, verify, b.repeat},
		{&r.Verify.Python, all, py("verify", c.Tree, c.Manifest), b.pythonRepeat},
		{&r.Verify.Floor, all, checkAll, b.repeat},
	}
	// Round by round, each command once, so that a tool and the floor it is
	// compared with see the same moments of a machine whose speed drifts;
	// the median of each command's runs is kept.
	times := make([][]time.Duration, len(timings))
	other, err := foreignCPU(func() error {
		for round := range max(b.repeat, b.pythonRepeat, 1) {
			for i, t := range timings {
				if round >= max(t.repeat, 1) {
					continue
				}
				d, err := b.timed(t.cpus, t.cmd)
				if err != nil {
					return err
				}
				times[i] = append(times[i], d)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.Other = other
	for i, t := range timings {
		*t.into = median(times[i])
	}
	goBytes, err := os.ReadFile(goOut)
	if err != nil {
		return nil, err
	}
	pyBytes, err := os.ReadFile(pyOut)
	if err != nil {
		return nil, err
	}
	checkedIn, err := os.ReadFile(c.Manifest)
	if err != nil {
		return nil, err
	}
	r.Agree = bytes.Equal(goBytes, pyBytes) && bytes.Equal(goBytes, checkedIn)
	return r, nil
}

// median returns the median of durations (the upper middle one of an even
// count).
func median(times []time.Duration) time.Duration {
	times = slices.Clone(times)
	slices.Sort(times)
	return times[len(times)/2]
}

// timed runs a command pinned to the given CPUs and returns its wall time.
func (b *bench) timed(cpus string, args []string) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "taskset", append([]string{"-c", cpus}, args...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("%s: %v: %s", strings.Join(args, " "), err, tail(out.String(), 1000))
	}
	return time.Since(start), nil
}

// goBenchmarks runs the module's Go benchmarks (request path, canonical
// encoder, manifest), pinned to the server CPU, and returns their lines.
func (b *bench) goBenchmarks() ([]string, error) {
	b.log("Go benchmarks")
	return b.goTest(b.serverCPU, "-run", "^$", "-bench", ".", "-benchmem",
		"./caddy-module/", "./manifest/...", "./harness/gencorpus/")
}

// proofBenchmarks runs the verification of a season's proofs on one core
// and on every core, and its floor, 10,000 standard-library Ed25519
// verifications, in one go test free to use every CPU: each benchmark sets
// its own GOMAXPROCS and measures its goal's two sides in turn.
func (b *bench) proofBenchmarks() ([]string, error) {
	b.log("proof verification benchmarks")
	return b.goTest(fmt.Sprintf("0-%d", runtime.NumCPU()-1), "-run", "^$",
		"-bench", proofBenchmarkPattern, "-benchtime", "3x", "-benchmem", "./tools/proofs/")
}

// proofBenchmarkPattern selects the proof verification's benchmarks.
const proofBenchmarkPattern = "^Benchmark(VerifySeason|VerifySeasonAllCores|Ed25519Season)$"

// goTest runs go test on the given CPUs and returns the benchmark lines
// of its output.
func (b *bench) goTest(cpus string, args ...string) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "taskset", append([]string{"-c", cpus, b.goTool, "test"}, args...)...)
	out, err := cmd.CombinedOutput()
	var lines []string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "Benchmark") {
			lines = append(lines, strings.Join(strings.Fields(line), " "))
		}
	}
	if err != nil {
		return lines, fmt.Errorf("%v: %s", err, tail(string(out), 1000))
	}
	return lines, nil
}

// lookPath finds a command, or a file given by path.
func lookPath(name string) (string, error) {
	if strings.Contains(name, "/") {
		if _, err := os.Stat(name); err != nil {
			return "", err
		}
		return filepath.Abs(name)
	}
	return exec.LookPath(name)
}
