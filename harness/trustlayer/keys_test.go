package trustlayer_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/harness/servertest"
	"github.com/arkforge/proveit-corpus/harness/trustlayer"
)

// settableClock is a clock a test moves by hand.
type settableClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *settableClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *settableClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func newKeysStandIn(t *testing.T, opts trustlayer.Options) (*trustlayer.TrustLayer, *client, *settableClock) {
	t.Helper()
	c := &settableClock{now: time.Date(2026, 10, 2, 9, 0, 0, 0, time.UTC)}
	opts.Clock = c.Now
	tl, err := trustlayer.New(opts)
	require.NoError(t, err)
	api := &client{t: t, base: servertest.Loopback(t, tl.Handler()), http: &http.Client{Timeout: 10 * time.Second}}
	return tl, api, c
}

func errorCode(t *testing.T, data []byte) string {
	t.Helper()
	var e struct {
		Error trustlayer.Error `json:"error"`
	}
	require.NoError(t, json.Unmarshal(data, &e), string(data))
	return e.Error.Code
}

// signUp signs up an address and returns its key.
func signUp(t *testing.T, api *client, email string) string {
	t.Helper()
	status, data := api.do("POST", "/v1/keys/free-signup", map[string]any{"email": email}, nil)
	require.Equal(t, http.StatusOK, status, string(data))
	var ans struct {
		APIKey string `json:"api_key"`
		Plan   string `json:"plan"`
		Email  string `json:"email"`
	}
	require.NoError(t, json.Unmarshal(data, &ans))
	assert.True(t, strings.HasPrefix(ans.APIKey, "mcp_free_"), ans.APIKey)
	assert.Equal(t, "free", ans.Plan)
	assert.Equal(t, strings.ToLower(email), ans.Email)
	return ans.APIKey
}

// bind binds a fresh did:key to key by challenge-response and returns it.
func bind(t *testing.T, api *client, key string) string {
	t.Helper()
	did, priv := trustlayer.NewDIDKey()
	status, data := api.do("POST", "/v1/keys/bind-did", map[string]any{"did": did}, map[string]string{trustlayer.APIKeyHeader: key})
	require.Equal(t, http.StatusOK, status, string(data))
	var ch struct {
		Challenge string `json:"challenge"`
		ExpiresIn int    `json:"expires_in"`
	}
	require.NoError(t, json.Unmarshal(data, &ch))
	assert.Equal(t, 300, ch.ExpiresIn)
	status, data = api.do("POST", "/v1/keys/bind-did/confirm", map[string]any{"challenge": ch.Challenge, "signature": trustlayer.SignChallenge(priv, ch.Challenge)},
		map[string]string{trustlayer.APIKeyHeader: key})
	require.Equal(t, http.StatusOK, status, string(data))
	var bound map[string]any
	require.NoError(t, json.Unmarshal(data, &bound))
	assert.Equal(t, did, bound["verified_did"])
	assert.Equal(t, trustlayer.MethodChallenge, bound["method"])
	return did
}

func identity(t *testing.T, api *client, key string) (int, map[string]any) {
	t.Helper()
	status, data := api.do("GET", "/v1/keys/identity", nil, map[string]string{trustlayer.APIKeyHeader: key})
	var out map[string]any
	require.NoError(t, json.Unmarshal(data, &out), string(data))
	return status, out
}

