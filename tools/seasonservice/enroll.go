package seasonservice

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"go.uber.org/zap"

	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/index"
	"github.com/arkforge/proveit-corpus/tools/seal"
	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/seasonstore"
)

// EnrollmentLimit caps an enrollment's body: four short members.
const EnrollmentLimit = 16 << 10

// apiKeyHeader carries the participant's Trust Layer key.
const apiKeyHeader = "X-Api-Key"

// maxAPIKey bounds a key's length: Trust Layer's are a few dozen
// characters.
const maxAPIKey = 256

// enrollMembers are an enrollment body's members, exactly.
var enrollMembers = season.Exactly("piste", "agent", "stack", "lien_preuves")

// The enrollment's refusals.
var (
	errNoKey          = refusal(http.StatusUnauthorized, "cle_inconnue", "Présentez votre clé Trust Layer dans l'en-tête X-Api-Key.")
	errBadKey         = refusal(http.StatusBadRequest, "requete_invalide", "L'en-tête X-Api-Key doit porter votre clé Trust Layer telle quelle: 1 à 256 caractères ASCII visibles.")
	errUnknownKey401  = refusal(http.StatusUnauthorized, "cle_inconnue", "Trust Layer ne connaît pas cette clé: présentez la clé que POST /v1/keys/free-signup vous a donnée.")
	errNoDID          = refusal(http.StatusForbidden, "did_non_lie", "Cette clé n'est liée à aucun DID: liez-en un par POST /v1/keys/bind-did puis /confirm sur Trust Layer, puis inscrivez-vous.")
	errKeyEnrolled    = refusal(http.StatusConflict, "deja_inscrite", "Cette clé est déjà inscrite sur cette piste: une inscription par clé et par piste; gardez le jeton reçu alors.")
	errDIDEnrolled    = refusal(http.StatusConflict, "deja_inscrite", "Le DID lié à cette clé est déjà inscrit sur cette piste: une inscription par DID et par piste.")
	errEnrollTooBig   = refusal(http.StatusRequestEntityTooLarge, "trop_volumineux", "Une inscription tient en 16 Kio: raccourcissez agent, stack ou lien_preuves.")
	errEnrollBodyRead = badRequest("Le corps n'a pas pu être lu en entier: renvoyez la requête.")
	errTrustLayer     = refusal(http.StatusServiceUnavailable, "trust_layer_indisponible", "Trust Layer n'a pas pu dire qui est cette clé, rien n'a été enregistré: réessayez dans un moment.")
)

// notOpen is the 409 of a track outside its record's dates.
func notOpen(t *trackState) *Refusal {
	return refusal(http.StatusConflict, "piste_fermee", "La piste "+t.name+" n'est pas ouverte: elle l'est du "+t.record.Opening+" au "+t.record.Closing+" inclus.")
}

// validAPIKey is a key as a header carries it: visible ASCII, bounded.
func validAPIKey(key string) bool {
	if len(key) == 0 || len(key) > maxAPIKey {
		return false
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x21 || key[i] > 0x7e {
			return false
		}
	}
	return true
}

// enrollBody is an enrollment's body.
type enrollBody struct {
	track, agent, stack, proofsLink string
}

// parseEnrollBody reads the body strictly: exactly the four members, each
// a string, read as Python reads JSON (no duplicate key).
func parseEnrollBody(data []byte) (enrollBody, *Refusal) {
	doc, err := pyjson.Parse(data)
	if err != nil {
		return enrollBody{}, badRequest("Le corps n'est pas du JSON tel que Python le lit: envoyez {\"piste\", \"agent\", \"stack\", \"lien_preuves\"}.")
	}
	if err := enrollMembers.Check(doc, ""); err != nil {
		var m *season.MemberError
		if errors.As(err, &m) && m.Missing {
			return enrollBody{}, badRequest("Le membre " + strconv.Quote(m.Member) + " manque: le corps est exactement {\"piste\", \"agent\", \"stack\", \"lien_preuves\"}.")
		}
		return enrollBody{}, badRequest("Le corps est exactement {\"piste\", \"agent\", \"stack\", \"lien_preuves\"}, sans autre membre.")
	}
	obj := doc.(pyjson.Object)
	var b enrollBody
	for _, f := range []struct {
		name string
		into *string
	}{{"piste", &b.track}, {"agent", &b.agent}, {"stack", &b.stack}, {"lien_preuves", &b.proofsLink}} {
		v, _ := obj.Get(f.name)
		s, ok := v.(string)
		if !ok || !printable(s) {
			return enrollBody{}, badRequest("Le membre " + strconv.Quote(f.name) + " est une chaîne non vide, sans caractère de contrôle.")
		}
		*f.into = s
	}
	if !validURL(b.proofsLink) {
		return enrollBody{}, badRequest("lien_preuves est l'URL absolue (http ou https) où vous publierez vos soumissions et vos preuves.")
	}
	return b, nil
}

