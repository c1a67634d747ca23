package trustlayer_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/harness/servertest"
	"github.com/arkforge/proveit-corpus/harness/trustlayer"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
)

const (
	secret = "the-challenge-secret"
	apiKey = "mcp_test_participant"
	did    = "did:key:z6MkParticipant"
)

// bodies the fake corpus serves, with their status.
var served = map[string]servertest.Answer{
	"/agrements/AGR-4417": {Status: 200, Body: `{"ressource": "/agrements/AGR-4417", "existe": true}`},
	"/agrements/AGR-9999": {Status: 404, Body: `{"ressource": "/agrements/AGR-9999", "existe": false}`},
	"/vide":               {Status: 200, Body: `{}`},
	"/texte":              {Status: 200, Body: `plain text`},
}

func fakeCorpus(t *testing.T) string { return servertest.FakeCorpus(t, secret, served) }

type client struct {
	t    *testing.T
	base string
	http *http.Client
}

func (c *client) do(method, path string, body any, header map[string]string) (int, []byte) {
	c.t.Helper()
	var r io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		require.NoError(c.t, err)
		r = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, c.base+path, r)
	require.NoError(c.t, err)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := c.http.Do(req)
	require.NoError(c.t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(c.t, err)
	return resp.StatusCode, data
}

type proxyAnswer struct {
	Proof           trustlayer.Record `json:"proof"`
	ServiceResponse struct {
		StatusCode int             `json:"status_code"`
		Body       json.RawMessage `json:"body"`
	} `json:"service_response"`
	Error *trustlayer.Error `json:"error"`
}

