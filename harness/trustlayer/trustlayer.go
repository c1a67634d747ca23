// Package trustlayer is a stand-in for ArkForge's Trust Layer, for tests and
// benchmarks only: it relays GET calls to the corpus as Trust Layer's
// POST /v1/proxy does and issues spec 3.1 proofs byte for byte as Trust
// Layer 1.12 (ark-forge/trust-layer) issues them: per-field commitments,
// their Merkle root as the chain hash, an Ed25519 signature, and batch
// anchoring with an RFC 3161 token and a Rekor hashedrekord entry on the
// batch root.
//
// Every key, the TSA and the transparency log are made up in memory by New,
// so a verifier pointed at the trust material WriteTrust writes accepts the
// stand-in's proofs exactly as it would accept ArkForge's with FreeTSA's and
// Sigstore's material. Nothing here is deployed or scored.
//
// Conventions of the stand-in (Trust Layer's own, where it has one):
//   - the API key is sent as X-Api-Key (or Authorization: Bearer); any
//     non-empty key is a free-tier key: transaction_id "free_tier",
//     amount 0.0, buyer_fingerprint = hex SHA-256 of the key;
//   - the agent's DID is sent as X-Agent-Identity; a DID present is taken as
//     bound to the key (agent_identity_verified true, did_resolution_status
//     "bound", identity_consistent true), absent all four fields are null;
//   - a key signed up (POST /v1/keys/free-signup) or registered by a test
//     (RegisterKey) is known to GET /v1/keys/identity; once bound to a
//     did:key by challenge-response (POST /v1/keys/bind-did and /confirm),
//     its proofs carry that DID whatever X-Agent-Identity says (keys.go);
//   - a batch closes on CloseBatch, or by itself when it holds
//     Options.BatchMaxSize proofs (Trust Layer's 100); there is no timer.
package trustlayer

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/proxycall"
)

// Constants of the proofs Trust Layer issues.
const (
	SpecVersion           = "3.1"
	VerificationAlgorithm = "https://github.com/ark-forge/proof-spec/blob/main/SPEC.md#2-chain-hash-algorithm"
	// AgentIdentityHeader carries the participant's DID on POST /v1/proxy.
	AgentIdentityHeader = proxycall.AgentIdentityHeader
	// APIKeyHeader carries the API key (Authorization: Bearer works too).
	APIKeyHeader = proxycall.APIKeyHeader
	// FreeTier is the transaction_id and payment method of a free-tier key.
	FreeTier = "free_tier"
	// MaxBatchQuery is the most ids POST /v1/proofs takes at once.
	MaxBatchQuery = 50
)

// IdentityFields are the four committed fields spec 3.1 opens publicly.
var IdentityFields = []string{"agent_identity", "agent_identity_verified", "did_resolution_status", "identity_consistent"}

// ProofID is a proof's id, prf_YYYYMMDD_HHMMSS_<6 hex>.
type ProofID string

// Upstream is where the stand-in really sends a call whose target starts
// with an origin: the corpus under test listens on loopback while
// request_data's target keeps the public origin.
type Upstream struct {
	// URL replaces the origin, e.g. http://127.0.0.1:8080.
	URL string
	// Secret is sent as X-Challenge-Secret, the header no participant can
	// set; empty, it is left out.
	Secret string
}

// KeySpec is one entry of the published key history.
type KeySpec struct {
	Kid       string
	ValidFrom time.Time
	// RetiredAt, when set, ends the key's validity: proofs dated at or after
	// it must be refused.
	RetiredAt *time.Time
}

