package seasonstore

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
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, for the server's admin connection
)

// The PostgreSQL server the tests share: Debian's binaries, started once
// per package run by the first test that needs it, on loopback, as an
// unprivileged user, in a folder of its own; stopped by TestMain. Each test
// gets a fresh database on it.
var pg struct {
	once   sync.Once
	server *pgServer
	// absent says why there is no server to start (no binaries): a skip
	// outside CI, a failure in CI.
	absent string
	err    error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if pg.server != nil {
		pg.server.stop()
	}
	os.Exit(code)
}

// postgresServer is the shared server, started on first use. Without
// PostgreSQL's binaries the test is skipped, unless CI=true, where their
// absence is a failure (.ci/run installs them).
func postgresServer(t *testing.T) *pgServer {
	t.Helper()
	pg.once.Do(func() {
		bin, why := postgresBinaries()
		if bin == "" {
			pg.absent = why
			return
		}
		pg.server, pg.err = startPostgres(bin)
	})
	switch {
	case pg.absent != "" && os.Getenv("CI") == "true":
		t.Fatalf("PostgreSQL is required in CI (.ci/run installs the postgresql package): %s", pg.absent)
	case pg.absent != "":
		t.Skipf("PostgreSQL's binaries are absent (%s): apt-get install postgresql, or set SEASONSTORE_PG_BINDIR", pg.absent)
	case pg.err != nil:
		t.Fatalf("start PostgreSQL: %v", pg.err)
	}
	return pg.server
}

// postgresBinaries finds the folder holding initdb and postgres:
// SEASONSTORE_PG_BINDIR, else Debian's newest /usr/lib/postgresql/N/bin,
// else the PATH's.
func postgresBinaries() (dir, why string) {
	has := func(dir string) bool {
		for _, name := range []string{"initdb", "postgres"} {
			if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
				return false
			}
		}
		return true
	}
	if dir := os.Getenv("SEASONSTORE_PG_BINDIR"); dir != "" {
		if has(dir) {
			return dir, ""
		}
		return "", fmt.Sprintf("SEASONSTORE_PG_BINDIR=%s holds no initdb and postgres", dir)
	}
	debian, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(debian, func(i, j int) bool { return versionOf(debian[i]) > versionOf(debian[j]) })
	for _, dir := range debian {
		if has(dir) {
			return dir, ""
		}
	}
	if initdb, err := exec.LookPath("initdb"); err == nil && has(filepath.Dir(initdb)) {
		return filepath.Dir(initdb), ""
	}
	return "", "no initdb and postgres in /usr/lib/postgresql/*/bin nor on the PATH"
}

func versionOf(bin string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(bin)))
	return n
}

type pgServer struct {
	dir    string // the server's folder: data, socket, log
	port   int
	cmd    *exec.Cmd
	exited chan struct{}
	admin  *sql.DB // the postgres database, to create each test's
	nextDB atomic.Int64
	// drops are the databases of tests that ended, dropped in the
	// background so that no test waits for it; stop waits for them.
	drops   chan string
	dropped sync.WaitGroup
}

