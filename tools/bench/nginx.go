package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// nginxConf is the main configuration around the generated vhost: one
// worker (the server CPU), the access log written to a file as Debian's
// default does, the error log at notice (at info nginx quotes the start of
// an invalid header line, which may be the secret's), every file in the
// server's folder.
const nginxConf = `# Written by tools/bench: a private nginx for one benchmark run.
%[1]sworker_processes 1;
error_log %[2]s/error.log notice;
pid %[2]s/nginx.pid;
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
`

// startNginx serves the tree with nginx alone and the vhost `proveit nginx
// -root` generates. The gate include it needs holds the secret: it is
// written by `proveit nginx -write-gate`, mode 0600, in the server's folder
// of the scratch folder, which the benchmark removes when it ends.
func startNginx(b *bench, c *corpusSet, s *server) error {
	gate := filepath.Join(s.Dir, "gate.conf")
	vhost := filepath.Join(s.Dir, "vhost.conf")
	steps := [][]string{
		{"nginx", "-write-gate", "-gate", gate, "-manifest", c.Manifest},
		{"nginx", "-manifest", c.Manifest, "-root", c.Tree, "-backend-socket", filepath.Join(s.Dir, "backend.sock"),
			"-listen", s.Addr, "-hosts", "127.0.0.1,localhost", "-gate", gate, "-o", vhost},
	}
	for _, args := range steps {
		cmd := exec.Command(b.proveit, args...)
		cmd.Env = append(os.Environ(), "CORPUS_CHALLENGE_SECRET="+b.secret)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("proveit %s: %v: %s", strings.Join(args[:2], " "), err, tail(string(out), 500))
		}
	}
	for _, sub := range []string{"body", "proxy", "fastcgi", "uwsgi", "scgi"} {
		if err := os.MkdirAll(filepath.Join(s.Dir, "temp", sub), 0o700); err != nil {
			return err
		}
	}
	user := ""
	if os.Geteuid() == 0 {
		user = "user root;\n" // the worker reads the scratch folder, which only root may enter
	}
	conf := filepath.Join(s.Dir, "nginx.conf")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf(nginxConf, user, s.Dir, vhost)), 0o644); err != nil {
		return err
	}
	args := []string{"-p", s.Dir, "-e", filepath.Join(s.Dir, "error.log"), "-c", conf, "-g", "daemon off; master_process on;"}
	if out, err := exec.Command(b.nginx, append(args, "-t")...).CombinedOutput(); err != nil {
		return fmt.Errorf("nginx -t: %v: %s", err, tail(string(out), 500))
	}
	s.Admin = ""
	s.newPID = os.Geteuid() == 0 // the worker dies with the master, however the run ends
	return s.exec(b, baseEnv(s.Dir), b.nginx, args...)
}

// processes are the server's process and its children (nginx's worker).
func (s *server) processes() []int {
	pids := []int{s.cmd.Process.Pid}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", s.cmd.Process.Pid, s.cmd.Process.Pid))
	if err != nil {
		return pids
	}
	for _, f := range strings.Fields(string(data)) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// pidNamespace puts a process in a PID namespace of its own, where it is
// init: when it dies, the kernel kills every process it started.
func pidNamespace(attr *syscall.SysProcAttr) {
	attr.Cloneflags |= syscall.CLONE_NEWPID
}