// Options configures New. The zero value gives Trust Layer's public names
// and one key of each kind.
type Options struct {
	// Clock dates everything: proof ids and timestamps, batch ids, the TSA's
	// genTime, Rekor's integratedTime. Default time.Now.
	Clock func() time.Time
	// BaseURL is Trust Layer's public origin, in verification_url and
	// tsr_url. Default https://trust.arkforge.tech.
	BaseURL string
	// RekorURL is the log's public origin, in log_url. Default https://rekor.test.
	RekorURL string
	// TSAProvider is timestamp_authority.provider. Default tsa.test.
	TSAProvider string
	// LogName is the checkpoint origin's name (before " - "). Default rekor.test.
	LogName string
	// Keys is the Ed25519 key history (default one key, key-1); SigningKid
	// names the one that signs (default the first not retired).
	Keys       []KeySpec
	SigningKid string
	// RekorKeys is the Rekor submitter key history (default rekor-1);
	// RekorKid names the submitter (default the first not retired).
	RekorKeys []KeySpec
	RekorKid  string
	// Upstreams maps a target origin (scheme://host) to where it is served.
	Upstreams map[string]Upstream
	// BatchMaxSize closes a batch when it holds that many proofs; 0 means
	// Trust Layer's 100, a negative value never.
	BatchMaxSize int
	// BatchSellers are the sellers POST /v1/proofs answers for; default
	// corpus.arkforge.tech and proveit.arkforge.tech, as Trust Layer.
	BatchSellers []string
	// HTTPClient fetches upstreams; default a client with a 10 s timeout.
	HTTPClient *http.Client
	// FreeSignupsPerHour caps POST /v1/keys/free-signup per address and
	// per hour: 0 means Trust Layer's 5, a negative value no cap.
	FreeSignupsPerHour int
}

type signingKey struct {
	spec KeySpec
	priv ed25519.PrivateKey
}

type rekorKey struct {
	spec KeySpec
	priv *ecdsa.PrivateKey
	pem  string
}

// TrustLayer is the stand-in: its keys, TSA and log, and every proof it
// issued. Safe for concurrent use.
type TrustLayer struct {
	opts      Options
	clock     func() time.Time
	keys      []signingKey
	signer    int
	rekorKeys []rekorKey
	submitter int
	tsa       *tsa
	log       *rekorLog
	client    *http.Client

	mu      sync.Mutex
	proofs  map[ProofID]*record
	pending []*record
	batches int
	ring    keyring // the keys, their DIDs and pending challenges (keys.go)
}

// record is a proof as Trust Layer stores it.
type record struct {
	id          ProofID
	hashes      Hashes
	commitments map[string]string
	nonces      map[string]string
	chainData   map[string]any
	chainRaw    []byte
	parties     Parties
	fee         Fee
	timestamp   string
	upstreamTS  string
	statusCode  *int
	success     bool
	signature   string
	pubkey      string
	kid         string
	views       int
	batch       *BatchAnchor
	tsa         *TimestampAuthority
	tlog        *TransparencyLog
	tsr         []byte
}

// New makes a stand-in with fresh keys, a fresh TSA and an empty log.
func New(opts Options) (*TrustLayer, error) {
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.BaseURL == "" {
		opts.BaseURL = "https://trust.arkforge.tech"
	}
	if opts.RekorURL == "" {
		opts.RekorURL = "https://rekor.test"
	}
	if opts.TSAProvider == "" {
		opts.TSAProvider = "tsa.test"
	}
	if opts.LogName == "" {
		opts.LogName = "rekor.test"
	}
	if strings.ContainsAny(opts.LogName, " +\n") || strings.ContainsAny(opts.TSAProvider, "/\\") {
		return nil, fmt.Errorf("trustlayer: the log name %q or provider %q cannot name a file or a note key", opts.LogName, opts.TSAProvider)
	}
	if len(opts.Keys) == 0 {
		opts.Keys = []KeySpec{{Kid: "key-1", ValidFrom: time.Date(2026, 2, 26, 0, 0, 0, 0, time.UTC)}}
	}
	if len(opts.RekorKeys) == 0 {
		opts.RekorKeys = []KeySpec{{Kid: "rekor-1", ValidFrom: time.Date(2026, 3, 3, 0, 0, 0, 0, time.UTC)}}
	}
	if opts.BatchMaxSize == 0 {
		opts.BatchMaxSize = 100
	}
	if opts.BatchSellers == nil {
		opts.BatchSellers = []string{"corpus.arkforge.tech", "proveit.arkforge.tech"}
	}
	tl := &TrustLayer{opts: opts, clock: opts.Clock, proofs: map[ProofID]*record{}, client: opts.HTTPClient}
	if tl.client == nil {
		tl.client = &http.Client{Timeout: 10 * time.Second}
	}
	for _, spec := range opts.Keys {
		_, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		tl.keys = append(tl.keys, signingKey{spec: spec, priv: priv})
	}
	for _, spec := range opts.RekorKeys {
		priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, err
		}
		pemText, err := publicPEM(&priv.PublicKey)
		if err != nil {
			return nil, err
		}
		tl.rekorKeys = append(tl.rekorKeys, rekorKey{spec: spec, priv: priv, pem: pemText})
	}
	var err error
	if tl.signer, err = pick(opts.Keys, opts.SigningKid); err != nil {
		return nil, err
	}
	if tl.submitter, err = pick(opts.RekorKeys, opts.RekorKid); err != nil {
		return nil, err
	}
	if tl.tsa, err = newTSA(); err != nil {
		return nil, err
	}
	if tl.log, err = newRekorLog(opts.LogName); err != nil {
		return nil, err
	}
	return tl, nil
}

