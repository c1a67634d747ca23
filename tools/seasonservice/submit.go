package seasonservice

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/arkforge/proveit-corpus/tools/receipt"
	"github.com/arkforge/proveit-corpus/tools/score"
	"github.com/arkforge/proveit-corpus/tools/seasonstore"
)

// SubmissionLimit caps a submission's body: what the replay's reader
// reads (score.SubmissionLimit, 1 MiB).
var SubmissionLimit = score.SubmissionLimit.Bytes

// The submission's refusals.
var (
	errNoToken        = refusal(http.StatusUnauthorized, "jeton_inconnu", "Présentez le jeton de saison reçu à l'inscription dans l'en-tête Authorization: Bearer <jeton>.")
	errBadAuth        = refusal(http.StatusBadRequest, "requete_invalide", "L'en-tête Authorization est exactement « Bearer <jeton> », le jeton tel que l'inscription l'a rendu.")
	errUnknownToken   = refusal(http.StatusUnauthorized, "jeton_inconnu", "Ce jeton n'est celui d'aucune inscription de cette saison: présentez le jeton que POST /v1/season/{n}/enroll a rendu.")
	errSubmitTooBig   = refusal(http.StatusRequestEntityTooLarge, "trop_volumineux", "Une soumission tient en 1 Mio: retirez ce qui dépasse, le récit d'abord.")
	errSubmitBodyRead = badRequest("Le corps n'a pas pu être lu en entier: renvoyez la soumission.")
)

// errNotOpenNow is a new version refused because the record's dates no
// longer (or not yet) admit it, inside the store's transaction.
var errNotOpenNow = errors.New("the track is not open")

// bearerToken reads Authorization: Bearer <jeton>; a nil refusal and the
// token's bytes, or the refusal.
func bearerToken(r *http.Request) ([]byte, *Refusal) {
	values := r.Header.Values("Authorization")
	if len(values) == 0 {
		return nil, errNoToken
	}
	token, ok := strings.CutPrefix(values[0], "Bearer ")
	if len(values) > 1 || !ok {
		return nil, errBadAuth
	}
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(raw) != tokenSize {
		// Not one the service could have issued.
		return nil, errUnknownToken
	}
	return raw, nil
}

// accepted is the 200's body: recorded, whether it replaces the task's
// previous version, and the receipt. Nothing else: no hint of a score.
type accepted struct {
	Recorded bool            `json:"enregistree"`
	Replaces bool            `json:"remplace"`
	Receipt  json.RawMessage `json:"recu"`
}

// serveSubmit records a submission: the token, the replay's own entry
// check, the enrollment's DID, then the store, whose transaction refuses a
// new version once the record's close has passed.
func (s *Service) serveSubmit(w http.ResponseWriter, r *http.Request, ss *seasonState) {
	received := s.clock()
	if throttled(w, s.submitPerAddress, s.address(r), received) {
		return
	}
	token, bad := bearerToken(r)
	if bad != nil {
		refuse(w, bad)
		return
	}
	// The token is looked up by its SHA-256, never compared as itself: the
	// store's index finds the hash, and what timing might tell of a hash
	// tells nothing of a token (256 random bits).
	tokenSum := sha256.Sum256(token)
	if throttled(w, s.submitPerKey, hex.EncodeToString(tokenSum[:]), received) {
		return
	}
	en, err := s.enrollments.byToken(r.Context(), s.store, tokenSum)
	switch {
	case errors.Is(err, seasonstore.ErrUnknownToken):
		refuse(w, errUnknownToken)
		return
	case err != nil:
		s.log.Error("look a token up", zap.Error(err))
		refuse(w, errUnavailable)
		return
	case en.Season != ss.number:
		refuse(w, errUnknownToken)
		return
	}
	t := ss.tracks[en.Track]
	if t == nil {
		refuse(w, errUnknownTrack)
		return
	}
	data, bad := readBody(r, SubmissionLimit, errSubmitTooBig, errSubmitBodyRead)
	if bad != nil {
		refuse(w, bad)
		return
	}
	// The replay's own entry check, the same code (score.EntryCheck): the
	// season, the track and a task of the enrollment's statements among
	// it.
	sub, err := t.entry.Check("", data)
	if err != nil {
		pointer, rule, ok := score.EntryRefusal(err)
		if !ok {
			pointer, rule = "", err.Error()
		}
		refuse(w, rejectedAtEntry(pointer, rule))
		return
	}
	if sub.AgentDID != en.Enrollment.DID {
		refuse(w, rejectedAtEntry("/agent_did", "le DID de l'inscription, "+en.Enrollment.DID+", attendu: chaque soumission porte le DID inscrit"))
		return
	}
	receivedAt := received.UTC().Truncate(time.Second)
	out, err := s.store.Submit(r.Context(), seasonstore.NewSubmission{
		EnrollmentID: en.Enrollment.ID,
		TaskID:       sub.TaskID,
		Body:         data,
		ReceivedAt:   receivedAt,
	}, func(f seasonstore.ReceiptFacts) ([]byte, error) {
		// Inside the transaction that records the version: refused once
		// the record's close has passed, so that the store's close,
		// waiting for this transaction, exports what it acknowledged.
		if !t.open(s.clock()) || !t.open(f.ReceivedAt) {
			return nil, errNotOpenNow
		}
		return SignReceipt(ss.receiptKey, f), nil
	})
	if err != nil {
		refuse(w, s.submitRefusal(t, err))
		return
	}
	if out.Recorded {
		// At debug: the store is the record of what was recorded, and a
		// line per submission would cost a deadline its rate.
		s.log.Debug("submission recorded", zap.Int("season", ss.number), zap.String("track", t.name), zap.String("enrollment", en.Enrollment.ID),
			zap.String("task_id", sub.TaskID), zap.String("sha256", out.SHA256), zap.Bool("replaces", out.Replaces))
	}
	writeJSON(w, http.StatusOK, accepted{Recorded: true, Replaces: out.Replaces, Receipt: out.Receipt})
}

// submitRefusal maps the store's refusal of a submission.
func (s *Service) submitRefusal(t *trackState, err error) *Refusal {
	var invalid *seasonstore.InvalidError
	switch {
	case errors.Is(err, errNotOpenNow), errors.Is(err, seasonstore.ErrTrackClosed):
		return notOpen(t)
	case errors.Is(err, seasonstore.ErrNotFound):
		return errUnknownToken
	case errors.Is(err, seasonstore.ErrTooLarge):
		return errSubmitTooBig
	case errors.As(err, &invalid):
		return rejectedAtEntry("/"+strings.TrimPrefix(invalid.Member, "/"), invalid.Rule)
	}
	s.log.Error("record a submission", zap.String("track", t.name), zap.Error(err))
	return errUnavailable
}

// SignReceipt writes the receipt of a version being recorded
// (receipt.Sign): the canonical JSON of the receipt with its signature.
// The store calls it inside the transaction that records the version.
func SignReceipt(key ed25519.PrivateKey, f seasonstore.ReceiptFacts) []byte {
	return receipt.Sign(key, receipt.Receipt{Season: f.Season, Track: f.Track, Enrollment: f.EnrollmentID, TaskID: f.TaskID,
		SHA256: f.SHA256, ReceivedAt: f.ReceivedAt.UTC().Format(time.RFC3339), Replaces: f.Replaces})
}
