package servertest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProcess starts a plain program through the harness, pinned to CPU 0,
// and checks what the benchmark reads of it: memory, output, and that Stop
// ends it.
func TestProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("taskset and /proc are Linux's")
	}
	p, err := launch{bin: "sh", args: []string{"-c", "echo started; exec sleep 30"}, cpus: "0", lifetime: time.Minute}.start()
	require.NoError(t, err)
	t.Cleanup(p.Kill)
	require.Eventually(t, func() bool { return p.Output() == "started\n" }, 10*time.Second, 10*time.Millisecond)
	// The shell prints, then becomes sleep: read the memory of the one
	// program, not of the shell before the exec and of sleep after it.
	require.Eventually(t, func() bool {
		comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", p.cmd.Process.Pid))
		return err == nil && string(comm) == "sleep\n"
	}, 10*time.Second, 10*time.Millisecond)
	// sleep may still be loading its libraries, its resident set growing:
	// only one reading proves the order of its fields.
	m := p.Memory()
	assert.Positive(t, m.RSS)
	assert.GreaterOrEqual(t, m.PeakRSS, m.RSS)
	assert.GreaterOrEqual(t, m.RSS, m.FileRSS)
	affinity, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	require.NoError(t, err)
	assert.Contains(t, string(affinity), "Cpus_allowed_list:\t0\n", "taskset pins the server itself")
	p.Stop()
	select {
	case <-p.done:
	default:
		t.Fatal("Stop returned before the process ended")
	}
	assert.Equal(t, Memory{}, p.Memory(), "a process gone has no memory")
}

// TestMemoryOneMoment reads a program's memory over and over while it starts
// and grows: every reading must hold PeakRSS >= RSS >= FileRSS, which
// fields read one after the other break as soon as a page is mapped between
// the reads.
func TestMemoryOneMoment(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Memory reads Linux's /proc")
	}
	awk, err := exec.LookPath("awk")
	if err != nil {
		t.Skip("no awk to grow a process")
	}
	for _, tt := range []struct {
		name string
		bin  string
		args []string
	}{
		// A program whose heap grows for a few hundred milliseconds.
		{"growing heap", awk, []string{"BEGIN { for (i = 0; i < 400000; i++) a[i] = i }"}},
		// A shell that becomes another program: the reading may straddle
		// the exec, when the new image maps its libraries.
		{"exec", "sh", []string{"-c", "exec " + awk + " 'BEGIN { for (i = 0; i < 100000; i++) a[i] = i }'"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := launch{bin: tt.bin, args: tt.args, lifetime: time.Minute}.start()
			require.NoError(t, err)
			t.Cleanup(p.Kill)
			readings, grew := 0, false
			var first Memory
			for running := true; running; {
				select {
				case <-p.done:
					running = false
				default:
				}
				m := p.Memory()
				if m == (Memory{}) {
					continue // not started, or exited: nothing to compare
				}
				if readings == 0 {
					first = m
				}
				readings++
				grew = grew || m.RSS > first.PeakRSS
				require.GreaterOrEqual(t, m.PeakRSS, m.RSS, "reading %d: %+v", readings, m)
				require.GreaterOrEqual(t, m.RSS, m.FileRSS, "reading %d: %+v", readings, m)
			}
			require.Positive(t, readings, "the program was read at least once")
			// Whether the readings caught the growth depends on the
			// scheduler: said, not required, so that a loaded machine does
			// not fail the test for reading too late.
			t.Logf("%d readings, the first %+v, grew past its peak: %v", readings, first, grew)
		})
	}
}

func TestParseStatus(t *testing.T) {
	for _, tt := range []struct {
		name   string
		status string
		want   Memory
	}{
		{"running", "Name:\tsleep\nVmPeak:\t    8312 kB\nVmHWM:\t     1024 kB\nVmRSS:\t     1000 kB\nRssAnon:\t      90 kB\nRssFile:\t     910 kB\nRssShmem:\t       0 kB\n",
			Memory{RSS: 1000 << 10, PeakRSS: 1024 << 10, FileRSS: 910 << 10}},
		// VmPeak and RssShmem share a prefix or a suffix with the fields
		// read, and must not be taken for them.
		{"look-alike fields only", "VmPeak:\t 8312 kB\nRssShmem:\t 4 kB\nVmRSSx:\t 7 kB\n", Memory{}},
		{"zombie", "Name:\tsleep\nState:\tZ (zombie)\nThreads:\t1\n", Memory{}},
		{"empty", "", Memory{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, parseStatus([]byte(tt.status)))
		})
	}
}

func TestLaunchNeedsAFolder(t *testing.T) {
	_, err := Launch(Options{Binary: "/bin/true"})
	assert.ErrorContains(t, err, "Options.Dir")
	_, err = LaunchNginx(NginxOptions{Binary: "/bin/true"})
	assert.ErrorContains(t, err, "NginxOptions.Dir")
}

func TestNginxConfWorkers(t *testing.T) {
	for _, tt := range []struct {
		workers int
		want    string
	}{{0, "worker_processes 2;"}, {1, "worker_processes 1;"}} {
		dir := t.TempDir()
		conf, err := writeNginxConf(dir, "/v.conf", tt.workers)
		require.NoError(t, err)
		data, err := os.ReadFile(conf)
		require.NoError(t, err)
		assert.Contains(t, string(data), tt.want)
		assert.Contains(t, string(data), "include /v.conf;")
		assert.DirExists(t, filepath.Join(dir, "temp", "body"))
	}
}

// TestPickPortNeverRepeats: the ports handed out are all free when handed
// out, and never the same twice, even once the listener that held one is
// closed and the system could give it again.
func TestPickPortNeverRepeats(t *testing.T) {
	seen := map[int]bool{}
	for range 2000 {
		port, err := PickPort()
		require.NoError(t, err)
		require.False(t, seen[port], "port %d handed out twice", port)
		seen[port] = true
	}
}

// TestSocketActivation hands a listening socket to a program as systemd
// does: it finds it at file descriptor 3, with LISTEN_FDS, LISTEN_FDNAMES
// and LISTEN_PID naming its own pid.
func TestSocketActivation(t *testing.T) {
	if !SocketActivation {
		t.Skip("socket activation needs a Unix system")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	f, err := ln.(*net.TCPListener).File()
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	p, err := launch{bin: "sh", args: []string{"-c", `test -S /dev/fd/3 && echo "$LISTEN_PID $$ $LISTEN_FDS $LISTEN_FDNAMES"`},
		lifetime: time.Minute, sockets: []Socket{{Name: "https", File: f}}}.start()
	require.NoError(t, err)
	t.Cleanup(p.Kill)
	<-p.done
	pid := p.cmd.Process.Pid
	assert.Equal(t, fmt.Sprintf("%d %d 1 https\n", pid, pid), p.Output())
}