func pick(specs []KeySpec, kid string) (int, error) {
	for i, s := range specs {
		if kid == "" && s.RetiredAt == nil || kid != "" && s.Kid == kid {
			return i, nil
		}
	}
	if kid == "" {
		return 0, errors.New("trustlayer: every key is retired; name the one that signs")
	}
	return 0, fmt.Errorf("trustlayer: no key %q", kid)
}

// UseKey makes kid the Ed25519 key that signs the proofs issued from now on
// (a retired one too: a test's way to issue proofs a verifier must refuse).
func (tl *TrustLayer) UseKey(kid string) error {
	i, err := pick(tl.opts.Keys, kid)
	if err != nil {
		return err
	}
	tl.mu.Lock()
	tl.signer = i
	tl.mu.Unlock()
	return nil
}

// UseRekorKey makes kid the Rekor submitter key of the batches closed from now on.
func (tl *TrustLayer) UseRekorKey(kid string) error {
	i, err := pick(tl.opts.RekorKeys, kid)
	if err != nil {
		return err
	}
	tl.mu.Lock()
	tl.submitter = i
	tl.mu.Unlock()
	return nil
}

// PublicKey is key kid's Ed25519 public key.
func (tl *TrustLayer) PublicKey(kid string) (ed25519.PublicKey, bool) {
	for _, k := range tl.keys {
		if k.spec.Kid == kid {
			return k.priv.Public().(ed25519.PublicKey), true
		}
	}
	return nil, false
}

// RekorPublicKey is submitter key kid's public key.
func (tl *TrustLayer) RekorPublicKey(kid string) (*ecdsa.PublicKey, bool) {
	for _, k := range tl.rekorKeys {
		if k.spec.Kid == kid {
			return &k.priv.PublicKey, true
		}
	}
	return nil, false
}

// TSARoot and TSACertificate are the TSA's root CA and signing certificate.
func (tl *TrustLayer) TSARoot() *x509.Certificate        { return tl.tsa.root }
func (tl *TrustLayer) TSACertificate() *x509.Certificate { return tl.tsa.cert }

// LogPublicKey is the Rekor log's key (it signs SETs and checkpoints).
func (tl *TrustLayer) LogPublicKey() *ecdsa.PublicKey { return &tl.log.key.PublicKey }

// LogVerifierKey is the log key in the note verifier form
// "<name>+<keyhint hex>+<base64(0x02 || DER SPKI)>" that
// github.com/transparency-dev/formats/note.NewECDSAVerifier reads.
func (tl *TrustLayer) LogVerifierKey() string {
	der := tl.log.der
	return fmt.Sprintf("%s+%08x+%s", tl.log.name, tl.log.keyHash(),
		base64.StdEncoding.EncodeToString(append([]byte{0x02}, der...)))
}

// TreeID is the Rekor shard's tree id (uuid prefix and checkpoint origin).
func (tl *TrustLayer) TreeID() int64 { return tl.log.treeID }

// Call is one call Trust Layer relayed, with what the upstream answered.
// The HTTP handler fills it from POST /v1/proxy and the real GET; Issue
// takes it as it is, so a benchmark issues proofs without any HTTP.
type Call struct {
	// Target is the absolute URL, with the public origin.
	Target string
	// Method is upper-cased as Trust Layer does; default GET.
	Method string
	// Payload is the GET's params; nil is {}.
	Payload pyjson.Object
	// Currency is lower-cased; default eur.
	Currency string
	APIKey   string
	// AgentIdentity is the participant's DID, empty for none.
	AgentIdentity string

	// StatusCode is the upstream's status, 0 when it never answered.
	StatusCode int
	// Body is the upstream's body as served.
	Body []byte
	// UpstreamDate is the upstream's Date header, committed when not empty.
	UpstreamDate string
	// ServiceError is what Trust Layer anchors when the upstream never
	// answered: "proxy_timeout" or "service_error".
	ServiceError string
}

