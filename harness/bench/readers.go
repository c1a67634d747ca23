package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// fastPathGain is the least speed-up, of start-up or of `proveit
// manifest`, that would pay for a reader of a platform's own system calls
// beside the portable one (manifest/tree).
const fastPathGain = 1.5

// readerRun is the tree reader, package manifest/tree, timed on one
// corpus: Dir's portable reader and the Linux system-call yardstick of the
// package's tests.
type readerRun struct {
	Timings []readerTiming
	// Other is the CPU, in cores, that other processes of the machine took
	// on average while the readers were timed.
	Other float64
}

// readerTiming is both readers' median time to read the tree with a count
// of CPUs, and the median CPU time (user and system) of their runs, which
// other processes of a shared machine disturb less.
type readerTiming struct {
	CPUs                     int
	Portable, Syscalls       time.Duration
	PortableCPU, SyscallsCPU time.Duration
}

// WallRatio and CPURatio compare the portable reader with the system-call
// one, in wall time and in CPU time.
func (t readerTiming) WallRatio() float64 { return t.Portable.Seconds() / t.Syscalls.Seconds() }
func (t readerTiming) CPURatio() float64  { return t.PortableCPU.Seconds() / t.SyscallsCPU.Seconds() }

// readerBenchTimes is the count of scans of the tree each run of
// BenchmarkReaders times.
const readerBenchTimes = 2

// timeReaders times BenchmarkReaders (manifest/tree) on a corpus on disk,
// with one CPU, pinned, and with every CPU: the two readers run in turn,
// round by round, the first of a round alternating, and the median of
// b.repeat runs of each is kept.
func (b *bench) timeReaders(c *corpusSet) (*readerRun, error) {
	b.log("%s: timing the tree readers", c.Name)
	test := filepath.Join(b.work, "tree.test")
	if out, err := exec.Command(b.goTool, "test", "-c", "-o", test, "./manifest/tree").CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go test -c ./manifest/tree: %v: %s", err, tail(string(out), 1000))
	}
	r := &readerRun{}
	all := runtime.NumCPU()
	for _, cpus := range []int{1, all} {
		pin := b.serverCPU
		if cpus > 1 {
			pin = fmt.Sprintf("0-%d", all-1)
		}
		times, cpuTimes := map[string][]time.Duration{}, map[string][]time.Duration{}
		other, err := foreignCPU(func() error {
			readers := []string{"portable", "syscalls"}
			for round := range max(b.repeat, 1) {
				for i := range readers {
					reader := readers[(i+round)%len(readers)]
					d, cpu, err := b.readerBench(test, c.Tree, reader, pin, cpus)
					if err != nil {
						return err
					}
					times[reader] = append(times[reader], d)
					cpuTimes[reader] = append(cpuTimes[reader], cpu)
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		r.Other = max(r.Other, other)
		r.Timings = append(r.Timings, readerTiming{CPUs: cpus,
			Portable: median(times["portable"]), Syscalls: median(times["syscalls"]),
			PortableCPU: median(cpuTimes["portable"]), SyscallsCPU: median(cpuTimes["syscalls"])})
	}
	return r, nil
}

// readerBench runs BenchmarkReaders for one reader over tree and returns
// its time per scan, and the CPU time of the whole run.
func (b *bench) readerBench(test, tree, reader, pin string, cpus int) (perScan, cpu time.Duration, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "taskset", "-c", pin, test, "-test.run", "^$",
		"-test.bench", "^BenchmarkReaders$/^"+reader+"$", "-test.benchtime", fmt.Sprintf("%dx", readerBenchTimes), "-test.cpu", strconv.Itoa(cpus))
	cmd.Env = append(os.Environ(), "PROVEIT_BENCH_TREE="+tree)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return 0, 0, fmt.Errorf("BenchmarkReaders/%s: %v: %s", reader, err, tail(string(out), 1000))
	}
	cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "BenchmarkReaders/"+reader) {
			if ns, err := strconv.ParseFloat(benchField(line, "ns/op"), 64); err == nil {
				return time.Duration(ns), cpu, nil
			}
		}
	}
	return 0, 0, fmt.Errorf("BenchmarkReaders/%s: no ns/op in %s", reader, tail(string(out), 1000))
}
