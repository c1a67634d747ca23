package main

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/harness/trustlayer"
)

// proveit proofs keys holds the trust material to the key history Trust
// Layer publishes: the same keys agree; a key it publishes and the
// material lacks, or a pinned key it no longer lists, is a MISMATCH line
// naming the key; an answer that is no key history is bad input.
func TestProofsKeys(t *testing.T) {
	inRepoRoot(t)
	serve := func(t *testing.T, tl *trustlayer.TrustLayer) string {
		api := httptest.NewServer(tl.Handler())
		t.Cleanup(api.Close)
		return api.URL
	}
	tl, err := trustlayer.New(trustlayer.Options{})
	require.NoError(t, err)
	trust := filepath.Join(t.TempDir(), "trust")
	require.NoError(t, tl.WriteTrust(trust))
	url := serve(t, tl)

	code, out, errOut := runCLI("proofs", "keys", "-trust-layer", url, "-trust", trust)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "OK 1 signing keys and 1 Rekor keys of "+url+"/v1/pubkey")

	// A second signing key, the first retired: the material written before
	// knows neither the new key nor the retirement.
	retired := time.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	rotated, err := trustlayer.New(trustlayer.Options{
		Keys: []trustlayer.KeySpec{{Kid: "key-1", ValidFrom: retired.Add(-24 * time.Hour), RetiredAt: &retired}, {Kid: "key-2", ValidFrom: retired}},
	})
	require.NoError(t, err)
	code, out, _ = runCLI("proofs", "keys", "-trust-layer", serve(t, rotated), "-trust", trust)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "MISMATCH signing key key-2 ")
	assert.Contains(t, out, "is published by")
	assert.Contains(t, out, "no longer published by", "the pinned key-1, not retired, differs from the published one")

	// The repository's pinned material is ArkForge's, not the stand-in's.
	code, out, _ = runCLI("proofs", "keys", "-trust-layer", url)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "pinned in tools/proofs/trust")

	for _, tt := range []struct {
		name, body, want string
	}{
		{"not JSON", "<html>", "not the JSON expected"},
		{"a key out of form", `{"keys": [{"kid": "k", "type": "Ed25519", "public": "ed25519:AAAA", "retired_at": null}]}`, "/keys/0/public"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hostile := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(tt.body)) }))
			t.Cleanup(hostile.Close)
			assertOneLine(t, []string{"proofs", "keys", "-trust-layer", hostile.URL, "-trust", trust}, 2, tt.want)
		})
	}
	assert.False(t, strings.Contains(out, "\x1b"))
}
