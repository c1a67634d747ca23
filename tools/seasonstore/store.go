package seasonstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/arkforge/proveit-corpus/tools/index"
)

// Store is a season's durable record of enrollments and submissions. Every
// method is safe for concurrent use, from one process or from several
// sharing one database.
type Store interface {
	// Enroll keeps an enrollment, exactly the inscriptions.json entry it
	// will be exported as, and returns it with its id: the one given (an
	// operator's reference run) or, when none is, one the store draws.
	// Refused with ErrKeyEnrolled or ErrDIDEnrolled when the track already
	// has an enrollment of that key or DID, ErrTrackClosed after the close,
	// ErrIDTaken for a given id already in use, an *InvalidError or a
	// *LimitError for a member out of its form or size.
	Enroll(ctx context.Context, in NewEnrollment) (index.Enrollment, error)

	// EnrollmentByToken finds the enrollment a season token was issued
	// to, by the token's SHA-256; ErrUnknownToken when none was.
	EnrollmentByToken(ctx context.Context, tokenSHA256 [32]byte) (Enrolled, error)

	// Submit keeps a submission's exact bytes as the enrollment's latest
	// for its task, with the receipt that receipt builds for it, in one
	// transaction. Bytes that are already the task's last accepted version
	// answer that version's receipt and record nothing (Accepted.Recorded
	// false), even after the close: they are in the export already.
	// Refused with ErrNotFound for an unknown enrollment, ErrTrackClosed
	// after the close, a *LimitError or *InvalidError for bytes, task id or
	// receipt out of bounds, or receipt's own error.
	Submit(ctx context.Context, in NewSubmission, receipt ReceiptFunc) (Accepted, error)

	// TrackState tells how many enrollments a track holds and whether it
	// is closed; a track nobody enrolled on is empty and open.
	TrackState(ctx context.Context, season int, track string) (TrackState, error)

	// CloseTrack closes a track at the given time, from which every new
	// submission and enrollment is refused, and returns when it closed:
	// closing again keeps the first time, so a close that crashed can be
	// run again.
	CloseTrack(ctx context.Context, season int, track string, at time.Time) (time.Time, error)

	// Export reads a track as the close hands it over, from one consistent
	// snapshot: its enrollments in enrollment order, every receipt issued
	// in order, and, through counted, each enrollment's last accepted
	// submission of each task (enrollment order, then task id in byte
	// order). The submissions stream through counted so that the export's
	// memory does not grow with the season; an error from counted stops it.
	Export(ctx context.Context, season int, track string, counted func(Counted) error) (*Export, error)

	// Close releases the database. It does not close any track.
	Close() error
}

// NewEnrollment is an enrollment to keep: the track it is on, the entry of
// inscriptions.json it is exported as (ID empty for the store to draw one)
// and the SHA-256 of the season token issued with it.
type NewEnrollment struct {
	Season      int
	Track       string
	Enrollment  index.Enrollment
	TokenSHA256 [32]byte
}

// Enrolled is a kept enrollment and the track it is on.
type Enrolled struct {
	Season     int
	Track      string
	Enrollment index.Enrollment
}

// NewSubmission is a submission as the service received it: Body is
// exactly the bytes received, kept and exported unchanged.
type NewSubmission struct {
	EnrollmentID string
	TaskID       string
	Body         []byte
	ReceivedAt   time.Time
}

// ReceiptFunc builds a new version's receipt once the store knows what the
// version is (whether it replaces another), inside the transaction that
// records it: the receipt kept is the one answered. Its bytes must be JSON
// (they are exported in recus.json).
type ReceiptFunc func(ReceiptFacts) ([]byte, error)

// ReceiptFacts is what a receipt states about the version being recorded.
type ReceiptFacts struct {
	Season       int
	Track        string
	EnrollmentID string
	TaskID       string
	SHA256       string // of the bytes kept, lowercase hex
	ReceivedAt   time.Time
	Replaces     bool // the task had an accepted version already
}

// Accepted is a submission's outcome: its receipt, as issued when it was
// first recorded.
type Accepted struct {
	Receipt  json.RawMessage
	SHA256   string
	Replaces bool
	// Recorded is false when the bytes were already the task's last
	// accepted version: nothing new was written.
	Recorded bool
}

