package verify_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/arkforge/proveit-corpus/corpus/corpustest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/manifest/tree"
	"github.com/arkforge/proveit-corpus/manifest/verify"
)

// decodeThenCheck is what Load must return for a manifest's bytes and a
// tree: Decode, the track's check, then Tree at Bytes depth.
func decodeThenCheck(data []byte, tree fs.FS, track *corpus.Track) ([]verify.Served, error) {
	m, err := manifest.Decode(data)
	if err != nil {
		return nil, err
	}
	if m.Track != track.Name {
		return nil, fmt.Errorf("the manifest is the track %q's", m.Track)
	}
	bodies, err := verify.Tree(m, tree, verify.Bytes, nil)
	if err != nil {
		return nil, err
	}
	var served []verify.Served
	for _, e := range m.Resources {
		body, ok := bodies[e.Path]
		if e.Kind == manifest.Absent {
			body, ok = corpus.AbsentBody(e.Path), !ok
		}
		if !ok {
			return nil, fmt.Errorf("%s: no body", e.Path)
		}
		served = append(served, verify.Served{Path: e.Path, Kind: e.Kind, Status: e.Status, Body: body, SHA256: e.BytesSHA256})
	}
	return served, nil
}

// readers are the ways a manifest reaches Load: whole reads, and a few
// bytes a read, so that entries straddle the refills of the stream.
var readers = map[string]func([]byte) io.ReadSeeker{
	"whole":                func(data []byte) io.ReadSeeker { return bytes.NewReader(data) },
	"a few bytes per read": func(data []byte) io.ReadSeeker { return fewBytesReader{bytes.NewReader(data)} },
}

type fewBytesReader struct{ *bytes.Reader }

func (r fewBytesReader) Read(p []byte) (int, error) { return r.Reader.Read(p[:min(len(p), 7)]) }

// streamOnly is a manifest that cannot be read a second time: Load takes
// it only if it checks it as a stream.
type streamOnly struct{ io.Reader }

func (streamOnly) Seek(int64, int) (int64, error) { return 0, errors.New("read once") }

// assertStreamed checks that Load serves an intact corpus from the stream
// alone, without reading the manifest again.
func assertStreamed(t *testing.T, data []byte, tree fs.FS, track *corpus.Track) {
	t.Helper()
	served, sum, err := verify.Load(streamOnly{bytes.NewReader(data)}, tree, track, func(s verify.Served) string { return s.Path })
	require.NoError(t, err)
	assert.Equal(t, anchor.SHA256(data), sum)
	assert.Len(t, served, bytes.Count(data, []byte(`"path":`)))
}

// assertLoadIsDecodeThenCheck loads a manifest through every reader and
// compares the outcome with decodeThenCheck's.
func assertLoadIsDecodeThenCheck(t *testing.T, data []byte, tree fs.FS, track *corpus.Track) {
	t.Helper()
	want, wantErr := decodeThenCheck(data, tree, track)
	for name, read := range readers {
		served, sum, err := verify.Load(read(data), tree, track, func(s verify.Served) verify.Served { return s })
		assert.Equal(t, anchor.SHA256(data), sum, "%s: the manifest's SHA-256, error or not", name)
		if wantErr != nil {
			assert.EqualError(t, err, wantErr.Error(), name)
			assert.Nil(t, served, name)
			continue
		}
		require.NoError(t, err, name)
		assert.Equal(t, want, served, name)
	}
}

