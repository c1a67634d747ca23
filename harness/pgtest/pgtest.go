// Package pgtest starts throwaway PostgreSQL servers: for tests, a fresh
// database per test on a server the package's tests share; for the
// benchmark (harness/bench), a server of its own that keeps PostgreSQL's
// durable defaults.
//
// A server is the system's own PostgreSQL (initdb and postgres from
// $PGTEST_BINDIR, else Debian's newest /usr/lib/postgresql/N/bin, else the
// PATH). It listens on 127.0.0.1 only, on a free port, and keeps its data,
// socket and log in a temporary folder of its own; as root it runs as the
// postgres system user, since initdb refuses root. It trusts every local
// connection, and its data is thrown away when it stops. On Linux it also
// dies with the process that started it, should that be killed before
// Stop.
//
// Tests call Database, which starts the shared server on first use; that
// server never syncs to disk. A package that uses it stops the server from
// its TestMain:
//
//	func TestMain(m *testing.M) {
//		m.Run()
//		pgtest.Stop()
//	}
//
// Start gives a server of the caller's own, durable or not, pinned to CPUs
// or not, with no testing.TB: NewDatabase makes its databases and Stop ends
// it.
package pgtest

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
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, for the server's admin connection
)

// BinDirEnv names the variable that points at a folder holding initdb and
// postgres, looked at before Debian's folders and the PATH.
const BinDirEnv = "PGTEST_BINDIR"

// Options say how Start runs a server.
type Options struct {
	// Durable keeps PostgreSQL's defaults: fsync, synchronous_commit and
	// full_page_writes on, as for a measure of a commit on disk. Otherwise
	// the server never syncs, as fits tests that create and drop a
	// database each.
	Durable bool
	// CPUs pins the server to these CPUs (a taskset list such as "0-3");
	// empty: not pinned.
	CPUs string
}

// NoServerError says that PostgreSQL's binaries are absent, and where
// they were looked for: no server can start, which is no failure of the
// server's.
type NoServerError struct {
	Looked string // "no initdb and postgres in /usr/lib/postgresql/*/bin nor on the PATH"
}

func (e *NoServerError) Error() string {
	return "PostgreSQL's binaries are absent (" + e.Looked + ")"
}

// Start initializes a cluster in a new temporary folder and starts its
// server on a free loopback port, its unix socket in the folder. Without
// the binaries, the error is a *NoServerError.
func Start(o Options) (*Server, error) {
	bin, why := binaries()
	if bin == "" {
		return nil, &NoServerError{Looked: why}
	}
	return start(bin, o)
}

// The package's shared server, started by the first Database and stopped
// by Stop.
var shared struct {
	sync.Mutex
	started bool
	server  *Server
	// absent says why there is no server to start (no binaries): a skip
	// outside CI, a failure in CI.
	absent string
	err    error
}

var errStopped = errors.New("pgtest.Stop was called: the server is gone")

// Database returns the postgres:// URL of a fresh, empty database of t's
// own on the shared server, starting the server on first use. The database
// is dropped in the background once t has ended, after the cleanups
// registered later than this call: what t opens on it is closed first.
//
// Without PostgreSQL's binaries, t is skipped, unless CI=true, where their
// absence is a failure: CI installs them (.ci/run), and a suite that
// silently skipped its PostgreSQL half would pass for the wrong reason.
func Database(t testing.TB) string {
	t.Helper()
	shared.Lock()
	if !shared.started {
		shared.started = true
		var absent *NoServerError
		if shared.server, shared.err = Start(Options{}); errors.As(shared.err, &absent) {
			shared.absent, shared.err = absent.Looked, nil
		}
	}
	s, absent, err := shared.server, shared.absent, shared.err
	shared.Unlock()
	if !usable(t, absent, err) {
		return ""
	}
	return s.newDatabase(t)
}

// usable reports whether there is a server, and otherwise skips or fails
// t: absent says why there are no binaries to start one, err why it did
// not start.
func usable(t testing.TB, absent string, err error) bool {
	t.Helper()
	switch {
	case absent != "" && os.Getenv("CI") == "true":
		t.Fatalf("PostgreSQL is required in CI (.ci/run installs the postgresql package): %s", absent)
	case absent != "":
		t.Skipf("PostgreSQL's binaries are absent (%s): apt-get install postgresql, or set %s", absent, BinDirEnv)
	case err != nil:
		t.Fatalf("start PostgreSQL: %v", err)
	default:
		return true
	}
	return false
}

// Stop waits for the ended tests' databases to be dropped, shuts the
// shared server down and removes its folder; nothing if no test started
// it. A Database after it fails its test.
func Stop() {
	shared.Lock()
	defer shared.Unlock()
	if shared.server != nil {
		shared.server.Stop()
		shared.server = nil
	}
	if shared.err == nil && shared.absent == "" {
		shared.started, shared.err = true, errStopped
	}
}

