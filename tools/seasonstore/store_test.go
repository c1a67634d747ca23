package seasonstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/tools/index"
)

func TestEnroll(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *testDB) {
		ctx := context.Background()
		s := db.open(t)
		first := participant(conformite)
		kept, err := s.Enroll(ctx, first)
		require.NoError(t, err)
		assert.Regexp(t, `^[a-z0-9]{16}$`, kept.ID, "a drawn id")
		want := first.Enrollment
		want.ID = kept.ID
		assert.Equal(t, want, kept)

		_, err = s.Enroll(ctx, participant("fermee"))
		require.NoError(t, err)
		_, err = s.CloseTrack(ctx, season1, "fermee", time.Now())
		require.NoError(t, err)

		taken := referenceRun(conformite, "ref-taken")
		_, err = s.Enroll(ctx, taken)
		require.NoError(t, err)

		cases := []struct {
			name   string
			change func(*NewEnrollment)
			want   error
		}{
			{"the same key, another DID", func(in *NewEnrollment) { in.Enrollment.Key = first.Enrollment.Key }, ErrKeyEnrolled},
			{"the same DID, another key", func(in *NewEnrollment) { in.Enrollment.DID = first.Enrollment.DID }, ErrDIDEnrolled},
			{"the same key and DID: the key is named", func(in *NewEnrollment) {
				in.Enrollment.Key, in.Enrollment.DID = first.Enrollment.Key, first.Enrollment.DID
			}, ErrKeyEnrolled},
			{"the same key on the other track", func(in *NewEnrollment) {
				in.Track, in.Enrollment.Key, in.Enrollment.DID = generique, first.Enrollment.Key, first.Enrollment.DID
			}, nil},
			{"the same key in another season", func(in *NewEnrollment) {
				in.Season, in.Enrollment.Key, in.Enrollment.DID = 2, first.Enrollment.Key, first.Enrollment.DID
			}, nil},
			{"a closed track", func(in *NewEnrollment) { in.Track = "fermee" }, ErrTrackClosed},
			{"an operator's id already in use", func(in *NewEnrollment) { in.Enrollment.ID = "ref-taken" }, ErrIDTaken},
			{"an operator's id", func(in *NewEnrollment) { in.Enrollment.ID = "ref-other" }, nil},
			{"an id the Index writes itself", func(in *NewEnrollment) { in.Enrollment.ID = "index" }, ErrInvalid},
			{"an id out of the Index's form", func(in *NewEnrollment) { in.Enrollment.ID = "Alice" }, ErrInvalid},
			{"no token", func(in *NewEnrollment) { in.TokenSHA256 = [32]byte{} }, ErrInvalid},
			{"season 0", func(in *NewEnrollment) { in.Season = 0 }, ErrInvalid},
			{"a track out of form", func(in *NewEnrollment) { in.Track = "../x" }, ErrInvalid},
			{"a key that is no SHA-256", func(in *NewEnrollment) { in.Enrollment.Key = "not-a-hash" }, ErrInvalid},
			{"a DID that is none", func(in *NewEnrollment) { in.Enrollment.DID = "alice" }, ErrInvalid},
			{"an agent with a control character", func(in *NewEnrollment) { in.Enrollment.Agent = "a\x1bb" }, ErrInvalid},
			{"a local time", func(in *NewEnrollment) { in.Enrollment.EnrolledAt = "2026-10-02T08:00:00+02:00" }, ErrInvalid},
			{"a link that is no URL", func(in *NewEnrollment) { in.Enrollment.ProofsLink = "example.org/x" }, ErrInvalid},
			{"an unknown table", func(in *NewEnrollment) { in.Enrollment.Table = "autre" }, ErrInvalid},
			{"a community run with a model", func(in *NewEnrollment) { in.Enrollment.Model = ptr("m") }, ErrInvalid},
			{"a reference run without its prompt", func(in *NewEnrollment) {
				*in = referenceRun(conformite, "")
				in.Enrollment.Prompt = nil
			}, ErrInvalid},
			{"a stack over the limit", func(in *NewEnrollment) { in.Enrollment.Stack = strings.Repeat("x", defaultEnrollmentBytes) }, ErrTooLarge},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				in := participant(conformite)
				c.change(&in)
				before, err := s.TrackState(ctx, season1, conformite)
				require.NoError(t, err)
				_, err = s.Enroll(ctx, in)
				if c.want == nil {
					require.NoError(t, err)
					return
				}
				require.ErrorIs(t, err, c.want)
				after, err := s.TrackState(ctx, season1, conformite)
				require.NoError(t, err)
				assert.Equal(t, before, after, "a refused enrollment records nothing")
			})
		}
	})
}

