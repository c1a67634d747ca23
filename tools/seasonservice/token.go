package seasonservice

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
)

// tokenSize is a season token's length: 256 random bits.
const tokenSize = 32

// NewToken draws a season token: what its holder presents (base64url
// without padding, the form a submission's Authorization header carries)
// and the SHA-256 of its bytes, the only form a store keeps. The service
// draws one at each enrollment, the operator one for each reference run.
func NewToken() (token string, sha256Sum [32]byte) {
	var raw [tokenSize]byte
	_, _ = rand.Read(raw[:]) // crypto/rand.Read never fails (Go 1.24)
	return base64.RawURLEncoding.EncodeToString(raw[:]), sha256.Sum256(raw[:])
}
