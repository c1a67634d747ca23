package proofs

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"slices"

	"github.com/transparency-dev/merkle"
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
		leaves[i] = hasher.HashLeaf(commitments[f])
	}
	return MerkleRoot(leaves)
}

// MerkleRoot is the RFC 6962 root of leaf hashes in order, as a batch's
// root is computed over its proofs' leaves; nil for none.
func MerkleRoot(leaves [][]byte) []byte {
	if len(leaves) == 0 {
		return nil
	}
	factory := compact.RangeFactory{Hash: hasher.HashChildren}
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

// hasher is RFC 6962's SHA-256 tree hasher, rfc6962.DefaultHasher, each
// hash summed from a buffer on the stack: the same values
// (TestHasherIsRFC6962), one allocation a hash where the library's makes
// three, for the tens of hashes each proof's root and path take.
var hasher merkle.LogHasher = sha256Hasher{}

type sha256Hasher struct{}

func (sha256Hasher) EmptyRoot() []byte { return rfc6962.DefaultHasher.EmptyRoot() }
func (sha256Hasher) Size() int         { return sha256.Size }

func (sha256Hasher) HashLeaf(leaf []byte) []byte {
	var buf [1 + 2*sha256.Size]byte
	sum := sha256.Sum256(append(append(buf[:0], rfc6962.RFC6962LeafHashPrefix), leaf...))
	return sum[:]
}

func (sha256Hasher) HashChildren(l, r []byte) []byte {
	var buf [1 + 2*sha256.Size]byte
	sum := sha256.Sum256(append(append(append(buf[:0], rfc6962.RFC6962NodeHashPrefix), l...), r...))
	return sum[:]
}

// decodeHash reads a bare SHA-256 or nonce: exactly 64 lowercase hex
// digits (isHex64's rule), stricter than Python's bytes.fromhex. A proof
// holds some thirty of them: each is checked and decoded in one pass.
func decodeHash(s string) ([sha256.Size]byte, error) {
	var b [sha256.Size]byte
	if len(s) != 2*sha256.Size {
		return b, errNotHash
	}
	var bad byte
	for i := range b {
		hi, lo := lowerHexValue[s[2*i]], lowerHexValue[s[2*i+1]]
		bad |= hi | lo
		b[i] = hi<<4 | lo&0x0f
	}
	if bad&0xf0 != 0 {
		return [sha256.Size]byte{}, errNotHash
	}
	return b, nil
}

// lowerHexValue is each lowercase hex digit's value, 0xff for any other
// byte.
var lowerHexValue = func() (t [256]byte) {
	for c := range t {
		switch {
		case '0' <= c && c <= '9':
			t[c] = byte(c - '0')
		case 'a' <= c && c <= 'f':
			t[c] = byte(c - 'a' + 10)
		default:
			t[c] = 0xff
		}
	}
	return t
}()

// errNotHash is a hash or nonce not written as Trust Layer writes them.
var errNotHash = errors.New("want 64 lowercase hex digits")

// opens reports why the nonce (64 hex digits) and value do not open the
// commitment, nil when they do; the sums are compared in constant time, as
// Trust Layer compares them.
func opens(field, nonceHex string, value pyjson.Value, commitment []byte) error {
	nonce, err := decodeHash(nonceHex)
	switch {
	case err != nil:
		return fmt.Errorf("nonce: %w", err)
	case len(commitment) != sha256.Size:
		return fmt.Errorf("no commitment of %s to open", field)
	}
	sum := Commit(field, nonce[:], value)
	if subtle.ConstantTimeCompare(sum[:], commitment) != 1 {
		return fmt.Errorf("the nonce and value do not open the commitment of %s", field)
	}
	return nil
}