func TestEnrollmentByToken(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *testDB) {
		ctx := context.Background()
		s := db.open(t)
		in := referenceRun(generique, "ref-one")
		kept, err := s.Enroll(ctx, in)
		require.NoError(t, err)

		found, err := s.EnrollmentByToken(ctx, in.TokenSHA256)
		require.NoError(t, err)
		assert.Equal(t, Enrolled{Season: season1, Track: generique, Enrollment: kept}, found)

		_, err = s.EnrollmentByToken(ctx, sha256.Sum256([]byte("a token nobody was given")))
		require.ErrorIs(t, err, ErrUnknownToken)
	})
}

// Many requests enrolling one key (or one DID) at once, through two
// replicas: exactly one wins, the others are told which is taken.
func TestConcurrentEnrollmentsOneWins(t *testing.T) {
	for _, c := range []struct {
		name   string
		shared func(in *NewEnrollment, first NewEnrollment)
		want   error
	}{
		{"one key", func(in *NewEnrollment, first NewEnrollment) { in.Enrollment.Key = first.Enrollment.Key }, ErrKeyEnrolled},
		{"one DID", func(in *NewEnrollment, first NewEnrollment) { in.Enrollment.DID = first.Enrollment.DID }, ErrDIDEnrolled},
	} {
		t.Run(c.name, func(t *testing.T) {
			forEachBackend(t, func(t *testing.T, db *testDB) {
				ctx := context.Background()
				replicas := []Store{db.open(t), db.open(t)}
				first := participant(conformite)
				const racers = 24
				errs := make([]error, racers)
				var wg sync.WaitGroup
				start := make(chan struct{})
				for i := range racers {
					in := participant(conformite)
					c.shared(&in, first)
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-start
						_, errs[i] = replicas[i%2].Enroll(ctx, in)
					}()
				}
				close(start)
				wg.Wait()
				won := 0
				for _, err := range errs {
					if err == nil {
						won++
						continue
					}
					require.ErrorIs(t, err, c.want)
				}
				assert.Equal(t, 1, won)
				state, err := replicas[0].TrackState(ctx, season1, conformite)
				require.NoError(t, err)
				assert.Equal(t, 1, state.Enrollments)
			})
		})
	}
}

