package trustlayer

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/didkey"
)

// The key calls, as Trust Layer 1.10.0 answers them (trust_layer/app.py):
//
//	POST /v1/keys/free-signup      {"email"} → a free-tier key
//	POST /v1/keys/bind-did         {"did"} → an Ed25519 challenge to sign (Path A)
//	POST /v1/keys/bind-did/confirm {"challenge", "signature"} → the DID bound
//	GET  /v1/keys/identity         who the key is: its bound DID and their history
//
// A key is known once signed up (or registered by a test, RegisterKey);
// the proxy still takes any non-empty key, as before, so that the stand-in's
// earlier callers are unchanged. A DID is bound by challenge-response over a
// did:key only: the stand-in resolves no did:web and knows no OATR registry.

// Binding methods, as verified_did_method writes them.
const (
	MethodChallenge = "challenge_response"
	MethodOATR      = "oatr_delegation"
)

// ChallengeTTL is how long a bind-did challenge may be confirmed, Trust
// Layer's expires_in.
const ChallengeTTL = 300 * time.Second

// freeSignupsPerHour is Trust Layer's cap on free signups per address and
// per hour (_FREE_SIGNUP_MAX_PER_HOUR).
const freeSignupsPerHour = 5

// Binding is one DID a key was bound to, as verified_did_history lists
// the previous ones.
type Binding struct {
	DID       string  `json:"did"`
	BoundAt   string  `json:"bound_at"`
	Method    string  `json:"method"`
	UnboundAt *string `json:"unbound_at"`
}

// Identity is GET /v1/keys/identity's answer: the DID bound to the key,
// how and since when, and the DIDs bound before it, oldest first; every
// member null (the history empty) for a key with no DID.
type Identity struct {
	VerifiedDID        *string   `json:"verified_did"`
	VerifiedDIDMethod  *string   `json:"verified_did_method"`
	VerifiedDIDBoundAt *string   `json:"verified_did_bound_at"`
	VerifiedDIDHistory []Binding `json:"verified_did_history"`
}

// keyRecord is what the stand-in knows of a key.
type keyRecord struct {
	email   string
	current *Binding
	history []Binding
}

// challenge is a pending bind-did, until confirmed or expired.
type challenge struct {
	key     string
	did     string
	pub     ed25519.PublicKey
	expires time.Time
}

// keyring is the stand-in's keys; its fields are guarded by TrustLayer.mu.
type keyring struct {
	keys       map[string]*keyRecord
	challenges map[string]challenge
	signups    map[string][]time.Time // by address, the last hour's
}

func (k *keyring) init() {
	if k.keys == nil {
		k.keys = map[string]*keyRecord{}
		k.challenges = map[string]challenge{}
		k.signups = map[string][]time.Time{}
	}
}

// RegisterKey makes key a known free-tier key, as a signup would (a test's
// way to name its key); a key already known is left as it is.
func (tl *TrustLayer) RegisterKey(key string) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.ring.init()
	if tl.ring.keys[key] == nil {
		tl.ring.keys[key] = &keyRecord{}
	}
}

// BindDID binds did to a known key by the given method, as a confirmed
// challenge or an OATR delegation would: the DID bound before, if another,
// goes to the key's history. A test's way to bind without the round trip.
func (tl *TrustLayer) BindDID(key, did, method string) error {
	if !validDID(did) {
		return fmt.Errorf("trustlayer: %q is not a did:key or did:web", did)
	}
	if method != MethodChallenge && method != MethodOATR {
		return fmt.Errorf("trustlayer: binding method %q", method)
	}
	tl.mu.Lock()
	defer tl.mu.Unlock()
	_, err := tl.bindLocked(key, did, method)
	return err
}

func (tl *TrustLayer) bindLocked(key, did, method string) (string, error) {
	tl.ring.init()
	rec := tl.ring.keys[key]
	if rec == nil {
		return "", errors.New("trustlayer: unknown API key")
	}
	now := isoformat(tl.clock())
	if rec.current != nil {
		if rec.current.DID == did {
			rec.current.Method = method
			return rec.current.BoundAt, nil
		}
		previous := *rec.current
		previous.UnboundAt = &now
		rec.history = append(rec.history, previous)
	}
	rec.current = &Binding{DID: did, BoundAt: now, Method: method}
	return now, nil
}

// KeyIdentity is what GET /v1/keys/identity answers for key; false for a
// key the stand-in does not know.
func (tl *TrustLayer) KeyIdentity(key string) (Identity, bool) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.ring.init()
	rec := tl.ring.keys[key]
	if rec == nil {
		return Identity{}, false
	}
	id := Identity{VerifiedDIDHistory: slices.Clone(rec.history)}
	if id.VerifiedDIDHistory == nil {
		id.VerifiedDIDHistory = []Binding{}
	}
	if rec.current != nil {
		did, method, at := rec.current.DID, rec.current.Method, rec.current.BoundAt
		id.VerifiedDID, id.VerifiedDIDMethod, id.VerifiedDIDBoundAt = &did, &method, &at
	}
	return id, true
}

