package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
)

// inRepoRoot runs the test from the repository root, where the commands'
// default paths point.
func inRepoRoot(t *testing.T) {
	t.Helper()
	t.Chdir("../..")
}

func runCLI(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestHash(t *testing.T) {
	inRepoRoot(t)
	tests := []struct {
		arg, want []string
	}{
		{[]string{"https://corpus.arkforge.tech/agrements/AGR-4417"}, []string{
			"request_hash  1378d38cdb14483cdbea18463c2a908158202cc6dfba0195dbad8050d1bbaa9c", "answer        document /agrements/AGR-4417 (200)"}},
		{[]string{"/avenants/AVN-3412"}, []string{"answer        absent /avenants/AVN-3412 (200)"}},
		{[]string{"/agrements/AGR-9999"}, []string{
			"answer        absent /agrements/AGR-9999 (200)",
			"response_hash " + responseHash(t, corpus.AbsentBody("/agrements/AGR-9999"))}},
		{[]string{"/referentiel/"}, []string{"answer        systeme /_systeme/400 (400)"}},
		{[]string{"/inconnu"}, []string{"answer        systeme /_systeme/404 (404)"}},
		{[]string{"/produits/ECR-2701"}, []string{"answer        document /produits/ECR-2701 (200)"}},
		{[]string{"https://corpus.arkforge.tech/regles-achat"}, []string{"answer        document /regles-achat (200)"}},
		{[]string{"/produits/CSQ-0815"}, []string{"answer        absent /produits/CSQ-0815 (200)"}},
		{[]string{"/livraisons/LIV-0000"}, []string{
			"answer        absent /livraisons/LIV-0000 (200)",
			"response_hash " + responseHash(t, corpus.AbsentBody("/livraisons/LIV-0000"))}},
	}
	for _, tt := range tests {
		t.Run(tt.arg[0], func(t *testing.T) {
			code, out, errOut := runCLI(append([]string{"hash"}, tt.arg...)...)
			require.Equal(t, 0, code, errOut)
			for _, want := range tt.want {
				assert.Contains(t, out, want)
			}
		})
	}
	code, _, errOut := runCLI("hash", "https://elsewhere.example/agrements/AGR-4417")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "neither a path nor a URL at the manifest's origin")
}

// TestHashOutsideCheckout: run where there is no manifest folder (a
// participant's or a scorer's own folder), hash reads the manifest the
// binary holds and answers exactly as in the checkout; a -manifest that
// is absent is still an error naming it.
func TestHashOutsideCheckout(t *testing.T) {
	inRepoRoot(t)
	paths := []string{"/agrements/AGR-4417", "/agrements/AGR-9999", "/produits/ECR-2701", "https://corpus.arkforge.tech/regles-achat", "/inconnu"}
	inCheckout := map[string]string{}
	for _, path := range paths {
		code, out, errOut := runCLI("hash", path)
		require.Equal(t, 0, code, errOut)
		inCheckout[path] = out
	}
	t.Chdir(t.TempDir())
	for _, path := range paths {
		t.Run(path, func(t *testing.T) {
			code, out, errOut := runCLI("hash", path)
			require.Equal(t, 0, code, errOut)
			assert.Equal(t, inCheckout[path], out)
		})
	}
	code, _, errOut := runCLI("hash", "-manifest", "manifest/conformite.json", "/agrements/AGR-4417")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "manifest/conformite.json")
}

func responseHash(t *testing.T, body []byte) string {
	t.Helper()
	h, err := anchor.ResponseHash(body)
	require.NoError(t, err)
	return h
}

func TestVerify(t *testing.T) {
	inRepoRoot(t)
	code, out, errOut := runCLI("verify")
	require.Equal(t, 0, code, out+errOut)
	for _, track := range corpus.Tracks {
		assert.Contains(t, out, "OK ", track.Name)
		assert.Contains(t, out, "of manifest/"+track.Name+".json match corpus/"+track.Name)
	}

	code, _, errOut = runCLI("verify", "-tree", "corpus/conformite")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "-tree names one track's file: say which with -track")

	code, out, _ = runCLI("manifest", "-check")
	require.Equal(t, 0, code, out)

	tree := filepath.Join(t.TempDir(), "conformite")
	require.NoError(t, os.CopyFS(tree, os.DirFS("corpus/conformite")))
	require.NoError(t, os.Remove(filepath.Join(tree, "entites", "ENT-1102.json")))
	require.NoError(t, os.WriteFile(filepath.Join(tree, "referentiel.json"), []byte(`{"ressource": "/referentiel"}`), 0o644))
	code, out, _ = runCLI("verify", "-track", "conformite", "-tree", tree)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "FAIL entites/ENT-1102.json: missing from the tree")
	assert.Contains(t, out, "FAIL referentiel.json: bytes changed")

	// A manifest is the one its tree builds to, at its own origin, and one
	// every reader takes: built from a tree without a fixed body, it is
	// refused although the tree builds to its bytes.
	noFixedBody := filepath.Join(t.TempDir(), "conformite")
	require.NoError(t, os.CopyFS(noFixedBody, os.DirFS("corpus/conformite")))
	require.NoError(t, os.Remove(filepath.Join(noFixedBody, "_systeme", "404.json")))
	built := filepath.Join(t.TempDir(), "conformite.json")
	code, out, errOut = runCLI("manifest", "-track", "conformite", "-tree", noFixedBody, "-manifest", built, "-tasks", "")
	require.Equal(t, 0, code, out+errOut)
	code, _, errOut = runCLI("verify", "-track", "conformite", "-tree", noFixedBody, "-manifest", built, "-tasks", "")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "no entry for the fixed body /_systeme/404")

	elsewhere := filepath.Join(t.TempDir(), "conformite.json")
	code, out, errOut = runCLI("manifest", "-track", "conformite", "-manifest", elsewhere, "-origin", "https://ailleurs.example")
	require.Equal(t, 0, code, out+errOut)
	code, out, _ = runCLI("verify", "-track", "conformite", "-manifest", elsewhere)
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "OK ")
	data, err := os.ReadFile(elsewhere)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(elsewhere, []byte(strings.Replace(string(data), `"origin": "https://ailleurs.example"`, `"origin": "https://corpus.arkforge.tech"`, 1)), 0o644))
	code, out, _ = runCLI("verify", "-track", "conformite", "-manifest", elsewhere)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "target or request_hash differs from the one recomputed at origin https://corpus.arkforge.tech")
}

func TestUsage(t *testing.T) {
	code, _, errOut := runCLI()
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "usage: proveit <command>")
	code, _, errOut = runCLI("nope")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `unknown command "nope"`)
}
