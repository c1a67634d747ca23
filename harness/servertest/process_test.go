package servertest

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestProcess starts a plain program through the harness, pinned to CPU 0,
// and checks what the benchmark reads of it: memory, output, and that Stop
// ends it.
func TestProcess(t *testing.T) {
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
	assert.Positive(t, p.RSS())
	assert.GreaterOrEqual(t, p.PeakRSS(), p.RSS())
	affinity, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	require.NoError(t, err)
	assert.Contains(t, string(affinity), "Cpus_allowed_list:\t0\n", "taskset pins the server itself")
	p.Stop()
	select {
	case <-p.done:
	default:
		t.Fatal("Stop returned before the process ended")
	}
	assert.Zero(t, p.RSS(), "a process gone has no memory")
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
