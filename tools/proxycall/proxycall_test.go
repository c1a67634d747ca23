package proxycall_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/harness/trustlayer"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/tools/proxycall"
)

const key = "mcp_free_secret_key_of_the_test"

// A GET through the Trust Layer stand-in: the proof's openings are the
// target's request and the body served, without the attestation Trust
// Layer adds.
func TestGet(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"saison": "1", "piste": "conformite"}`)
	}))
	t.Cleanup(upstream.Close)
	tl, err := trustlayer.New(trustlayer.Options{Upstreams: map[string]trustlayer.Upstream{"https://proveit.test": {URL: upstream.URL}}})
	require.NoError(t, err)
	api := httptest.NewServer(tl.Handler())
	t.Cleanup(api.Close)

	client := &proxycall.Client{URL: api.URL, APIKey: key}
	call, err := client.Get(context.Background(), "https://proveit.test/v1/season/1/conformite/preenregistrement.json")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, call.Status)
	assert.Equal(t, `{"piste":"conformite","saison":"1"}`, string(call.Body))
	assert.Equal(t, anchor.RequestHash("https://proveit.test/v1/season/1/conformite/preenregistrement.json"), call.Disclosure.RequestHash.Value)
	want, err := anchor.ResponseHash(call.Body)
	require.NoError(t, err)
	assert.Equal(t, want, call.Disclosure.ResponseHash.Value)
}

// Trust Layer's answers are held to the call: each hostile one is an
// error naming what is wrong, never quoting the key, never followed
// elsewhere.
func TestGetHostile(t *testing.T) {
	const target = "https://proveit.test/record.json"
	const proofID = "prf_20261001_000000_abcdef"
	hash := func(s string) string { return anchor.SHA256([]byte(s)) }
	full := func(request, response string) string {
		return `{"commitment_nonces": {"request_hash": "` + hash("n1") + `", "response_hash": "` + hash("n2") + `"},
			"chain_data": {"request_hash": "` + request + `", "response_hash": "` + response + `"}}`
	}
	bodyHash, err := anchor.ResponseHash([]byte(`{"a":1}`))
	require.NoError(t, err)
	relayed := `{"proof": {"proof_id": "` + proofID + `"}, "service_response": {"status_code": 200, "body": {"a": 1}}}`
	for _, tt := range []struct {
		name         string
		proxy, proof func(w http.ResponseWriter)
		want         string
	}{
		{"a refusal, control characters and all", func(w http.ResponseWriter) {
			w.WriteHeader(http.StatusPaymentRequired)
			fmt.Fprint(w, "{\"error\": \"quota\x1b[31m\"}"+strings.Repeat("x", 500))
		}, nil, "status 402"},
		{"a redirect, not followed", func(w http.ResponseWriter) {
			w.Header().Set("Location", "https://elsewhere.test/")
			w.WriteHeader(http.StatusFound)
		}, nil, "status 302"},
		{"not JSON", func(w http.ResponseWriter) { fmt.Fprint(w, "<html>") }, nil, "not the JSON expected"},
		{"an answer too large", func(w http.ResponseWriter) {
			fmt.Fprint(w, `{"proof": {"proof_id": "`+strings.Repeat("p", 17<<20)+`"}}`)
		}, nil, "over 16777216 bytes"},
		{"a proof id out of form", func(w http.ResponseWriter) {
			fmt.Fprint(w, `{"proof": {"proof_id": "../../admin"}, "service_response": {"status_code": 200, "body": {}}}`)
		}, nil, "proof"},
		{"no openings", func(w http.ResponseWriter) { fmt.Fprint(w, relayed) },
			func(w http.ResponseWriter) { fmt.Fprint(w, `{}`) }, "has no opening of request_hash"},
		{"another call's request", func(w http.ResponseWriter) { fmt.Fprint(w, relayed) },
			func(w http.ResponseWriter) {
				fmt.Fprint(w, full(anchor.RequestHash("https://proveit.test/other"), bodyHash))
			}, "not the target's"},
		{"another body's response", func(w http.ResponseWriter) { fmt.Fprint(w, relayed) },
			func(w http.ResponseWriter) { fmt.Fprint(w, full(anchor.RequestHash(target), hash("other"))) }, "not the relayed body's"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				switch {
				case r.Method == http.MethodPost && r.URL.Path == "/v1/proxy":
					tt.proxy(w)
				case r.URL.Path == "/v1/proof/"+proofID+"/full" && tt.proof != nil:
					tt.proof(w)
				default:
					http.NotFound(w, r)
				}
			}))
			t.Cleanup(server.Close)
			client := &proxycall.Client{URL: server.URL, APIKey: key}
			_, err := client.Get(context.Background(), target)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.NotContains(t, err.Error(), key)
			assert.NotContains(t, err.Error(), "\x1b")
			assert.Less(t, len(err.Error()), 1000)
		})
	}
	// The well-formed answer of the same shapes passes.
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/proxy" {
			fmt.Fprint(w, relayed)
			return
		}
		fmt.Fprint(w, full(anchor.RequestHash(target), bodyHash))
	}))
	t.Cleanup(server.Close)
	_, err = (&proxycall.Client{URL: server.URL, APIKey: key}).Get(context.Background(), target)
	require.NoError(t, err)

	_, err = (&proxycall.Client{URL: server.URL, APIKey: key}).Get(context.Background(), "file:///etc/passwd")
	assert.ErrorContains(t, err, "not an absolute http or https URL")
}
