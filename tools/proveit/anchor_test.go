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
	code, _, errOut := runCLI("seal", "-track", "conformite", "-record", record, "-salt-out", filepath.Join(t.TempDir(), "sel.hex"),
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
	tl, err := trustlayer.New(trustlayer.Options{Upstreams: map[string]trustlayer.Upstream{origin: {URL: site.URL}}})
	require.NoError(t, err)
	api := httptest.NewServer(tl.Handler())
	t.Cleanup(api.Close)
	const key = "mcp_the_challenge_key_0123456789"
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
