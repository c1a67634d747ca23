package pgtest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) {
	m.Run()
	Stop()
}

// connect opens the database at u, closed when t ends.
func connect(t *testing.T, u string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", u)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// TestDatabase: each call is a database of its own on one loopback server,
// empty and writable, and dropped once its test has ended.
func TestDatabase(t *testing.T) {
	ctx := context.Background()
	var first string
	t.Run("a test", func(t *testing.T) {
		first = Database(t)
		db := connect(t, first)
		_, err := db.ExecContext(ctx, "CREATE TABLE kept (n int)")
		require.NoError(t, err)
	})
	require.NotEmpty(t, first, "the subtest ran")

	second := Database(t)
	u1, err := url.Parse(first)
	require.NoError(t, err)
	u2, err := url.Parse(second)
	require.NoError(t, err)
	assert.Equal(t, "postgres", u2.Scheme)
	assert.Equal(t, "127.0.0.1", u2.Hostname(), "loopback only")
	assert.Equal(t, u1.Host, u2.Host, "one server")
	assert.NotEqual(t, u1.Path, u2.Path, "a database each")

	db := connect(t, second)
	var tables int
	require.NoError(t, db.QueryRowContext(ctx, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").Scan(&tables))
	assert.Zero(t, tables, "fresh: nothing of the other test's")

	// The first test's database is dropped in the background, soon.
	name := strings.TrimPrefix(u1.Path, "/")
	assert.Eventually(t, func() bool {
		var n int
		err := db.QueryRowContext(ctx, "SELECT count(*) FROM pg_database WHERE datname = $1", name).Scan(&n)
		return err == nil && n == 0
	}, 30*time.Second, 20*time.Millisecond, "database %s dropped", name)
}

// TestStop: a server stopped has exited, freed its port and left no
// folder, the databases of its ended tests dropped first.
func TestStop(t *testing.T) {
	s := startOrSkip(t, Options{})
	t.Run("a test", func(t *testing.T) {
		db := connect(t, s.newDatabase(t))
		require.NoError(t, db.PingContext(context.Background()))
	})
	s.Stop()

	select {
	case <-s.exited:
	default:
		t.Fatal("the server is still running")
	}
	_, err := os.Stat(s.dir)
	assert.ErrorIs(t, err, os.ErrNotExist, "its folder is removed")
	conn, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)), time.Second)
	if err == nil {
		_ = conn.Close()
	}
	assert.Error(t, err, "nothing listens on its port")
}

// startOrSkip starts a server of t's own, skipping t without the
// binaries.
func startOrSkip(t *testing.T, o Options) *Server {
	t.Helper()
	s, err := Start(o)
	var absent *NoServerError
	if errors.As(err, &absent) {
		t.Skip(err)
	}
	require.NoError(t, err)
	return s
}

// TestDurable: a durable server keeps PostgreSQL's defaults, syncing to
// disk, and makes databases without a testing.TB; the tests' server does
// not sync.
func TestDurable(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		durable bool
		fsync   string
	}{{true, "on"}, {false, "off"}} {
		t.Run("durable="+strconv.FormatBool(tt.durable), func(t *testing.T) {
			s := startOrSkip(t, Options{Durable: tt.durable})
			defer s.Stop()
			assert.Regexp(t, `^PostgreSQL \d+(\.\d+)*`, s.Version())
			u, err := s.NewDatabase(ctx)
			require.NoError(t, err)
			db := connect(t, u)
			for name, want := range map[string]string{"fsync": tt.fsync, "full_page_writes": tt.fsync} {
				var got string
				require.NoError(t, db.QueryRowContext(ctx, "SHOW "+name).Scan(&got))
				assert.Equal(t, want, got, name)
			}
			require.NoError(t, db.Close())
		})
	}
}

// TestVersionOf: the version is read from postgres --version.
func TestVersionOf(t *testing.T) {
	assert.Equal(t, "PostgreSQL 15.8", versionOf("postgres (PostgreSQL) 15.8 (Debian 15.8-0+deb12u1)\n"))
	assert.Equal(t, "PostgreSQL 17.2", versionOf("postgres (PostgreSQL) 17.2"))
	assert.Empty(t, versionOf("postgres (PostgreSQL) "))
	assert.Empty(t, versionOf("something else"))
}

// verdict is a testing.TB that records a skip or a failure instead of
// ending the test.
type verdict struct {
	testing.TB
	skipped, failed string
}

func (v *verdict) Helper()                        {}
func (v *verdict) Skipf(format string, a ...any)  { v.skipped = fmt.Sprintf(format, a...) }
func (v *verdict) Fatalf(format string, a ...any) { v.failed = fmt.Sprintf(format, a...) }

// TestUsable: without the binaries a test is skipped, but fails in CI,
// where they are installed; a server that did not start fails it.
func TestUsable(t *testing.T) {
	for _, tt := range []struct {
		name    string
		ci      string
		absent  string
		err     error
		skipped string
		failed  string
	}{
		{"a server", "", "", nil, "", ""},
		{"a server in CI", "true", "", nil, "", ""},
		{"no binaries", "", "none here", nil, "none here", ""},
		{"no binaries, CI off", "false", "none here", nil, "none here", ""},
		{"no binaries in CI", "true", "none here", nil, "", "required in CI"},
		{"did not start", "", "", errors.New("port taken"), "", "port taken"},
		{"did not start in CI", "true", "", errors.New("port taken"), "", "port taken"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("CI", tt.ci)
			v := &verdict{}
			ok := usable(v, tt.absent, tt.err)
			assert.Equal(t, tt.skipped == "" && tt.failed == "", ok)
			said := func(got, want, what string) {
				if want == "" {
					assert.Empty(t, got, what)
				} else {
					assert.Contains(t, got, want, what)
				}
			}
			said(v.skipped, tt.skipped, "skipped")
			said(v.failed, tt.failed, "failed")
		})
	}
}

// TestBinaries: $PGTEST_BINDIR, when set, is the one folder looked in, and
// must hold both programs.
func TestBinaries(t *testing.T) {
	exe := func(dir, name string) {
		if runtime.GOOS == "windows" {
			name += ".exe"
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755))
	}
	for _, tt := range []struct {
		name     string
		programs []string
		found    bool
	}{
		{"both", []string{"initdb", "postgres"}, true},
		{"initdb alone", []string{"initdb"}, false},
		{"postgres alone", []string{"postgres"}, false},
		{"neither", nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, p := range tt.programs {
				exe(dir, p)
			}
			t.Setenv(BinDirEnv, dir)
			got, why := binaries()
			if tt.found {
				assert.Equal(t, dir, got)
				assert.Empty(t, why)
				return
			}
			assert.Empty(t, got)
			assert.Contains(t, why, BinDirEnv+"="+dir)
		})
	}
}

// TestNewestFirst: of Debian's folders, the newest major version is
// taken, compared as a number.
func TestNewestFirst(t *testing.T) {
	for _, tt := range []struct {
		name string
		bins []string
		want []string
	}{
		{"by number, not text", []string{"/usr/lib/postgresql/9/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/13/bin"},
			[]string{"/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/13/bin", "/usr/lib/postgresql/9/bin"}},
		{"one", []string{"/usr/lib/postgresql/17/bin"}, []string{"/usr/lib/postgresql/17/bin"}},
		{"none", nil, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, newestFirst(tt.bins))
		})
	}
}
