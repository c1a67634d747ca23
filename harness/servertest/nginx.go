package servertest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// NginxBinary returns the path of nginx, on PATH or at /usr/sbin/nginx.
// Without one the test is skipped, or fails when the CI environment variable
// is set: CI installs nginx (.ci/run), so there its absence is a fault.
func NginxBinary(t testing.TB) string {
	t.Helper()
	if path, err := lookNginx(); err == nil {
		return path
	}
	if os.Getenv("CI") != "" {
		t.Fatal("nginx is not installed, and CI is set: .ci/run installs it (apt-get install -y nginx)")
	}
	t.Skip("nginx is not installed (apt-get install -y nginx); CI fails here instead of skipping")
	return ""
}

// lookNginx finds nginx on PATH or at /usr/sbin/nginx, where Debian puts
// it out of a user's PATH.
func lookNginx() (string, error) {
	if path, err := exec.LookPath("nginx"); err == nil {
		return path, nil
	}
	if _, err := os.Stat("/usr/sbin/nginx"); err != nil {
		return "", fmt.Errorf("nginx is not installed (apt-get install -y nginx)")
	}
	return "/usr/sbin/nginx", nil
}

// NginxVersion is the version of nginx ("1.22.1").
func NginxVersion(t testing.TB) string {
	t.Helper()
	out, err := exec.Command(NginxBinary(t), "-v").CombinedOutput()
	if err != nil {
		t.Fatalf("nginx -v: %v: %s", err, out)
	}
	_, version, _ := strings.Cut(strings.TrimSpace(string(out)), "nginx/")
	return version
}

// NginxOptions configure an nginx server.
type NginxOptions struct {
	// Vhost is the configuration included in the http {} context.
	Vhost string
	// Port is the loopback port the vhost listens on: Start waits until it
	// answers there.
	Port int
	// Lifetime bounds how long nginx may live (default 10 minutes).
	Lifetime time.Duration
	// Workers is the number of worker processes (default 2).
	Workers int
	// Binary is nginx; Start defaults to NginxBinary(t), Launch to nginx on
	// PATH or /usr/sbin/nginx.
	Binary string
	// Dir holds nginx's configuration, logs and temporary files; Start
	// defaults to a temporary folder of the test, Launch requires it.
	Dir string
	// CPUs pins nginx to these CPUs (a taskset list); empty: not pinned.
	CPUs string
	// TLS: the vhost listens with ssl on Port (its certificate is the
	// vhost's business); Start waits for an HTTPS answer.
	TLS bool
}

// Nginx is a running nginx: its master in the foreground, a child of the
// test, with its logs and temporary files in a folder of its own.
type Nginx struct {
	*Process
	URL    string // http://127.0.0.1:PORT
	Port   int
	Dir    string
	binary string
	conf   string
}

// StartNginx checks the configuration with nginx -t, then runs nginx and
// waits until it answers; the test fails if it does not, and nginx is
// stopped when the test ends.
func StartNginx(t testing.TB, o NginxOptions) *Nginx {
	t.Helper()
	if o.Binary == "" {
		o.Binary = NginxBinary(t)
	}
	if o.Dir == "" {
		o.Dir = t.TempDir()
	}
	n, err := LaunchNginx(o)
	if n != nil {
		t.Cleanup(n.Stop)
	}
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// LaunchNginx checks the configuration with nginx -t, then runs nginx and
// waits until it answers, for callers without a test; the caller stops it.
// As root, nginx runs in a PID namespace of its own: its workers die with
// the master however the caller ends (a worker whose master is killed
// would otherwise keep serving the port).
func LaunchNginx(o NginxOptions) (*Nginx, error) {
	if o.Binary == "" {
		var err error
		if o.Binary, err = lookNginx(); err != nil {
			return nil, err
		}
	}
	if o.Dir == "" {
		return nil, fmt.Errorf("no folder for nginx's files (NginxOptions.Dir)")
	}
	scheme := "http"
	if o.TLS {
		scheme = "https"
	}
	n := &Nginx{URL: fmt.Sprintf("%s://127.0.0.1:%d", scheme, o.Port), Port: o.Port, Dir: o.Dir, binary: o.Binary}
	var err error
	if n.conf, err = writeNginxConf(o.Dir, o.Vhost, o.Workers); err != nil {
		return nil, err
	}
	if out, err := exec.Command(o.Binary, nginxArgs(o.Dir, n.conf, "-t")...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("nginx -t: %v\n%s", err, out)
	}
	n.Process, err = launch{
		bin:      o.Binary,
		args:     nginxArgs(o.Dir, n.conf),
		env:      baseEnv(o.Dir),
		dir:      o.Dir,
		cpus:     o.CPUs,
		lifetime: o.Lifetime,
		newPID:   os.Geteuid() == 0,
	}.start()
	if err != nil {
		return nil, err
	}
	if err := n.waitAnswers(n.URL, readyLimit); err != nil {
		n.Stop()
		return n, fmt.Errorf("nginx did not start: %v\n%s\n%s", err, n.Output(), n.readLog(n.ErrorLog()))
	}
	return n, nil
}

// CheckNginx runs nginx -t on a vhost, as StartNginx would include it, and
// returns nginx's output.
func CheckNginx(t testing.TB, vhost string) (string, error) {
	t.Helper()
	bin := NginxBinary(t)
	dir := t.TempDir()
	conf, err := writeNginxConf(dir, vhost, 0)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, nginxArgs(dir, conf, "-t")...).CombinedOutput()
	return string(out), err
}

