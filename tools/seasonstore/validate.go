package seasonstore

import (
	"crypto/rand"
	"encoding/base32"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/tools/index"
	"github.com/arkforge/proveit-corpus/tools/seal"
)

var (
	// trackName and taskID name folders and files of the export: no dot,
	// no separator, never empty.
	trackName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,39}$`)
	taskID    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)
)

// idEncoding writes drawn ids in the Index's alphabet: lowercase letters
// and digits.
var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// newEnrollmentID draws an enrollment id: 80 random bits, 16 characters,
// so that an id says nothing of the participant or of the order it came
// in, and two drawn ids do not meet (the UNIQUE constraint would catch it).
func newEnrollmentID() string {
	var b [10]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24)
	return idEncoding.EncodeToString(b[:])
}

// checkEnrollment refuses an enrollment the Index would refuse to read
// (index.ReadEnrollments, the same rules), so that the export is always
// readable, or one over the limit. A given ID is checked; an empty one is
// left for the store to draw.
func checkEnrollment(in *NewEnrollment, limits Limits) error {
	if err := checkTrack(in.Season, in.Track); err != nil {
		return err
	}
	if in.TokenSHA256 == ([32]byte{}) {
		return &InvalidError{"token_sha256", "want the SHA-256 of the season token issued with the enrollment"}
	}
	e := &in.Enrollment
	if e.ID != "" && (!index.IsEnrollmentID(e.ID) || slices.Contains(index.ReservedIDs, e.ID)) {
		return &InvalidError{"/id", "want 1 to 40 of a-z, 0-9 and -, not a name the Index or the season folder writes for itself (" + strings.Join(index.ReservedIDs, ", ") + ")"}
	}
	size := len(e.ID) + len(e.Agent) + len(e.DID) + len(e.Key) + len(e.EnrolledAt) + len(e.Table) + len(e.Stack) + len(e.ProofsLink)
	for _, did := range e.DIDHistory {
		size += len(did)
	}
	for _, p := range []*string{e.Model, e.Version, e.Framework, e.Prompt} {
		if p != nil {
			size += len(*p)
		}
	}
	if size > limits.EnrollmentBytes {
		return &LimitError{What: "an enrollment's text", Size: size, Limit: limits.EnrollmentBytes}
	}
	for _, f := range []struct{ member, value string }{{"/agent", e.Agent}, {"/did", e.DID}, {"/stack", e.Stack}} {
		if !nonEmptyPrintable(f.value) {
			return &InvalidError{f.member, "want non-empty printable text (valid UTF-8, no control character)"}
		}
	}
	if !isDID(e.DID) {
		return &InvalidError{"/did", "want a DID (did:...), at most 256 characters"}
	}
	if !anchor.IsSHA256(e.Key) {
		return &InvalidError{"/cle", "want the key's SHA-256 as 64 lowercase hex digits"}
	}
	for _, did := range e.DIDHistory {
		if !isDID(did) {
			return &InvalidError{"/historique_did", "want DIDs (did:...), each at most 256 characters"}
		}
	}
	if _, err := seal.ParseUTC(e.EnrolledAt); err != nil {
		return &InvalidError{"/inscrit_le", "want an RFC 3339 time in UTC, such as 2026-10-01T00:00:00Z"}
	}
	if u, err := url.Parse(e.ProofsLink); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || !nonEmptyPrintable(e.ProofsLink) {
		return &InvalidError{"/lien_preuves", "want an absolute http or https URL"}
	}
	run := []struct {
		member string
		value  *string
	}{{"/modele", e.Model}, {"/version", e.Version}, {"/framework", e.Framework}, {"/prompt", e.Prompt}}
	switch e.Table {
	case index.TableReference:
		for _, f := range run {
			if f.value == nil || !nonEmptyPrintable(*f.value) {
				return &InvalidError{f.member, "a reference run gives modele, version, framework and prompt, each non-empty printable text"}
			}
		}
	case index.TableCommunity:
		for _, f := range run {
			if f.value != nil {
				return &InvalidError{f.member, "only a reference run gives modele, version, framework and prompt"}
			}
		}
	default:
		return &InvalidError{"/tableau", `want "reference" (a run by ArkForge) or "communaute"`}
	}
	return nil
}

func checkTrack(season int, track string) error {
	if season < 1 {
		return &InvalidError{"season", "want the season's number, 1 or more"}
	}
	if !trackName.MatchString(track) {
		return &InvalidError{"track", "want a track's name: 1 to 40 of a-z, 0-9 and -, not starting with -"}
	}
	return nil
}

// checkSubmission bounds what a submission brings before any transaction.
func checkSubmission(in *NewSubmission, limits Limits) error {
	switch {
	case !index.IsEnrollmentID(in.EnrollmentID):
		return ErrNotFound // no id out of this form is ever kept
	case !taskID.MatchString(in.TaskID):
		return &InvalidError{"task_id", "want 1 to 64 of A-Z, a-z, 0-9, _ and -, starting with a letter or digit: it names the export's file"}
	case len(in.Body) == 0:
		return &InvalidError{"body", "want the submission's bytes, not none"}
	case len(in.Body) > limits.SubmissionBytes:
		return &LimitError{What: "a submission", Size: len(in.Body), Limit: limits.SubmissionBytes}
	case in.ReceivedAt.IsZero():
		return &InvalidError{"received_at", "want the time the submission was received"}
	}
	return nil
}

func isDID(s string) bool {
	return len(s) <= 256 && strings.HasPrefix(s, "did:") && nonEmptyPrintable(s)
}

// nonEmptyPrintable is the Index's rule for text it shows as given: valid
// UTF-8 with no control character.
func nonEmptyPrintable(s string) bool {
	if s == "" || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}