func TestSubmit(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *testDB) {
		ctx := context.Background()
		s := db.open(t)
		alice, err := s.Enroll(ctx, participant(conformite))
		require.NoError(t, err)
		var r receipts

		// One task's versions, in order: what each answers.
		steps := []struct {
			name         string
			version      int
			wantRecorded bool
			wantReplaces bool
		}{
			{"the first version", 1, true, false},
			{"the same bytes again (a resend after a cut)", 1, false, false},
			{"a second version replaces the first", 2, true, true},
			{"the second again", 2, false, true},
			{"the first again is a new version, replacing the second", 1, true, true},
		}
		receiptsOf := map[int]json.RawMessage{}
		for _, step := range steps {
			t.Run(step.name, func(t *testing.T) {
				built := r.built.Load()
				in := submission(alice.ID, "conf-01", step.version)
				got, err := s.Submit(ctx, in, r.build)
				require.NoError(t, err)
				assert.Equal(t, step.wantRecorded, got.Recorded)
				assert.Equal(t, step.wantReplaces, got.Replaces)
				sum := sha256.Sum256(in.Body)
				assert.Equal(t, hex.EncodeToString(sum[:]), got.SHA256)
				var receipt map[string]any
				require.NoError(t, json.Unmarshal(got.Receipt, &receipt))
				assert.Equal(t, got.SHA256, receipt["sha256"])
				assert.Equal(t, step.wantReplaces, receipt["remplace"])
				if step.wantRecorded {
					assert.Equal(t, built+1, r.built.Load(), "one receipt built")
					receiptsOf[step.version] = got.Receipt
				} else {
					assert.Equal(t, built, r.built.Load(), "a resend builds no receipt")
					assert.JSONEq(t, string(receiptsOf[step.version]), string(got.Receipt), "a resend answers the receipt issued")
				}
			})
		}
		out, counted, _ := exported(t, s, conformite)
		assert.Len(t, out.Receipts, 3, "three versions recorded, three receipts issued")
		assert.Equal(t, body(alice.ID, "conf-01", 1), counted[alice.ID+"/conf-01"].Body, "the last accepted counts")

		refusals := []struct {
			name    string
			in      NewSubmission
			receipt ReceiptFunc
			want    error
		}{
			{"an unknown enrollment", submission("nobody", "conf-01", 9), r.build, ErrNotFound},
			{"an enrollment id out of form", submission("../x", "conf-01", 9), r.build, ErrNotFound},
			{"a task id that is no file name", submission(alice.ID, "../conf-01", 9), r.build, ErrInvalid},
			{"no bytes", NewSubmission{EnrollmentID: alice.ID, TaskID: "conf-02", ReceivedAt: time.Now()}, r.build, ErrInvalid},
			{"over 1 MiB", NewSubmission{EnrollmentID: alice.ID, TaskID: "conf-02", Body: make([]byte, MaxSubmissionBytes+1), ReceivedAt: time.Now()}, r.build, ErrTooLarge},
			{"no time of receipt", NewSubmission{EnrollmentID: alice.ID, TaskID: "conf-02", Body: body(alice.ID, "conf-02", 1)}, r.build, ErrInvalid},
			{"a receipt that is no JSON", submission(alice.ID, "conf-02", 1), func(ReceiptFacts) ([]byte, error) { return []byte("{"), nil }, ErrInvalid},
			{"a receipt over its limit", submission(alice.ID, "conf-02", 1), func(ReceiptFacts) ([]byte, error) {
				return json.Marshal(strings.Repeat("x", defaultReceiptBytes))
			}, ErrTooLarge},
			{"no receipt builder", submission(alice.ID, "conf-02", 1), nil, ErrInvalid},
			{"the receipt's signer failing", submission(alice.ID, "conf-02", 1), func(ReceiptFacts) ([]byte, error) {
				return nil, errSigner
			}, errSigner},
		}
		for _, c := range refusals {
			t.Run(c.name, func(t *testing.T) {
				_, err := s.Submit(ctx, c.in, c.receipt)
				require.ErrorIs(t, err, c.want)
				after, counted, _ := exported(t, s, conformite)
				assert.Equal(t, out.Receipts, after.Receipts, "a refusal records nothing")
				assert.Len(t, counted, 1)
			})
		}
	})
}

var errSigner = errors.New("the receipt key is unavailable")

// A caller that leaves while its submission's transaction runs: on SQLite
// the transaction runs to its commit, so the version is recorded with the
// receipt built for it, and the same bytes sent again get that receipt; on
// PostgreSQL the caller's context ends the transaction and nothing is
// recorded. Either way, never half a version.
func TestCallerLeavesMidTransaction(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *testDB) {
		s := db.open(t)
		alice, err := s.Enroll(context.Background(), participant(conformite))
		require.NoError(t, err)
		var r receipts
		ctx, leave := context.WithCancel(context.Background())
		in := submission(alice.ID, "conf-01", 1)
		_, err = s.Submit(ctx, in, func(f ReceiptFacts) ([]byte, error) {
			leave() // inside the transaction, before its insert
			return r.build(f)
		})
		out, counted, _ := exported(t, s, conformite)
		switch db.backend {
		case "sqlite":
			require.NoError(t, err)
			require.Len(t, out.Receipts, 1, "the version is recorded")
			again, err := s.Submit(context.Background(), in, r.build)
			require.NoError(t, err)
			assert.False(t, again.Recorded)
			assert.JSONEq(t, string(out.Receipts[0]), string(again.Receipt), "the resend gets the receipt recorded")
		case "postgres":
			require.ErrorIs(t, err, context.Canceled)
			assert.Empty(t, out.Receipts, "nothing is recorded")
			assert.Empty(t, counted)
		}
	})
}

