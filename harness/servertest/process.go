package servertest

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// DefaultLifetime bounds how long a server may live when its options say
// nothing: it is killed then even if the test or benchmark is stuck.
const DefaultLifetime = 10 * time.Minute

// readyLimit bounds a server's start-up, verification of a large corpus
// included.
const readyLimit = 2 * time.Minute

// Process is a running server process: a child that dies with the process
// that started it (on Linux: dieWithParent) and after its lifetime at the
// latest, its output kept in memory.
type Process struct {
	cmd     *exec.Cmd
	output  *SyncBuffer
	done    chan struct{}
	started time.Time
	startup time.Duration
}

// launch describes a process to start.
type launch struct {
	bin      string
	args     []string
	env      []string
	dir      string
	cpus     string // CPU list for taskset; empty: not pinned
	lifetime time.Duration
	newPID   bool     // a PID namespace of its own: its children die with it
	sockets  []Socket // handed over from file descriptor 3, as systemd does
}

func (l launch) start() (*Process, error) {
	if err := l.activate(); err != nil {
		return nil, err
	}
	lifetime := l.lifetime
	if lifetime == 0 {
		lifetime = DefaultLifetime
	}
	name, args := l.bin, l.args
	if l.cpus != "" {
		// taskset execs the server: the process started is the server.
		name, args = "taskset", append([]string{"-c", l.cpus, l.bin}, l.args...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), lifetime)
	p := &Process{output: &SyncBuffer{}, done: make(chan struct{})}
	p.cmd = exec.CommandContext(ctx, name, args...)
	p.cmd.Env, p.cmd.Dir = l.env, l.dir
	p.cmd.Stdout, p.cmd.Stderr = p.output, p.output
	for _, s := range l.sockets {
		p.cmd.ExtraFiles = append(p.cmd.ExtraFiles, s.File)
	}
	dieWithParent(p.cmd, l.newPID)
	p.started = time.Now()
	if err := p.cmd.Start(); err != nil {
		cancel()
		return nil, err
	}
	go func() {
		_ = p.cmd.Wait()
		cancel()
		close(p.done)
	}()
	return p, nil
}

// waitAnswers waits until url answers anything, and records the time from
// exec to that answer.
func (p *Process) waitAnswers(url string, limit time.Duration) error {
	// The readiness check only needs an answer: any certificate will do.
	transport := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, DisableKeepAlives: true}
	client := &http.Client{Timeout: time.Second, Transport: transport}
	deadline := p.started.Add(limit)
	for time.Now().Before(deadline) {
		select {
		case <-p.done:
			return fmt.Errorf("exited")
		default:
		}
		if resp, err := client.Get(url + "/referentiel"); err == nil {
			resp.Body.Close()
			p.startup = time.Since(p.started)
			return nil
		}
		time.Sleep(5 * time.Millisecond)
	}
	return fmt.Errorf("no answer within %s", limit)
}

// Startup is the time from exec to the first answer.
func (p *Process) Startup() time.Duration { return p.startup }

// Stop ends the process (SIGTERM: a clean shutdown) and waits for it.
func (p *Process) Stop() {
	if p.cmd.Process == nil {
		return
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		// A system without signals (Windows) is only told to kill.
		_ = p.cmd.Process.Kill()
	}
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// Kill ends the process at once (SIGKILL), as a crash would, and waits for it.
func (p *Process) Kill() {
	if p.cmd.Process != nil {
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// Output is what the process printed.
func (p *Process) Output() string { return p.output.String() }

// Memory is one reading of the memory of a process and of its children
// (nginx's workers), in bytes: each process's fields come from a single read
// of its /proc/<pid>/status, which the kernel writes in one pass, so within a
// reading PeakRSS >= RSS >= FileRSS always holds. Fields read at different
// moments promise nothing of the kind: a process that maps a page between
// the two reads has a resident set above the peak read before it.
type Memory struct {
	// RSS is the resident set now (VmRSS).
	RSS int64
	// PeakRSS is the peak resident set (VmHWM): the kernel reports the
	// larger of its recorded peak and the resident set now.
	PeakRSS int64
	// FileRSS is the part of RSS that maps files (RssFile): mostly the
	// executable's own pages, which the page cache shares and can reclaim,
	// unlike the heap.
	FileRSS int64
}

// Memory reads the memory of the process and of its children at once; zero
// once the process is gone, and where the system has no Linux /proc.
func (p *Process) Memory() Memory {
	var total Memory
	for _, pid := range processTree(p.cmd.Process.Pid) {
		m := readMemory(pid)
		total.RSS += m.RSS
		total.PeakRSS += m.PeakRSS
		total.FileRSS += m.FileRSS
	}
	return total
}

// PeakRSS is Memory().PeakRSS. To compare it with RSS or FileRSS, take one
// Memory instead: separate calls read the process at different moments.
func (p *Process) PeakRSS() int64 { return p.Memory().PeakRSS }

// RSS is Memory().RSS; see PeakRSS.
func (p *Process) RSS() int64 { return p.Memory().RSS }

// FileRSS is Memory().FileRSS; see PeakRSS.
func (p *Process) FileRSS() int64 { return p.Memory().FileRSS }

// parseStatus reads the size fields of Memory from the text of one
// /proc/<pid>/status ("VmRSS:\t  1234 kB"); a field missing (a zombie has
// none) is 0.
func parseStatus(data []byte) Memory {
	var m Memory
	fields := map[string]*int64{"VmRSS": &m.RSS, "VmHWM": &m.PeakRSS, "RssFile": &m.FileRSS}
	for _, line := range strings.Split(string(data), "\n") {
		name, rest, ok := strings.Cut(line, ":")
		if field := fields[name]; ok && field != nil {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			*field = kb * 1024
		}
	}
	return m
}

// PickPort returns a loopback TCP port that is free now and that this
// process has never returned before: two servers it starts never share a
// port, not even one just stopped that may still be closing its own
// (Caddy binds with SO_REUSEPORT, so a second listener on a port is no
// error, only a server answering in another's place).
func PickPort() (int, error) {
	pickedMu.Lock()
	defer pickedMu.Unlock()
	for range 1000 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if !picked[port] {
			picked[port] = true
			return port, nil
		}
	}
	return 0, errors.New("no loopback port left that this process has not used")
}

var (
	pickedMu sync.Mutex
	picked   = map[int]bool{} // the ports PickPort returned
)

// baseEnv is this process's environment without the corpus variables, with
// HOME and Caddy's data and config folders inside dir.
func baseEnv(dir string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); !strings.HasPrefix(name, "CORPUS_") {
			env = append(env, kv)
		}
	}
	return append(env,
		"HOME="+dir,
		"XDG_DATA_HOME="+filepath.Join(dir, "data"),
		"XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
	)
}

// findRepoRoot is the folder holding go.mod, above the working directory.
func findRepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

// SyncBuffer collects a process's output while a test reads it.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
