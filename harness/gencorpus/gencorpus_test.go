package gencorpus_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/harness/gencorpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/lint"
	"github.com/arkforge/proveit-corpus/tools/tracks/conformity"
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

// Every generated document has exactly the fields of its collection's
// schema, the one the linter checks, in the schema's order: the generator
// writes by the schema rather than beside it.
func TestTreeHasTheTracksSchema(t *testing.T) {
	files, err := gencorpus.Tree(gencorpus.Options{Resources: 1500, Seed: 3})
	require.NoError(t, err)
	seen := map[string]bool{}
	for name, f := range files {
		path, err := corpus.PathOf(name)
		require.NoError(t, err)
		ref, isRef := corpus.ParseReference(path)
		if !isRef {
			continue // the referentiel and the fixed bodies are the real ones
		}
		doc, err := pyjson.Parse(f.Data)
		require.NoError(t, err, name)
		assertShape(t, name, doc.(pyjson.Object), conformity.Schemas[ref.Collection()])
		seen[ref.Collection()] = true
	}
	assert.Len(t, seen, len(corpus.Conformity.Collections), "every collection generated")
}

// assertShape checks that obj's members are the schema's fields, in order,
// and so on for the objects of each array of entries.
func assertShape(t *testing.T, name string, obj pyjson.Object, schema lint.Schema) {
	t.Helper()
	var got, want []string
	for _, m := range obj {
		got = append(got, m.Key)
	}
	for _, f := range schema {
		want = append(want, f.Name)
		if v, ok := obj.Get(f.Name); ok && f.Type == lint.Entries {
			for _, e := range v.(pyjson.Array) {
				assertShape(t, name, e.(pyjson.Object), f.Sub)
			}
		}
	}
	assert.Equal(t, want, got, name)
}
