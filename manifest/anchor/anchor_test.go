package anchor_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/manifest/anchor"
)

func TestContractReferenceHashes(t *testing.T) {
	assert.Equal(t, "1378d38cdb14483cdbea18463c2a908158202cc6dfba0195dbad8050d1bbaa9c",
		anchor.RequestHash("https://corpus.arkforge.tech/agrements/AGR-4417"))
	h, err := anchor.ResponseHash([]byte(`{"ressource": "/agrements/AGR-9999", "existe": false}`))
	require.NoError(t, err)
	assert.Equal(t, "d845eab33296088d967dd9629a0d87b653dc2af864bae485e421f2c87ebfe407", h)
}

func TestResponseHashOfFalsyBodies(t *testing.T) {
	substitute, err := anchor.ResponseHash([]byte(`{"error": null}`))
	require.NoError(t, err)
	for _, body := range []string{`{}`, `[]`, `""`, `null`, `false`, `0`, `0.0`, `-0`, `1e-400`, ` {} `} {
		got, err := anchor.ResponseHash([]byte(body))
		require.NoError(t, err, body)
		assert.Equal(t, substitute, got, body)
	}
	for _, body := range []string{`{"a":null}`, `[0]`, `" "`, `true`, `1`, `1e-300`} {
		got, err := anchor.ResponseHash([]byte(body))
		require.NoError(t, err, body)
		assert.NotEqual(t, substitute, got, body)
	}
	// Trust Layer anchors a substitute for a body that is not JSON; the
	// corpus never serves one, so the hash is refused rather than guessed.
	for _, body := range []string{``, `1e-400x`, `{"a":1,}`, "\xef\xbb\xbf{}", `NaN`} {
		_, err := anchor.ResponseHash([]byte(body))
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
			_, err := anchor.CheckBody([]byte(tt.body))
			if tt.message == "" {
				assert.NoError(t, err)
			} else {
				assert.ErrorContains(t, err, tt.message)
			}
		})
	}
}

// Lowercase hex is the one form a hash, a nonce or a log id is read in:
// the exact length, digits and a to f only.
func TestIsLowerHex(t *testing.T) {
	sum := anchor.SHA256([]byte("x"))
	tests := []struct {
		name string
		s    string
		n    int
		want bool
	}{
		{"a SHA-256", sum, 64, true},
		{"a Rekor uuid's length", strings.Repeat("0a", 40), 80, true},
		{"empty, of length 0", "", 0, true},
		{"one digit short", sum[1:], 64, false},
		{"one digit long", sum + "0", 64, false},
		{"uppercase", strings.ToUpper(sum), 64, false},
		{"a letter past f", "g" + sum[1:], 64, false},
		{"the sha256: prefix", "sha256:" + sum[7:], 64, false},
		{"a multibyte character", "é" + sum[2:], 64, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, anchor.IsLowerHex(tt.s, tt.n))
			if tt.n == 64 {
				assert.Equal(t, tt.want, anchor.IsSHA256(tt.s), "IsSHA256 is IsLowerHex of 64")
			}
		})
	}
}
