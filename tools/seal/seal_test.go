package seal

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	manifestBytes = []byte("{\"format\": \"proveit-corpus-manifest/1\"}\n")
	key           = []byte("{\"taches\": [{\"id\": \"conf-01\", \"verdict\": \"conforme\"}]}\n")
)

func TestRoundTrip(t *testing.T) {
	rec := New("conformite", manifestBytes, key)
	assert.NoError(t, Verify(hex.EncodeToString(rec.Salt), rec.Commitment, key))
	assert.NoError(t, Verify(strings.ToUpper(hex.EncodeToString(rec.Salt)), strings.ToUpper(rec.Commitment), key), "hex in either case")

	assert.Equal(t, "conformite", rec.Piste)
	sum := sha256.Sum256(manifestBytes)
	assert.Equal(t, hex.EncodeToString(sum[:]), rec.ManifestSHA256)
	sum = sha256.Sum256(append(append([]byte{}, rec.Salt...), key...))
	assert.Equal(t, hex.EncodeToString(sum[:]), rec.Commitment, "sha256(salt || key)")
	sum = sha256.Sum256(key)
	assert.NotEqual(t, hex.EncodeToString(sum[:]), rec.Commitment, "the salt changes the hash")
}

func TestEachTrackHasItsOwnSalt(t *testing.T) {
	a, b := New("conformite", manifestBytes, key), New("generique", manifestBytes, key)
	assert.NotEqual(t, a.Salt, b.Salt)
	assert.NotEqual(t, a.Commitment, b.Commitment, "the same key bytes commit differently per track")
	assert.Equal(t, "generique", b.Piste)
}

// A fixed vector, computed with Python: hashlib.sha256(bytes(range(32)) + b"cle").hexdigest().
func TestCommitVector(t *testing.T) {
	salt := make([]byte, SaltSize)
	for i := range salt {
		salt[i] = byte(i)
	}
	assert.Equal(t, "4163ed0599b2c90cecb6104f0a5fd67776c6b26a3d6468e962dc40f849f584b2", Commit(salt, []byte("cle")))
}

func TestVerifyRefuses(t *testing.T) {
	rec := New("conformite", manifestBytes, key)
	saltHex := hex.EncodeToString(rec.Salt)
	changedKey := append([]byte{}, key...)
	changedKey[len(changedKey)/2] ^= 0x01
	wrongSalt := append([]byte{}, rec.Salt...)
	wrongSalt[0] ^= 0x80
	other := New("conformite", manifestBytes, key)

	tests := []struct {
		name             string
		salt, commitment string
		key              []byte
		wantErr          error
		wantMessage      string
	}{
		{"a changed key byte", saltHex, rec.Commitment, changedKey, ErrMismatch, ""},
		{"a key with a byte more", saltHex, rec.Commitment, append(append([]byte{}, key...), '\n'), ErrMismatch, ""},
		{"a wrong salt", hex.EncodeToString(wrongSalt), rec.Commitment, key, ErrMismatch, ""},
		{"another sealing's salt", hex.EncodeToString(other.Salt), rec.Commitment, key, ErrMismatch, ""},
		{"another commitment", saltHex, other.Commitment, key, ErrMismatch, ""},
		{"a short salt", saltHex[:62], rec.Commitment, key, nil, "salt is 31 bytes, want 32"},
		{"a salt that is not hex", "zz" + saltHex[2:], rec.Commitment, key, nil, "salt is not hex"},
		{"a short commitment", saltHex, rec.Commitment[:60], key, nil, "is not 64 hex digits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Verify(tt.salt, tt.commitment, tt.key)
			require.Error(t, err)
			if tt.wantErr != nil {
				assert.ErrorIs(t, err, tt.wantErr)
			} else {
				assert.Contains(t, err.Error(), tt.wantMessage)
			}
		})
	}
}

func TestSaltIsFreshAnd32Bytes(t *testing.T) {
	a, b := NewSalt(), NewSalt()
	assert.Len(t, a, 32)
	assert.Len(t, b, 32)
	assert.NotEqual(t, a, b)

	r1, r2 := New("conformite", manifestBytes, key), New("conformite", manifestBytes, key)
	assert.Len(t, r1.Salt, SaltSize)
	assert.NotEqual(t, r1.Salt, r2.Salt)
	assert.NotEqual(t, r1.Commitment, r2.Commitment, "the same key seals to different commitments")
	assert.Equal(t, r1.ManifestSHA256, r2.ManifestSHA256)
}