// boundDID is the DID bound to key, if any: Trust Layer puts it in every
// proof the key pays for, whatever X-Agent-Identity says.
func (tl *TrustLayer) boundDID(key string) (string, bool) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if rec := tl.ring.keys[key]; rec != nil && rec.current != nil {
		return rec.current.DID, true
	}
	return "", false
}

// isoformat writes a time as Python's datetime.isoformat does for an
// aware UTC time, as Trust Layer dates a binding.
func isoformat(t time.Time) string {
	t = t.UTC()
	if t.Nanosecond()/1000 == 0 {
		return t.Format("2006-01-02T15:04:05+00:00")
	}
	return t.Format("2006-01-02T15:04:05.000000+00:00")
}

// emailPattern is Trust Layer's _EMAIL_RE.
var emailPattern = regexp.MustCompile(`^[a-zA-Z0-9]([a-zA-Z0-9._%+\-]*[a-zA-Z0-9])?@[a-zA-Z0-9]([a-zA-Z0-9\-]*[a-zA-Z0-9])?(\.[a-zA-Z0-9]([a-zA-Z0-9\-]*[a-zA-Z0-9])?)*\.[a-zA-Z]{2,}$`)

// readObject reads a small JSON object body; nil when it is not one.
func readObject(r *http.Request) pyjson.Object {
	data, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
	if err != nil {
		return nil
	}
	doc, err := pyjson.Parse(data)
	if err != nil {
		return nil
	}
	obj, _ := doc.(pyjson.Object)
	return obj
}

func stringMember(obj pyjson.Object, key string) string {
	v, _ := obj.Get(key)
	s, _ := v.(string)
	return s
}

func clientAddress(r *http.Request) string {
	if ip := r.Header.Get("X-Real-Ip"); ip != "" {
		return ip
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

func (tl *TrustLayer) serveFreeSignup(w http.ResponseWriter, r *http.Request) {
	body := readObject(r)
	if body == nil {
		writeError(w, badRequest("Invalid JSON body"))
		return
	}
	email := strings.ToLower(strings.TrimSpace(stringMember(body, "email")))
	if email == "" || !emailPattern.MatchString(email) {
		writeError(w, badRequest("A valid email is required"))
		return
	}
	if local, _, _ := strings.Cut(email, "@"); len(email) > 320 || len(local) > 64 {
		writeError(w, badRequest("Email address exceeds maximum allowed length"))
		return
	}
	now := tl.clock()
	address := clientAddress(r)
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.ring.init()
	if perHour := tl.signupsPerHour(); perHour > 0 {
		recent := slices.DeleteFunc(tl.ring.signups[address], func(t time.Time) bool { return !t.After(now.Add(-time.Hour)) })
		if len(recent) >= perHour {
			tl.ring.signups[address] = recent
			writeError(w, &Error{Code: "rate_limited", Message: "Too many signups. Try again later.", Status: http.StatusTooManyRequests})
			return
		}
		tl.ring.signups[address] = append(recent, now)
	}
	for _, rec := range tl.ring.keys {
		if rec.email == email {
			writeError(w, &Error{Code: "already_exists", Message: "A free API key already exists for this email. Check your inbox or contact support.", Status: http.StatusConflict})
			return
		}
	}
	key := "mcp_free_" + randomHex(24)
	tl.ring.keys[key] = &keyRecord{email: email}
	writeJSON(w, http.StatusOK, map[string]any{
		"api_key": key,
		"plan":    "free",
		"limit":   "500 proofs/month",
		"email":   email,
		"message": "Your free API key is ready. It has also been sent to your email.",
	})
}

// signupsPerHour is the cap Options.FreeSignupsPerHour sets: 0 is Trust
// Layer's, a negative value none.
func (tl *TrustLayer) signupsPerHour() int {
	switch n := tl.opts.FreeSignupsPerHour; {
	case n == 0:
		return freeSignupsPerHour
	case n < 0:
		return 0
	default:
		return n
	}
}

// knownKey answers 401 and false unless the request carries a key the
// stand-in knows.
func (tl *TrustLayer) knownKey(w http.ResponseWriter, r *http.Request) (string, bool) {
	key := apiKey(r)
	if key == "" {
		writeError(w, &Error{Code: "invalid_api_key", Message: "API key required", Status: http.StatusUnauthorized})
		return "", false
	}
	tl.mu.Lock()
	tl.ring.init()
	known := tl.ring.keys[key] != nil
	tl.mu.Unlock()
	if !known {
		writeError(w, &Error{Code: "invalid_api_key", Message: "Invalid or inactive API key", Status: http.StatusUnauthorized})
		return "", false
	}
	return key, true
}

func (tl *TrustLayer) serveBindDID(w http.ResponseWriter, r *http.Request) {
	key, ok := tl.knownKey(w, r)
	if !ok {
		return
	}
	body := readObject(r)
	did := stringMember(body, "did")
	if did == "" || !validDID(did) {
		writeError(w, &Error{Code: "invalid_did", Message: "A valid did:web or did:key is required", Status: http.StatusBadRequest})
		return
	}
	if _, delegated := body.Get("oatr_issuer_id"); delegated {
		writeError(w, &Error{Code: "oatr_delegation_failed", Message: "OATR issuer not found, inactive, or key does not match DID", Status: http.StatusBadRequest})
		return
	}
	pub, err := didkey.Decode(did)
	if err != nil {
		writeError(w, &Error{Code: "did_resolution_failed", Message: err.Error(), Status: http.StatusBadRequest})
		return
	}
	text := "arkforge-did-bind-" + randomHex(16)
	tl.mu.Lock()
	tl.ring.init()
	now := tl.clock()
	for c, pending := range tl.ring.challenges {
		if now.After(pending.expires) {
			delete(tl.ring.challenges, c)
		}
	}
	tl.ring.challenges[text] = challenge{key: key, did: did, pub: pub, expires: now.Add(ChallengeTTL)}
	tl.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"challenge": text, "expires_in": int(ChallengeTTL / time.Second)})
}

