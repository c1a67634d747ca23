package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// The machine is shared: a run during which other processes took CPU is
// measured again, and the run with the least of it is kept.

// ticksPerSecond is the unit of /proc's CPU times (USER_HZ).
const ticksPerSecond = 100

// quietEnough is the CPU, in cores, that other processes may take during a
// run before it is measured again.
const quietEnough = 0.10

// attempts bounds how many times one run is measured.
const attempts = 3

// pfKthread marks a kernel thread in /proc/<pid>/stat's flags.
const pfKthread = 0x00200000

// procStat is what othersTicks reads of a process.
type procStat struct {
	ppid    int
	kthread bool
	ticks   int64 // utime + stime + cutime + cstime: its own and its reaped children's
}

// readProcStat parses /proc/<pid>/stat.
func readProcStat(pid int) (procStat, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, false
	}
	// The command name, in parentheses, may hold spaces: fields count from
	// after it (state is field 3 of the line, here f[0]).
	rest := string(data)
	if i := strings.LastIndexByte(rest, ')'); i >= 0 {
		rest = rest[i+1:]
	}
	f := strings.Fields(rest)
	if len(f) < 15 {
		return procStat{}, false
	}
	n := func(i int) int64 { v, _ := strconv.ParseInt(f[i], 10, 64); return v }
	return procStat{ppid: int(n(1)), kthread: n(6)&pfKthread != 0, ticks: n(11) + n(12) + n(13) + n(14)}, true
}

// othersTicks is the CPU time, in ticks, used by every process of the
// machine but kernel threads (whose writeback of the servers' log files is
// the servers' own cost) and the benchmark with its descendants. A process
// that ended counts through its parent's children times.
func othersTicks() int64 {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	procs := map[int]procStat{}
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			if st, ok := readProcStat(pid); ok {
				procs[pid] = st
			}
		}
	}
	return othersTicksOf(procs, os.Getpid())
}

// othersTicksOf sums the ticks of the processes that are neither kernel
// threads nor self and its descendants.
func othersTicksOf(procs map[int]procStat, self int) int64 {
	ours := func(pid int) bool {
		for depth := 0; pid > 1 && depth < 64; depth++ {
			if pid == self {
				return true
			}
			pid = procs[pid].ppid
		}
		return false
	}
	var total int64
	for pid, st := range procs {
		if !st.kthread && !ours(pid) {
			total += st.ticks
		}
	}
	return total
}

// foreignCPU runs a load against a server and returns, in cores, the CPU
// that other processes of the machine used meanwhile.
func foreignCPU(load func() error) (float64, error) {
	before, start := othersTicks(), time.Now()
	err := load()
	elapsed := time.Since(start).Seconds()
	return max(0, float64(othersTicks()-before)/ticksPerSecond/elapsed), err
}

// quietWait bounds how long waitQuiet waits for the other processes to calm
// down before a run is measured again.
const quietWait = 20 * time.Second

// retryBudget is the part of the run after which a disturbed run is kept as
// it is, so that the whole benchmark ends within its bound: its figures
// then carry the CPU others took.
const retryBudget = 2 * time.Minute

// mayRetry says whether a disturbed run may still be measured again.
func (b *bench) mayRetry() bool {
	return time.Since(b.started) < retryBudget
}

// waitQuiet waits, up to quietWait, until the machine's other processes
// take less than quietEnough CPU over a few seconds.
func (b *bench) waitQuiet() {
	deadline := time.Now().Add(quietWait)
	for time.Now().Before(deadline) {
		other, _ := foreignCPU(func() error { time.Sleep(3 * time.Second); return nil })
		if other <= quietEnough {
			return
		}
	}
	b.log("other processes are still busy after %s: measuring anyway", quietWait)
}
