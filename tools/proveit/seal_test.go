package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// Each track's pre-registration record anchors its manifest's hash and its
// key's salted commitment, never an unsalted hash of the key, and the
// printed salt opens the commitment.
func TestSeal(t *testing.T) {
	inRepoRoot(t)
	code, out, errOut := runCLI("seal")
	require.Equal(t, 0, code, errOut)
	records := strings.Split(out, "pre-registration record, track ")
	require.Len(t, records, len(corpus.Tracks)+1, out)
	for i, track := range corpus.Tracks {
		record := records[i+1]
		require.True(t, strings.HasPrefix(record, track.Name+"\n"), record)
		key, err := os.ReadFile(season.KeyFile(track))
		require.NoError(t, err)
		manifestBytes, err := os.ReadFile(filepath.Join("manifest", manifest.FileName(track)))
		require.NoError(t, err)
		assert.NotContains(t, out, manifest.SHA256(key), "no unsalted hash of the key")
		assert.Contains(t, record, "manifest_sha256  "+manifest.SHA256(manifestBytes))

		commitment := regexp.MustCompile(`key_commitment\s+([0-9a-f]{64})`).FindStringSubmatch(record)
		salt := regexp.MustCompile(`salt\s+([0-9a-f]{64})`).FindStringSubmatch(record)
		require.Len(t, commitment, 2)
		require.Len(t, salt, 2)
		code, verified, _ := runCLI("seal", "-verify", "-track", track.Name, "-salt", salt[1], "-commitment", commitment[1])
		assert.Equal(t, 0, code)
		assert.Contains(t, verified, "OK sha256(salt || "+season.KeyFile(track)+")")
		other := corpus.Tracks[(i+1)%len(corpus.Tracks)]
		code, verified, _ = runCLI("seal", "-verify", "-track", other.Name, "-salt", salt[1], "-commitment", commitment[1])
		assert.Equal(t, 1, code, "one track's commitment does not open with the other's key")
		assert.Contains(t, verified, "MISMATCH")
	}
	code, _, errOut = runCLI("seal", "-verify", "-salt", "00", "-commitment", "00")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "say which with -track")
}
