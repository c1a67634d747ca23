package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// serverLifetime bounds how long any server of the benchmark may live: it
// is killed then even if the benchmark is stuck.
const serverLifetime = 10 * time.Minute

// readyLimit bounds a server's start-up, verification of a large corpus
// included.
const readyLimit = 2 * time.Minute

// A setup is one way of serving a corpus.
type setup struct {
	Key  string // names the setup in ratios and targets
	Name string
	Note string // what the setup is, for the table's legend
	// start launches the server; it returns why the setup cannot run, if so.
	start func(b *bench, c *corpusSet, s *server) error
}

const (
	keyCorpus       = "corpus"
	keyCorpusNoTele = "corpus-no-telemetry"
	keyCorpusNoAcc  = "corpus-no-access-log"
	keyCorpusNoLogs = "corpus-no-logs"
	keyRespond      = "respond"
	keyFileServer   = "file_server"
	keyNginx        = "nginx"
)

func setups() []setup {
	return []setup{
		{keyCorpus, "proveit_corpus, shipped Caddyfile",
			"this project's Caddy build and shipped Caddyfile; telemetry and access log written to files, as in production",
			startCorpus(true, true)},
		{keyCorpusNoTele, "proveit_corpus, telemetry off",
			"the same with `CORPUS_TELEMETRY_OUTPUT=discard` (the access log is still written)",
			startCorpus(false, true)},
		{keyCorpusNoAcc, "proveit_corpus, access log off",
			"the same with `CORPUS_ACCESS_OUTPUT=discard` (telemetry is still written)",
			startCorpus(true, false)},
		{keyCorpusNoLogs, "proveit_corpus, no logs",
			"the same with telemetry and access log `discard`: the module alone",
			startCorpus(false, false)},
		{keyRespond, "Caddy `respond` (floor)",
			"the same binary, a plain Caddyfile whose static `respond` answers one fixed body: the floor of any Caddy handler",
			startRespond},
		{keyFileServer, "Caddy `file_server`, gated",
			"the same binary, a plain Caddyfile: `@ok header X-Challenge-Secret`, the contract's headers, stock `file_server` over the tree",
			startFileServer},
		{keyNginx, "nginx, generated vhost",
			"nginx from Debian, one worker (peak RSS adds the master's), access log written to a file; the vhost `proveit nginx -root` generates, " +
				"in which a front server checks each call and hands it to nginx's own backend server over a unix socket",
			startNginx},
	}
}

// server is one running server, pinned to the server CPU.
type server struct {
	Addr    string // 127.0.0.1:port
	Port    int
	Admin   string // Caddy's admin endpoint, empty for nginx
	Dir     string
	Startup time.Duration // from exec to the first right answer

	cmd     *exec.Cmd
	newPID  bool // run in a PID namespace of its own (nginx: its worker dies with it)
	started time.Time
	done    chan struct{}
	cancel  context.CancelFunc
}

func newServer(b *bench, name string) (*server, error) {
	dir, err := os.MkdirTemp(b.work, name+"-")
	if err != nil {
		return nil, err
	}
	s := &server{Dir: dir, done: make(chan struct{})}
	if s.Port, err = freePort(); err != nil {
		return nil, err
	}
	admin, err := freePort()
	if err != nil {
		return nil, err
	}
	s.Addr = "127.0.0.1:" + strconv.Itoa(s.Port)
	s.Admin = "127.0.0.1:" + strconv.Itoa(admin)
	return s, nil
}

// startServer launches a setup and waits until it answers a resource of
// the corpus with 200.
func (b *bench) startServer(c *corpusSet, st setup) (*server, error) {
	s, err := newServer(b, st.Key)
	if err != nil {
		return nil, err
	}
	if err := st.start(b, c, s); err != nil {
		return nil, err
	}
	if err := s.waitReady(c.documents()[0], b.secret); err != nil {
		s.Stop()
		log, _ := os.ReadFile(filepath.Join(s.Dir, "output.log"))
		return nil, fmt.Errorf("%s did not start: %v\n%s", st.Name, err, tail(string(log), 2000))
	}
	return s, nil
}

