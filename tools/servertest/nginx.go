package servertest

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
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
	if path, err := exec.LookPath("nginx"); err == nil {
		return path
	}
	if _, err := os.Stat("/usr/sbin/nginx"); err == nil {
		return "/usr/sbin/nginx"
	}
	if os.Getenv("CI") != "" {
		t.Fatal("nginx is not installed, and CI is set: .ci/run installs it (apt-get install -y nginx)")
	}
	t.Skip("nginx is not installed (apt-get install -y nginx); CI fails here instead of skipping")
	return ""
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
	// TLS: the vhost listens with ssl on Port (its certificate is the
	// vhost's business); Start waits for an HTTPS answer.
	TLS bool
}

// Nginx is a running nginx: its master in the foreground, a child of the
// test, with its logs and temporary files in a folder of its own.
type Nginx struct {
	URL    string // http://127.0.0.1:PORT
	Port   int
	Dir    string
	conf   string
	cmd    *exec.Cmd
	output *syncBuffer
	done   chan struct{}
}

// StartNginx checks the configuration with nginx -t, then runs nginx and
// waits until it answers. As root, nginx runs in a PID namespace of its own:
// its workers die with the master however the test ends (a worker whose
// master is killed would otherwise keep serving the port).
func StartNginx(t testing.TB, o NginxOptions) *Nginx {
	t.Helper()
	bin := NginxBinary(t)
	dir := t.TempDir()
	scheme := "http"
	if o.TLS {
		scheme = "https"
	}
	n := &Nginx{URL: fmt.Sprintf("%s://127.0.0.1:%d", scheme, o.Port), Port: o.Port, Dir: dir, done: make(chan struct{})}
	var err error
	if n.conf, err = writeNginxConf(dir, o.Vhost); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, nginxArgs(dir, n.conf, "-t")...).CombinedOutput(); err != nil {
		t.Fatalf("nginx -t: %v\n%s", err, out)
	}
	lifetime := o.Lifetime
	if lifetime == 0 {
		lifetime = 10 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), lifetime)
	n.cmd = exec.CommandContext(ctx, bin, nginxArgs(dir, n.conf)...)
	n.cmd.Dir = dir
	n.output = &syncBuffer{}
	n.cmd.Stdout, n.cmd.Stderr = n.output, n.output
	n.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if os.Geteuid() == 0 {
		n.cmd.SysProcAttr.Cloneflags = syscall.CLONE_NEWPID
	}
	if err := n.cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	go func() {
		_ = n.cmd.Wait()
		cancel()
		close(n.done)
	}()
	t.Cleanup(n.Stop)
	// The readiness check only needs an answer: any certificate will do.
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	if err := waitAnswers(client, n.URL, n.done, 30*time.Second); err != nil {
		t.Fatalf("nginx did not start: %v\n%s\n%s", err, n.output.String(), n.readLog(n.ErrorLog()))
	}
	return n
}

// CheckNginx runs nginx -t on a vhost, as StartNginx would include it, and
// returns nginx's output.
func CheckNginx(t testing.TB, vhost string) (string, error) {
	t.Helper()
	bin := NginxBinary(t)
	dir := t.TempDir()
	conf, err := writeNginxConf(dir, vhost)
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

// writeNginxConf writes the main configuration around a vhost. The error log
// stays at notice: at info nginx quotes the start of an invalid header line,
// which may be the secret's.
func writeNginxConf(dir, vhost string) (string, error) {
	for _, sub := range []string{"body", "proxy", "fastcgi", "uwsgi", "scgi"} {
		if err := os.MkdirAll(filepath.Join(dir, "temp", sub), 0o700); err != nil {
			return "", err
		}
	}
	user := ""
	if os.Geteuid() == 0 {
		// Workers read the test's temporary folders, which only root may enter.
		user = "user root;\n"
	}
	conf := filepath.Join(dir, "nginx.conf")
	text := fmt.Sprintf(`# Written by servertest: a private nginx for one test.
%sworker_processes 2;
error_log %[2]s/error.log notice;
events {
    worker_connections 1024;
}
http {
    access_log %[2]s/access.log;
    client_body_temp_path %[2]s/temp/body;
    proxy_temp_path %[2]s/temp/proxy;
    fastcgi_temp_path %[2]s/temp/fastcgi;
    uwsgi_temp_path %[2]s/temp/uwsgi;
    scgi_temp_path %[2]s/temp/scgi;
    include %[3]s;
}
`, user, dir, vhost)
	return conf, os.WriteFile(conf, []byte(text), 0o644)
}

// waitAnswers waits until url answers anything, or the process is done.
func waitAnswers(client *http.Client, url string, done <-chan struct{}, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			return fmt.Errorf("exited")
		default:
		}
		if resp, err := client.Get(url + "/referentiel"); err == nil {
			resp.Body.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("no answer within %s", limit)
}

// Reload checks the configuration, then has the master re-read it (SIGHUP),
// exactly as an operator's nginx -s reload, and waits until the new workers
// run. Old workers finish the requests they hold, then exit.
func (n *Nginx) Reload(t testing.TB) error {
	t.Helper()
	if out, err := exec.Command(NginxBinary(t), nginxArgs(n.Dir, n.conf, "-t")...).CombinedOutput(); err != nil {
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

// Stop ends nginx (fast shutdown) and waits for it.
func (n *Nginx) Stop() {
	if n.cmd.Process == nil {
		return
	}
	_ = n.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-n.done:
	case <-time.After(10 * time.Second):
		_ = n.cmd.Process.Kill()
		<-n.done
	}
}

// ErrorLog is nginx's error log; AccessLog its access log.
func (n *Nginx) ErrorLog() string  { return filepath.Join(n.Dir, "error.log") }
func (n *Nginx) AccessLog() string { return filepath.Join(n.Dir, "access.log") }

// AllLogs returns everything nginx wrote: its output and both logs.
func (n *Nginx) AllLogs() string {
	return n.output.String() + n.readLog(n.ErrorLog()) + n.readLog(n.AccessLog())
}

func (n *Nginx) readLog(path string) string {
	data, _ := os.ReadFile(path) // a log not written yet is empty
	return string(data)
}
