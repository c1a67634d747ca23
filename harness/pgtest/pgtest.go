// Package pgtest gives tests a real PostgreSQL database: a fresh one per
// test, on a throwaway server the package's tests share.
//
// The server is the system's own PostgreSQL (initdb and postgres from
// $PGTEST_BINDIR, else Debian's newest /usr/lib/postgresql/N/bin, else the
// PATH), started by the first test that asks for a database. It listens on
// 127.0.0.1 only, on a free port, and keeps its data, socket and log in a
// temporary folder of its own; as root it runs as the postgres system user,
// since initdb refuses root. It trusts every local connection and never
// syncs to disk: it is for tests only, and its data is thrown away.
//
// A package that uses it stops the server from its TestMain:
//
//	func TestMain(m *testing.M) {
//		m.Run()
//		pgtest.Stop()
//	}
//
// On Linux the server also dies with the test process, should that be
// killed before Stop.
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

// The package's shared server, started by the first Database and stopped
// by Stop.
var shared struct {
	sync.Mutex
	started bool
	server  *server
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
		if bin, why := binaries(); bin == "" {
			shared.absent = why
		} else {
			shared.server, shared.err = start(bin)
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
		shared.server.stop()
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

// server is one running PostgreSQL and the databases made on it.
type server struct {
	dir    string // the server's folder: data, socket, log
	port   int
	cmd    *exec.Cmd
	exited chan struct{} // closed once cmd has exited
	admin  *sql.DB       // on the postgres database, to create and drop the tests'
	nextDB atomic.Int64
	// drops are the databases of tests that ended, dropped in the
	// background so that no test waits for it; stop waits for them.
	drops   chan string
	dropped sync.WaitGroup
}

// start initializes a cluster in a new temporary folder and starts its
// server on a free loopback port, its unix socket in the folder. As root,
// both run as the postgres system user: initdb refuses root.
func start(bin string) (*server, error) {
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
	s := &server{dir: dir, exited: make(chan struct{}), drops: make(chan string, 1024)}
	if err := s.initialize(bin, account); err != nil {
		s.removeDir()
		return nil, err
	}
	return s, nil
}

func (s *server) initialize(bin string, account *user.User) error {
	if account != nil {
		if err := chownTo(s.dir, account); err != nil {
			return err
		}
	}
	command := func(name string, args ...string) (*exec.Cmd, error) {
		cmd := exec.Command(filepath.Join(bin, name), args...)
		cmd.Dir = s.dir
		cmd.Env = append(os.Environ(), "LC_ALL=C")
		return cmd, runAs(cmd, account)
	}
	// Trust on loopback and the socket is enough for a throwaway server
	// only this machine reaches; no sync, since its data is thrown away.
	initdb, err := command("initdb", "-D", filepath.Join(s.dir, "data"), "-U", "postgres", "-A", "trust", "-E", "UTF8",
		"--locale=C", "--no-sync", "--no-instructions")
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
		if err = s.listen(command); err == nil {
			s.dropped.Add(1)
			go s.dropDatabases()
			return nil
		}
	}
	return err
}

// listen starts the server on a free port and waits until it answers.
func (s *server) listen(command func(string, ...string) (*exec.Cmd, error)) error {
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
		// Replicas of a store, pools of several connections each, in
		// concurrent tests.
		"-c", "max_connections=200",
		// A throwaway server: creating and dropping a database per test
		// waits on checkpoints' fsyncs otherwise. What the tests check of
		// durability is a committed transaction; flushing it to a disk is
		// the server's own promise, not theirs to test.
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

func (s *server) url(database string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.port, database)
}

// logTail is the end of the server's log, for an error that says why it
// did not start.
func (s *server) logTail() string {
	data, _ := os.ReadFile(filepath.Join(s.dir, "postgres.log"))
	if len(data) > 4000 {
		data = data[len(data)-4000:]
	}
	return strings.TrimSpace(string(data))
}

// newDatabase creates a fresh database for t, dropped once t has ended,
// and returns its URL.
func (s *server) newDatabase(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("test_%d", s.nextDB.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// From template0, which takes no connections: copying template1 fails
	// while any session is connected to it.
	if _, err := s.admin.ExecContext(ctx, "CREATE DATABASE "+name+" TEMPLATE template0"); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
	// Cleanups run last registered first: this one runs after the test's
	// own, which close what it opened on the database.
	t.Cleanup(func() { s.drops <- name })
	return s.url(name)
}

// dropDatabases drops each test's database once the test has ended: a
// database per test, over repeated runs of a suite, would otherwise fill
// the disk. FORCE ends a connection a failed test left open.
func (s *server) dropDatabases() {
	defer s.dropped.Done()
	for name := range s.drops {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		if _, err := s.admin.ExecContext(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			fmt.Fprintf(os.Stderr, "pgtest: drop database %s: %v\n", name, err)
		}
		cancel()
	}
}

// stop waits for the databases being dropped, shuts the server down and
// removes its folder.
func (s *server) stop() {
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
func (s *server) stopProcess() {
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

func (s *server) removeDir() {
	if err := os.RemoveAll(s.dir); err != nil {
		fmt.Fprintf(os.Stderr, "pgtest: remove %s: %v\n", s.dir, err)
	}
}