// exec starts the command pinned to the server CPU. It dies with the
// benchmark (Pdeathsig) and after serverLifetime at the latest.
func (s *server) exec(b *bench, env []string, name string, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), serverLifetime)
	s.cancel = cancel
	s.cmd = exec.CommandContext(ctx, "taskset", append([]string{"-c", b.serverCPU, name}, args...)...)
	s.cmd.Env = env
	s.cmd.Dir = s.Dir
	out, err := os.Create(filepath.Join(s.Dir, "output.log"))
	if err != nil {
		cancel()
		return err
	}
	s.cmd.Stdout, s.cmd.Stderr = out, out
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if s.newPID {
		pidNamespace(s.cmd.SysProcAttr)
	}
	s.started = time.Now()
	if err := s.cmd.Start(); err != nil {
		cancel()
		out.Close()
		return err
	}
	go func() {
		_ = s.cmd.Wait()
		out.Close()
		cancel()
		close(s.done)
	}()
	return nil
}

// waitReady polls until the server answers path with 200, and records the
// time from exec.
func (s *server) waitReady(path, secret string) error {
	deadline := s.started.Add(readyLimit)
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			return fmt.Errorf("exited")
		default:
		}
		if status, err := get(s.Addr, path, secret); err == nil && status == http.StatusOK {
			s.Startup = time.Since(s.started)
			return nil
		}
		time.Sleep(5 * time.Millisecond)
	}
	return fmt.Errorf("no answer within %s", readyLimit)
}

// get sends one GET with the secret header and returns the status.
func get(addr, path, secret string) (int, error) {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nX-Challenge-Secret: %s\r\nConnection: close\r\n\r\n", path, addr, secret); err != nil {
		return 0, err
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

// Stop ends the server and waits for it.
func (s *server) Stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	s.cancel()
}

// PeakRSS is the server's peak resident set (VmHWM), in bytes: for nginx,
// that of the master and of its worker added.
func (s *server) PeakRSS() int64 { return s.sum("VmHWM") }

// RSS is the server's resident set now (VmRSS), in bytes.
func (s *server) RSS() int64 { return s.sum("VmRSS") }

func (s *server) sum(field string) int64 {
	var total int64
	for _, pid := range s.processes() {
		total += procStatus(pid, field)
	}
	return total
}

// procStatus reads a size field of /proc/<pid>/status, in bytes; 0 when
// the process is gone.
// heapStats reads the Go runtime's memory statistics of a Caddy server
// from its admin endpoint; gc first runs a collection, so that HeapAlloc
// is the live heap. Zero values when the server has no admin endpoint.
func (s *server) heapStats(gc bool) (heapAlloc, sys int64) {
	if s.Admin == "" {
		return 0, 0
	}
	url := "http://" + s.Admin + "/debug/pprof/heap?debug=1"
	if gc {
		url += "&gc=1"
	}
	client := http.Client{Timeout: 30 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		return 0, 0
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(body), "\n") {
		var name string
		var value int64
		if n, _ := fmt.Sscanf(line, "# %s = %d", &name, &value); n == 2 {
			switch name {
			case "HeapAlloc":
				heapAlloc = value
			case "Sys":
				sys = value
			}
		}
	}
	return heapAlloc, sys
}

func procStatus(pid int, field string) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// baseEnv is the benchmark's environment without the corpus variables, with
// HOME and Caddy's data and config folders inside the server's folder.
func baseEnv(dir string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "CORPUS_") && name != "BENCH_SECRET" {
			env = append(env, kv)
		}
	}
	return append(env,
		"HOME="+dir,
		"XDG_DATA_HOME="+filepath.Join(dir, "data"),
		"XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
	)
}