// nginxArgs runs the master in the foreground, all its files under dir.
func nginxArgs(dir, conf string, extra ...string) []string {
	global := fmt.Sprintf("daemon off; master_process on; pid %s;", filepath.Join(dir, "nginx.pid"))
	return append([]string{"-p", dir, "-e", filepath.Join(dir, "error.log"), "-c", conf, "-g", global}, extra...)
}

// writeNginxConf writes the main configuration around a vhost: workers
// worker processes (0: two), the access log written to a file as Debian's
// default does, every file in dir. The error log stays at notice: at info
// nginx quotes the start of an invalid header line, which may be the
// secret's.
func writeNginxConf(dir, vhost string, workers int) (string, error) {
	for _, sub := range []string{"body", "proxy", "fastcgi", "uwsgi", "scgi"} {
		if err := os.MkdirAll(filepath.Join(dir, "temp", sub), 0o700); err != nil {
			return "", err
		}
	}
	if workers == 0 {
		workers = 2
	}
	user := ""
	if os.Geteuid() == 0 {
		// Workers read the caller's temporary folders, which only root may enter.
		user = "user root;\n"
	}
	conf := filepath.Join(dir, "nginx.conf")
	text := fmt.Sprintf(`# Written by servertest: a private nginx.
%sworker_processes %d;
error_log %[3]s/error.log notice;
events {
    worker_connections 1024;
}
http {
    access_log %[3]s/access.log;
    client_body_temp_path %[3]s/temp/body;
    proxy_temp_path %[3]s/temp/proxy;
    fastcgi_temp_path %[3]s/temp/fastcgi;
    uwsgi_temp_path %[3]s/temp/uwsgi;
    scgi_temp_path %[3]s/temp/scgi;
    include %[4]s;
}
`, user, workers, dir, vhost)
	return conf, os.WriteFile(conf, []byte(text), 0o644)
}

// Reload checks the configuration, then has the master re-read it (SIGHUP),
// exactly as an operator's nginx -s reload, and waits until the new workers
// run. Old workers finish the requests they hold, then exit.
func (n *Nginx) Reload(t testing.TB) error {
	t.Helper()
	if out, err := exec.Command(n.binary, nginxArgs(n.Dir, n.conf, "-t")...).CombinedOutput(); err != nil {
		return fmt.Errorf("nginx -t: %v: %s", err, out)
	}
	before := strings.Count(n.readLog(n.ErrorLog()), "reconfiguring")
	if err := n.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		return err
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		log := n.readLog(n.ErrorLog())
		if i := strings.LastIndex(log, "reconfiguring"); i >= 0 && strings.Count(log, "reconfiguring") > before &&
			strings.Contains(log[i:], "start worker process") {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("nginx did not reload within 10s")
}

// ErrorLog is nginx's error log; AccessLog its access log.
func (n *Nginx) ErrorLog() string  { return filepath.Join(n.Dir, "error.log") }
func (n *Nginx) AccessLog() string { return filepath.Join(n.Dir, "access.log") }

// AllLogs returns everything nginx wrote: its output and both logs.
func (n *Nginx) AllLogs() string {
	return n.Output() + n.readLog(n.ErrorLog()) + n.readLog(n.AccessLog())
}

func (n *Nginx) readLog(path string) string {
	data, _ := os.ReadFile(path) // a log not written yet is empty
	return string(data)
}
