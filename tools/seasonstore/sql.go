package seasonstore

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/pressly/goose/v3"

	"github.com/arkforge/proveit-corpus/tools/index"
)

// dialect is what differs between the two backends; everything else, the
// statements and the transactions' shape, is sqlStore's, once.
type dialect struct {
	name string
	// goose is the migration library's name for the backend; migrations,
	// its embedded folder.
	goose      goose.Dialect
	migrations string
	// forShare and forUpdate lock the rows a write transaction reads, on a
	// backend with several writers; SQLite's one writer needs neither.
	forShare, forUpdate string
	// writeTx and readTx are the transactions' options: a write reads the
	// latest committed rows under its locks; an export reads one snapshot.
	writeTx, readTx *sql.TxOptions
	// uncut: a write transaction, once it has its connection, runs to its
	// commit or its own error, whatever becomes of its caller's context.
	// On SQLite a statement on the local file is bounded by busy_timeout
	// already, and a cancellable context costs the driver a goroutine per
	// statement, spawned inside the write lock every other writer waits
	// for. A PostgreSQL server is across a network: its caller's context
	// bounds the wait.
	uncut bool
	// oneWriter: every write waits for the one write connection. A writer
	// that has committed yields the CPU before its caller goes on, so that
	// the writer it handed the connection to starts its transaction now,
	// not behind the caller's answer: the service's caller writes its
	// HTTP answer next, whose wake-ups push the next writer to the back of
	// the run queue (docs/performance-analysis.md, the runs of
	// 2026-12-05 18:10-18:50, "The season service on one core").
	oneWriter bool
	// numbered rewrites the ? placeholders as $1, $2...
	numbered bool
	// constraint names the UNIQUE constraint an insert broke, "" for any
	// other error.
	constraint func(error) string
	// lockMigrations makes handles opening one database together migrate
	// one after the other, returning the function that lets the next go.
	// goose's own session lock does not do it: goose creates its version
	// table before taking it, and handles racing there retry each second.
	lockMigrations func(context.Context) (unlock func(), err error)
}

// The statements of a submission's transaction, the store's hot path:
// prepared once when the store opens, so that a deadline's transactions,
// which take turns at the write lock, do not parse them again inside it.
// The export reads a track's close with selectTrackClosed too, on a reader.
const (
	selectEnrollmentTrack = `SELECT season, track FROM enrollments WHERE id = ?`
	selectTrackClosed     = `SELECT closed_at FROM tracks WHERE season = ? AND track = ?`
	selectLastVersion     = `SELECT sha256, receipt, replaces FROM submissions
			WHERE enrollment_id = ? AND task_id = ? ORDER BY seq DESC LIMIT 1`
	insertSubmission = `INSERT INTO submissions (enrollment_id, task_id, sha256, body, receipt, replaces, received_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`
)

// sqlStore is Store over database/sql, for both backends.
type sqlStore struct {
	dialect
	// writer is where every write transaction runs; reader, every read. On
	// PostgreSQL they are one pool; on SQLite, the writer is one connection
	// (one writer at a time is SQLite's model) and the reader a pool, so
	// that token look-ups and the export do not queue behind fsyncs.
	writer, reader *sql.DB
	limits         Limits
	// prepared are the hot statements, by their text, prepared on the
	// writer.
	prepared map[string]*sql.Stmt
}

// Check at compile time that sqlStore is a Store.
var _ Store = (*sqlStore)(nil)

// newSQLStore resolves the limits and brings the schema up to date.
func newSQLStore(ctx context.Context, d dialect, writer, reader *sql.DB, opts Options) (*sqlStore, error) {
	limits, err := opts.Limits.resolve()
	if err != nil {
		return nil, err
	}
	s := &sqlStore{dialect: d, writer: writer, reader: reader, limits: limits, prepared: map[string]*sql.Stmt{}}
	if err := s.migrate(ctx); err != nil {
		return nil, err
	}
	for _, query := range []string{selectEnrollmentTrack, selectTrackClosed + d.forShare, selectLastVersion, insertSubmission} {
		stmt, err := writer.PrepareContext(ctx, s.q(query))
		if err != nil {
			_ = s.closePrepared()
			return nil, fmt.Errorf("seasonstore: prepare: %w", err)
		}
		s.prepared[query] = stmt
	}
	return s, nil
}

// stmt is a prepared statement within tx.
func (s *sqlStore) stmt(ctx context.Context, tx *sql.Tx, query string) *sql.Stmt {
	return tx.StmtContext(ctx, s.prepared[query])
}

