package main

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/harness/servertest"
	"github.com/arkforge/proveit-corpus/harness/trustlayer"
	"github.com/arkforge/proveit-corpus/tools/didkey"
	"github.com/arkforge/proveit-corpus/tools/seasonservice"
)

// A participant's did:key: -new draws a key into a new file for its owner
// only, in the format the season's keys are read in, and prints its
// did:key; -key prints it again from the file; the file is never
// overwritten.
func TestDIDKeyNew(t *testing.T) {
	file := filepath.Join(t.TempDir(), "did.pem")
	code, out, errOut := runCLI("did-key", "-new", file)
	require.Equal(t, 0, code, errOut)
	assert.Empty(t, errOut)
	did := strings.TrimSuffix(out, "\n")
	assert.Regexp(t, `^did:key:z6Mk[1-9A-HJ-NP-Za-km-z]+$`, did, "one line, the did:key alone")

	// PKCS #8 in PEM, as the season service reads its receipt key.
	priv, err := seasonservice.ReadReceiptKey(file)
	require.NoError(t, err)
	pub, err := didkey.Decode(did)
	require.NoError(t, err)
	assert.Equal(t, priv.Public(), pub, "the did:key printed is the file's key")
	info, err := os.Stat(file)
	require.NoError(t, err)
	if runtime.GOOS != "windows" {
		assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	}

	code, again, errOut := runCLI("did-key", "-key", file)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, out, again)

	before, err := os.ReadFile(file)
	require.NoError(t, err)
	assertOneLine(t, []string{"did-key", "-new", file}, 2, "never overwritten")
	after, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, before, after, "the first key is kept")
}

// -sign prints what Trust Layer's confirmation wants: the stand-in binds
// the did:key to the key that asked for the challenge, as Trust Layer
// does, from the signature the command printed.
func TestDIDKeySignBindsOnTrustLayer(t *testing.T) {
	file := filepath.Join(t.TempDir(), "did.pem")
	code, out, errOut := runCLI("did-key", "-new", file)
	require.Equal(t, 0, code, errOut)
	did := strings.TrimSpace(out)

	tl, err := trustlayer.New(trustlayer.Options{})
	require.NoError(t, err)
	base := servertest.Loopback(t, tl.Handler())
	const apiKey = "mcp_test_did_key"
	tl.RegisterKey(apiKey)
	client := &http.Client{Timeout: 10 * time.Second}
	post := func(path string, body map[string]string) (int, map[string]any) {
		t.Helper()
		data, err := json.Marshal(body)
		require.NoError(t, err)
		req, err := http.NewRequest(http.MethodPost, base+path, bytes.NewReader(data))
		require.NoError(t, err)
		req.Header.Set(trustlayer.APIKeyHeader, apiKey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var answer map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&answer))
		return resp.StatusCode, answer
	}

	status, issued := post("/v1/keys/bind-did", map[string]string{"did": did})
	require.Equal(t, http.StatusOK, status, "%v", issued)
	challenge, _ := issued["challenge"].(string)
	require.NotEmpty(t, challenge)

	code, out, errOut = runCLI("did-key", "-key", file, "-sign", challenge)
	require.Equal(t, 0, code, errOut)
	signature := strings.TrimSuffix(out, "\n")
	assert.Regexp(t, `^[A-Za-z0-9_-]{86}$`, signature, "64 bytes in base64url, no padding, one line")
	raw, err := base64.RawURLEncoding.DecodeString(signature)
	require.NoError(t, err)
	pub, err := didkey.Decode(did)
	require.NoError(t, err)
	assert.True(t, ed25519.Verify(pub, []byte(challenge), raw), "Ed25519 over the challenge's bytes")

	status, bound := post("/v1/keys/bind-did/confirm", map[string]string{"challenge": challenge, "signature": signature})
	require.Equal(t, http.StatusOK, status, "%v", bound)
	assert.Equal(t, did, bound["verified_did"])
	id, ok := tl.KeyIdentity(apiKey)
	require.True(t, ok)
	require.NotNil(t, id.VerifiedDID)
	assert.Equal(t, did, *id.VerifiedDID)
}

// Each refusal is one line and exit status 2, before any file is written.
func TestDIDKeyRefusals(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "did.pem")
	code, _, errOut := runCLI("did-key", "-new", key)
	require.Equal(t, 0, code, errOut)
	notPEM := filepath.Join(dir, "not.pem")
	require.NoError(t, os.WriteFile(notPEM, []byte("not a key\n"), 0o600))
	repo := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(repo, ".git"), 0o755))
	inRepo := filepath.Join(repo, "did.pem")

	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no flag", []string{"did-key"}, "give -new FILE to draw a key, or -key FILE to read one; see proveit did-key -h"},
		{"both -new and -key", []string{"did-key", "-new", filepath.Join(dir, "other.pem"), "-key", key}, "-new draws a key, -key reads one"},
		{"-sign without -key", []string{"did-key", "-new", filepath.Join(dir, "other.pem"), "-sign", "c"}, "-sign needs -key"},
		{"-sign of nothing", []string{"did-key", "-key", key, "-sign", ""}, "-sign: the challenge is empty"},
		{"a missing key", []string{"did-key", "-key", filepath.Join(dir, "missing.pem")}, "missing.pem"},
		{"not a key", []string{"did-key", "-key", notPEM}, notPEM + `: want a PEM "PRIVATE KEY" block`},
		{"a new key in a work tree", []string{"did-key", "-new", inRepo}, "inside the git work tree"},
		{"an argument", []string{"did-key", "-key", key, "extra"}, `unexpected argument "extra"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertOneLine(t, tt.args, 2, tt.want)
		})
	}
	assert.NoFileExists(t, filepath.Join(dir, "other.pem"))
	assert.NoFileExists(t, inRepo)
}