// binaries finds the folder holding initdb and postgres: $PGTEST_BINDIR,
// else Debian's newest /usr/lib/postgresql/N/bin, else the PATH's. Without
// one, why says where it looked.
func binaries() (dir, why string) {
	has := func(dir string) bool {
		for _, name := range []string{"initdb", "postgres"} {
			// LookPath, not Stat: the file must be executable, and on
			// Windows it is initdb.exe.
			if _, err := exec.LookPath(filepath.Join(dir, name)); err != nil {
				return false
			}
		}
		return true
	}
	if dir := os.Getenv(BinDirEnv); dir != "" {
		if has(dir) {
			return dir, ""
		}
		return "", fmt.Sprintf("%s=%s holds no initdb and postgres", BinDirEnv, dir)
	}
	debian, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	for _, dir := range newestFirst(debian) {
		if has(dir) {
			return dir, ""
		}
	}
	if initdb, err := exec.LookPath("initdb"); err == nil && has(filepath.Dir(initdb)) {
		return filepath.Dir(initdb), ""
	}
	return "", "no initdb and postgres in /usr/lib/postgresql/*/bin nor on the PATH"
}

// newestFirst orders Debian's /usr/lib/postgresql/N/bin folders by their
// major version N, as a number: as text, "9" would come before "16".
func newestFirst(bins []string) []string {
	version := func(bin string) int {
		n, _ := strconv.Atoi(filepath.Base(filepath.Dir(bin)))
		return n
	}
	slices.SortStableFunc(bins, func(a, b string) int { return version(b) - version(a) })
	return bins
}

// Server is one running PostgreSQL and the databases made on it.
type Server struct {
	dir     string // the server's folder: data, socket, log
	port    int
	version string // "PostgreSQL 15.8"; empty if postgres --version said otherwise
	cmd     *exec.Cmd
	exited  chan struct{} // closed once cmd has exited
	admin   *sql.DB       // on the postgres database, to create and drop the tests'
	nextDB  atomic.Int64
	// drops are the databases of tests that ended, dropped in the
	// background so that no test waits for it; stop waits for them.
	drops   chan string
	dropped sync.WaitGroup
}

// start starts a server from the binaries in bin. As root, initdb and
// postgres run as the postgres system user: initdb refuses root.
func start(bin string, o Options) (*Server, error) {
	var account *user.User
	parent := "" // the system's temporary folder
	if os.Geteuid() == 0 {
		var err error
		if account, err = user.Lookup("postgres"); err != nil {
			return nil, fmt.Errorf("running as root, PostgreSQL needs an unprivileged user: %w", err)
		}
		// The postgres user must reach the folder: a root's TMPDIR may be
		// closed to it, /tmp is not.
		parent = "/tmp"
	}
	dir, err := os.MkdirTemp(parent, "pgtest-")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, exited: make(chan struct{}), drops: make(chan string, 1024)}
	if err := s.initialize(bin, account, o); err != nil {
		s.removeDir()
		return nil, err
	}
	return s, nil
}

func (s *Server) initialize(bin string, account *user.User, o Options) error {
	if account != nil {
		if err := chownTo(s.dir, account); err != nil {
			return err
		}
	}
	command := func(name string, args ...string) (*exec.Cmd, error) {
		cmd := exec.Command(filepath.Join(bin, name), args...)
		if o.CPUs != "" && name == "postgres" {
			// taskset execs postgres: the process started is the server.
			cmd = exec.Command("taskset", append([]string{"-c", o.CPUs, filepath.Join(bin, name)}, args...)...)
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
		s.version = versionOf(string(out))
	}
	// Trust on loopback and the socket is enough for a throwaway server
	// only this machine reaches; no sync unless durable, since its data is
	// thrown away.
	args := []string{"-D", filepath.Join(s.dir, "data"), "-U", "postgres", "-A", "trust", "-E", "UTF8",
		"--locale=C", "--no-instructions"}
	if !o.Durable {
		args = append(args, "--no-sync")
	}
	initdb, err := command("initdb", args...)
	if err != nil {
		return err
	}
	if out, err := initdb.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %v\n%s", err, out)
	}
	socket := filepath.Join(s.dir, "socket")
	if err := os.Mkdir(socket, 0o700); err != nil {
		return err
	}
	if account != nil {
		if err := chownTo(socket, account); err != nil {
			return err
		}
	}
	// A port can be taken between finding it free and the server binding
	// it: try a few.
	for range 3 {
		if err = s.listen(command, o); err == nil {
			s.dropped.Add(1)
			go s.dropDatabases()
			return nil
		}
	}
	return err
}