// TestLoadIsDecodeThenCheck: reading the manifest as a stream and checking
// the tree entry by entry changes nothing of the outcome, served bytes or
// error, whatever breaks.
func TestLoadIsDecodeThenCheck(t *testing.T) {
	cases := append(bytesBreakages(),
		breakage{"a stray file", func(tree fstest.MapFS, _ *manifest.Manifest) {
			tree["notes.txt"] = &fstest.MapFile{Data: []byte("x")}
		}, "notes.txt: not a .json file"},
		breakage{"a file field naming another file", func(_ fstest.MapFS, m *manifest.Manifest) {
			other := "agrements/AGR-0000.json"
			m.Resources[len(m.Resources)-1].File = &other
		}, "file field must be"},
		breakage{"an unknown kind", func(_ fstest.MapFS, m *manifest.Manifest) {
			m.Resources[len(m.Resources)-1].Kind = "autre"
		}, `unknown kind "autre"`},
		breakage{"an absent entry of the other track", func(_ fstest.MapFS, m *manifest.Manifest) {
			path := "/produits/PRD-0000"
			m.Resources = append(m.Resources, manifest.Entry{Path: path, Kind: manifest.Absent, Status: 200, BytesSHA256: anchor.SHA256(corpus.AbsentBody(path))})
		}, "absent entry of another track"},
		breakage{"another track's manifest", func(_ fstest.MapFS, m *manifest.Manifest) { m.Track = corpus.Purchasing.Name },
			`the manifest is the track "generique"'s`},
		breakage{"another origin", func(_ fstest.MapFS, m *manifest.Manifest) { m.Origin += "/" }, "origin"},
		breakage{"a fixed body missing", func(_ fstest.MapFS, m *manifest.Manifest) {
			m.Resources = slices.DeleteFunc(m.Resources, func(e manifest.Entry) bool { return e.Path == corpus.SystemUnavailable })
		}, "no entry for the fixed body /_systeme/503"},
	)
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			tree, m := treeCopy(t), checkedIn(t)
			tt.breakIt(tree, m)
			data := m.Encode()
			assertLoadIsDecodeThenCheck(t, data, tree, corpus.Conformity)
			if tt.want == "" {
				assertStreamed(t, data, tree, corpus.Conformity)
			}
			_, _, err := verify.Load(bytes.NewReader(data), tree, corpus.Conformity, func(verify.Served) int { return 0 })
			if tt.want == "" {
				assert.NoError(t, err)
			} else {
				assert.ErrorContains(t, err, tt.want)
			}
		})
	}

	// Documents the stream leaves to Decode: it reads them all the same.
	season := string(manifest.Embedded(corpus.Conformity))
	for name, doc := range map[string]string{
		"an escape in a string":         strings.Replace(season, `"piste": "conformite"`, `"piste": "conform\u0069te"`, 1),
		"unsorted":                      strings.Replace(season, `"path": "/_systeme/400"`, `"path": "/zzz"`, 1),
		"a path longer than the window": strings.Replace(season, `"path": "/agrements/AGR-4417"`, `"path": "/agrements/AGR-`+strings.Repeat("7", 300_000)+`"`, 1),
		"a status beyond 32 bits":       strings.Replace(season, `"status": 200`, `"status": 4294967496`, 1),
		"an absent entry as a document": strings.Replace(season, `"kind": "absent"`, `"kind": "document"`, 1),
		"a status with an exponent":     strings.Replace(season, `"status": 200`, `"status": 2e2`, 1),
		"a null file field":             strings.Replace(season, `"file": "referentiel.json"`, `"file": null`, 1),
		"a tab in a hash":               strings.Replace(season, `"response_hash": "`, "\"response_hash\": \"\t", 1),
		"data after the object":         season + "{}",
		"white space after it":          season + strings.Repeat(" ", 300_000),
		"not JSON":                      "{",
		"resources first":               strings.Replace(season, `"format": "proveit-corpus-manifest/1",`, "", 1)[:len(season)-len(`"format": "proveit-corpus-manifest/1",`)-3] + `,"format": "proveit-corpus-manifest/1"}`,
	} {
		t.Run(name, func(t *testing.T) {
			assertLoadIsDecodeThenCheck(t, []byte(doc), corpus.Conformity.Embedded(), corpus.Conformity)
		})
	}
}

// TestLoadStreamsALargeManifest loads a grown corpus whose manifest spans
// many windows of the stream, from disk, intact and with a body changed
// far into it.
func TestLoadStreamsALargeManifest(t *testing.T) {
	files := corpustest.Grown(t, corpus.Conformity, 3000)
	m, err := manifest.Build(files, corpus.Conformity.Name, manifest.DefaultOrigin, nil)
	require.NoError(t, err)
	data := m.Encode()
	require.Greater(t, len(data), 4*256<<10, "the manifest spans several windows")
	root := t.TempDir()
	require.NoError(t, os.CopyFS(root, files))
	assertLoadIsDecodeThenCheck(t, data, tree.Dir(root), corpus.Conformity)
	assertStreamed(t, data, tree.Dir(root), corpus.Conformity)

	last, ok := m.Lookup("/" + corpus.Conformity.Collections[0] + "/GROWN-002990")
	require.True(t, ok)
	require.NoError(t, os.WriteFile(filepath.Join(root, *last.File), []byte(`{"ressource": "changed"}`), 0o644))
	assertLoadIsDecodeThenCheck(t, data, tree.Dir(root), corpus.Conformity)
	_, _, err = verify.Load(bytes.NewReader(data), tree.Dir(root), corpus.Conformity, func(verify.Served) int { return 0 })
	assert.ErrorContains(t, err, *last.File+": bytes changed")
}
