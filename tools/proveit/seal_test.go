package main

import (
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/manifest"
)

// The pre-registration record anchors the manifest's hash and the key's
// salted commitment, never an unsalted hash of the key, and the printed salt
// opens the commitment.
func TestSeal(t *testing.T) {
	inRepoRoot(t)
	code, out, errOut := runCLI("seal")
	require.Equal(t, 0, code, errOut)
	key, err := os.ReadFile(keyPath)
	require.NoError(t, err)
	manifestBytes, err := os.ReadFile(manifestPath)
	require.NoError(t, err)
	assert.NotContains(t, out, manifest.SHA256(key), "no unsalted hash of the key")
	assert.Contains(t, out, "manifest_sha256  "+manifest.SHA256(manifestBytes))

	commitment := regexp.MustCompile(`key_commitment\s+([0-9a-f]{64})`).FindStringSubmatch(out)
	salt := regexp.MustCompile(`salt\s+([0-9a-f]{64})`).FindStringSubmatch(out)
	require.Len(t, commitment, 2)
	require.Len(t, salt, 2)
	code, verified, _ := runCLI("seal", "-verify", "-salt", salt[1], "-commitment", commitment[1])
	assert.Equal(t, 0, code)
	assert.Contains(t, verified, "OK sha256(salt || corpus/saison-1/cle.json)")
}