// startCorpus runs the shipped Caddyfile with the environment the
// integration tests use (tools/servertest), telemetry and access log to
// files of the server's folder or discarded.
func startCorpus(telemetry, access bool) func(*bench, *corpusSet, *server) error {
	return func(b *bench, c *corpusSet, s *server) error {
		output := func(on bool, file string) string {
			if on {
				return "file " + filepath.Join(s.Dir, file)
			}
			return "discard"
		}
		secrets := filepath.Join(s.Dir, "secrets")
		if err := os.Mkdir(secrets, 0o700); err != nil {
			return err
		}
		env := append(baseEnv(s.Dir),
			"CORPUS_SITE=http://"+s.Addr,
			fmt.Sprintf("CORPUS_OTHER_HOSTS=http://:%d", s.Port),
			"CORPUS_HOSTS=127.0.0.1 localhost corpus.arkforge.tech",
			"CORPUS_BIND=127.0.0.1",
			"CORPUS_ADMIN="+s.Admin,
			"CORPUS_PROTOCOLS=h1 h2c",
			"CORPUS_TELEMETRY_OUTPUT="+output(telemetry, "telemetry.log"),
			"CORPUS_ACCESS_OUTPUT="+output(access, "access.log"),
			"CORPUS_SERVER_OUTPUT=stderr",
			"CORPUS_SECRETS_DIR="+secrets,
			"CORPUS_CHALLENGE_SECRET="+b.secret,
		)
		if !c.Embedded {
			env = append(env, "CORPUS_ROOT="+c.Tree, "CORPUS_MANIFEST="+c.Manifest)
		}
		return s.exec(b, env, b.caddy, "run", "--config", b.caddyfile, "--adapter", "caddyfile")
	}
}

// respondCaddyfile answers every request with one fixed body.
const respondCaddyfile = `{
	admin %[1]s
}

http://%[2]s {
	bind 127.0.0.1
	respond ` + "`%[3]s`" + ` 200
}
`

// startRespond serves the body of the corpus's first resource to every
// request: what any handler inside Caddy costs at the least.
func startRespond(b *bench, c *corpusSet, s *server) error {
	body, err := os.ReadFile(filepath.Join(c.Tree, strings.TrimPrefix(c.documents()[0], "/")+".json"))
	if err != nil {
		return err
	}
	return s.runCaddyfile(b, fmt.Sprintf(respondCaddyfile, s.Admin, s.Addr, body))
}

// fileServerCaddyfile is stock Caddy serving the tree: gated on the secret
// header (read from the environment at run time), with the contract's
// headers, the 403 body for a call without the secret.
const fileServerCaddyfile = `{
	admin %[1]s
}

http://%[2]s {
	bind 127.0.0.1
	root * %[3]s
	header {
		Content-Type "application/json; charset=utf-8"
		Cache-Control "no-store, no-cache, must-revalidate, max-age=0"
		Pragma "no-cache"
		Expires "0"
		X-Content-Type-Options "nosniff"
		-ETag
		-Last-Modified
		-Accept-Ranges
	}
	@ok header X-Challenge-Secret {env.BENCH_SECRET}
	handle @ok {
		rewrite * {path}.json
		file_server
	}
	handle {
		rewrite * /_systeme/403.json
		file_server {
			status 403
		}
	}
}
`

func startFileServer(b *bench, c *corpusSet, s *server) error {
	return s.runCaddyfile(b, fmt.Sprintf(fileServerCaddyfile, s.Admin, s.Addr, c.Tree), "BENCH_SECRET="+b.secret)
}

// runCaddyfile runs this project's Caddy on a plain Caddyfile.
func (s *server) runCaddyfile(b *bench, caddyfile string, env ...string) error {
	file := filepath.Join(s.Dir, "Caddyfile")
	if err := os.WriteFile(file, []byte(caddyfile), 0o644); err != nil {
		return err
	}
	return s.exec(b, append(baseEnv(s.Dir), env...), b.caddy, "run", "--config", file, "--adapter", "caddyfile")
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
