package gencorpus_test

import (
	// The conformity track's checks, which the generated tree must pass.
	_ "github.com/arkforge/proveit-corpus/tools/tracks"

	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/harness/gencorpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/tools/lint"
)

// TestTreeFollowsTheContract lints generated trees of several sizes with
// every rule the real corpus obeys, against their own manifest.
func TestTreeFollowsTheContract(t *testing.T) {
	tests := []struct {
		resources int
		seed      uint64
	}{
		{gencorpus.MinResources, 1},
		{97, 2},
		{1500, 3},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.resources), func(t *testing.T) {
			files, err := gencorpus.Tree(gencorpus.Options{Resources: tt.resources, Seed: tt.seed})
			require.NoError(t, err)
			assert.Len(t, files, tt.resources)
			m, err := manifest.Build(files, corpus.Conformity.Name, manifest.DefaultOrigin, nil)
			require.NoError(t, err)
			report := lint.Lint(files, lint.Options{Manifest: m, ManifestFile: "conformite.json"})
			for _, f := range report.Findings {
				t.Error(f)
			}
			for _, collection := range []string{"entites", "agrements", "attestations", "beneficiaires", "listes/agrees", "mesures-restrictives", "_systeme", "referentiel"} {
				assert.Positive(t, report.Files[collection], collection)
			}
			if tt.resources >= 1000 {
				assert.Positive(t, report.Files["avenants"])
				assert.NotEmpty(t, report.Absent, "some references are cited without a file")
			}
		})
	}
}

func TestTreeIsDeterministic(t *testing.T) {
	a, err := gencorpus.Tree(gencorpus.Options{Resources: 300, Seed: 7})
	require.NoError(t, err)
	b, err := gencorpus.Tree(gencorpus.Options{Resources: 300, Seed: 7})
	require.NoError(t, err)
	c, err := gencorpus.Tree(gencorpus.Options{Resources: 300, Seed: 8})
	require.NoError(t, err)
	assert.Equal(t, a, b, "same size and seed, same bytes")
	assert.NotEqual(t, a, c, "another seed, another corpus")
}

func TestTreeCopiesTheFixedBodies(t *testing.T) {
	files, err := gencorpus.Tree(gencorpus.Options{Resources: 50})
	require.NoError(t, err)
	for _, path := range []string{corpus.Referentiel, corpus.SystemBadRequest, corpus.SystemForbidden, corpus.SystemNotFound, corpus.SystemUnavailable} {
		real, err := os.ReadFile(filepath.Join("../../corpus/conformite", corpus.FileOf(path)))
		require.NoError(t, err)
		assert.Equal(t, string(real), string(files[corpus.FileOf(path)].Data), path)
	}
}

func TestTooSmall(t *testing.T) {
	_, err := gencorpus.Tree(gencorpus.Options{Resources: gencorpus.MinResources - 1})
	assert.ErrorContains(t, err, "at least")
}
