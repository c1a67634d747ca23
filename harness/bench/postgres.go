package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, for the server's admin connection
)

// pgServer is a PostgreSQL server of the benchmark's own, from Debian's
// binaries, on a loopback port, its data in a folder of its own. It keeps
// PostgreSQL's durable defaults (fsync, synchronous_commit and
// full_page_writes on): what the season's part measures is a commit on
// disk. harness/pgtest's server, which the tests share, turns fsync off,
// and is no yardstick for that.
type pgServer struct {
	dir     string
	port    int
	version string // "PostgreSQL 15.8"
	cmd     *exec.Cmd
	exited  chan struct{}
}

// errNoPostgres says why there is no server to start: a skip, not a
// failure.
type errNoPostgres struct{ why string }

func (e *errNoPostgres) Error() string { return e.why }

// postgresBinaries is the folder holding initdb and postgres: Debian's
// newest /usr/lib/postgresql/N/bin, else the PATH's.
func postgresBinaries() (string, error) {
	has := func(dir string) bool {
		for _, name := range []string{"initdb", "postgres"} {
			if _, err := exec.LookPath(filepath.Join(dir, name)); err != nil {
				return false
			}
		}
		return true
	}
	debian, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	major := func(bin string) int { n, _ := strconv.Atoi(filepath.Base(filepath.Dir(bin))); return n }
	slices.SortFunc(debian, func(a, b string) int { return major(b) - major(a) })
	for _, dir := range debian {
		if has(dir) {
			return dir, nil
		}
	}
	if initdb, err := exec.LookPath("initdb"); err == nil && has(filepath.Dir(initdb)) {
		return filepath.Dir(initdb), nil
	}
	return "", &errNoPostgres{"PostgreSQL's binaries are absent (apt-get install postgresql)"}
}

// startPostgres initializes a cluster in a new folder and starts its
// server on a free loopback port, pinned to cpus. As root, both run as the
// postgres system user (initdb refuses root), in a folder under /tmp that
// it can reach.
func startPostgres(cpus string) (*pgServer, error) {
	bin, err := postgresBinaries()
	if err != nil {
		return nil, err
	}
	var account *user.User
	parent := ""
	if os.Geteuid() == 0 {
		if account, err = user.Lookup("postgres"); err != nil {
			return nil, &errNoPostgres{"running as root, PostgreSQL needs the postgres system user: " + err.Error()}
		}
		parent = "/tmp"
	}
	dir, err := os.MkdirTemp(parent, "proveit-bench-pg-")
	if err != nil {
		return nil, err
	}
	s := &pgServer{dir: dir, exited: make(chan struct{})}
	if err := s.start(bin, account, cpus); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

func (s *pgServer) start(bin string, account *user.User, cpus string) error {
	socket := filepath.Join(s.dir, "socket")
	if err := os.Mkdir(socket, 0o700); err != nil {
		return err
	}
	for _, path := range []string{s.dir, socket} {
		if err := chownTo(path, account); err != nil {
			return err
		}
	}
	command := func(name string, args ...string) (*exec.Cmd, error) {
		cmd := exec.Command(filepath.Join(bin, name), args...)
		if cpus != "" && name == "postgres" {
			cmd = exec.Command("taskset", append([]string{"-c", cpus, filepath.Join(bin, name)}, args...)...)
		}
		cmd.Dir = s.dir
		cmd.Env = append(os.Environ(), "LC_ALL=C")
		return cmd, runAs(cmd, account)
	}
	version, err := command("postgres", "--version")
	if err != nil {
		return err
	}
	if out, err := version.Output(); err == nil {
		// "postgres (PostgreSQL) 15.8 (Debian 15.8-0+deb12u1)"
		if _, v, ok := strings.Cut(strings.TrimSpace(string(out)), "(PostgreSQL) "); ok {
			s.version = "PostgreSQL " + strings.Fields(v)[0]
		}
	}
	data := filepath.Join(s.dir, "data")
	initdb, err := command("initdb", "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-instructions")
	if err != nil {
		return err
	}
	if out, err := initdb.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %v\n%s", err, out)
	}
	if s.port, err = freePort(); err != nil {
		return err
	}
	logFile, err := os.Create(filepath.Join(s.dir, "postgres.log"))
	if err != nil {
		return err
	}
	defer logFile.Close()
	// PostgreSQL's defaults, but where it listens: fsync, synchronous_commit
	// and full_page_writes stay on.
	s.cmd, err = command("postgres", "-D", data, "-p", strconv.Itoa(s.port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="+socket)
	if err != nil {
		return err
	}
	s.cmd.Stdout, s.cmd.Stderr = logFile, logFile
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	go func() { _ = s.cmd.Wait(); close(s.exited) }()
	admin, err := sql.Open("pgx", s.url("postgres"))
	if err != nil {
		return err
	}
	defer admin.Close()
	deadline := time.Now().Add(time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err = admin.PingContext(ctx)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-s.exited:
			return fmt.Errorf("postgres exited at start: %s", s.logTail())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres not ready in a minute: %v: %s", err, s.logTail())
		}
	}
}

// database creates a database and returns its URL.
func (s *pgServer) database(name string) (string, error) {
	admin, err := sql.Open("pgx", s.url("postgres"))
	if err != nil {
		return "", err
	}
	defer admin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name+" TEMPLATE template0"); err != nil {
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	return s.url(name), nil
}

func (s *pgServer) url(database string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.port, database)
}

func (s *pgServer) logTail() string {
	data, _ := os.ReadFile(filepath.Join(s.dir, "postgres.log"))
	return tail(strings.TrimSpace(string(data)), 2000)
}

// stop shuts the server down (SIGINT: a fast shutdown) and removes its
// folder.
func (s *pgServer) stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		if err := s.cmd.Process.Signal(os.Interrupt); err != nil {
			_ = s.cmd.Process.Kill()
		}
		select {
		case <-s.exited:
		case <-time.After(20 * time.Second):
			_ = s.cmd.Process.Kill()
			<-s.exited
		}
	}
	_ = os.RemoveAll(s.dir)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// isNoPostgres tells a server that could not start for want of binaries.
func isNoPostgres(err error) bool {
	var e *errNoPostgres
	return errors.As(err, &e)
}