var supportedCurrencies = map[string]bool{"eur": true, "usd": true, "gbp": true}

// requestData is the request_data Trust Layer hashes. A free-tier key
// always pays 0.0, whatever amount the caller sent.
func (c *Call) requestData() pyjson.Object {
	payload := c.Payload
	if payload == nil {
		payload = pyjson.Object{}
	}
	return pyjson.Object{
		{Key: "target", Value: c.Target},
		{Key: "method", Value: c.Method},
		{Key: "payload", Value: payload},
		{Key: "amount", Value: pyjson.Number(pyjson.AppendFloat(nil, 0.0))},
		{Key: "currency", Value: c.Currency},
	}
}

// ResponseData is the response_data Trust Layer hashes for a body: the body
// parsed as Python's json module parses it, {"_raw_text": text} for a body
// that is not JSON, and {"error": serviceError} (null when empty) for a
// falsy one. The second result is the parsed body itself, what
// service_response.body carries (nil when the upstream never answered).
func ResponseData(body []byte, statusCode int, serviceError string) (data, parsed pyjson.Value) {
	if statusCode != 0 {
		v, err := pyjson.Parse(body)
		if err != nil {
			// httpx decodes a body it cannot read as JSON as text, with
			// replacement characters for invalid UTF-8.
			v = pyjson.Object{{Key: "_raw_text", Value: strings.ToValidUTF8(string(body), "\uFFFD")}}
		}
		parsed = v
		if !anchor.Falsy(v) {
			return v, parsed
		}
	}
	var e pyjson.Value
	if serviceError != "" {
		e = serviceError
	}
	return pyjson.Object{{Key: "error", Value: e}}, parsed
}

func (c *Call) normalise() error {
	if c.Method == "" {
		c.Method = http.MethodGet
	}
	c.Method = strings.ToUpper(c.Method)
	if c.Currency == "" {
		c.Currency = "eur"
	}
	c.Currency = strings.ToLower(strings.TrimSpace(c.Currency))
	if !supportedCurrencies[c.Currency] {
		return &Error{Code: "invalid_currency", Message: fmt.Sprintf("Currency '%s' not supported", c.Currency), Status: http.StatusBadRequest}
	}
	if c.APIKey == "" {
		return &Error{Code: "invalid_api_key", Message: "Invalid or inactive API key", Status: http.StatusUnauthorized}
	}
	u, err := url.Parse(c.Target)
	if err != nil || u.Scheme != "https" || u.Hostname() == "" {
		return &Error{Code: "invalid_target", Message: "Only HTTPS targets allowed", Status: http.StatusBadRequest}
	}
	if len(c.AgentIdentity) > 256 || !utf8.ValidString(c.AgentIdentity) || strings.IndexFunc(c.AgentIdentity, isControl) >= 0 {
		return &Error{Code: "invalid_agent_identity", Message: "agent identity: at most 256 characters, no control characters", Status: http.StatusUnprocessableEntity}
	}
	return nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 }

// Error is a Trust Layer error answer, {"error": {code, message, status}}.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Status  int    `json:"status"`
}

func (e *Error) Error() string {
	return fmt.Sprintf("trustlayer: %s (%d): %s", e.Code, e.Status, e.Message)
}

// Issue records a relayed call as a proof, signed and queued for the next
// batch, and returns its id.
func (tl *TrustLayer) Issue(call Call) (ProofID, error) {
	r, err := tl.issue(&call)
	if err != nil {
		return "", err
	}
	return r.id, nil
}

