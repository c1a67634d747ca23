package proofs_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/tools/proofs"
)

// The real proofs of testdata/trustlayer, as a views folder holds them.
const (
	gelID   = "prf_20260923_072144_2ad720"
	rekorID = "prf_20260303_161853_4d0904" // spec 2.0, its entry public
	julyID  = "prf_20260723_055735_502cad"
)

// hostileFolder is a views folder holding the three real views and the
// 2.0 proof's entry, each as fetch writes it.
func hostileFolder(t *testing.T) (dir, entryName string) {
	t.Helper()
	dir = t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "rekor"), 0o755))
	for id, name := range map[string]string{gelID: "proof_proveit_gel.json", rekorID: "proof_rekor.json", julyID: "proof_2026_07.json"} {
		require.NoError(t, os.WriteFile(proofs.ViewFile(dir, id), readFile(t, name), 0o644))
	}
	v := readView(t, "proof_rekor.json")
	require.NoError(t, os.WriteFile(proofs.EntryFile(dir, v.Log.UUID), readFile(t, "rekor_entry.json"), 0o644))
	return dir, "rekor/" + v.Log.UUID + ".json"
}

// A views folder is published for anyone to replay, and git and tar keep
// links: a view that cannot be read fails its own proof, vue_illisible,
// with the file and why; the other proofs verify as they would alone.
func TestHostileFolder(t *testing.T) {
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "view.json"), readFile(t, "proof_proveit_gel.json"), 0o644))
	tests := []struct {
		name   string
		plant  func(t *testing.T, file string) // replaces the gel view's file
		detail string
	}{
		{"a link to /dev/zero", func(t *testing.T, file string) { require.NoError(t, os.Symlink("/dev/zero", file)) }, ": a link to /dev/zero, out of the folder: not followed"},
		{"a link out of the folder, to a real view", func(t *testing.T, file string) {
			require.NoError(t, os.Symlink(filepath.Join(outside, "view.json"), file))
		}, "out of the folder: not followed"},
		{"a relative link out of the folder", func(t *testing.T, file string) {
			rel, err := filepath.Rel(filepath.Dir(file), filepath.Join(outside, "view.json"))
			require.NoError(t, err)
			require.NoError(t, os.Symlink(rel, file))
		}, "out of the folder: not followed"},
		{"a folder", func(t *testing.T, file string) { require.NoError(t, os.Mkdir(file, 0o755)) }, "a folder, not a regular file"},
		{"a file over the size of a view", func(t *testing.T, file string) {
			require.NoError(t, os.WriteFile(file, []byte(strings.Repeat(" ", proofs.MaxViewSize+1)), 0o644))
		}, "1048577 bytes, over the 1048576 a public view may hold"},
		{"not JSON", func(t *testing.T, file string) {
			require.NoError(t, os.WriteFile(file, []byte(`{"proof_id": `), 0o644))
		}, "not a public view"},
		{"the view of another proof", func(t *testing.T, file string) {
			require.NoError(t, os.WriteFile(file, readFile(t, "proof_rekor.json"), 0o644))
		}, "not the proof the file is named for"},
	}
	trust := pinned(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, _ := hostileFolder(t)
			file := proofs.ViewFile(dir, gelID)
			require.NoError(t, os.Remove(file))
			tt.plant(t, file)
			results := newVerifier(t, trust, gelSeason).VerifyFolder(dir,
				[]proofs.Citation{{ProofID: rekorID}, {ProofID: gelID}, {ProofID: julyID}})
			gel := results[gelID]
			assert.Equal(t, []proofs.Check{proofs.CheckViewUnreadable}, gel.Failures)
			assert.False(t, gel.Valid)
			assert.Contains(t, gel.Details[proofs.CheckViewUnreadable], file)
			assert.Contains(t, gel.Details[proofs.CheckViewUnreadable], tt.detail)
			assert.NotContains(t, results[rekorID].Failures, proofs.CheckRekorMissing, "the other proofs verify")
			assert.Contains(t, results[julyID].Failures, proofs.CheckSpecVersion)
		})
	}
}

// A rekor folder that is a link out of the views folder is not read: the
// entry it leads to is not supplied, and the detail says which file.
func TestRekorLinkOutOfTheFolder(t *testing.T) {
	dir, entry := hostileFolder(t)
	outside := t.TempDir()
	require.NoError(t, os.Rename(filepath.Join(dir, "rekor"), filepath.Join(outside, "rekor")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "rekor"), filepath.Join(dir, "rekor")))
	results := newVerifier(t, pinned(t), gelSeason).VerifyFolder(dir, []proofs.Citation{{ProofID: rekorID}})
	r := results[rekorID]
	assert.Contains(t, r.Failures, proofs.CheckRekorMissing)
	assert.Contains(t, r.Details[proofs.CheckRekorMissing], filepath.Join(dir, filepath.FromSlash(entry)))
	assert.Contains(t, r.Details[proofs.CheckRekorMissing], ": its folder rekor is a link to "+filepath.Join(outside, "rekor")+", out of the views folder: not followed")

	_, err := proofs.ReadFolderFile(dir, entry, proofs.EntryLimit)
	require.Error(t, err)
	data, err := proofs.ReadFolderFile(outside, entry, proofs.EntryLimit)
	require.NoError(t, err, "the same file read from its own folder")
	assert.Equal(t, readFile(t, "rekor_entry.json"), data)
}

// A link within the folder is followed: a folder laid out with links
// (one view kept under another name) reads as its targets.
func TestLinkWithinTheFolder(t *testing.T) {
	dir, _ := hostileFolder(t)
	file := proofs.ViewFile(dir, gelID)
	require.NoError(t, os.Rename(file, filepath.Join(dir, "kept.json")))
	require.NoError(t, os.Symlink("kept.json", file))
	v, err := proofs.ReadView(dir, gelID)
	require.NoError(t, err)
	assert.Equal(t, gelID, v.ProofID)
}