func (s *sqlStore) closePrepared() error {
	var err error
	for _, stmt := range s.prepared {
		err = errors.Join(err, stmt.Close())
	}
	return err
}

// migrate applies the embedded migrations not yet applied, as recorded in
// the schema_version table.
func (s *sqlStore) migrate(ctx context.Context) error {
	fsys, err := fs.Sub(migrations, s.migrations)
	if err != nil {
		return err
	}
	p, err := goose.NewProvider(s.goose, s.writer, fsys,
		goose.WithTableName("schema_version"),
		// The store's migrations are the embedded ones only, never those a
		// program registers in goose's global registry.
		goose.WithDisableGlobalRegistry(true))
	if err != nil {
		return fmt.Errorf("seasonstore: %s migrations: %w", s.name, err)
	}
	unlock, err := s.lockMigrations(ctx)
	if err != nil {
		return fmt.Errorf("seasonstore: %s migrations: wait for another's: %w", s.name, err)
	}
	defer unlock()
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("seasonstore: %s migrations: %w", s.name, err)
	}
	return nil
}

// schemaVersion is the database's schema version, the last migration
// applied.
func (s *sqlStore) schemaVersion(ctx context.Context) (int64, error) {
	fsys, err := fs.Sub(migrations, s.migrations)
	if err != nil {
		return 0, err
	}
	p, err := goose.NewProvider(s.goose, s.reader, fsys, goose.WithTableName("schema_version"), goose.WithDisableGlobalRegistry(true))
	if err != nil {
		return 0, err
	}
	return p.GetDBVersion(ctx)
}

func (s *sqlStore) Close() error {
	err := errors.Join(s.closePrepared(), s.writer.Close())
	if s.reader != s.writer {
		err = errors.Join(err, s.reader.Close())
	}
	return err
}

