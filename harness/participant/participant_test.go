package participant_test

import (
	"encoding/hex"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/harness/participant"
	"github.com/arkforge/proveit-corpus/harness/servertest"
	"github.com/arkforge/proveit-corpus/harness/trustlayer"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/tools/probe"
	"github.com/arkforge/proveit-corpus/tools/proofs"
)

const (
	origin = "https://corpus.arkforge.tech"
	secret = "the-challenge-secret"
	did    = "did:key:z6MkReferenceParticipant"
)

var served = map[string]servertest.Answer{
	"/agrements/AGR-4417": {Status: 200, Body: "{\n  \"ressource\": \"/agrements/AGR-4417\",\n  \"titulaire\": \"Soci\u00e9t\u00e9 \u00c9\",\n  \"existe\": true\n}\n"},
	"/agrements/AGR-9999": {Status: 404, Body: `{"ressource": "/agrements/AGR-9999", "existe": false}`},
}

func fakeCorpus(t *testing.T) string { return servertest.FakeCorpus(t, secret, served) }

// Both modes disclose the same hashes for a call; the proxied one opens
// the stand-in's real commitments with its nonces.
func TestRelayModes(t *testing.T) {
	upstream := fakeCorpus(t)
	tl, err := trustlayer.New(trustlayer.Options{Upstreams: map[string]trustlayer.Upstream{origin: {URL: upstream, Secret: secret}}})
	require.NoError(t, err)
	client, err := probe.NewClient(upstream, 5*time.Second)
	require.NoError(t, err)
	direct := participant.NewRelay(client, secret, origin, "prf_direct")
	proxied := participant.NewProxiedRelay(&participant.TrustLayer{URL: servertest.Loopback(t, tl.Handler()), APIKey: "participant-key",
		AgentDID: did, HTTP: &http.Client{Timeout: 10 * time.Second}}, origin)

	for _, path := range []string{"/agrements/AGR-4417", "/agrements/AGR-9999"} {
		t.Run(path, func(t *testing.T) {
			d, err := direct.Call(path)
			require.NoError(t, err)
			p, err := proxied.Call(path)
			require.NoError(t, err)
			assert.Equal(t, served[path].Status, d.Status)
			assert.Equal(t, d.Status, p.Status)
			assert.Equal(t, anchor.RequestHash(origin+path), p.Disclosure.RequestHash.Value)
			assert.Equal(t, d.Disclosure.RequestHash.Value, p.Disclosure.RequestHash.Value)
			assert.Equal(t, d.Disclosure.ResponseHash.Value, p.Disclosure.ResponseHash.Value)
			assert.Regexp(t, `^prf_\d{8}_\d{6}_[0-9a-f]{6}$`, p.ID)
			// The body the solver reads is the one served, less the stamp.
			sum, err := anchor.ResponseHash(p.Body)
			require.NoError(t, err)
			assert.Equal(t, p.Disclosure.ResponseHash.Value, sum)
			assert.NotContains(t, string(p.Body), trustlayer.AttestationKey)

			var view trustlayer.View
			data, err := tl.View(trustlayer.ProofID(p.ID))
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(data, &view))
			assert.Equal(t, did, view.AgentIdentity)
			for field, o := range map[string]proofs.Opening{"request_hash": p.Disclosure.RequestHash, "response_hash": p.Disclosure.ResponseHash} {
				nonce, err := hex.DecodeString(o.Nonce)
				require.NoError(t, err)
				c := proofs.Commit(field, nonce, o.Value)
				assert.Equal(t, view.Commitments[field], "sha256:"+hex.EncodeToString(c[:]), field)
			}
		})
	}
	_, err = proxied.Fetch("/agrements/AGR-9999")
	assert.ErrorContains(t, err, "status 404")
	body, err := proxied.Fetch("/agrements/AGR-4417")
	require.NoError(t, err)
	assert.JSONEq(t, served["/agrements/AGR-4417"].Body, string(body))
	assert.Len(t, proxied.Proofs(), 4)

	// A direct relay without the secret still reaches the corpus refused.
	refused, err := participant.NewRelay(client, "", origin, "prf_nosecret").Call("/agrements/AGR-4417")
	require.NoError(t, err)
	assert.Equal(t, 403, refused.Status)
}

func TestProxiedRelayRefusals(t *testing.T) {
	tl, err := trustlayer.New(trustlayer.Options{})
	require.NoError(t, err)
	base := servertest.Loopback(t, tl.Handler())
	for _, tt := range []struct {
		name   string
		tl     participant.TrustLayer
		origin string
		want   string
	}{
		{"no API key", participant.TrustLayer{URL: base}, origin, "status 401"},
		{"an origin the proxy does not serve", participant.TrustLayer{URL: base, APIKey: "k"}, origin, "status 400"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.tl.HTTP = &http.Client{Timeout: 10 * time.Second}
			_, err := participant.NewProxiedRelay(&tt.tl, tt.origin).Call("/agrements/AGR-4417")
			assert.ErrorContains(t, err, tt.want)
		})
	}
}
