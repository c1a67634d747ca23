package verify_test

import (
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
	"github.com/arkforge/proveit-corpus/manifest/internal/testcorpus"
	"github.com/arkforge/proveit-corpus/manifest/verify"
)

// TestTreeCitations: at Full depth, what the statements cite has an entry,
// and, when they are given, every absent entry is cited by the tree or by
// them, as Build writes the manifest.
func TestTreeCitations(t *testing.T) {
	track := corpus.Purchasing
	const uncited = "/produits/CSQ-0815" // cited by a statement alone
	citations := []string{uncited}       // of the statements' citations, the one the tree does not make
	tests := []struct {
		name      string
		citations []string
		breakIt   func(m *manifest.Manifest)
		want      string
	}{
		{"as built", citations, func(*manifest.Manifest) {}, ""},
		{"citations not given", nil, func(*manifest.Manifest) {}, ""},
		{"no statement", []string{}, func(*manifest.Manifest) {}, uncited + ": absent entry that neither the corpus nor a statement cites"},
		{"a statement's citation without its entry", citations, func(m *manifest.Manifest) {
			m.Resources = slices.DeleteFunc(m.Resources, func(e manifest.Entry) bool { return e.Path == uncited })
		}, uncited + ": cited by the corpus but has neither a file nor an absent entry"},
		{"an absent entry naming a file", citations, func(m *manifest.Manifest) {
			i := slices.IndexFunc(m.Resources, func(e manifest.Entry) bool { return e.Path == uncited })
			file := corpus.FileOf(uncited)
			m.Resources[i].File = &file
		}, uncited + ": an absent entry names no file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := testcorpus.CheckedIn(t, track)
			tt.breakIt(m)
			_, err := verify.Tree(m, track.Embedded(), verify.Full, tt.citations)
			if tt.want == "" {
				assert.NoError(t, err)
			} else {
				assert.ErrorContains(t, err, tt.want)
			}
		})
	}
}

func checkedIn(t *testing.T) *manifest.Manifest {
	t.Helper()
	return testcorpus.CheckedIn(t, corpus.Conformity)
}

func treeCopy(t *testing.T) fstest.MapFS {
	t.Helper()
	return corpustest.Copy(t, corpus.Conformity)
}

// A tree holds only its own track's resources: a file another track names
// is refused, so that no path belongs to two trees.
func TestTreeRefusesAnotherTracksResource(t *testing.T) {
	tree := corpustest.Copy(t, corpus.Purchasing)
	tree["entites/ENT-1102.json"] = treeCopy(t)["entites/ENT-1102.json"]
	_, err := verify.Tree(testcorpus.CheckedIn(t, corpus.Purchasing), tree, verify.Bytes, nil)
	assert.ErrorContains(t, err, "belongs to the track conformite")
}

// fullBreakage is an edit to a copy of the conformity track's tree and
// manifest, and what the check at Full depth says of it (nil when
// nothing).
type fullBreakage struct {
	name    string
	breakIt func(tree fstest.MapFS, m *manifest.Manifest)
	want    []string
}

// fullBreakages are the cases of the auditor's check, at Full depth.
func fullBreakages() []fullBreakage {
	return []fullBreakage{
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
}

func TestTree(t *testing.T) {
	tests := fullBreakages()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree, m := treeCopy(t), checkedIn(t)
			tt.breakIt(tree, m)
			bodies, err := verify.Tree(m, tree, verify.Full, nil)
			if tt.want == nil {
				require.NoError(t, err)
				assert.Len(t, bodies, len(m.Resources)-2) // all but the two absent entries
				return
			}
			var mismatch *verify.MismatchError
			require.ErrorAs(t, err, &mismatch)
			for _, want := range tt.want {
				assert.Contains(t, err.Error(), want)
			}
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
func TestTreeBytes(t *testing.T) {
	for _, tt := range bytesBreakages() {
		t.Run(tt.name, func(t *testing.T) {
			tree, m := treeCopy(t), checkedIn(t)
			tt.breakIt(tree, m)
			_, err := verify.Tree(m, tree, verify.Bytes, nil)
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
			m.Resources[i].BytesSHA256 = anchor.SHA256([]byte(body))
		}
	}
}