// listen starts the server on a free port and waits until it answers.
func (s *Server) listen(command func(string, ...string) (*exec.Cmd, error), o Options) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	logFile, err := os.Create(filepath.Join(s.dir, "postgres.log"))
	if err != nil {
		return err
	}
	defer logFile.Close()
	args := []string{"-D", filepath.Join(s.dir, "data"), "-p", strconv.Itoa(port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=" + filepath.Join(s.dir, "socket")}
	if !o.Durable {
		args = append(args,
			// Replicas of a store, pools of several connections each, in
			// concurrent tests.
			"-c", "max_connections=200",
			// A throwaway server: creating and dropping a database per
			// test waits on checkpoints' fsyncs otherwise. What the tests
			// check of durability is a committed transaction; flushing it
			// to a disk is the server's own promise, not theirs to test.
			"-c", "fsync=off", "-c", "full_page_writes=off")
	}
	cmd, err := command("postgres", args...)
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
			return fmt.Errorf("postgres exited at start: %s", s.LogTail())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			_ = admin.Close()
			s.stopProcess()
			return fmt.Errorf("postgres not ready in 60 s: %v: %s", err, s.LogTail())
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

// versionOf is "PostgreSQL 15.8" of postgres --version's "postgres
// (PostgreSQL) 15.8 (Debian 15.8-0+deb12u1)"; empty if it says otherwise.
func versionOf(out string) string {
	_, v, ok := strings.Cut(strings.TrimSpace(out), "(PostgreSQL) ")
	if fields := strings.Fields(v); ok && len(fields) > 0 {
		return "PostgreSQL " + fields[0]
	}
	return ""
}

// Version is the server's "PostgreSQL 15.8"; empty if its postgres
// --version did not say.
func (s *Server) Version() string { return s.version }

func (s *Server) url(database string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.port, database)
}

// LogTail is the end of the server's log, for an error that says why it
// did not start or failed.
func (s *Server) LogTail() string {
	data, _ := os.ReadFile(filepath.Join(s.dir, "postgres.log"))
	if len(data) > 4000 {
		data = data[len(data)-4000:]
	}
	return strings.TrimSpace(string(data))
}

// NewDatabase creates a fresh, empty database and returns its URL. It
// lasts as long as the server.
func (s *Server) NewDatabase(ctx context.Context) (url string, err error) {
	name, err := s.create(ctx, "db")
	if err != nil {
		return "", err
	}
	return s.url(name), nil
}

// create creates a fresh database named after prefix and returns its
// name.
func (s *Server) create(ctx context.Context, prefix string) (string, error) {
	name := fmt.Sprintf("%s_%d", prefix, s.nextDB.Add(1))
	// From template0, which takes no connections: copying template1 fails
	// while any session is connected to it.
	if _, err := s.admin.ExecContext(ctx, "CREATE DATABASE "+name+" TEMPLATE template0"); err != nil {
		return "", fmt.Errorf("create database %s: %w", name, err)
	}
	return name, nil
}

// newDatabase creates a fresh database for t, dropped once t has ended,
// and returns its URL.
func (s *Server) newDatabase(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	name, err := s.create(ctx, "test")
	if err != nil {
		t.Fatalf("%v", err)
	}
	// Cleanups run last registered first: this one runs after the test's
	// own, which close what it opened on the database.
	t.Cleanup(func() { s.drops <- name })
	return s.url(name)
}

// dropDatabases drops each test's database once the test has ended: a
// database per test, over repeated runs of a suite, would otherwise fill
// the disk. FORCE ends a connection a failed test left open.
func (s *Server) dropDatabases() {
	defer s.dropped.Done()
	for name := range s.drops {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		if _, err := s.admin.ExecContext(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			fmt.Fprintf(os.Stderr, "pgtest: drop database %s: %v\n", name, err)
		}
		cancel()
	}
}

// Stop waits for the tests' databases being dropped, shuts the server
// down and removes its folder.
func (s *Server) Stop() {
	if s.admin != nil {
		close(s.drops)
		s.dropped.Wait()
		_ = s.admin.Close()
	}
	s.stopProcess()
	s.removeDir()
}

// stopProcess shuts the server down: SIGINT is PostgreSQL's fast shutdown,
// which ends the sessions and leaves no shared memory behind. Where a
// process cannot be sent it (Windows), or the server is stuck, it is
// killed.
func (s *Server) stopProcess() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
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

func (s *Server) removeDir() {
	if err := os.RemoveAll(s.dir); err != nil {
		fmt.Fprintf(os.Stderr, "pgtest: remove %s: %v\n", s.dir, err)
	}
}
