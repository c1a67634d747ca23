package participant

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/arkforge/proveit-corpus/harness/trustlayer"
)

// A participant's way into a season, through the calls a person makes
// with curl (docs/participating.md): a Trust Layer key (SignUp), a did:key
// bound to it by challenge-response (BindDIDKey), then the season service:
// Enroll with the key, Submit with the season token.

// SignUp asks Trust Layer for a free key for email and returns it.
func (tl *TrustLayer) SignUp(email string) (string, error) {
	body, err := json.Marshal(map[string]string{"email": email})
	if err != nil {
		return "", err
	}
	var answer struct {
		APIKey string `json:"api_key"`
	}
	anonymous := *tl
	anonymous.APIKey, anonymous.AgentDID = "", ""
	if err := anonymous.do(http.MethodPost, "/v1/keys/free-signup", body, &answer); err != nil {
		return "", err
	}
	if answer.APIKey == "" {
		return "", fmt.Errorf("POST /v1/keys/free-signup: no api_key in the answer")
	}
	return answer.APIKey, nil
}

// BindDIDKey binds the did:key of priv to the relay's key: POST
// /v1/keys/bind-did, the challenge signed, then /confirm. It returns the
// DID bound.
func (tl *TrustLayer) BindDIDKey(priv ed25519.PrivateKey) (string, error) {
	did := trustlayer.DIDKey(priv.Public().(ed25519.PublicKey))
	body, err := json.Marshal(map[string]string{"did": did})
	if err != nil {
		return "", err
	}
	var issued struct {
		Challenge string `json:"challenge"`
	}
	if err := tl.do(http.MethodPost, "/v1/keys/bind-did", body, &issued); err != nil {
		return "", err
	}
	body, err = json.Marshal(map[string]string{"challenge": issued.Challenge, "signature": trustlayer.SignChallenge(priv, issued.Challenge)})
	if err != nil {
		return "", err
	}
	var bound struct {
		DID string `json:"verified_did"`
	}
	if err := tl.do(http.MethodPost, "/v1/keys/bind-did/confirm", body, &bound); err != nil {
		return "", err
	}
	if bound.DID != did {
		return "", fmt.Errorf("POST /v1/keys/bind-did/confirm bound %q, not %q", bound.DID, did)
	}
	return did, nil
}

// Season is the season service as a participant calls it.
type Season struct {
	// URL is the service's origin, e.g. https://proveit.arkforge.tech.
	URL string
	// Number is the season's.
	Number int
	// HTTP is the client; nil, one with a 30 s timeout.
	HTTP *http.Client
}

// Enrollment is the service's 201 to an enrollment.
type Enrollment struct {
	ID    string          `json:"id"`
	Track string          `json:"piste"`
	DID   string          `json:"did"`
	Token string          `json:"jeton"`
	Tasks json.RawMessage `json:"taches"`
}

// Accepted is the service's 200 to a submission.
type Accepted struct {
	Recorded bool            `json:"enregistree"`
	Replaces bool            `json:"remplace"`
	Receipt  json.RawMessage `json:"recu"`
}

// Refusal is a refusal of the service: its status and its fixed body.
type Refusal struct {
	Status     int
	Code       string `json:"erreur"`
	Message    string `json:"message"`
	Pointer    string `json:"pointeur"`
	Rule       string `json:"regle"`
	RetryAfter time.Duration
}

func (r *Refusal) Error() string {
	at := ""
	if r.Pointer != "" {
		at = " at " + r.Pointer + " (" + r.Rule + ")"
	}
	return fmt.Sprintf("season service: %d %s%s: %s", r.Status, r.Code, at, r.Message)
}

// Enroll enrolls the key's DID on a track: apiKey goes in X-Api-Key, the
// body is exactly piste, agent, stack and lien_preuves. A refusal is a
// *Refusal.
func (s *Season) Enroll(apiKey, track, agent, stack, proofsLink string) (*Enrollment, error) {
	body, err := json.Marshal(map[string]string{"piste": track, "agent": agent, "stack": stack, "lien_preuves": proofsLink})
	if err != nil {
		return nil, err
	}
	var e Enrollment
	if err := s.post("/enroll", http.StatusCreated, map[string]string{"X-Api-Key": apiKey}, body, &e); err != nil {
		return nil, err
	}
	return &e, nil
}

// Submit hands in one submission's exact bytes with the season token. A
// refusal is a *Refusal.
func (s *Season) Submit(token string, submission []byte) (*Accepted, error) {
	var a Accepted
	if err := s.post("/submit", http.StatusOK, map[string]string{"Authorization": "Bearer " + token}, submission, &a); err != nil {
		return nil, err
	}
	return &a, nil
}

func (s *Season) post(call string, want int, header map[string]string, body []byte, out any) error {
	client := s.HTTP
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	url := strings.TrimSuffix(s.URL, "/") + "/v1/season/" + strconv.Itoa(s.Number) + call
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != want {
		refusal := &Refusal{Status: resp.StatusCode}
		if err := json.Unmarshal(data, refusal); err != nil || refusal.Code == "" {
			return fmt.Errorf("POST %s: status %d, not a refusal of the service: %.200q", call, resp.StatusCode, data)
		}
		if seconds, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
			refusal.RetryAfter = time.Duration(seconds) * time.Second
		}
		return refusal
	}
	return json.Unmarshal(data, out)
}
