package manifest_test

import (
	"fmt"
	"io/fs"
	"slices"
	"testing"

	"github.com/arkforge/proveit-corpus/corpus/corpustest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/manifest/internal/testcorpus"
	"github.com/arkforge/proveit-corpus/manifest/pyjson/pyref"
)

func checkedIn(t *testing.T) *manifest.Manifest {
	t.Helper()
	return testcorpus.CheckedIn(t, corpus.Conformity)
}

// TestManifestHashesAgainstPython recomputes, with Python's json module, the
// response_hash of every body each track's manifest lists and the
// request_hash of every target, from the bytes the server sends.
func TestManifestHashesAgainstPython(t *testing.T) {
	require.True(t, pyref.Available(), "python3 is required: the Go hashing is proven against it")
	for _, track := range corpus.Tracks {
		t.Run(track.Name, func(t *testing.T) { hashesAgainstPython(t, track) })
	}
}

func hashesAgainstPython(t *testing.T, track *corpus.Track) {
	m := testcorpus.CheckedIn(t, track)
	tree := track.Embedded()
	var docs [][]byte
	for _, e := range m.Resources {
		body := corpus.AbsentBody(e.Path)
		if e.File != nil {
			var err error
			body, err = fs.ReadFile(tree, *e.File)
			require.NoError(t, err)
		}
		assert.Equal(t, e.BytesSHA256, anchor.SHA256(body), e.Path)
		docs = append(docs, body)
		if e.Target != nil {
			docs = append(docs, []byte(fmt.Sprintf(`{"target": %q, "method": "GET", "payload": {}, "amount": 0.0, "currency": "eur"}`, *e.Target)))
		}
	}
	results, err := pyref.Canonicalize(docs)
	require.NoError(t, err)
	i := 0
	for _, e := range m.Resources {
		require.Empty(t, results[i].Error, e.Path)
		assert.Equal(t, results[i].SHA256, e.ResponseHash, "response_hash of %s", e.Path)
		i++
		if e.Target != nil {
			assert.Equal(t, results[i].SHA256, *e.RequestHash, "request_hash of %s", e.Path)
			assert.Equal(t, results[i].SHA256, anchor.RequestHash(*e.Target))
			i++
		}
	}
}

// The fixed bodies are the same bytes in every track's tree, with the same
// entry in every manifest: one body serves both.
func TestSystemBodiesAreSharedByTheTracks(t *testing.T) {
	first := testcorpus.CheckedIn(t, corpus.Tracks[0])
	for _, track := range corpus.Tracks[1:] {
		m := testcorpus.CheckedIn(t, track)
		for path := range corpus.SystemStatus {
			want, ok := first.Lookup(path)
			require.True(t, ok, path)
			got, ok := m.Lookup(path)
			require.True(t, ok, "%s lists %s", track.Name, path)
			assert.Equal(t, want, got, "%s %s", track.Name, path)
		}
	}
}

// A tree holds only its own track's resources: a file another track names
// is refused, so that no path belongs to two trees.
func TestBuildRefusesAnotherTracksResource(t *testing.T) {
	tree := corpustest.Copy(t, corpus.Purchasing)
	tree["entites/ENT-1102.json"] = corpustest.Copy(t, corpus.Conformity)["entites/ENT-1102.json"]
	_, err := manifest.Build(tree, corpus.Purchasing.Name, manifest.DefaultOrigin, nil)
	assert.ErrorContains(t, err, "entites/ENT-1102.json: /entites/ENT-1102 belongs to the track conformite, not generique")

	_, err = manifest.Build(corpustest.Copy(t, corpus.Purchasing), corpus.Purchasing.Name, manifest.DefaultOrigin, []string{"/entites/ENT-0000"})
	assert.ErrorContains(t, err, "/entites/ENT-0000: cited, but a resource of another track than generique")

	_, err = manifest.Build(corpustest.Copy(t, corpus.Purchasing), "autre", manifest.DefaultOrigin, nil)
	assert.ErrorContains(t, err, `unknown track "autre"`)

}

func TestDecodeRefuses(t *testing.T) {
	tests := []struct{ name, data, message string }{
		{"other format", `{"format": "x"}`, "format"},
		{"unsorted", `{"format": "proveit-corpus-manifest/1", "resources": [{"path": "/b"}, {"path": "/a"}]}`, "not strictly sorted"},
		{"duplicate", `{"format": "proveit-corpus-manifest/1", "resources": [{"path": "/a"}, {"path": "/a"}]}`, "not strictly sorted"},
		{"trailing", `{"format": "proveit-corpus-manifest/1"} {}`, "data after"},
		{"no fixed bodies", `{"format": "proveit-corpus-manifest/1", "resources": [{"path": "/a"}]}`, "no entry for the fixed body /_systeme/400"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := manifest.Decode([]byte(tt.data))
			assert.ErrorContains(t, err, tt.message)
		})
	}
}

// TestDecodeRefusesAManifestWithoutItsFixedBodies drops or alters each
// /_systeme entry of the checked-in manifest in turn.
func TestDecodeRefusesAManifestWithoutItsFixedBodies(t *testing.T) {
	for _, path := range []string{corpus.SystemBadRequest, corpus.SystemForbidden, corpus.SystemNotFound, corpus.SystemUnavailable} {
		t.Run("without "+path, func(t *testing.T) {
			m := checkedIn(t)
			m.Resources = slices.DeleteFunc(m.Resources, func(e manifest.Entry) bool { return e.Path == path })
			_, err := manifest.Decode(m.Encode())
			assert.ErrorContains(t, err, "no entry for the fixed body "+path)
		})
		t.Run(path+" as a document", func(t *testing.T) {
			m := checkedIn(t)
			for i := range m.Resources {
				if m.Resources[i].Path == path {
					m.Resources[i].Kind, m.Resources[i].Status = manifest.Document, 200
				}
			}
			_, err := manifest.Decode(m.Encode())
			assert.ErrorContains(t, err, path+" must be of kind")
		})
	}
}