// Many versions of one task at once, through two replicas: each is
// recorded, exactly one replaces nothing, and the export counts the last.
func TestConcurrentVersionsOfOneTask(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *testDB) {
		ctx := context.Background()
		replicas := []Store{db.open(t), db.open(t)}
		alice, err := replicas[0].Enroll(ctx, participant(conformite))
		require.NoError(t, err)
		var r receipts
		const versions = 24
		results := make([]Accepted, versions)
		var wg sync.WaitGroup
		for i := range versions {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var err error
				results[i], err = replicas[i%2].Submit(ctx, submission(alice.ID, "conf-01", i), r.build)
				assert.NoError(t, err)
			}()
		}
		wg.Wait()
		fresh := 0
		for _, a := range results {
			assert.True(t, a.Recorded)
			if !a.Replaces {
				fresh++
			}
		}
		assert.Equal(t, 1, fresh, "one version came first")
		out, counted, _ := exported(t, replicas[1], conformite)
		require.Len(t, out.Receipts, versions)
		last := out.Receipts[versions-1]
		assert.JSONEq(t, string(last), string(counted[alice.ID+"/conf-01"].Receipt), "the last receipt issued is the counted version's")
	})
}

func TestExport(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *testDB) {
		ctx := context.Background()
		s := db.open(t)
		var r receipts
		var ids []string
		for _, in := range []NewEnrollment{participant(conformite), referenceRun(conformite, "ref-a"), participant(generique), participant(conformite)} {
			e, err := s.Enroll(ctx, in)
			require.NoError(t, err)
			if in.Track == conformite {
				ids = append(ids, e.ID)
			}
		}
		// Tasks handed in out of order, a replacement, the other track.
		plan := []struct {
			enrollment int
			task       string
			version    int
		}{{2, "conf-02", 1}, {0, "conf-10", 1}, {0, "conf-02", 1}, {1, "conf-01", 1}, {0, "conf-10", 2}}
		var issued []json.RawMessage
		for _, p := range plan {
			a, err := s.Submit(ctx, submission(ids[p.enrollment], p.task, p.version), r.build)
			require.NoError(t, err)
			issued = append(issued, a.Receipt)
		}

		out, counted, order := exported(t, s, conformite)
		assert.Equal(t, season1, out.Enrollments.Season)
		assert.Equal(t, conformite, out.Enrollments.Track)
		var got []string
		for _, e := range out.Enrollments.Enrollments {
			got = append(got, e.ID)
		}
		assert.Equal(t, ids, got, "enrollment order, this track's only")
		require.Len(t, out.Receipts, len(issued))
		for i := range issued {
			assert.JSONEq(t, string(issued[i]), string(out.Receipts[i]), "receipt %d in the order issued", i)
		}
		assert.Equal(t, []string{ids[0] + "/conf-02", ids[0] + "/conf-10", ids[1] + "/conf-01", ids[2] + "/conf-02"}, order,
			"enrollment order, then task id")
		assert.Equal(t, body(ids[0], "conf-10", 2), counted[ids[0]+"/conf-10"].Body)
		for key, c := range counted {
			sum := sha256.Sum256(c.Body)
			assert.Equal(t, hex.EncodeToString(sum[:]), c.SHA256, key)
		}
		assert.False(t, out.Closed)

		// The Index reads the export as it is written.
		dir := filepath.Join(t.TempDir(), conformite)
		require.NoError(t, os.Mkdir(dir, 0o755))
		data, err := json.Marshal(out.Enrollments)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "inscriptions.json"), data, 0o644))
		read, err := index.ReadEnrollments(filepath.Join(dir, "inscriptions.json"), conformite)
		require.NoError(t, err)
		assert.Equal(t, out.Enrollments, *read)

		empty, counted, _ := exported(t, s, "vide")
		assert.Empty(t, empty.Enrollments.Enrollments)
		assert.Empty(t, empty.Receipts)
		assert.Empty(t, counted)
		data, err = json.Marshal(empty)
		require.NoError(t, err)
		assert.Contains(t, string(data), `"inscriptions":[]`, "an empty track exports [], never null")

		stop := errors.New("the disk is full")
		_, err = s.Export(ctx, season1, conformite, func(Counted) error { return stop })
		require.ErrorIs(t, err, stop)
	})
}