func (tl *TrustLayer) serveBindDIDConfirm(w http.ResponseWriter, r *http.Request) {
	key, ok := tl.knownKey(w, r)
	if !ok {
		return
	}
	body := readObject(r)
	text, signature := stringMember(body, "challenge"), stringMember(body, "signature")
	if text == "" || signature == "" {
		writeError(w, &Error{Code: "missing_fields", Message: "Both 'challenge' and 'signature' are required", Status: http.StatusBadRequest})
		return
	}
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.ring.init()
	pending, found := tl.ring.challenges[text]
	// A challenge is consumed by its first confirmation, right or wrong.
	delete(tl.ring.challenges, text)
	if !found || tl.clock().After(pending.expires) {
		writeError(w, &Error{Code: "challenge_expired", Message: "Challenge not found or expired", Status: http.StatusGone})
		return
	}
	if pending.key != key {
		writeError(w, &Error{Code: "key_mismatch", Message: "Challenge was issued for a different API key", Status: http.StatusBadRequest})
		return
	}
	sig, err := base64.URLEncoding.DecodeString(padBase64(signature))
	if err != nil || !ed25519.Verify(pending.pub, []byte(text), sig) {
		writeError(w, &Error{Code: "invalid_signature", Message: "Signature verification failed", Status: http.StatusBadRequest})
		return
	}
	boundAt, err := tl.bindLocked(key, pending.did, MethodChallenge)
	if err != nil {
		writeError(w, &Error{Code: "bind_failed", Message: err.Error(), Status: http.StatusBadRequest})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"verified_did": pending.did, "bound_at": boundAt, "method": MethodChallenge})
}

func (tl *TrustLayer) serveIdentity(w http.ResponseWriter, r *http.Request) {
	key, ok := tl.knownKey(w, r)
	if !ok {
		return
	}
	id, _ := tl.KeyIdentity(key)
	writeJSON(w, http.StatusOK, id)
}

// padBase64 adds the padding Python's urlsafe_b64decode wants, as Trust
// Layer does before decoding.
func padBase64(s string) string {
	if n := len(s) % 4; n != 0 {
		s += strings.Repeat("=", 4-n)
	}
	return s
}

// validDID is Trust Layer's validate_did: a did:key or a did:web, at most
// 256 characters with no control character.
func validDID(did string) bool {
	if len(did) > 256 || strings.IndexFunc(did, isControl) >= 0 {
		return false
	}
	return strings.HasPrefix(did, didkey.Prefix) || strings.HasPrefix(did, "did:web:") && len(did) > len("did:web:")
}

// The did:key calls are package tools/didkey's, the one implementation
// of the encoding for the stand-in and for a participant's proveit
// did-key; they are named here too for the stand-in's callers.

// DIDKey is the did:key of an Ed25519 public key (didkey.Encode).
func DIDKey(pub ed25519.PublicKey) string { return didkey.Encode(pub) }

// DIDKeyPublicKey is the Ed25519 public key a did:key encodes
// (didkey.Decode).
func DIDKeyPublicKey(did string) (ed25519.PublicKey, error) { return didkey.Decode(did) }

// NewDIDKey draws an Ed25519 key pair and returns its did:key: a test's or
// a demo player's identity to bind (didkey.New).
func NewDIDKey() (string, ed25519.PrivateKey) { return didkey.New() }

// SignChallenge signs a bind-did challenge as Trust Layer's documentation
// asks: Ed25519 over the challenge's UTF-8 bytes, base64url without
// padding (didkey.SignChallenge).
func SignChallenge(priv ed25519.PrivateKey, challenge string) string {
	return didkey.SignChallenge(priv, challenge)
}
