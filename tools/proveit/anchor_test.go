package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/harness/trustlayer"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/tools/seal"
)

// proveit anchor has Trust Layer GET the record's published URL before
// the opening and keeps the proof and its disclosure where the Index reads
// them; a URL that does not serve the record's bytes, a season already
// open or an anchoring already written is refused, and the key is never
// printed.
func TestAnchorCommand(t *testing.T) {
	inRepoRoot(t)
	dir := t.TempDir()
	section := filepath.Join(dir, "bareme.md")
	require.NoError(t, os.WriteFile(section, []byte("## Barème\n"), 0o644))
	record := filepath.Join(dir, "preenregistrement.json")
	salt := filepath.Join(t.TempDir(), "sel.hex")
	code, _, errOut := runCLI("seal", "-track", "conformite", "-record", record, "-salt-out", salt,
		"-scoring-section", section, "-opening", seal.FormatUTC(time.Now().Add(time.Hour).Truncate(time.Second)),
		"-closing", seal.FormatUTC(time.Now().Add(48*time.Hour).Truncate(time.Second)))
	require.Equal(t, 0, code, errOut)
	recordBytes, err := os.ReadFile(record)
	require.NoError(t, err)
	opened := sealTrack(t, corpus.Conformity) // opened yesterday

	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/season/1/conformite/preenregistrement.json":
			w.Header().Set("Content-Type", "application/json")
			w.Write(recordBytes)
		case "/other.json":
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"piste": "generique"}`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(site.Close)
	const origin = "https://proveit.arkforge.tech"
	api := httptest.NewUnstartedServer(nil)
	rekor := httptest.NewUnstartedServer(nil)
	tl, err := trustlayer.New(trustlayer.Options{Upstreams: map[string]trustlayer.Upstream{origin: {URL: site.URL}},
		BaseURL: "http://" + api.Listener.Addr().String(), RekorURL: "http://" + rekor.Listener.Addr().String(), BatchMaxSize: -1})
	require.NoError(t, err)
	api.Config.Handler, rekor.Config.Handler = tl.Handler(), tl.RekorHandler()
	api.Start()
	rekor.Start()
	t.Cleanup(api.Close)
	t.Cleanup(rekor.Close)
	const key = "mcp_the_challenge_key_0123456789"
	// The challenge's key is bound to ArkForge's DID, which its proofs carry.
	tl.RegisterKey(key)
	require.NoError(t, tl.BindDID(key, "did:web:proveit.arkforge.tech", trustlayer.MethodOATR))
	keyFile := filepath.Join(dir, "challenge.key")
	require.NoError(t, os.WriteFile(keyFile, []byte(key+"\n"), 0o600))
	url := origin + "/v1/season/1/conformite/preenregistrement.json"
	anchorArgs := func(rec, recordURL, trustLayer, out string) []string {
		return []string{"anchor", "-track", "conformite", "-record", rec, "-record-url", recordURL, "-trust-layer", trustLayer,
			"-api-key-file", keyFile, "-o", out, "-timeout", "10s"}
	}

	out := filepath.Join(dir, seal.AnchoringFile)
	code, stdout, errOut := runCLI(anchorArgs(record, url, api.URL, out)...)
	require.Equal(t, 0, code, errOut)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	a, err := seal.DecodeAnchoring(out, data)
	require.NoError(t, err, "read as the Index reads it")
	assert.Equal(t, url, a.RecordURL)
	assert.Contains(t, stdout, a.ProofID)
	assert.Equal(t, anchor.RequestHash(url), a.Disclosure.RequestHash.Value)
	want, err := anchor.ResponseHash(recordBytes)
	require.NoError(t, err)
	assert.Equal(t, want, a.Disclosure.ResponseHash.Value, "the proof anchors the record's bytes")
	assert.NotContains(t, stdout+errOut, key)

	// Once its batch is anchored, anyone fetches the record's proof from
	// the anchoring file and checks it anchors the record before the
	// opening.
	_, err = tl.CloseBatch()
	require.NoError(t, err)
	trust := filepath.Join(t.TempDir(), "trust")
	require.NoError(t, tl.WriteTrust(trust))
	views := filepath.Join(t.TempDir(), "views")
	code, stdout, errOut = runCLI("proofs", "fetch", "-views", views, "-trust-layer", api.URL, "-rekor", rekor.URL, out)
	require.Equal(t, 0, code, stdout+errOut)
	code, stdout, errOut = runCLI("seal", "-verify", "-track", "conformite", "-record", record, "-salt", salt, "-scoring-section", section,
		"-views", views, "-anchoring", out, "-trust", trust)
	require.Equal(t, 0, code, stdout+errOut)
	assert.Contains(t, stdout, "OK "+a.ProofID+" anchors "+record+", served at "+url)
	assertOneLine(t, []string{"seal", "-verify", "-track", "conformite", "-record", record, "-salt", salt, "-anchoring", out, "-proof", a.ProofID},
		2, "instead of -proof")

	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"another file at the URL", anchorArgs(record, origin+"/other.json", api.URL, filepath.Join(dir, "a.json")), "served other bytes"},
		{"nothing at the URL", anchorArgs(record, origin+"/absent.json", api.URL, filepath.Join(dir, "b.json")), "answered 404"},
		{"the season open already", anchorArgs(opened.record, url, api.URL, filepath.Join(dir, "c.json")), "anchors nothing"},
		{"an anchoring already written", anchorArgs(record, url, api.URL, out), "exists"},
		{"Trust Layer unreachable", anchorArgs(record, url, dead.URL, filepath.Join(dir, "d.json")), "through Trust Layer"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, errOut := runCLI(tt.args...)
			assert.Equal(t, 2, code, errOut)
			assert.Contains(t, errOut, tt.want)
			assert.NotContains(t, stdout+errOut, key)
			assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line: %s", errOut)
		})
	}
	for _, name := range []string{"a.json", "b.json", "c.json", "d.json"} {
		assert.NoFileExists(t, filepath.Join(dir, name))
	}
	again, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, data, again, "the first anchoring is kept")
}