// TestKeyIdentity: a key signed up has no DID, every member null; bound by
// challenge-response over a did:key, it answers the DID; bound again to
// another, the first goes to the history with its unbinding time; and the
// proxy's proofs of a bound key carry its DID whatever the header says.
func TestKeyIdentity(t *testing.T) {
	tl, api, clock := newKeysStandIn(t, trustlayer.Options{})
	key := signUp(t, api, "Agent@Example.org")

	status, id := identity(t, api, key)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, map[string]any{"verified_did": nil, "verified_did_method": nil, "verified_did_bound_at": nil, "verified_did_history": []any{}}, id)

	first := bind(t, api, key)
	status, id = identity(t, api, key)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, map[string]any{"verified_did": first, "verified_did_method": trustlayer.MethodChallenge,
		"verified_did_bound_at": "2026-10-02T09:00:00+00:00", "verified_did_history": []any{}}, id)

	clock.advance(time.Hour)
	second := bind(t, api, key)
	status, id = identity(t, api, key)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, map[string]any{"verified_did": second, "verified_did_method": trustlayer.MethodChallenge,
		"verified_did_bound_at": "2026-10-02T10:00:00+00:00",
		"verified_did_history":  []any{map[string]any{"did": first, "bound_at": "2026-10-02T09:00:00+00:00", "method": trustlayer.MethodChallenge, "unbound_at": "2026-10-02T10:00:00+00:00"}}}, id)

	got, ok := tl.KeyIdentity(key)
	require.True(t, ok)
	assert.Equal(t, second, *got.VerifiedDID)

	// The proof of a bound key names its DID, not the one declared.
	upstream := fakeCorpus(t)
	_, api2, _ := newKeysStandIn(t, trustlayer.Options{Upstreams: map[string]trustlayer.Upstream{origin: {URL: upstream, Secret: secret}}})
	key2 := signUp(t, api2, "b@example.org")
	did2 := bind(t, api2, key2)
	status, data := api2.do("POST", "/v1/proxy", map[string]any{"target": origin + "/agrements/AGR-4417", "method": "GET", "payload": map[string]any{}, "amount": 0.0, "currency": "eur"},
		map[string]string{trustlayer.APIKeyHeader: key2, trustlayer.AgentIdentityHeader: "did:key:z6MkSomeoneElse"})
	require.Equal(t, http.StatusOK, status, string(data))
	var ans proxyAnswer
	require.NoError(t, json.Unmarshal(data, &ans))
	assert.Equal(t, did2, ans.Proof.Parties.AgentIdentity)
}

