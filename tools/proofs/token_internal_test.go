package proofs

import (
	"encoding/base64"
	"testing"

	"github.com/digitorus/timestamp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Both defences hold on each token found to panic digitorus/pkcs7's BER
// reader: the DER check refuses it, and past that check, guard turns the
// reader's panic into an error.
func TestTokenDefences(t *testing.T) {
	for _, token := range []string{"MAkwAwIBADACMIE=", "MAkwAwIBADACHwE=", "MAkwAwIBADACH4A="} {
		t.Run(token, func(t *testing.T) {
			der, err := base64.StdEncoding.DecodeString(token)
			require.NoError(t, err)
			assert.Error(t, checkDER(der, 0))
			err = guard(func() error { _, err := timestamp.ParseResponse(der); return err })
			require.Error(t, err)
			assert.Contains(t, err.Error(), "the parser failed: runtime error")
			_, err = readToken(token)
			assert.ErrorContains(t, err, "tsr_base64: not DER")
		})
	}
}
