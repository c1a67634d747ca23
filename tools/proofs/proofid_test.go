package proofs

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A string that is not a proof id is refused with one error, a type a
// caller tests, wherever it is given: a views folder's reader, fetch.
func TestProofIDError(t *testing.T) {
	for _, id := range []string{"", "prf_1", "../prf_20260101_000000_000000", "prf_20260101_000000_ABCDEF"} {
		_, err := ReadView(t.TempDir(), id)
		var bad *ProofIDError
		require.True(t, errors.As(err, &bad), "%q: %v", id, err)
		assert.Equal(t, id, bad.ID)
		assert.Contains(t, err.Error(), "is not a proof id (prf_YYYYMMDD_HHMMSS_xxxxxx)")
	}
}