// q writes a statement for the backend: ? placeholders numbered for
// PostgreSQL. No statement of this file has a ? anywhere else.
func (s *sqlStore) q(query string) string {
	if !s.numbered {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// write runs fn in a write transaction and commits it: once write returns
// nil, what fn wrote is on disk. fn runs its statements with the context
// it is given (see dialect.uncut).
func (s *sqlStore) write(ctx context.Context, fn func(context.Context, *sql.Tx) error) error {
	err := s.transact(ctx, fn)
	if s.oneWriter {
		runtime.Gosched()
	}
	return err
}

// transact runs fn in a write transaction on the writer's connection and
// commits it, returning the connection to the pool, and so to the next
// writer waiting, before it returns.
func (s *sqlStore) transact(ctx context.Context, fn func(context.Context, *sql.Tx) error) error {
	conn, err := s.writer.Conn(ctx)
	if err != nil {
		return fmt.Errorf("seasonstore: begin: %w", err)
	}
	defer conn.Close()
	if s.uncut {
		ctx = context.WithoutCancel(ctx)
	}
	tx, err := conn.BeginTx(ctx, s.writeTx)
	if err != nil {
		return fmt.Errorf("seasonstore: begin: %w", err)
	}
	if err := fn(ctx, tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("seasonstore: commit: %w", err)
	}
	return nil
}

// lockOpenTrack reads a track's close under the lock the close must wait
// for, and refuses a closed track.
func (s *sqlStore) lockOpenTrack(ctx context.Context, tx *sql.Tx, season int, track string) error {
	var closedAt sql.NullString
	err := s.stmt(ctx, tx, selectTrackClosed+s.forShare).QueryRowContext(ctx, season, track).Scan(&closedAt)
	if err != nil {
		return fmt.Errorf("seasonstore: read the track: %w", err)
	}
	if closedAt.Valid {
		return ErrTrackClosed
	}
	return nil
}

// attempts bounds how many ids Enroll draws: two drawn ids meeting is
// already a one in 2^80 event.
const attempts = 3

func (s *sqlStore) Enroll(ctx context.Context, in NewEnrollment) (index.Enrollment, error) {
	if err := checkEnrollment(&in, s.limits); err != nil {
		return index.Enrollment{}, err
	}
	e := in.Enrollment
	if e.DIDHistory == nil {
		e.DIDHistory = []string{} // exported as [], never null
	}
	history, err := json.Marshal(e.DIDHistory)
	if err != nil {
		return index.Enrollment{}, err
	}
	drawn := e.ID == ""
	for attempt := 0; ; attempt++ {
		if drawn {
			e.ID = newEnrollmentID()
		}
		err = s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
			// The track's row exists from its first enrollment on.
			if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO tracks (season, track) VALUES (?, ?) ON CONFLICT (season, track) DO NOTHING`), in.Season, in.Track); err != nil {
				return fmt.Errorf("seasonstore: add the track: %w", err)
			}
			if err := s.lockOpenTrack(ctx, tx, in.Season, in.Track); err != nil {
				return err
			}
			// Say which of key and DID is taken, the key first, for an
			// enrollment already committed; one racing this transaction is
			// caught by the constraints at the insert.
			for _, taken := range []struct{ column, value, constraint string }{
				{"cle", e.Key, "enrollments_one_per_key"},
				{"did", e.DID, "enrollments_one_per_did"},
			} {
				var n int
				err := tx.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM enrollments WHERE season = ? AND track = ? AND `+taken.column+` = ?`),
					in.Season, in.Track, taken.value).Scan(&n)
				if err != nil {
					return fmt.Errorf("seasonstore: look for the %s: %w", taken.column, err)
				}
				if n > 0 {
					return constraintError(taken.constraint)
				}
			}
			_, err := tx.ExecContext(ctx, s.q(`INSERT INTO enrollments
				(id, season, track, token_sha256, agent, did, cle, historique_did, inscrit_le, tableau, stack, lien_preuves, modele, version, framework, prompt)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
				e.ID, in.Season, in.Track, in.TokenSHA256[:], e.Agent, e.DID, e.Key, string(history), e.EnrolledAt, e.Table, e.Stack, e.ProofsLink,
				nullable(e.Model), nullable(e.Version), nullable(e.Framework), nullable(e.Prompt))
			if err != nil {
				if c := s.constraint(err); c != "" {
					return constraintError(c)
				}
				return fmt.Errorf("seasonstore: insert the enrollment: %w", err)
			}
			return nil
		})
		if drawn && errors.Is(err, ErrIDTaken) && attempt+1 < attempts {
			continue
		}
		if err != nil {
			return index.Enrollment{}, err
		}
		return e, nil
	}
}

// errTokenTaken is two enrollments handed one token: the service draws 256
// random bits per token, so this is a bug of its, never a participant's.
var errTokenTaken = errors.New("seasonstore: this token's hash is already another enrollment's")

// constraintError is the error of the UNIQUE constraint an enrollment broke.
func constraintError(constraint string) error {
	switch constraint {
	case "enrollments_one_per_key":
		return ErrKeyEnrolled
	case "enrollments_one_per_did":
		return ErrDIDEnrolled
	case "enrollments_id_unique":
		return ErrIDTaken
	case "enrollments_token_unique":
		return errTokenTaken
	}
	return fmt.Errorf("seasonstore: constraint %s broken", constraint)
}

func nullable(s *string) sql.NullString {
	if s == nil {
		return sql.NullString{}
	}
	return sql.NullString{String: *s, Valid: true}
}

func pointer(s sql.NullString) *string {
	if !s.Valid {
		return nil
	}
	return &s.String
}

// enrollmentColumns are what scanEnrollment reads, in its order.
const enrollmentColumns = `season, track, id, agent, did, cle, historique_did, inscrit_le, tableau, stack, lien_preuves, modele, version, framework, prompt`

func scanEnrollment(row interface{ Scan(...any) error }) (Enrolled, error) {
	var (
		en                                 Enrolled
		e                                  = &en.Enrollment
		history                            string
		model, version, framework, prompts sql.NullString
	)
	err := row.Scan(&en.Season, &en.Track, &e.ID, &e.Agent, &e.DID, &e.Key, &history, &e.EnrolledAt, &e.Table, &e.Stack, &e.ProofsLink,
		&model, &version, &framework, &prompts)
	if err != nil {
		return en, err
	}
	if err := json.Unmarshal([]byte(history), &e.DIDHistory); err != nil {
		return en, fmt.Errorf("seasonstore: enrollment %s: historique_did: %w", e.ID, err)
	}
	if e.DIDHistory == nil {
		e.DIDHistory = []string{}
	}
	e.Model, e.Version, e.Framework, e.Prompt = pointer(model), pointer(version), pointer(framework), pointer(prompts)
	return en, nil
}

func (s *sqlStore) EnrollmentByToken(ctx context.Context, tokenSHA256 [32]byte) (Enrolled, error) {
	row := s.reader.QueryRowContext(ctx, s.q(`SELECT `+enrollmentColumns+` FROM enrollments WHERE token_sha256 = ?`), tokenSHA256[:])
	en, err := scanEnrollment(row)
	if errors.Is(err, sql.ErrNoRows) {
		return Enrolled{}, ErrUnknownToken
	}
	if err != nil {
		return Enrolled{}, fmt.Errorf("seasonstore: look the token up: %w", err)
	}
	return en, nil
}

func (s *sqlStore) Submit(ctx context.Context, in NewSubmission, receipt ReceiptFunc) (Accepted, error) {
	if err := checkSubmission(&in, s.limits); err != nil {
		return Accepted{}, err
	}
	if receipt == nil {
		return Accepted{}, &InvalidError{"receipt", "want the function that builds the new version's receipt"}
	}
	sum := sha256.Sum256(in.Body)
	digest := hex.EncodeToString(sum[:])
	var out Accepted
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		// The enrollment's track never changes: read it unlocked, then take
		// the locks in the one order every transaction takes them, the
		// track's before the enrollment's.
		var season int
		var track string
		err := s.stmt(ctx, tx, selectEnrollmentTrack).QueryRowContext(ctx, in.EnrollmentID).Scan(&season, &track)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("seasonstore: read the enrollment: %w", err)
		}
		closed := s.lockOpenTrack(ctx, tx, season, track)
		if closed != nil && !errors.Is(closed, ErrTrackClosed) {
			return closed
		}
		// One enrollment's submissions one at a time, so that "the last
		// accepted" and remplace are those of the order they commit in.
		// (SQLite's write transaction holds the whole database already.)
		if s.forUpdate != "" {
			var id string
			if err := tx.QueryRowContext(ctx, s.q(`SELECT id FROM enrollments WHERE id = ?`+s.forUpdate), in.EnrollmentID).Scan(&id); err != nil {
				return fmt.Errorf("seasonstore: lock the enrollment: %w", err)
			}
		}
		var last struct {
			sha256   string
			receipt  []byte
			replaces bool
		}
		err = s.stmt(ctx, tx, selectLastVersion).QueryRowContext(ctx, in.EnrollmentID, in.TaskID).Scan(&last.sha256, &last.receipt, &last.replaces)
		hasLast := err == nil
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("seasonstore: read the task's last version: %w", err)
		}
		if hasLast && last.sha256 == digest {
			// A client resending after a cut: the version it sent is kept,
			// and exported, already.
			out = Accepted{Receipt: last.receipt, SHA256: digest, Replaces: last.replaces}
			return nil
		}
		if closed != nil {
			return closed
		}
		issued, err := receipt(ReceiptFacts{Season: season, Track: track, EnrollmentID: in.EnrollmentID, TaskID: in.TaskID,
			SHA256: digest, ReceivedAt: in.ReceivedAt, Replaces: hasLast})
		if err != nil {
			return err
		}
		if len(issued) > s.limits.ReceiptBytes {
			return &LimitError{What: "a receipt", Size: len(issued), Limit: s.limits.ReceiptBytes}
		}
		if !json.Valid(issued) {
			return &InvalidError{"receipt", "want JSON: receipts are exported as recus.json"}
		}
		_, err = s.stmt(ctx, tx, insertSubmission).ExecContext(ctx,
			in.EnrollmentID, in.TaskID, digest, in.Body, issued, hasLast, in.ReceivedAt.UTC().Format(time.RFC3339Nano))
		if err != nil {
			return fmt.Errorf("seasonstore: insert the submission: %w", err)
		}
		out = Accepted{Receipt: append(json.RawMessage(nil), issued...), SHA256: digest, Replaces: hasLast, Recorded: true}
		return nil
	})
	if err != nil {
		return Accepted{}, err
	}
	return out, nil
}

func (s *sqlStore) TrackState(ctx context.Context, season int, track string) (TrackState, error) {
	if err := checkTrack(season, track); err != nil {
		return TrackState{}, err
	}
	var state TrackState
	var closedAt sql.NullString
	err := s.reader.QueryRowContext(ctx, s.q(`SELECT
		(SELECT COUNT(*) FROM enrollments WHERE season = ? AND track = ?),
		(SELECT closed_at FROM tracks WHERE season = ? AND track = ?)`), season, track, season, track).Scan(&state.Enrollments, &closedAt)
	if err != nil {
		return TrackState{}, fmt.Errorf("seasonstore: read the track: %w", err)
	}
	state.Closed, state.ClosedAt, err = parseClosedAt(closedAt)
	return state, err
}

func parseClosedAt(s sql.NullString) (bool, time.Time, error) {
	if !s.Valid {
		return false, time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s.String)
	if err != nil {
		return false, time.Time{}, fmt.Errorf("seasonstore: closed_at: %w", err)
	}
	return true, t, nil
}

func (s *sqlStore) CloseTrack(ctx context.Context, season int, track string, at time.Time) (time.Time, error) {
	if err := checkTrack(season, track); err != nil {
		return time.Time{}, err
	}
	if at.IsZero() {
		return time.Time{}, &InvalidError{"closed_at", "want the time of the close"}
	}
	var closedAt sql.NullString
	err := s.write(ctx, func(ctx context.Context, tx *sql.Tx) error {
		// The update takes the track's row exclusively: it waits for every
		// submission holding it shared, and those after see it closed.
		return tx.QueryRowContext(ctx, s.q(`INSERT INTO tracks (season, track, closed_at) VALUES (?, ?, ?)
			ON CONFLICT (season, track) DO UPDATE SET closed_at = COALESCE(tracks.closed_at, excluded.closed_at)
			RETURNING closed_at`), season, track, at.UTC().Format(time.RFC3339Nano)).Scan(&closedAt)
	})
	if err != nil {
		return time.Time{}, fmt.Errorf("seasonstore: close the track: %w", err)
	}
	_, t, err := parseClosedAt(closedAt)
	return t, err
}

func (s *sqlStore) Export(ctx context.Context, season int, track string, counted func(Counted) error) (*Export, error) {
	if err := checkTrack(season, track); err != nil {
		return nil, err
	}
	tx, err := s.reader.BeginTx(ctx, s.readTx)
	if err != nil {
		return nil, fmt.Errorf("seasonstore: begin the export: %w", err)
	}
	defer func() { _ = tx.Rollback() }() // read only: nothing to commit

	out := &Export{Enrollments: index.Enrollments{Season: season, Track: track, Enrollments: []index.Enrollment{}}, Receipts: []json.RawMessage{}}
	var closedAt sql.NullString
	err = tx.QueryRowContext(ctx, s.q(selectTrackClosed), season, track).Scan(&closedAt)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("seasonstore: read the track: %w", err)
	}
	if out.Closed, out.ClosedAt, err = parseClosedAt(closedAt); err != nil {
		return nil, err
	}

	if err := each(ctx, tx, s.q(`SELECT `+enrollmentColumns+` FROM enrollments WHERE season = ? AND track = ? ORDER BY seq`),
		[]any{season, track}, func(rows *sql.Rows) error {
			en, err := scanEnrollment(rows)
			out.Enrollments.Enrollments = append(out.Enrollments.Enrollments, en.Enrollment)
			return err
		}); err != nil {
		return nil, fmt.Errorf("seasonstore: export the enrollments: %w", err)
	}

	if err := each(ctx, tx, s.q(`SELECT s.receipt FROM submissions s JOIN enrollments e ON e.id = s.enrollment_id
		WHERE e.season = ? AND e.track = ? ORDER BY s.seq`), []any{season, track}, func(rows *sql.Rows) error {
		var r []byte
		err := rows.Scan(&r)
		out.Receipts = append(out.Receipts, r)
		return err
	}); err != nil {
		return nil, fmt.Errorf("seasonstore: export the receipts: %w", err)
	}

	// Each (enrollment, task)'s last version: the one no later version of
	// the same task follows.
	if err := each(ctx, tx, s.q(`SELECT s.enrollment_id, s.task_id, s.sha256, s.body, s.receipt
		FROM submissions s JOIN enrollments e ON e.id = s.enrollment_id
		WHERE e.season = ? AND e.track = ? AND NOT EXISTS (
			SELECT 1 FROM submissions l WHERE l.enrollment_id = s.enrollment_id AND l.task_id = s.task_id AND l.seq > s.seq)
		ORDER BY e.seq, s.task_id`), []any{season, track}, func(rows *sql.Rows) error {
		var c Counted
		var r []byte
		if err := rows.Scan(&c.EnrollmentID, &c.TaskID, &c.SHA256, &c.Body, &r); err != nil {
			return err
		}
		c.Receipt = r
		if counted == nil {
			return nil
		}
		return counted(c)
	}); err != nil {
		return nil, fmt.Errorf("seasonstore: export the submissions: %w", err)
	}
	return out, nil
}

// each calls fn on every row of a query.
func each(ctx context.Context, tx *sql.Tx, query string, args []any, fn func(*sql.Rows) error) error {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