func TestHTTP(t *testing.T) {
	upstream := fakeCorpus(t)
	tl, c := newStandIn(t, trustlayer.Options{Upstreams: map[string]trustlayer.Upstream{origin: {URL: upstream, Secret: secret}}})
	tr := readTrust(t, tl, "tsa.test", "rekor.test")
	api := &client{t: t, base: servertest.Loopback(t, tl.Handler()), http: &http.Client{Timeout: 10 * time.Second}}
	rekor := &client{t: t, base: servertest.Loopback(t, tl.RekorHandler()), http: api.http}
	auth := map[string]string{trustlayer.APIKeyHeader: apiKey, trustlayer.AgentIdentityHeader: did}

	tests := []struct {
		path       string
		status     int
		body       string // service_response.body without the stamp
		stamped    bool
		wantedHash string // the response_hash anchored
	}{
		{"/agrements/AGR-4417", 200, `{"existe":true,"ressource":"/agrements/AGR-4417"}`, true, ""},
		{"/agrements/AGR-9999", 404, `{"existe":false,"ressource":"/agrements/AGR-9999"}`, false, ""},
		{"/vide", 200, `{}`, true, ""},
		{"/texte", 200, `{"_raw_text":"plain text"}`, false, anchor.SHA256([]byte(`{"_raw_text":"plain text"}`))},
	}
	var ids []trustlayer.ProofID
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			status, data := api.do("POST", "/v1/proxy", map[string]any{"target": origin + tt.path, "method": "GET",
				"payload": map[string]any{}, "amount": 0.0, "currency": "eur"}, auth)
			require.Equal(t, 200, status, string(data))
			var ans proxyAnswer
			require.NoError(t, json.Unmarshal(data, &ans))
			assert.Equal(t, tt.status, ans.ServiceResponse.StatusCode)
			var body map[string]any
			require.NoError(t, json.Unmarshal(ans.ServiceResponse.Body, &body))
			_, stamped := body[trustlayer.AttestationKey]
			assert.Equal(t, tt.stamped, stamped)
			delete(body, trustlayer.AttestationKey)
			want := map[string]any{}
			require.NoError(t, json.Unmarshal([]byte(tt.body), &want))
			assert.Equal(t, want, body)

			p := ans.Proof
			assert.Equal(t, "pending", p.BatchAnchor.Status)
			assert.Equal(t, "pending_batch", p.TimestampAuthority.Status)
			assert.Equal(t, "key-1", p.ArkforgeKid)
			assert.Equal(t, "sha256:"+anchor.RequestHash(origin+tt.path), p.Hashes.Request)
			wantHash := tt.wantedHash
			if wantHash == "" {
				var err error
				wantHash, err = anchor.ResponseHash([]byte(served[tt.path].Body))
				require.NoError(t, err)
			}
			assert.Equal(t, "sha256:"+wantHash, p.Hashes.Response)
			assert.Equal(t, anchor.SHA256([]byte(apiKey)), p.Parties.BuyerFingerprint)
			assert.Equal(t, did, p.Parties.AgentIdentity)
			ids = append(ids, trustlayer.ProofID(p.ProofID))

			// The public view counts its views, and is pending.
			for n := 1; n <= 2; n++ {
				status, data = api.do("GET", "/v1/proof/"+p.ProofID, nil, nil)
				require.Equal(t, 200, status)
				var v trustlayer.View
				require.NoError(t, json.Unmarshal(data, &v))
				assert.Equal(t, n, v.ViewsCount)
				assert.Nil(t, v.TransparencyLog)
				assert.Equal(t, did, v.Disclosed["agent_identity"].Value)
			}
			// The owner's view needs the key that paid.
			status, _ = api.do("GET", "/v1/proof/"+p.ProofID+"/full", nil, nil)
			assert.Equal(t, 401, status)
			status, _ = api.do("GET", "/v1/proof/"+p.ProofID+"/full", nil, map[string]string{trustlayer.APIKeyHeader: "another"})
			assert.Equal(t, 403, status)
			status, data = api.do("GET", "/v1/proof/"+p.ProofID+"/full", nil, map[string]string{"Authorization": "Bearer " + apiKey})
			require.Equal(t, 200, status)
			var full trustlayer.Full
			require.NoError(t, json.Unmarshal(data, &full))
			assert.Equal(t, wantHash, full.ChainData["response_hash"])
			assert.Len(t, full.CommitmentNonces["response_hash"], 64)
			checkProof(t, tl, tr, trustlayer.ProofID(p.ProofID), trustlayer.Call{Target: origin + tt.path, APIKey: apiKey,
				StatusCode: tt.status, Body: []byte(served[tt.path].Body)})
		})
	}

	t.Run("refusals", func(t *testing.T) {
		for _, tt := range []struct {
			name   string
			body   any
			header map[string]string
			status int
		}{
			{"no API key", map[string]any{"target": origin + "/x"}, nil, 401},
			{"unknown origin", map[string]any{"target": "https://elsewhere.test/x"}, auth, 400},
			{"plain HTTP", map[string]any{"target": "http://corpus.arkforge.tech/x"}, auth, 400},
			{"POST", map[string]any{"target": origin + "/x", "method": "POST"}, auth, 400},
			{"currency", map[string]any{"target": origin + "/x", "currency": "btc"}, auth, 400},
			{"payload", map[string]any{"target": origin + "/x", "payload": []string{}}, auth, 400},
			{"identity too long", map[string]any{"target": origin + "/x"}, map[string]string{trustlayer.APIKeyHeader: apiKey, trustlayer.AgentIdentityHeader: "did:" + strings.Repeat("z", 253)}, 422},
		} {
			status, data := api.do("POST", "/v1/proxy", tt.body, tt.header)
			assert.Equal(t, tt.status, status, "%s: %s", tt.name, data)
			assert.Contains(t, string(data), `"error":{"code":`, tt.name)
		}
	})

	t.Run("batch views", func(t *testing.T) {
		status, data := api.do("POST", "/v1/proofs", map[string]any{"proof_ids": []string{string(ids[0]), "prf_unknown"}}, nil)
		require.Equal(t, 200, status, string(data))
		var ans struct {
			Proofs map[string]*trustlayer.View `json:"proofs"`
		}
		require.NoError(t, json.Unmarshal(data, &ans))
		require.Contains(t, ans.Proofs, "prf_unknown")
		assert.Nil(t, ans.Proofs["prf_unknown"])
		require.NotNil(t, ans.Proofs[string(ids[0])])
		assert.Equal(t, 2, ans.Proofs[string(ids[0])].ViewsCount, "a batch read counts no view")
		many := make([]string, 51)
		for i := range many {
			many[i] = string(ids[0])
		}
		status, _ = api.do("POST", "/v1/proofs", map[string]any{"proof_ids": many}, nil)
		assert.Equal(t, 400, status)
		status, _ = api.do("POST", "/v1/proofs", map[string]any{"proof_ids": many[:50]}, nil)
		assert.Equal(t, 200, status)
	})

	t.Run("anchored", func(t *testing.T) {
		status, _ := api.do("GET", "/v1/proof/"+string(ids[0])+"/tsr", nil, nil)
		assert.Equal(t, 404, status, "no token before the batch closes")
		_, err := tl.CloseBatch()
		require.NoError(t, err)
		genTime := c.peek()
		for _, id := range ids {
			status, data := api.do("GET", "/v1/proof/"+string(id), nil, nil)
			require.Equal(t, 200, status)
			var v trustlayer.View
			require.NoError(t, json.Unmarshal(data, &v))
			checkAnchors(t, tl, tr, v, genTime)
			assert.Equal(t, len(ids), v.BatchAnchor.TreeSize)
			// The log's HTTP answer is the direct API's.
			assert.True(t, strings.HasSuffix(v.TransparencyLog.LogURL, "/api/v1/log/entries/"+v.TransparencyLog.UUID))
			status, entry := rekor.do("GET", "/api/v1/log/entries/"+v.TransparencyLog.UUID, nil, nil)
			require.Equal(t, 200, status)
			checkRekorEntry(t, tr, entry, v.TransparencyLog, strings.TrimPrefix(v.BatchAnchor.Root, "sha256:"))
			direct, err := tl.RekorEntry(v.TransparencyLog.UUID)
			require.NoError(t, err)
			assert.JSONEq(t, string(direct), string(entry))
			status, tsr := api.do("GET", "/v1/proof/"+string(id)+"/tsr", nil, nil)
			require.Equal(t, 200, status)
			assert.NotEmpty(t, tsr)
		}
		status, _ = rekor.do("GET", "/api/v1/log/entries/"+strings.Repeat("0", 80), nil, nil)
		assert.Equal(t, 404, status)
		status, data := api.do("GET", "/v1/pubkey", nil, nil)
		require.Equal(t, 200, status)
		assert.Contains(t, string(data), `"rekor_kid":"rekor-1"`)
	})
}

func TestUpstreamDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := "http://" + ln.Addr().String()
	require.NoError(t, ln.Close())
	tl, _ := newStandIn(t, trustlayer.Options{Upstreams: map[string]trustlayer.Upstream{origin: {URL: dead, Secret: secret}}})
	api := &client{t: t, base: servertest.Loopback(t, tl.Handler()), http: &http.Client{Timeout: 10 * time.Second}}
	status, data := api.do("POST", "/v1/proxy", map[string]any{"target": origin + "/x"}, map[string]string{trustlayer.APIKeyHeader: apiKey})
	require.Equal(t, 502, status, string(data))
	var ans proxyAnswer
	require.NoError(t, json.Unmarshal(data, &ans))
	require.NotNil(t, ans.Error)
	assert.Equal(t, "service_error", ans.Error.Code)
	assert.Equal(t, "sha256:"+anchor.SHA256([]byte(`{"error":"service_error"}`)), ans.Proof.Hashes.Response)
	assert.False(t, ans.Proof.TransactionSuccess)
}
