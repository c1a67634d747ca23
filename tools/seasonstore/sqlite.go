package seasonstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/pressly/goose/v3"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// sqlitePragmas make every connection durable and patient:
//   - busy_timeout: a connection waits for the write lock (another process
//     on the same file, a checkpoint) rather than failing at once;
//   - journal_mode WAL: readers do not block the writer nor it them;
//   - synchronous FULL: in WAL mode, each commit's WAL frames are fsynced
//     before the commit returns, so an acknowledged write survives a kill
//     or a power cut (NORMAL would only survive a kill);
//   - fullfsync: on macOS, fsync alone does not reach the platter;
//   - foreign_keys: SQLite leaves them off unless asked.
var sqlitePragmas = []string{
	"busy_timeout(10000)",
	"journal_mode(WAL)",
	"synchronous(FULL)",
	"fullfsync(1)",
	"foreign_keys(1)",
}

// OpenSQLite opens, creating it if need be, the SQLite store at path (its
// -wal and -shm files beside it) and brings its schema up to date. One
// process holds it: several can use it, taking turns at the write lock,
// but only one may be the first to open a new file.
func OpenSQLite(ctx context.Context, path string, opts Options) (Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("seasonstore: %w", err)
	}
	// The driver reads what follows a ? as its parameters.
	if strings.ContainsRune(abs, '?') {
		return nil, fmt.Errorf("seasonstore: %q: a database's path may not hold a ?", path)
	}
	// Created here so that it is the service's alone: SQLite gives the
	// -wal and -shm files the database's mode.
	f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("seasonstore: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("seasonstore: %w", err)
	}
	params := ""
	for _, p := range sqlitePragmas {
		params += "&_pragma=" + p
	}
	// The writer begins IMMEDIATE: its transaction holds the write lock
	// from its first statement, so what it reads stays true until it
	// commits, and no two writers interleave.
	writer, err := sql.Open("sqlite", abs+"?_txlock=immediate"+params)
	if err != nil {
		return nil, fmt.Errorf("seasonstore: %w", err)
	}
	writer.SetMaxOpenConns(1)
	writer.SetConnMaxIdleTime(0)
	readers := opts.MaxConns
	if readers <= 0 {
		readers = 4
	}
	reader, err := sql.Open("sqlite", abs+"?_pragma=query_only(1)"+params)
	if err != nil {
		_ = writer.Close()
		return nil, fmt.Errorf("seasonstore: %w", err)
	}
	reader.SetMaxOpenConns(readers)
	d := dialect{
		name:       "sqlite",
		goose:      goose.DialectSQLite3,
		migrations: "migrations/sqlite",
		readTx:     &sql.TxOptions{ReadOnly: true},
		uncut:      true,
		oneWriter:  true,
		constraint: sqliteConstraint,
		// One process's handles: goose reads the version before its
		// transaction takes the write lock, so two would both create the
		// tables.
		lockMigrations: func(context.Context) (func(), error) {
			m := migrationLock(abs)
			m.Lock()
			return m.Unlock, nil
		},
	}
	s, err := newSQLStore(ctx, d, writer, reader, opts)
	if err != nil {
		_ = writer.Close()
		_ = reader.Close()
		return nil, err
	}
	return s, nil
}

// migrationLocks holds a mutex for each database file this process opened.
var migrationLocks sync.Map

func migrationLock(path string) *sync.Mutex {
	m, _ := migrationLocks.LoadOrStore(path, new(sync.Mutex))
	return m.(*sync.Mutex)
}

// sqliteUniqueColumns name, by the columns SQLite's message lists, the
// UNIQUE constraints of migrations/sqlite: SQLite reports the columns, not
// the constraint's name.
var sqliteUniqueColumns = map[string]string{
	"enrollments.id":           "enrollments_id_unique",
	"enrollments.token_sha256": "enrollments_token_unique",
	"enrollments.season, enrollments.track, enrollments.cle": "enrollments_one_per_key",
	"enrollments.season, enrollments.track, enrollments.did": "enrollments_one_per_did",
}

func sqliteConstraint(err error) string {
	var e *sqlite.Error
	if !errors.As(err, &e) || e.Code() != sqlite3.SQLITE_CONSTRAINT_UNIQUE {
		return ""
	}
	const prefix = "UNIQUE constraint failed: "
	msg := e.Error()
	i := strings.Index(msg, prefix)
	if i < 0 {
		return ""
	}
	columns := msg[i+len(prefix):]
	if j := strings.Index(columns, " ("); j >= 0 { // the code the driver appends
		columns = columns[:j]
	}
	return sqliteUniqueColumns[columns]
}
