package seasonservice

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/arkforge/proveit-corpus/tools/score"
)

const jsonType = "application/json; charset=utf-8"

// Refusal is one of the service's refusals: its status and its fixed body,
// {"erreur", "message"}, plus "pointeur" and "regle" for a rejection at
// entry. Its message is one actionable sentence, in French as the
// specification's participants read it; it never quotes a secret.
type Refusal struct {
	Status  int
	Code    string
	Message string
	// Pointer and Rule are a 422's: the JSON pointer into the submission
	// and the rule it breaks.
	Pointer, Rule string
	// RetryAfter is a 429's wait.
	RetryAfter time.Duration
}

func (r *Refusal) Error() string { return r.Code + ": " + r.Message }

func refusal(status int, code, message string) *Refusal {
	return &Refusal{Status: status, Code: code, Message: message}
}

// The refusals every endpoint shares.
var (
	errNotFound      = refusal(http.StatusNotFound, "introuvable", "Aucune ressource à cette adresse: les appels sont GET /v1/season/{n}, POST /v1/season/{n}/enroll et POST /v1/season/{n}/submit.")
	errUnknownSeason = refusal(http.StatusNotFound, "saison_inconnue", "Le service ne tient pas cette saison: vérifiez son numéro dans l'adresse.")
	errUnknownTrack  = refusal(http.StatusNotFound, "piste_inconnue", "Cette saison n'a pas cette piste: les pistes sont celles que GET /v1/season/{n} liste.")
	errUnknownFile   = refusal(http.StatusNotFound, "fichier_inconnu", "La piste ne publie aucun fichier de ce nom.")
	errMethod        = refusal(http.StatusMethodNotAllowed, "methode_non_admise", "Cette adresse n'admet que la méthode que l'en-tête Allow nomme.")
	errUnavailable   = refusal(http.StatusServiceUnavailable, "indisponible", "Le service ne peut pas répondre pour l'instant, rien n'a été enregistré: réessayez dans un moment.")
)

// refuse writes a refusal's fixed body.
func refuse(w http.ResponseWriter, r *Refusal) {
	if r.Status == http.StatusTooManyRequests {
		seconds := int64((r.RetryAfter + time.Second - 1) / time.Second)
		if seconds < 1 {
			seconds = 1
		}
		w.Header().Set("Retry-After", strconv.FormatInt(seconds, 10))
	}
	if r.Status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="proveit"`)
	}
	if r.Status == http.StatusUnprocessableEntity {
		writeJSON(w, r.Status, struct {
			Code    string `json:"erreur"`
			Message string `json:"message"`
			Pointer string `json:"pointeur"`
			Rule    string `json:"regle"`
		}{r.Code, r.Message, r.Pointer, r.Rule})
		return
	}
	writeJSON(w, r.Status, struct {
		Code    string `json:"erreur"`
		Message string `json:"message"`
	}{r.Code, r.Message})
}

// badRequest is a 400 with message.
func badRequest(message string) *Refusal {
	return refusal(http.StatusBadRequest, "requete_invalide", message)
}

// tooMany is a 429.
func tooMany(wait time.Duration) *Refusal {
	r := refusal(http.StatusTooManyRequests, "trop_de_requetes", "Trop de requêtes: attendez le nombre de secondes que l'en-tête Retry-After donne, puis réessayez.")
	r.RetryAfter = wait
	return r
}

// rejectedAtEntry is the 422 of a submission refused before anything is
// recorded.
func rejectedAtEntry(pointer, rule string) *Refusal {
	return &Refusal{Status: http.StatusUnprocessableEntity, Code: string(score.RejectedEntry),
		Message: "La soumission est rejetée à l'entrée, rien n'a été enregistré: corrigez ce que pointeur désigne selon la règle, puis renvoyez-la.",
		Pointer: pointer, Rule: rule}
}

// writeJSON writes v as JSON: UTF-8 as is, no HTML escaping, no final
// newline.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Every value written is the service's own: a failure is a bug,
		// answered as the fixed 503 rather than half a body.
		status, b = errUnavailable.Status, *bytes.NewBufferString(`{"erreur":"indisponible","message":"` + errUnavailable.Message + `"}` + "\n")
	}
	writeBytes(w, status, jsonType, bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// writeBytes writes a body with the no-cache headers of the corpus's
// contract (section 2) and its exact length.
func writeBytes(w http.ResponseWriter, status int, contentType string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Cache-Control", "no-store, no-cache, must-revalidate, max-age=0")
	h.Set("Pragma", "no-cache")
	h.Set("Expires", "0")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