// The close races a surge of submissions through two replicas: every
// submission is either acknowledged, and exported with its receipt, or
// refused as closed; none is both, none is lost.
func TestCloseRacesSubmissions(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *testDB) {
		ctx := context.Background()
		replicas := []Store{db.open(t), db.open(t)}
		var r receipts
		var ids []string
		for range 8 {
			e, err := replicas[0].Enroll(ctx, participant(conformite))
			require.NoError(t, err)
			ids = append(ids, e.ID)
		}
		type outcome struct {
			key      string
			body     []byte
			accepted Accepted
			err      error
		}
		const tasks = 10
		outcomes := make(chan outcome, len(ids)*tasks)
		var wg sync.WaitGroup
		closeNow := make(chan struct{})
		for i, id := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for task := range tasks {
					if i == 0 && task == tasks/2 {
						close(closeNow) // the close lands mid-surge
					}
					in := submission(id, fmt.Sprintf("conf-%02d", task), 1)
					a, err := replicas[(i+task)%2].Submit(ctx, in, r.build)
					outcomes <- outcome{id + "/" + in.TaskID, in.Body, a, err}
				}
			}()
		}
		<-closeNow
		closedAt, err := replicas[1].CloseTrack(ctx, season1, conformite, time.Now())
		require.NoError(t, err)
		wg.Wait()
		close(outcomes)

		out, counted, _ := exported(t, replicas[0], conformite)
		require.True(t, out.Closed)
		assert.True(t, closedAt.Equal(out.ClosedAt))
		exportedReceipts := map[string]bool{}
		for _, rc := range out.Receipts {
			exportedReceipts[string(rc)] = true
		}
		acknowledged, refused := 0, 0
		for o := range outcomes {
			if o.err != nil {
				require.ErrorIs(t, o.err, ErrTrackClosed, o.key)
				assert.NotContains(t, counted, o.key, "refused, so not exported")
				refused++
				continue
			}
			acknowledged++
			c, ok := counted[o.key]
			require.True(t, ok, "%s acknowledged, so exported", o.key)
			assert.Equal(t, o.body, c.Body)
			assert.Equal(t, string(o.accepted.Receipt), string(c.Receipt))
			assert.True(t, exportedReceipts[string(o.accepted.Receipt)], "%s: its receipt is in recus.json", o.key)
		}
		assert.Equal(t, len(ids)*tasks, acknowledged+refused)
		assert.Len(t, counted, acknowledged)
		assert.Len(t, out.Receipts, acknowledged, "a receipt for each acknowledged submission, and no other")
		t.Logf("%d acknowledged before the close, %d refused after it", acknowledged, refused)
	})
}

func TestAfterTheClose(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *testDB) {
		ctx := context.Background()
		s := db.open(t)
		var r receipts
		alice, err := s.Enroll(ctx, participant(conformite))
		require.NoError(t, err)
		before, err := s.Submit(ctx, submission(alice.ID, "conf-01", 1), r.build)
		require.NoError(t, err)

		at := time.Date(2026, 12, 31, 23, 59, 59, 0, time.UTC)
		closedAt, err := s.CloseTrack(ctx, season1, conformite, at)
		require.NoError(t, err)
		assert.True(t, at.Equal(closedAt))
		again, err := s.CloseTrack(ctx, season1, conformite, at.Add(time.Hour))
		require.NoError(t, err)
		assert.True(t, at.Equal(again), "closing again keeps the first close")
		state, err := s.TrackState(ctx, season1, conformite)
		require.NoError(t, err)
		assert.Equal(t, TrackState{Enrollments: 1, Closed: true, ClosedAt: at}, state.withUTC())

		_, err = s.Submit(ctx, submission(alice.ID, "conf-01", 2), r.build)
		require.ErrorIs(t, err, ErrTrackClosed, "a new version")
		_, err = s.Submit(ctx, submission(alice.ID, "conf-02", 1), r.build)
		require.ErrorIs(t, err, ErrTrackClosed, "a new task")
		resent, err := s.Submit(ctx, submission(alice.ID, "conf-01", 1), r.build)
		require.NoError(t, err, "a resend of what is exported answers its receipt")
		assert.False(t, resent.Recorded)
		assert.Equal(t, string(before.Receipt), string(resent.Receipt))
		_, err = s.Enroll(ctx, participant(conformite))
		require.ErrorIs(t, err, ErrTrackClosed)

		other, err := s.TrackState(ctx, season1, generique)
		require.NoError(t, err)
		assert.Equal(t, TrackState{}, other, "the other track is open")
	})
}