// TestKeyCallsRefusals: each refusal of the key calls, as Trust Layer
// answers it.
func TestKeyCallsRefusals(t *testing.T) {
	tl, api, clock := newKeysStandIn(t, trustlayer.Options{FreeSignupsPerHour: 2})
	key := signUp(t, api, "a@example.org")
	other := signUp(t, api, "c@example.org")
	did, priv := trustlayer.NewDIDKey()
	challenge := func(k string) string {
		status, data := api.do("POST", "/v1/keys/bind-did", map[string]any{"did": did}, map[string]string{trustlayer.APIKeyHeader: k})
		require.Equal(t, http.StatusOK, status, string(data))
		var ch struct{ Challenge string }
		require.NoError(t, json.Unmarshal(data, &ch))
		return ch.Challenge
	}
	withKey := func(k string) map[string]string { return map[string]string{trustlayer.APIKeyHeader: k} }

	tests := []struct {
		name   string
		method string
		path   string
		body   func() any
		header map[string]string
		status int
		code   string
	}{
		{"signup, no email", "POST", "/v1/keys/free-signup", func() any { return map[string]any{"email": "nobody"} }, nil, 400, "invalid_request"},
		{"signup, over the hour's cap", "POST", "/v1/keys/free-signup", func() any { return map[string]any{"email": "d@example.org"} }, nil, 429, "rate_limited"},
		{"identity, no key", "GET", "/v1/keys/identity", nil, nil, 401, "invalid_api_key"},
		{"identity, unknown key", "GET", "/v1/keys/identity", nil, withKey("mcp_free_unknown"), 401, "invalid_api_key"},
		{"bind, unknown key", "POST", "/v1/keys/bind-did", func() any { return map[string]any{"did": did} }, withKey("mcp_free_unknown"), 401, "invalid_api_key"},
		{"bind, not a DID", "POST", "/v1/keys/bind-did", func() any { return map[string]any{"did": "me"} }, withKey(key), 400, "invalid_did"},
		{"bind, did:web", "POST", "/v1/keys/bind-did", func() any { return map[string]any{"did": "did:web:example.org"} }, withKey(key), 400, "did_resolution_failed"},
		{"bind, not an Ed25519 did:key", "POST", "/v1/keys/bind-did", func() any { return map[string]any{"did": "did:key:z6MkParticipant"} }, withKey(key), 400, "did_resolution_failed"},
		{"confirm, missing fields", "POST", "/v1/keys/bind-did/confirm", func() any { return map[string]any{"challenge": "x"} }, withKey(key), 400, "missing_fields"},
		{"confirm, unknown challenge", "POST", "/v1/keys/bind-did/confirm", func() any { return map[string]any{"challenge": "x", "signature": "y"} }, withKey(key), 410, "challenge_expired"},
		{"confirm, another key's challenge", "POST", "/v1/keys/bind-did/confirm", func() any {
			c := challenge(other)
			return map[string]any{"challenge": c, "signature": trustlayer.SignChallenge(priv, c)}
		}, withKey(key), 400, "key_mismatch"},
		{"confirm, wrong signature", "POST", "/v1/keys/bind-did/confirm", func() any {
			_, wrong := trustlayer.NewDIDKey()
			c := challenge(key)
			return map[string]any{"challenge": c, "signature": trustlayer.SignChallenge(wrong, c)}
		}, withKey(key), 400, "invalid_signature"},
		{"confirm, expired", "POST", "/v1/keys/bind-did/confirm", func() any {
			c := challenge(key)
			clock.advance(trustlayer.ChallengeTTL + time.Second)
			return map[string]any{"challenge": c, "signature": trustlayer.SignChallenge(priv, c)}
		}, withKey(key), 410, "challenge_expired"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body any
			if tt.body != nil {
				body = tt.body()
			}
			status, data := api.do(tt.method, tt.path, body, tt.header)
			assert.Equal(t, tt.status, status, string(data))
			assert.Equal(t, tt.code, errorCode(t, data))
		})
	}
	// A refused confirmation binds nothing.
	id, ok := tl.KeyIdentity(key)
	require.True(t, ok)
	assert.Nil(t, id.VerifiedDID)

	// The address's cap counts the last hour only; an email signs up once.
	clock.advance(time.Hour)
	status, data := api.do("POST", "/v1/keys/free-signup", map[string]any{"email": "A@example.org"}, nil)
	assert.Equal(t, 409, status, string(data))
	assert.Equal(t, "already_exists", errorCode(t, data))

	// A key registered by a test is known; BindDID binds without the round trip.
	tl.RegisterKey("mcp_test_registered")
	require.NoError(t, tl.BindDID("mcp_test_registered", did, trustlayer.MethodOATR))
	status, got := identity(t, api, "mcp_test_registered")
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, did, got["verified_did"])
	assert.Equal(t, trustlayer.MethodOATR, got["verified_did_method"])
	assert.Error(t, tl.BindDID("mcp_free_unknown", did, trustlayer.MethodOATR))
	assert.Error(t, tl.BindDID("mcp_test_registered", "me", trustlayer.MethodOATR))
}

// TestDIDKey: a did:key round-trips its Ed25519 key, and reads a did:key
// written by others (the W3C did:key test vector).
func TestDIDKey(t *testing.T) {
	did, priv := trustlayer.NewDIDKey()
	assert.True(t, strings.HasPrefix(did, "did:key:z6Mk"), did)
	pub, err := trustlayer.DIDKeyPublicKey(did)
	require.NoError(t, err)
	assert.Equal(t, priv.Public(), pub)

	// did-method-key's first Ed25519 vector.
	const vector = "did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp"
	pub, err = trustlayer.DIDKeyPublicKey(vector)
	require.NoError(t, err)
	assert.Equal(t, vector, trustlayer.DIDKey(pub))

	for _, bad := range []string{"did:web:x", "did:key:z", "did:key:z0OIl", "did:key:z6MkParticipant"} {
		_, err := trustlayer.DIDKeyPublicKey(bad)
		assert.Error(t, err, bad)
	}
}
