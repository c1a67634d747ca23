// Package testcorpus hands the manifest packages' tests a track's
// checked-in manifest.
package testcorpus

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
)

// CheckedIn decodes the manifest of a track compiled into the binary.
func CheckedIn(t testing.TB, track *corpus.Track) *manifest.Manifest {
	t.Helper()
	m, err := manifest.Decode(manifest.Embedded(track))
	require.NoError(t, err)
	require.Equal(t, track.Name, m.Track)
	return m
}
