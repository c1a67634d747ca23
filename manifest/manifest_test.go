package manifest_test

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/pyjson/pyref"
	"github.com/arkforge/proveit-corpus/tools/season"
)

func checkedIn(t *testing.T) *manifest.Manifest {
	t.Helper()
	return checkedInOf(t, corpus.Conformite)
}

func checkedInOf(t *testing.T, track *corpus.Track) *manifest.Manifest {
	t.Helper()
	m, err := manifest.Decode(manifest.Embedded(track))
	require.NoError(t, err)
	require.Equal(t, track.Name, m.Piste)
	return m
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
	m := checkedInOf(t, track)
	tree := track.Embedded()
	var docs [][]byte
	for _, e := range m.Resources {
		body := corpus.AbsentBody(e.Path)
		if e.File != nil {
			var err error
			body, err = fs.ReadFile(tree, *e.File)
			require.NoError(t, err)
		}
		assert.Equal(t, e.BytesSHA256, manifest.SHA256(body), e.Path)
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
			assert.Equal(t, results[i].SHA256, manifest.RequestHash(*e.Target))
			i++
		}
	}
}

func TestContractReferenceHashes(t *testing.T) {
	assert.Equal(t, "1378d38cdb14483cdbea18463c2a908158202cc6dfba0195dbad8050d1bbaa9c",
		manifest.RequestHash("https://corpus.arkforge.tech/agrements/AGR-4417"))
	h, err := manifest.ResponseHash([]byte(`{"ressource": "/agrements/AGR-9999", "existe": false}`))
	require.NoError(t, err)
	assert.Equal(t, "d845eab33296088d967dd9629a0d87b653dc2af864bae485e421f2c87ebfe407", h)
}

func TestResponseHashOfFalsyBodies(t *testing.T) {
	substitute, err := manifest.ResponseHash([]byte(`{"error": null}`))
	require.NoError(t, err)
	for _, body := range []string{`{}`, `[]`, `""`, `null`, `false`, `0`, `0.0`, `-0`, `1e-400`, ` {} `} {
		got, err := manifest.ResponseHash([]byte(body))
		require.NoError(t, err, body)
		assert.Equal(t, substitute, got, body)
	}
	for _, body := range []string{`{"a":null}`, `[0]`, `" "`, `true`, `1`, `1e-300`} {
		got, err := manifest.ResponseHash([]byte(body))
		require.NoError(t, err, body)
		assert.NotEqual(t, substitute, got, body)
	}
	// Trust Layer anchors a substitute for a body that is not JSON; the
	// corpus never serves one, so the hash is refused rather than guessed.
	for _, body := range []string{``, `1e-400x`, `{"a":1,}`, "\xef\xbb\xbf{}", `NaN`} {
		_, err := manifest.ResponseHash([]byte(body))
		assert.Error(t, err, body)
	}
}

func TestCheckBody(t *testing.T) {
	tests := []struct {
		body, message string
	}{
		{`{"a": "b"}`, ""},
		{`{"a": [{"b": 1}]}`, "at /a/0/b (byte 0): numbers are not allowed"},
		{`{}`, "non-empty JSON object"},
		{`["a"]`, "non-empty JSON object"},
		{`{"a": "b", "a": "c"}`, "duplicate key"},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			_, err := manifest.CheckBody([]byte(tt.body))
			if tt.message == "" {
				assert.NoError(t, err)
			} else {
				assert.ErrorContains(t, err, tt.message)
			}
		})
	}
}

// treeCopy copies the embedded conformity tree into an in-memory tree a
// test may break.
func treeCopy(t *testing.T) fstest.MapFS {
	t.Helper()
	return treeCopyOf(t, corpus.Conformite)
}

func treeCopyOf(t *testing.T, track *corpus.Track) fstest.MapFS {
	t.Helper()
	tree := fstest.MapFS{}
	err := fs.WalkDir(track.Embedded(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(track.Embedded(), name)
		tree[name] = &fstest.MapFile{Data: data}
		return err
	})
	require.NoError(t, err)
	return tree
}

