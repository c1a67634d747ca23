package seasonstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
)

// pgUniqueViolation is PostgreSQL's SQLSTATE for a broken UNIQUE
// constraint.
const pgUniqueViolation = "23505"

// OpenPostgres opens the PostgreSQL store at url (postgres://... or a
// key=value connection string) and brings its schema up to date; replicas
// opening at once migrate one after the other. The URL may hold a password:
// no error of this package quotes it.
func OpenPostgres(ctx context.Context, url string, opts Options) (Store, error) {
	config, err := pgx.ParseConfig(url)
	if err != nil {
		// pgx's message masks the password; it is still no place to echo
		// the rest of the URL.
		return nil, errors.New("seasonstore: the PostgreSQL URL does not parse")
	}
	// A commit is acknowledged once it is flushed to the server's disk,
	// whatever the server's default: the store's promise.
	config.RuntimeParams["synchronous_commit"] = "on"
	db := stdlib.OpenDB(*config)
	conns := opts.MaxConns
	if conns <= 0 {
		conns = 16
	}
	db.SetMaxOpenConns(conns)
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("seasonstore: reach PostgreSQL: %w", err)
	}
	d := dialect{
		name:       "postgres",
		goose:      goose.DialectPostgres,
		migrations: "migrations/postgres",
		forShare:   " FOR SHARE",
		forUpdate:  " FOR UPDATE",
		// READ COMMITTED, whatever the server's default: a row locked
		// after waiting is read as committed since, which is how a
		// submission that waited for the close sees it closed; a stricter
		// level would fail it with a serialization error instead.
		writeTx:    &sql.TxOptions{Isolation: sql.LevelReadCommitted},
		readTx:     &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true},
		numbered:   true,
		constraint: pgConstraint,
		// Replicas starting together: one takes the advisory lock and
		// migrates, the others wait for it and find nothing left to do.
		lockMigrations: func(ctx context.Context) (func(), error) { return pgLockMigrations(ctx, db) },
	}
	s, err := newSQLStore(ctx, d, db, db, opts)
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	return s, nil
}

func pgConstraint(err error) string {
	var e *pgconn.PgError
	if !errors.As(err, &e) || e.Code != pgUniqueViolation {
		return ""
	}
	return e.ConstraintName
}

// pgMigrationLockID names the advisory lock replicas migrate under: the
// first 8 bytes of SHA-256("seasonstore migrations"), so that no other
// program's lock on the same database is mistaken for it.
const pgMigrationLockID int64 = 0x4e2b_6bab_f4cc_8c6d

// pgLockMigrations takes PostgreSQL's advisory lock for migrations, on a
// connection of its own held until unlock: the lock is the session's, so a
// replica dying mid-migration releases it with its connection. The
// context bounds the wait.
func pgLockMigrations(ctx context.Context, db *sql.DB) (unlock func(), err error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", pgMigrationLockID); err != nil {
		_ = conn.Close()
		return nil, err
	}
	return func() {
		// Closing the connection would release the lock too, but the pool
		// may keep it open: unlock first.
		_, _ = conn.ExecContext(context.Background(), "SELECT pg_advisory_unlock($1)", pgMigrationLockID)
		_ = conn.Close()
	}, nil
}