func (tl *TrustLayer) issue(call *Call) (*record, error) {
	if err := call.normalise(); err != nil {
		return nil, err
	}
	now := tl.clock().UTC()
	u, _ := url.Parse(call.Target)
	seller := u.Hostname()

	requestHash := anchor.SHA256(pyjson.Canonical(call.requestData()))
	responseHash, err := anchor.ResponseHash(call.Body)
	if call.StatusCode == 0 || err != nil {
		// Only the substitutes remain: anchor hashes JSON bodies alone.
		responseData, _ := ResponseData(call.Body, call.StatusCode, call.ServiceError)
		responseHash = anchor.SHA256(pyjson.Canonical(responseData))
	}
	fingerprint := anchor.SHA256([]byte(call.APIKey))
	timestamp := now.Format("2006-01-02T15:04:05Z")

	var identity, verified, resolution, consistent any
	if call.AgentIdentity != "" {
		identity, verified, resolution, consistent = call.AgentIdentity, true, "bound", true
	}
	chainData := map[string]any{
		"request_hash":            requestHash,
		"response_hash":           responseHash,
		"transaction_id":          FreeTier,
		"timestamp":               timestamp,
		"buyer_fingerprint":       fingerprint,
		"seller":                  seller,
		"agent_identity":          identity,
		"agent_identity_verified": verified,
		"did_resolution_status":   resolution,
		"identity_consistent":     consistent,
	}
	if call.UpstreamDate != "" {
		chainData["upstream_timestamp"] = call.UpstreamDate
	}
	commitments, nonces, chain, err := commitAll(chainData)
	if err != nil {
		return nil, err
	}
	chainHex := hex.EncodeToString(chain)

	tl.mu.Lock()
	key := tl.keys[tl.signer]
	tl.mu.Unlock()
	sig := ed25519.Sign(key.priv, []byte(chainHex))

	r := &record{
		hashes:      Hashes{Request: "sha256:" + requestHash, Response: "sha256:" + responseHash, Chain: "sha256:" + chainHex},
		commitments: commitments, nonces: nonces, chainData: chainData, chainRaw: chain,
		parties: Parties{BuyerFingerprint: fingerprint, Seller: seller, AgentIdentity: identity,
			AgentIdentityVerified: verified, DidResolutionStatus: resolution},
		fee:        Fee{Method: FreeTier, TransactionID: FreeTier, Amount: 0.0, Currency: call.Currency, Status: FreeTier},
		timestamp:  timestamp,
		upstreamTS: call.UpstreamDate,
		success:    call.StatusCode >= 200 && call.StatusCode < 400,
		signature:  "ed25519:" + base64.RawURLEncoding.EncodeToString(sig),
		pubkey:     ed25519Text(key.priv.Public().(ed25519.PublicKey)),
		kid:        key.spec.Kid,
		batch:      &BatchAnchor{Status: "pending"},
	}
	if call.StatusCode != 0 {
		code := call.StatusCode
		r.statusCode = &code
	}

	tl.mu.Lock()
	defer tl.mu.Unlock()
	for {
		id := ProofID(fmt.Sprintf("prf_%s_%s", now.Format("20060102_150405"), randomHex(3)))
		if _, taken := tl.proofs[id]; !taken {
			r.id = id
			break
		}
	}
	r.tsa = &TimestampAuthority{Status: "pending_batch", TSRURL: tl.opts.BaseURL + "/v1/proof/" + string(r.id) + "/tsr"}
	tl.proofs[r.id] = r
	tl.pending = append(tl.pending, r)
	if tl.opts.BatchMaxSize > 0 && len(tl.pending) >= tl.opts.BatchMaxSize {
		if _, err := tl.closeLocked(); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// commitAll commits every field with a fresh nonce and returns the
// commitments, the nonces and the chain hash, their Merkle root, each
// computed as package proofs verifies it: one rule, one implementation.
func commitAll(chainData map[string]any) (commitments, nonces map[string]string, chain []byte, err error) {
	commitments = make(map[string]string, len(chainData))
	nonces = make(map[string]string, len(chainData))
	sums := make(map[string][]byte, len(chainData))
	for f, value := range chainData {
		var nonce [32]byte
		if _, err := rand.Read(nonce[:]); err != nil {
			return nil, nil, nil, err
		}
		c := proofs.Commit(f, nonce[:], value)
		sums[f] = c[:]
		commitments[f] = "sha256:" + hex.EncodeToString(c[:])
		nonces[f] = hex.EncodeToString(nonce[:])
	}
	return commitments, nonces, proofs.CommitmentsRoot(sums), nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

func ed25519Text(pub ed25519.PublicKey) string {
	return "ed25519:" + base64.RawURLEncoding.EncodeToString(pub)
}

func publicPEM(pub *ecdsa.PublicKey) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", err
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})), nil
}

// keyHash is the note key hash of a DER SPKI: the first four bytes of its SHA-256.
func keyHash(der []byte) uint32 {
	sum := sha256.Sum256(der)
	return binary.BigEndian.Uint32(sum[:4])
}