// TrackState is a track's enrollment count and close.
type TrackState struct {
	Enrollments int
	Closed      bool
	ClosedAt    time.Time // zero while open
}

// Counted is one submission that counts: an enrollment's last accepted
// version of a task, with the receipt issued for it.
type Counted struct {
	EnrollmentID string
	TaskID       string
	SHA256       string
	Body         []byte
	Receipt      json.RawMessage
}

// Export is what the close exports of a track besides the submissions.
type Export struct {
	// Enrollments is inscriptions.json, in enrollment order.
	Enrollments index.Enrollments
	// Receipts is every receipt issued on the track, in the order issued
	// (recus.json); a resend answered with an earlier receipt adds none.
	Receipts []json.RawMessage
	Closed   bool
	ClosedAt time.Time
}

// Limits bound what the store accepts; zero members take the defaults, and
// none may exceed the ceilings (Limits.resolve).
type Limits struct {
	// SubmissionBytes bounds a submission's bytes: the replay's reader
	// refuses more than 1 MiB (score.SubmissionLimit), so the store keeps
	// nothing the export could not hand to it.
	SubmissionBytes int
	// ReceiptBytes bounds a receipt.
	ReceiptBytes int
	// EnrollmentBytes bounds an enrollment's text, all members added up:
	// the service caps an enrollment's body at 16 KiB, but an operator's
	// reference run carries its prompt.
	EnrollmentBytes int
}

// The defaults and the ceilings of Limits.
const (
	MaxSubmissionBytes = 1 << 20
	MaxReceiptBytes    = 64 << 10
	MaxEnrollmentBytes = 1 << 20

	defaultReceiptBytes    = 4 << 10
	defaultEnrollmentBytes = 64 << 10
)

func (l Limits) resolve() (Limits, error) {
	for _, b := range []struct {
		value       *int
		def, max    int
		description string
	}{
		{&l.SubmissionBytes, MaxSubmissionBytes, MaxSubmissionBytes, "SubmissionBytes"},
		{&l.ReceiptBytes, defaultReceiptBytes, MaxReceiptBytes, "ReceiptBytes"},
		{&l.EnrollmentBytes, defaultEnrollmentBytes, MaxEnrollmentBytes, "EnrollmentBytes"},
	} {
		switch {
		case *b.value == 0:
			*b.value = b.def
		case *b.value < 0 || *b.value > b.max:
			return l, fmt.Errorf("seasonstore: Limits.%s %d: want 1 to %d", b.description, *b.value, b.max)
		}
	}
	return l, nil
}

// Options configure a store; the zero value is the defaults.
type Options struct {
	Limits Limits
	// MaxConns bounds a PostgreSQL store's connections (default 16); the
	// SQLite store has one writer and at most this many readers.
	MaxConns int
}

// The errors a store answers, for the service to map to its refusals with
// errors.Is.
var (
	ErrKeyEnrolled  = errors.New("seasonstore: an enrollment of this key is already on the track")
	ErrDIDEnrolled  = errors.New("seasonstore: an enrollment of this DID is already on the track")
	ErrIDTaken      = errors.New("seasonstore: the enrollment id is already in use")
	ErrUnknownToken = errors.New("seasonstore: no enrollment holds this token")
	ErrTrackClosed  = errors.New("seasonstore: the track is closed")
	ErrNotFound     = errors.New("seasonstore: no such enrollment")
	ErrInvalid      = errors.New("seasonstore: invalid")
	ErrTooLarge     = errors.New("seasonstore: over its limit")
)

// InvalidError is a value the store refuses to keep: the member, as a JSON
// pointer into the enrollment or a name, and the rule it breaks. It never
// quotes the value, which may be a participant's text.
type InvalidError struct {
	Member string
	Rule   string
}

func (e *InvalidError) Error() string {
	return fmt.Sprintf("seasonstore: %s: %s", e.Member, e.Rule)
}

// Is makes every InvalidError an ErrInvalid.
func (e *InvalidError) Is(target error) bool { return target == ErrInvalid }

// LimitError is a value over its limit.
type LimitError struct {
	What  string
	Size  int
	Limit int
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("seasonstore: %s of %d bytes, over the %d allowed", e.What, e.Size, e.Limit)
}

// Is makes every LimitError an ErrTooLarge.
func (e *LimitError) Is(target error) bool { return target == ErrTooLarge }
