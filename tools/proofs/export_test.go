package proofs

// Each exposes the worker pool VerifyFolder runs on to the benchmarks,
// which verify a season from memory.
func (vr *Verifier) Each(n int, do func(i int) error) error { return vr.each(n, do) }

// VerifyEd25519 is the verifier's Ed25519 verification, held to the
// standard library's by TestEd25519AsStandardLibrary.
func VerifyEd25519(public, message, sig []byte) bool {
	return verifyEd25519(expandKey(public), message, sig)
}

// Hasher is the tree hasher the verification uses.
var Hasher = hasher

// DecodeHash is the verification's reading of a bare hash or nonce.
var DecodeHash = decodeHash
