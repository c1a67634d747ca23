package proofs

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"slices"

	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/rfc6962"

	"github.com/arkforge/proveit-corpus/manifest/pyjson"
)

// Commit is Trust Layer's commitment to one field of a proof:
// SHA-256(field || 0x00 || nonce || canonical_json(value)), with the nonce's
// 32 raw bytes and the canonical form package pyjson writes.
func Commit(field string, nonce []byte, value pyjson.Value) [sha256.Size]byte {
	var buf [256]byte // a committed field, nonce and value fit: no allocation
	msg := append(append(append(buf[:0], field...), 0), nonce...)
	return sha256.Sum256(pyjson.AppendCanonical(msg, value))
}

// CommitmentsRoot is the chain hash of a set of commitments: the RFC 6962
// root over their leaf hashes, in the order of the field names sorted by
// code point. It is nil for an empty set, which has no root.
func CommitmentsRoot(commitments map[string][]byte) []byte {
	if len(commitments) == 0 {
		return nil
	}
	fields := make([]string, 0, len(commitments))
	for f := range commitments {
		fields = append(fields, f)
	}
	slices.Sort(fields) // Go compares strings bytewise: UTF-8 keeps code point order
	leaves := make([][]byte, len(fields))
	for i, f := range fields {
		leaves[i] = rfc6962.DefaultHasher.HashLeaf(commitments[f])
	}
	return MerkleRoot(leaves)
}

// MerkleRoot is the RFC 6962 root of leaf hashes in order, as a batch's
// root is computed over its proofs' leaves; nil for none.
func MerkleRoot(leaves [][]byte) []byte {
	if len(leaves) == 0 {
		return nil
	}
	factory := compact.RangeFactory{Hash: rfc6962.DefaultHasher.HashChildren}
	r := factory.NewEmptyRange(0)
	for _, leaf := range leaves {
		if err := r.Append(leaf, nil); err != nil {
			panic(err) // appending to a range that starts at 0 cannot fail
		}
	}
	root, err := r.GetRootHash(nil)
	if err != nil {
		panic(err) // a non-empty range always has a root
	}
	return root
}

// decodeHex64 reads a bare SHA-256 or nonce: exactly 64 lowercase hex
// digits, stricter than Python's bytes.fromhex.
func decodeHex64(s string) ([]byte, bool) {
	if !isHex64(s) {
		return nil, false
	}
	b, _ := hex.DecodeString(s)
	return b, true
}

// opens reports whether the nonce (64 hex digits) and value open the
// commitment, compared in constant time as Trust Layer compares them.
func opens(field, nonceHex string, value pyjson.Value, commitment []byte) bool {
	nonce, ok := decodeHex64(nonceHex)
	if !ok || len(commitment) != sha256.Size {
		return false
	}
	sum := Commit(field, nonce, value)
	return subtle.ConstantTimeCompare(sum[:], commitment) == 1
}