// enrolled is the 201's body.
type enrolled struct {
	ID    string          `json:"id"`
	Track string          `json:"piste"`
	DID   string          `json:"did"`
	Token string          `json:"jeton"`
	Tasks json.RawMessage `json:"taches"`
}

// serveEnroll enrolls the key's DID on a track: the checks in the order
// that costs least first, Trust Layer last but the store, and nothing
// recorded unless every one passed.
func (s *Service) serveEnroll(w http.ResponseWriter, r *http.Request, ss *seasonState) {
	now := s.clock()
	if throttled(w, s.enrollPerAddress, s.address(r), now) {
		return
	}
	keys := r.Header.Values(apiKeyHeader)
	switch {
	case len(keys) == 0:
		refuse(w, errNoKey)
		return
	case len(keys) > 1 || !validAPIKey(keys[0]):
		refuse(w, errBadKey)
		return
	}
	key := keys[0]
	keySum := sha256.Sum256([]byte(key))
	cle := hex.EncodeToString(keySum[:])
	if throttled(w, s.enrollPerKey, cle, now) {
		return
	}
	data, bad := readBody(r, EnrollmentLimit, errEnrollTooBig, errEnrollBodyRead)
	if bad != nil {
		refuse(w, bad)
		return
	}
	body, bad := parseEnrollBody(data)
	if bad != nil {
		refuse(w, bad)
		return
	}
	t := ss.tracks[body.track]
	if t == nil {
		refuse(w, errUnknownTrack)
		return
	}
	if !t.open(now) {
		refuse(w, notOpen(t))
		return
	}
	id, err := s.identity.identity(r.Context(), key)
	switch {
	case errors.Is(err, errUnknownKey):
		refuse(w, errUnknownKey401)
		return
	case err != nil:
		s.log.Warn("Trust Layer identity", zap.String("key_sha256", cle), zap.Error(err))
		refuse(w, errTrustLayer)
		return
	case id.DID == "":
		refuse(w, errNoDID)
		return
	}

	token, tokenSHA256 := NewToken()
	e, err := s.store.Enroll(r.Context(), seasonstore.NewEnrollment{
		Season: ss.number,
		Track:  t.name,
		Enrollment: index.Enrollment{
			Agent:      body.agent,
			DID:        id.DID,
			Key:        cle,
			DIDHistory: append(id.History, id.DID),
			EnrolledAt: seal.FormatUTC(now),
			Table:      index.TableCommunity,
			Stack:      body.stack,
			ProofsLink: body.proofsLink,
		},
		TokenSHA256: tokenSHA256,
	})
	if err != nil {
		refuse(w, s.enrollRefusal(t, err))
		return
	}
	// Its first submission, often within seconds, need not ask the store.
	s.enrollments.keep(tokenSHA256, seasonstore.Enrolled{Season: ss.number, Track: t.name, Enrollment: e})
	s.log.Info("enrollment recorded", zap.Int("season", ss.number), zap.String("track", t.name), zap.String("enrollment", e.ID), zap.String("did", e.DID))
	writeJSON(w, http.StatusCreated, enrolled{ID: e.ID, Track: t.name, DID: e.DID, Token: token, Tasks: t.tasks})
}

// enrollRefusal maps the store's refusal of an enrollment.
func (s *Service) enrollRefusal(t *trackState, err error) *Refusal {
	var invalid *seasonstore.InvalidError
	switch {
	case errors.Is(err, seasonstore.ErrKeyEnrolled):
		return errKeyEnrolled
	case errors.Is(err, seasonstore.ErrDIDEnrolled):
		return errDIDEnrolled
	case errors.Is(err, seasonstore.ErrTrackClosed):
		return notOpen(t)
	case errors.Is(err, seasonstore.ErrTooLarge):
		return errEnrollTooBig
	case errors.As(err, &invalid):
		// The store's rule is the Index's: the member it names, in the
		// enrollment's terms.
		return badRequest("L'inscription est refusée: " + invalid.Member + " ne suit pas la règle « " + invalid.Rule + " ».")
	}
	s.log.Error("record an enrollment", zap.String("track", t.name), zap.Error(err))
	return errUnavailable
}