func TestCheckedInManifestIsTheBuildOfTheTree(t *testing.T) {
	for _, track := range corpus.Tracks {
		t.Run(track.Name, func(t *testing.T) {
			tasks, err := season.ReadTasks(filepath.Join("..", season.TasksFile(track)))
			require.NoError(t, err)
			citations := tasks.Citations()
			built, err := manifest.Build(treeCopyOf(t, track), track.Name, manifest.DefaultOrigin, citations)
			require.NoError(t, err)
			assert.Equal(t, string(manifest.Embedded(track)), string(built.Encode()))

			again, err := manifest.Build(track.Embedded(), track.Name, manifest.DefaultOrigin, citations)
			require.NoError(t, err)
			assert.Equal(t, string(built.Encode()), string(again.Encode()), "same tree, same bytes")
		})
	}
}

// The fixed bodies are the same bytes in every track's tree, with the same
// entry in every manifest: one body serves both.
func TestSystemBodiesAreSharedByTheTracks(t *testing.T) {
	first := checkedInOf(t, corpus.Tracks[0])
	for _, track := range corpus.Tracks[1:] {
		m := checkedInOf(t, track)
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
	tree := treeCopyOf(t, corpus.Generique)
	tree["entites/ENT-1102.json"] = treeCopy(t)["entites/ENT-1102.json"]
	_, err := manifest.Build(tree, corpus.Generique.Name, manifest.DefaultOrigin, nil)
	assert.ErrorContains(t, err, "entites/ENT-1102.json: /entites/ENT-1102 belongs to the track conformite, not generique")

	_, err = manifest.Build(treeCopyOf(t, corpus.Generique), corpus.Generique.Name, manifest.DefaultOrigin, []string{"/entites/ENT-0000"})
	assert.ErrorContains(t, err, "/entites/ENT-0000: cited, but a resource of another track than generique")

	_, err = manifest.Build(treeCopyOf(t, corpus.Generique), "autre", manifest.DefaultOrigin, nil)
	assert.ErrorContains(t, err, `unknown track "autre"`)

	m := checkedInOf(t, corpus.Generique)
	_, err = m.Check(tree, manifest.Bytes)
	assert.ErrorContains(t, err, "belongs to the track conformite")
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name    string
		breakIt func(tree fstest.MapFS, m *manifest.Manifest)
		want    []string
	}{
		{"intact", func(fstest.MapFS, *manifest.Manifest) {}, nil},
		{"one byte changed", func(tree fstest.MapFS, _ *manifest.Manifest) {
			f := tree["referentiel.json"]
			f.Data = append([]byte(nil), f.Data...)
			f.Data[len(f.Data)-1] = ' '
		}, []string{"referentiel.json: bytes changed"}},
		{"missing", func(tree fstest.MapFS, _ *manifest.Manifest) { delete(tree, "agrements/AGR-4417.json") },
			[]string{"agrements/AGR-4417.json: missing from the tree"}},
		{"extra", func(tree fstest.MapFS, _ *manifest.Manifest) {
			tree["agrements/AGR-0000.json"] = &fstest.MapFile{Data: []byte(`{"existe": true}`)}
		}, []string{"agrements/AGR-0000.json: extra"}},
		{"stray", func(tree fstest.MapFS, _ *manifest.Manifest) {
			tree[".DS_Store"] = &fstest.MapFile{Data: []byte("x")}
		}, []string{".DS_Store: not a .json file"}},
		{"absent entry now has a file", func(tree fstest.MapFS, _ *manifest.Manifest) {
			tree["avenants/AVN-3412.json"] = &fstest.MapFile{Data: []byte(`{"existe": true}`)}
		}, []string{"avenants/AVN-3412.json: listed as absent but the file exists"}},
		{"response_hash altered", func(_ fstest.MapFS, m *manifest.Manifest) {
			m.Resources[0].ResponseHash = strings.Repeat("0", 64)
		}, []string{"response_hash"}},
		{"number in a file", func(tree fstest.MapFS, _ *manifest.Manifest) {
			tree["referentiel.json"] = &fstest.MapFile{Data: []byte(`{"version": 1}`)}
		}, []string{"referentiel.json: at /version", "numbers are not allowed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree, m := treeCopy(t), checkedIn(t)
			tt.breakIt(tree, m)
			bodies, err := m.Check(tree, manifest.Full)
			if tt.want == nil {
				require.NoError(t, err)
				assert.Len(t, bodies, len(m.Resources)-2) // all but the two absent entries
				return
			}
			var mismatch *manifest.MismatchError
			require.ErrorAs(t, err, &mismatch)
			for _, want := range tt.want {
				assert.Contains(t, err.Error(), want)
			}
		})
	}
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

// breakage is an edit to a copy of the conformity track's tree and
// manifest, and what the check at Bytes depth says of it ("" when nothing).
type breakage struct {
	name    string
	breakIt func(tree fstest.MapFS, m *manifest.Manifest)
	want    string
}

// bytesBreakages are the cases of the server's check, at Bytes depth.
func bytesBreakages() []breakage {
	return []breakage{
		{"intact", func(fstest.MapFS, *manifest.Manifest) {}, ""},
		{"one byte changed", func(tree fstest.MapFS, _ *manifest.Manifest) {
			tree["referentiel.json"] = &fstest.MapFile{Data: []byte(`{"ressource": "/referentiel"}`)}
		}, "referentiel.json: bytes changed"},
		{"missing", func(tree fstest.MapFS, _ *manifest.Manifest) { delete(tree, "agrements/AGR-4417.json") }, "missing from the tree"},
		{"extra", func(tree fstest.MapFS, _ *manifest.Manifest) {
			tree["agrements/AGR-0000.json"] = &fstest.MapFile{Data: []byte(`{"existe": true}`)}
		}, "agrements/AGR-0000.json: extra"},
		{"absent body not the listed one", func(_ fstest.MapFS, m *manifest.Manifest) {
			for i, e := range m.Resources {
				if e.Kind == manifest.Absent {
					m.Resources[i].BytesSHA256 = strings.Repeat("0", 64)
				}
			}
		}, "/attestations/ATT-7702: bytes changed"},
		{"a response_hash is left to Full", func(_ fstest.MapFS, m *manifest.Manifest) {
			m.Resources[0].ResponseHash = strings.Repeat("0", 64)
		}, ""},
		{"an empty fixed body the manifest agrees with", func(tree fstest.MapFS, m *manifest.Manifest) {
			setSystemBody(tree, m, corpus.SystemUnavailable, "")
		}, "_systeme/503.json: at (root) (byte 0): unexpected end of document"},
		{"an empty object as fixed body", func(tree fstest.MapFS, m *manifest.Manifest) {
			setSystemBody(tree, m, corpus.SystemForbidden, "{}")
		}, "_systeme/403.json: at (root) (byte 0): the document must be a non-empty JSON object"},
		{"a fixed body that is not JSON", func(tree fstest.MapFS, m *manifest.Manifest) {
			setSystemBody(tree, m, corpus.SystemNotFound, "Not Found")
		}, "_systeme/404.json"},
		{"a fixed body that is an array", func(tree fstest.MapFS, m *manifest.Manifest) {
			setSystemBody(tree, m, corpus.SystemBadRequest, `["x"]`)
		}, "_systeme/400.json: at (root) (byte 0): the document must be a non-empty JSON object"},
	}
}

// TestCheckBytes is the server's check: byte for byte, without re-deriving
// the hashes an auditor checks at Full depth.
func TestCheckBytes(t *testing.T) {
	for _, tt := range bytesBreakages() {
		t.Run(tt.name, func(t *testing.T) {
			tree, m := treeCopy(t), checkedIn(t)
			tt.breakIt(tree, m)
			_, err := m.Check(tree, manifest.Bytes)
			if tt.want == "" {
				assert.NoError(t, err)
			} else {
				assert.ErrorContains(t, err, tt.want)
			}
		})
	}
}

// setSystemBody replaces a fixed body and records its bytes in the manifest,
// as a forger holding both would.
func setSystemBody(tree fstest.MapFS, m *manifest.Manifest, path, body string) {
	tree[corpus.FileOf(path)] = &fstest.MapFile{Data: []byte(body)}
	for i := range m.Resources {
		if m.Resources[i].Path == path {
			m.Resources[i].BytesSHA256 = manifest.SHA256([]byte(body))
		}
	}
}