func (s TrackState) withUTC() TrackState {
	s.ClosedAt = s.ClosedAt.UTC()
	return s
}

func TestTrackState(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *testDB) {
		ctx := context.Background()
		s := db.open(t)
		for _, track := range []string{conformite, conformite, conformite, generique} {
			_, err := s.Enroll(ctx, participant(track))
			require.NoError(t, err)
		}
		for _, c := range []struct {
			season int
			track  string
			want   int
		}{{season1, conformite, 3}, {season1, generique, 1}, {2, conformite, 0}, {season1, "inconnue", 0}} {
			state, err := s.TrackState(ctx, c.season, c.track)
			require.NoError(t, err)
			assert.Equal(t, c.want, state.Enrollments, "season %d, %s", c.season, c.track)
		}
		_, err := s.TrackState(ctx, season1, "")
		require.ErrorIs(t, err, ErrInvalid)
	})
}

// What was acknowledged is there, byte for byte, once the store is closed
// and opened again; the schema is not migrated twice.
func TestReopen(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *testDB) {
		ctx := context.Background()
		s := db.open(t)
		var r receipts
		in := referenceRun(conformite, "ref-kept")
		_, err := s.Enroll(ctx, in)
		require.NoError(t, err)
		sub := submission("ref-kept", "conf-03", 1)
		sub.Body = append(sub.Body, 0, 0xff, '\r', '\n') // any bytes, kept as received
		_, err = s.Submit(ctx, sub, r.build)
		require.NoError(t, err)
		before, beforeCounted, _ := exported(t, s, conformite)
		require.NoError(t, s.Close())

		reopened := db.open(t)
		after, afterCounted, _ := exported(t, reopened, conformite)
		assert.Equal(t, before, after)
		assert.Equal(t, beforeCounted, afterCounted)
		assert.Equal(t, sub.Body, afterCounted["ref-kept/conf-03"].Body)
		found, err := reopened.EnrollmentByToken(ctx, in.TokenSHA256)
		require.NoError(t, err)
		assert.Equal(t, "ref-kept", found.Enrollment.ID)
		version, err := reopened.(*sqlStore).schemaVersion(ctx)
		require.NoError(t, err)
		assert.EqualValues(t, 1, version)
	})
}

// Replicas starting together on a new database: one migrates, the others
// wait for it, and all work.
func TestReplicasMigrateOnce(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *testDB) {
		const replicas = 4
		stores := make([]Store, replicas)
		errs := make([]error, replicas)
		var wg sync.WaitGroup
		for i := range replicas {
			wg.Add(1)
			go func() { defer wg.Done(); stores[i], errs[i] = db.connect() }()
		}
		wg.Wait()
		for i, s := range stores {
			require.NoError(t, errs[i], "replica %d", i)
			t.Cleanup(func() { _ = s.Close() })
		}
		for i, s := range stores {
			_, err := s.Enroll(context.Background(), participant(conformite))
			require.NoError(t, err, "replica %d", i)
		}
	})
}

// What makes an acknowledged write durable is set on every connection
// that writes, whatever the server's or the file's defaults.
func TestDurableSettings(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *testDB) {
		ctx := context.Background()
		s := db.open(t).(*sqlStore)
		settings := map[string]map[string]string{
			"sqlite": {
				"PRAGMA journal_mode": "wal",
				"PRAGMA synchronous":  "2", // FULL
				"PRAGMA busy_timeout": "10000",
				"PRAGMA foreign_keys": "1",
			},
			"postgres": {
				"SHOW synchronous_commit": "on",
			},
		}[db.backend]
		for query, want := range settings {
			var got string
			require.NoError(t, s.writer.QueryRowContext(ctx, query).Scan(&got), query)
			assert.Equal(t, want, got, query)
		}
	})
}
