package main

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNginx writes both kinds of vhost, checks each with -check, and
// refuses a changed literal and a gate inside the repository.
func TestNginx(t *testing.T) {
	inRepoRoot(t)
	dir := t.TempDir()
	gate := filepath.Join(dir, "gate.conf")
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"frontal", []string{"-upstream", "127.0.0.1:8081"}},
		{"frontal of two replicas", []string{"-upstream", "127.0.0.1:8081, 127.0.0.1:8082"}},
		{"alone", []string{"-root", "corpus/conformite,corpus/generique", "-backend-socket", filepath.Join(dir, "backend.sock")}},
		{"alone, one track", []string{"-manifest", "manifest/generique.json", "-root", "corpus/generique", "-backend-socket", filepath.Join(dir, "backend.sock")}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			vhost := filepath.Join(dir, tt.name+".conf")
			code, _, errOut := runCLI(append([]string{"nginx", "-gate", gate, "-o", vhost}, tt.args...)...)
			require.Equal(t, 0, code, errOut)

			if strings.HasSuffix(tt.name, "replicas") {
				conf, err := os.ReadFile(vhost)
				require.NoError(t, err)
				assert.Contains(t, string(conf), "server 127.0.0.1:8082 max_fails=1")
			}
			if strings.HasPrefix(tt.name, "alone") {
				conf, err := os.ReadFile(vhost)
				require.NoError(t, err)
				assert.Contains(t, string(conf), `location = "/regles-achat"`)
			}
			args := []string{"nginx", "-check", vhost}
			if strings.HasSuffix(tt.name, "one track") {
				args = append(args, "-manifest", "manifest/generique.json")
			}
			code, out, errOut := runCLI(args...)
			require.Equal(t, 0, code, errOut)
			manifests := "are the bodies of 2 manifests: "
			if strings.HasSuffix(tt.name, "one track") {
				manifests = "are the bodies of 1 manifest: "
			}
			assert.Contains(t, out, manifests)
			assert.NotContains(t, out, "FAIL")

			conf, err := os.ReadFile(vhost)
			require.NoError(t, err)
			changed := filepath.Join(dir, tt.name+"-changed.conf")
			require.NoError(t, os.WriteFile(changed, []byte(strings.Replace(string(conf), "acces_refuse", "acces_refusé", 1)), 0o644))
			code, out, _ = runCLI("nginx", "-check", changed)
			assert.Equal(t, 1, code)
			assert.Contains(t, out, "FAIL line")
			assert.Contains(t, out, "return 403: body sha256")
		})
	}

	t.Run("a tree per manifest", func(t *testing.T) {
		code, _, errOut := runCLI("nginx", "-gate", gate, "-root", "corpus/conformite", "-backend-socket", filepath.Join(dir, "backend.sock"))
		assert.Equal(t, 2, code)
		assert.Contains(t, errOut, "-root names 1 tree for 2 manifests")
	})

	t.Run("-upstream and -root", func(t *testing.T) {
		code, _, errOut := runCLI("nginx", "-gate", gate, "-upstream", "127.0.0.1:8081", "-root", "corpus/conformite,corpus/generique")
		assert.Equal(t, 2, code)
		assert.Contains(t, errOut, "-upstream (nginx in front of Caddy) and -root (nginx alone) exclude each other")
	})

	t.Run("gate", func(t *testing.T) {
		secret := make([]byte, 32)
		_, err := rand.Read(secret)
		require.NoError(t, err)
		t.Setenv("CORPUS_CHALLENGE_SECRET", hex.EncodeToString(secret))
		t.Setenv("CORPUS_CHALLENGE_SECRET_NEXT", "")
		code, out, errOut := runCLI("nginx", "-write-gate", "-gate", gate)
		require.Equal(t, 0, code, errOut)
		assert.Contains(t, out, "1 secret, mode 0600")

		t.Setenv("CORPUS_CHALLENGE_SECRET", "too-short")
		code, out, errOut = runCLI("nginx", "-write-gate", "-gate", filepath.Join(dir, "short-gate.conf"))
		assert.Equal(t, 2, code, out)
		assert.Contains(t, errOut, "the secret from $CORPUS_CHALLENGE_SECRET (slot 0): shorter than 32 bytes")
		assert.NotContains(t, errOut, "too-short", "no error quotes a secret")
		assert.NoFileExists(t, filepath.Join(dir, "short-gate.conf"))
		t.Setenv("CORPUS_CHALLENGE_SECRET", hex.EncodeToString(secret))

		inside, err := filepath.Abs("nginx-gate.conf")
		require.NoError(t, err)
		code, _, errOut = runCLI("nginx", "-write-gate", "-gate", inside)
		assert.Equal(t, 2, code)
		assert.Contains(t, errOut, "inside the git work tree")
		assert.NoFileExists(t, inside)
		assert.NotContains(t, errOut, hex.EncodeToString(secret))
	})
}
