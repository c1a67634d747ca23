package seasonstore

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/harness/pgtest"
	"github.com/arkforge/proveit-corpus/tools/index"
)

// TestMain stops the PostgreSQL server the tests share, once all have run.
func TestMain(m *testing.M) {
	m.Run()
	pgtest.Stop()
}

// testDB is one test's fresh database on one backend. connect opens a
// store on it; called again, another handle on the same database: a
// replica of the service, or the store reopened.
type testDB struct {
	backend string
	connect func() (Store, error)
}

// open connects, failing the test on an error, and closes the store at
// the test's end.
func (db *testDB) open(t *testing.T) Store {
	t.Helper()
	s, err := db.connect()
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// forEachBackend runs the test once on SQLite, in the test's temporary
// folder, and once on PostgreSQL, in a database of its own on the shared
// server: the one suite both stores answer.
func forEachBackend(t *testing.T, test func(t *testing.T, db *testDB)) {
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "season.db")
		test(t, &testDB{backend: "sqlite", connect: func() (Store, error) {
			return OpenSQLite(context.Background(), path, Options{})
		}})
	})
	t.Run("postgres", func(t *testing.T) {
		url := pgtest.Database(t)
		test(t, &testDB{backend: "postgres", connect: func() (Store, error) {
			return OpenPostgres(context.Background(), url, Options{})
		}})
	})
}

// The fixtures' season and tracks.
const (
	season1    = 1
	conformite = "conformite"
	generique  = "generique"
)

var fixtureCount atomic.Int64

// participant is a community enrollment with its own key, DID and token,
// as the service builds it from Trust Layer's answer.
func participant(track string) NewEnrollment {
	n := fixtureCount.Add(1)
	return NewEnrollment{
		Season: season1,
		Track:  track,
		Enrollment: index.Enrollment{
			Agent:      fmt.Sprintf("Agent %d", n),
			DID:        fmt.Sprintf("did:key:z6MkAgent%d", n),
			Key:        hexSHA256(fmt.Sprintf("key %d", n)),
			DIDHistory: []string{fmt.Sprintf("did:key:z6MkOld%d", n), fmt.Sprintf("did:key:z6MkAgent%d", n)},
			EnrolledAt: "2026-10-02T08:00:00Z",
			Table:      index.TableCommunity,
			Stack:      "Go, a model",
			ProofsLink: fmt.Sprintf("https://example.org/agent-%d/", n),
		},
		TokenSHA256: sha256.Sum256(fmt.Appendf(nil, "token %d", n)),
	}
}

// referenceRun is an operator's reference run, with its chosen id.
func referenceRun(track, id string) NewEnrollment {
	in := participant(track)
	in.Enrollment.ID = id
	in.Enrollment.Table = index.TableReference
	in.Enrollment.Model, in.Enrollment.Version = ptr("model"), ptr("2026-09")
	in.Enrollment.Framework, in.Enrollment.Prompt = ptr("none"), ptr("Read the statement; answer with receipts.")
	return in
}

func ptr(s string) *string { return &s }

func hexSHA256(s string) string {
	sum := sha256.Sum256([]byte(s))
	return fmt.Sprintf("%x", sum)
}

// receipts builds receipts as the service does, unsigned, and counts the
// ones it built.
type receipts struct{ built atomic.Int64 }

func (r *receipts) build(f ReceiptFacts) ([]byte, error) {
	r.built.Add(1)
	return json.Marshal(map[string]any{
		"saison": f.Season, "piste": f.Track, "inscription": f.EnrollmentID, "task_id": f.TaskID,
		"sha256": f.SHA256, "recue_le": f.ReceivedAt.UTC().Format(time.RFC3339), "remplace": f.Replaces,
	})
}

// body is a submission's bytes, distinct for each (enrollment, task,
// version), as a participant's client writes them.
func body(enrollment, task string, version int) []byte {
	return fmt.Appendf(nil, "{\"season\": 1, \"task_id\": %q, \"agent\": %q, \"version\": %d}\n", task, enrollment, version)
}

func submission(enrollment, task string, version int) NewSubmission {
	return NewSubmission{EnrollmentID: enrollment, TaskID: task, Body: body(enrollment, task, version), ReceivedAt: time.Now()}
}

// exported reads a track's export, its counted submissions by
// enrollment/task.
func exported(t *testing.T, s Store, track string) (*Export, map[string]Counted, []string) {
	t.Helper()
	counted := map[string]Counted{}
	var order []string
	out, err := s.Export(context.Background(), season1, track, func(c Counted) error {
		key := c.EnrollmentID + "/" + c.TaskID
		counted[key] = c
		order = append(order, key)
		return nil
	})
	require.NoError(t, err)
	return out, counted, order
}
