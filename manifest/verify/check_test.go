package verify_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/manifest/internal/testcorpus"
	"github.com/arkforge/proveit-corpus/manifest/verify"
)

// errText is an error's text, "" for none.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestCheckFileIsDecodeThenTree: on every breakage of the auditor's check,
// CheckFile of the manifest's bytes finds exactly what Decode then Tree
// find, though it decodes while it lists the tree, and Check finds it too.
func TestCheckFileIsDecodeThenTree(t *testing.T) {
	for _, tt := range fullBreakages() {
		t.Run(tt.name, func(t *testing.T) {
			tree, m := treeCopy(t), checkedIn(t)
			tt.breakIt(tree, m)
			data := m.Encode()
			_, treeErr := verify.Tree(m, tree, verify.Full, nil)
			if tt.want != nil {
				require.Error(t, treeErr, "the breakage is found")
			}

			assert.Equal(t, errText(treeErr), errText(verify.Check(m, tree, verify.Full, nil)))
			file, err := verify.CheckFile(data, tree, corpus.Conformity, nil)
			assert.Equal(t, errText(treeErr), errText(err))
			require.NotNil(t, file)
			assert.True(t, file.Canonical)
			assert.Equal(t, anchor.SHA256(data), file.SHA256)
			assert.Equal(t, m, file.Manifest)
		})
	}
}

func TestCheckFileRefusals(t *testing.T) {
	checkedIn := manifest.Embedded(corpus.Conformity)
	var reindented bytes.Buffer
	require.NoError(t, json.Indent(&reindented, checkedIn, "", "    "))
	tests := []struct {
		name      string
		data      []byte
		decodes   bool   // the bytes decode, and a file is returned
		canonical bool   // the bytes are those Encode writes
		want      string // a part of the error, "" for none
	}{
		{"as checked in", checkedIn, true, true, ""},
		{"indented otherwise", reindented.Bytes(), true, false, ""},
		{"not JSON", []byte("not json"), false, false, "manifest:"},
		{"a shape no server loads", bytes.Replace(checkedIn, []byte(`"format": "proveit-corpus-manifest/1"`), []byte(`"format": "x"`), 1), false, false, `format "x"`},
		{"another track's manifest", manifest.Embedded(corpus.Purchasing), true, true, `piste: the manifest is the track "generique"'s, the tree "conformite"'s`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file, err := verify.CheckFile(tt.data, corpus.Conformity.Embedded(), corpus.Conformity, nil)
			if tt.want == "" {
				assert.NoError(t, err)
			} else {
				assert.ErrorContains(t, err, tt.want)
			}
			if !tt.decodes {
				assert.Nil(t, file)
				var mismatch *verify.MismatchError
				assert.NotErrorAs(t, err, &mismatch, "a manifest that does not decode is no mismatch")
				return
			}
			require.NotNil(t, file)
			assert.Equal(t, tt.canonical, file.Canonical)
			assert.Equal(t, anchor.SHA256(tt.data), file.SHA256)
		})
	}
}

// TestTreeOfUnsortedEntries: Tree does not require the entries sorted, as
// Decode does; in any order they are compared as they are sorted.
func TestTreeOfUnsortedEntries(t *testing.T) {
	for _, tt := range fullBreakages() {
		t.Run(tt.name, func(t *testing.T) {
			tree, m := treeCopy(t), checkedIn(t)
			tt.breakIt(tree, m)
			_, sortedErr := verify.Tree(m, tree, verify.Full, nil)
			reversed := *m
			reversed.Resources = slices.Clone(m.Resources)
			slices.Reverse(reversed.Resources)
			_, err := verify.Tree(&reversed, tree, verify.Full, nil)
			if sortedErr == nil {
				assert.NoError(t, err)
				return
			}
			// The same problems, each entry's in the order of the entries.
			want := sortedErr.(*verify.MismatchError).Problems
			got := err.(*verify.MismatchError).Problems
			assert.ElementsMatch(t, want, got)
		})
	}
}

// TestCheckFileOfTheGenericTrack: the other track's manifest and tree, with
// its statements' citations, as `proveit verify` checks them.
func TestCheckFileOfTheGenericTrack(t *testing.T) {
	data := manifest.Embedded(corpus.Purchasing)
	file, err := verify.CheckFile(data, corpus.Purchasing.Embedded(), corpus.Purchasing, nil)
	require.NoError(t, err)
	assert.True(t, file.Canonical)
	assert.Equal(t, testcorpus.CheckedIn(t, corpus.Purchasing), file.Manifest)
}