// startPostgres initializes a cluster in a new temporary folder and starts
// its server on a free loopback port, its unix socket in the folder. As
// root, both run as the postgres system user: initdb refuses root.
func startPostgres(bin string) (*pgServer, error) {
	var account *user.User
	parent := "" // the temporary folder
	if os.Geteuid() == 0 {
		var err error
		if account, err = user.Lookup("postgres"); err != nil {
			return nil, fmt.Errorf("running as root, PostgreSQL needs an unprivileged user: %w", err)
		}
		// The postgres user must reach the folder: a root's TMPDIR may be
		// closed to it, /tmp is not.
		parent = "/tmp"
	}
	dir, err := os.MkdirTemp(parent, "seasonstore-pg-")
	if err != nil {
		return nil, err
	}
	s := &pgServer{dir: dir, exited: make(chan struct{}), drops: make(chan string, 1024)}
	if account != nil {
		if err := chownTo(dir, account); err != nil {
			s.removeDir()
			return nil, err
		}
	}
	command := func(name string, args ...string) (*exec.Cmd, error) {
		cmd := exec.Command(filepath.Join(bin, name), args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "LC_ALL=C")
		return cmd, runAs(cmd, account)
	}
	// Trust on loopback and the socket is enough for a throwaway server
	// only this machine reaches; no sync, since its data is thrown away.
	initdb, err := command("initdb", "-D", filepath.Join(dir, "data"), "-U", "postgres", "-A", "trust", "-E", "UTF8",
		"--locale=C", "--no-sync", "--no-instructions")
	if err != nil {
		s.removeDir()
		return nil, err
	}
	if out, err := initdb.CombinedOutput(); err != nil {
		s.removeDir()
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	if err := os.Mkdir(filepath.Join(dir, "socket"), 0o700); err != nil {
		s.removeDir()
		return nil, err
	}
	if account != nil {
		if err := chownTo(filepath.Join(dir, "socket"), account); err != nil {
			s.removeDir()
			return nil, err
		}
	}
	// A port can be taken between finding it free and the server binding
	// it: try a few.
	for attempt := 0; attempt < 3; attempt++ {
		if err = s.start(command); err == nil {
			s.dropped.Add(1)
			go s.dropDatabases()
			return s, nil
		}
	}
	s.removeDir()
	return nil, err
}

func (s *pgServer) start(command func(string, ...string) (*exec.Cmd, error)) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	logFile, err := os.Create(filepath.Join(s.dir, "postgres.log"))
	if err != nil {
		return err
	}
	defer logFile.Close()
	cmd, err := command("postgres", "-D", filepath.Join(s.dir, "data"), "-p", strconv.Itoa(port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="+filepath.Join(s.dir, "socket"),
		"-c", "max_connections=200",
		// A throwaway server: creating and dropping a database per test
		// waits on checkpoints' fsyncs otherwise. The store's durability on
		// PostgreSQL is its committed transactions with synchronous_commit
		// on; flushing them to a disk is the server's own promise.
		"-c", "fsync=off", "-c", "full_page_writes=off")
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	s.cmd, s.port, s.exited = cmd, port, exited

	admin, err := sql.Open("pgx", s.url("postgres"))
	if err != nil {
		s.stopProcess()
		return err
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err = admin.PingContext(ctx)
		cancel()
		if err == nil {
			s.admin = admin
			return nil
		}
		select {
		case <-exited:
			_ = admin.Close()
			return fmt.Errorf("postgres exited at start: %s", s.logTail())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = admin.Close()
			s.stopProcess()
			return fmt.Errorf("postgres not ready in 60 s: %v: %s", err, s.logTail())
		}
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (s *pgServer) url(database string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.port, database)
}

func (s *pgServer) logTail() string {
	data, _ := os.ReadFile(filepath.Join(s.dir, "postgres.log"))
	if len(data) > 4000 {
		data = data[len(data)-4000:]
	}
	return strings.TrimSpace(string(data))
}

// newDatabase creates a fresh database for one test, dropped at its end,
// and returns its URL.
func (s *pgServer) newDatabase(t *testing.T) string {
	t.Helper()
	name := fmt.Sprintf("seasonstore_%d", s.nextDB.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := s.admin.ExecContext(ctx, "CREATE DATABASE "+name+" TEMPLATE template0"); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	// Registered before the test's stores, so run after they are closed.
	t.Cleanup(func() { s.drops <- name })
	return s.url(name)
}

// dropDatabases drops each test's database once the test ended: a season
// per test, 20 runs of the suite, would otherwise fill the disk. FORCE
// ends a connection a failed test left open.
func (s *pgServer) dropDatabases() {
	defer s.dropped.Done()
	for name := range s.drops {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		if _, err := s.admin.ExecContext(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			fmt.Fprintf(os.Stderr, "seasonstore tests: drop database %s: %v\n", name, err)
		}
		cancel()
	}
}

// stop waits for the databases being dropped, shuts the server down and
// removes its folder.
func (s *pgServer) stop() {
	if s.admin != nil {
		close(s.drops)
		s.dropped.Wait()
		_ = s.admin.Close()
	}
	s.stopProcess()
	s.removeDir()
}

// stopProcess shuts the server down: SIGINT is PostgreSQL's fast
// shutdown.
func (s *pgServer) stopProcess() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.exited:
	case <-time.After(20 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

func (s *pgServer) removeDir() {
	if err := os.RemoveAll(s.dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(os.Stderr, "seasonstore tests: remove %s: %v\n", s.dir, err)
	}
}
