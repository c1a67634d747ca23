package main

import (
	"bytes"
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

func (r *report) readersSection(w *bytes.Buffer) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	var runs []*corpusRun
	for _, c := range r.Corpora {
		if c.Readers != nil {
			runs = append(runs, c)
		}
	}
	if len(runs) == 0 {
		return
	}
	p("## The tree reader")
	p("")
	p("Package `manifest/tree` reads every tree on every platform through `os` and `io/fs` (*portable*); *system calls* is the Linux reader "+
		"it replaced (getdents64, openat and read on raw descriptors), kept as the yardstick of its tests. `BenchmarkReaders` scans the tree "+
		"on disk with each, as start-up and `proveit manifest` read it (listing, refusals, every byte read, nothing else done with the bytes), "+
		"%d scans a run; the two run in turn, %d rounds, the first of a round alternating, and the median is kept, with one CPU (pinned to CPU %s) "+
		"and with every CPU; *CPU time* is the user and system time of each whole run, the test binary's start included, which "+
		"other processes of a shared machine disturb less than wall time. Reading is only part of start-up and of `proveit manifest`, which gain less from a faster reader than the "+
		"reading does; the system-call reader would be worth a build-tagged twin only if it made one of them %.1f× as fast.",
		readerBenchTimes, r.Config.repeat, r.Config.serverCPU, fastPathGain)
	p("")
	p("| corpus | CPUs | portable | system calls | portable ÷ system calls | CPU time: portable | system calls | portable ÷ system calls | others' CPU |")
	p("|---|--:|--:|--:|--:|--:|--:|--:|--:|")
	for _, c := range runs {
		for _, t := range c.Readers.Timings {
			p("| %s | %d | %s | %s | %.2f× | %s | %s | %.2f× | %.2f |", c.Corpus.Name, t.CPUs,
				sec(t.Portable), sec(t.Syscalls), t.Portable.Seconds()/t.Syscalls.Seconds(),
				sec(t.PortableCPU), sec(t.SyscallsCPU), t.PortableCPU.Seconds()/t.SyscallsCPU.Seconds(), c.Readers.Other)
		}
	}
	p("")
}
