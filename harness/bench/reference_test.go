package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/harness/gencorpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/pyjson/pyref"
	"github.com/arkforge/proveit-corpus/manifest/verify"
)

// reference runs reference.py and returns its output and exit code.
func reference(t *testing.T, args ...string) (string, int) {
	t.Helper()
	require.True(t, pyref.Available(), "python3 is required: the reference is the Python side of the benchmark")
	out, err := exec.Command("python3", append([]string{"reference.py"}, args...)...).CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return string(out), exit.ExitCode()
	}
	require.NoError(t, err, string(out))
	return string(out), 0
}

// generated writes a small synthetic corpus and returns its tree and manifest.
func generated(t *testing.T, resources int) (tree, manifestFile string) {
	t.Helper()
	tree, manifestFile, err := writeGenerated(t.TempDir(), gencorpus.Options{Resources: resources, Seed: 5})
	require.NoError(t, err)
	return tree, manifestFile
}

// TestReferenceAgreesWithGo builds the manifest with the Python reference
// and requires the same hashes, entry by entry, as the Go manifest, then the
// same bytes: on the season's tree with its task citations, and on a
// generated tree.
func TestReferenceAgreesWithGo(t *testing.T) {
	genTree, genManifest := generated(t, 800)
	tests := []struct {
		name, tree, manifest string
		args                 []string
	}{
		{"season 1", "../../corpus/conformite", "../../manifest/conformite.json", []string{"--tasks", "../../corpus/saison-1/taches.json"}},
		{"season 1, purchasing track", "../../corpus/generique", "../../manifest/generique.json", []string{"--tasks", "../../corpus/saison-1/taches-generique.json",
			"--track", corpus.Purchasing.Name, "--rules", corpus.Purchasing.Rules, "--collections", strings.Join(corpus.Purchasing.Collections, ",")}},
		{"generated", genTree, genManifest, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "python.json")
			_, code := reference(t, append([]string{"manifest", tt.tree, out}, tt.args...)...)
			require.Zero(t, code)
			pyBytes, err := os.ReadFile(out)
			require.NoError(t, err)
			goBytes, err := os.ReadFile(tt.manifest)
			require.NoError(t, err)
			py, err := manifest.Decode(pyBytes)
			require.NoError(t, err)
			want, err := manifest.Decode(goBytes)
			require.NoError(t, err)
			require.Len(t, py.Resources, len(want.Resources))
			for i, e := range want.Resources {
				assert.Equal(t, e, py.Resources[i], "entry %s", e.Path)
			}
			assert.Equal(t, string(goBytes), string(pyBytes), "byte for byte")
		})
	}
}

// TestReferenceVerify checks that the reference's verification finds what
// verify.Check finds, on a generated tree broken in each way.
func TestReferenceVerify(t *testing.T) {
	tests := []struct {
		name    string
		breakIt func(t *testing.T, tree, manifestFile string)
		want    string
	}{
		{"intact", func(*testing.T, string, string) {}, ""},
		{"one byte changed", func(t *testing.T, tree, _ string) {
			file := filepath.Join(tree, "referentiel.json")
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			data[len(data)-1] = ' '
			require.NoError(t, os.WriteFile(file, data, 0o644))
		}, "bytes_sha256"},
		{"missing", func(t *testing.T, tree, _ string) {
			require.NoError(t, os.Remove(filepath.Join(tree, "entites", "ENT-000001.json")))
		}, "/entites/ENT-000001: missing from the tree"},
		{"extra", func(t *testing.T, tree, _ string) {
			require.NoError(t, os.WriteFile(filepath.Join(tree, "agrements", "AGR-X.json"), []byte(`{"existe": true}`), 0o644))
		}, "agrements/AGR-X.json: extra"},
		{"stray", func(t *testing.T, tree, _ string) {
			require.NoError(t, os.WriteFile(filepath.Join(tree, "notes.txt"), []byte("x"), 0o644))
		}, "notes.txt: not a .json file"},
		{"number", func(t *testing.T, tree, _ string) {
			require.NoError(t, os.WriteFile(filepath.Join(tree, "referentiel.json"), []byte(`{"version": 1}`+"\n"), 0o644))
		}, "numbers are not allowed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree, manifestFile := generated(t, 60)
			tt.breakIt(t, tree, manifestFile)
			out, code := reference(t, "verify", tree, manifestFile)
			data, err := os.ReadFile(manifestFile)
			require.NoError(t, err)
			m, err := manifest.Decode(data)
			require.NoError(t, err)
			goErr := verify.Check(m, os.DirFS(tree), verify.Full, nil)
			if tt.want == "" {
				assert.Zero(t, code, out)
				assert.NoError(t, goErr)
				return
			}
			assert.Equal(t, 1, code, out)
			assert.Contains(t, out, tt.want)
			assert.Error(t, goErr, "Go finds it too")
		})
	}
}

// writeGenerated writes a tree and the manifest it matches, and refuses to
// write over a tree.
func TestWriteGenerated(t *testing.T) {
	dir := t.TempDir()
	tree, manifestFile, err := writeGenerated(dir, gencorpus.Options{Resources: 200, Seed: 1})
	require.NoError(t, err)
	data, err := os.ReadFile(manifestFile)
	require.NoError(t, err)
	m, err := manifest.Decode(data)
	require.NoError(t, err)
	bodies, err := verify.Tree(m, os.DirFS(tree), verify.Full, nil)
	require.NoError(t, err, "the tree on disk matches the manifest written beside it")
	assert.Len(t, bodies, 200)

	_, _, err = writeGenerated(dir, gencorpus.Options{Resources: 200, Seed: 1})
	assert.ErrorContains(t, err, "already exists")
}
