package proofs_test

import (
	stded25519 "crypto/ed25519"
	"crypto/sha512"
	"encoding/hex"
	"math/big"
	"slices"
	"testing"

	"filippo.io/edwards25519"
	voi "github.com/oasisprotocol/curve25519-voi/primitives/ed25519"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/tools/proofs"
)

// point is an encoding of a curve point whose discrete log to the base
// point is known up to its small-order part: enough to sign with it.
type point struct {
	name     string
	encoding []byte
	log      *edwards25519.Scalar // of the prime-order part
}

// order8 is a point of order 8, the generator of the curve's torsion.
const order8 = "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"

// groupOrder is ℓ, the order of the base point.
var groupOrder, _ = new(big.Int).SetString("7237005577332262213973186563042994240857116359379907606001950938285454250989", 10)

// edgePoints are the encodings the verification rules differ on: a point
// of prime order, the same with a torsion part (mixed order), the eight
// small-order points, and the non-canonical encodings of those whose y is
// below 19 (y + p) or whose x is 0 (a sign bit on zero).
func edgePoints(t *testing.T, seed byte) []point {
	t.Helper()
	torsion, err := new(edwards25519.Point).SetBytes(mustHex(t, order8))
	require.NoError(t, err)
	require.Equal(t, 1, new(edwards25519.Point).MultByCofactor(torsion).Equal(edwards25519.NewIdentityPoint()), "order8 has order 8")

	var wide [64]byte
	wide[0], wide[1] = seed, 0x5a
	a, err := edwards25519.NewScalar().SetUniformBytes(wide[:])
	require.NoError(t, err)
	prime := new(edwards25519.Point).ScalarBaseMult(a)
	points := []point{
		{"prime order", prime.Bytes(), a},
		{"mixed order", new(edwards25519.Point).Add(prime, torsion).Bytes(), a},
	}
	small := edwards25519.NewIdentityPoint()
	zero := edwards25519.NewScalar()
	for k := range 8 {
		enc := small.Bytes()
		points = append(points, point{"small order " + string(rune('0'+k)), enc, zero})
		y := new(big.Int).SetBytes(reversed(enc[:31:31], enc[31]&0x7f))
		if y.Cmp(big.NewInt(19)) < 0 { // y + p fits in 255 bits
			p := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 255), big.NewInt(19))
			for _, sign := range []byte{0, 0x80} {
				nc := littleEndian(new(big.Int).Add(y, p))
				nc[31] |= sign
				points = append(points, point{"non-canonical y of small order " + string(rune('0'+k)), nc, zero})
			}
		}
		if x0 := new(edwards25519.Point).Negate(small).Equal(small) == 1; x0 { // x = 0: the sign bit is free
			flipped := slices.Clone(enc)
			flipped[31] ^= 0x80
			points = append(points, point{"sign bit on x = 0 of small order " + string(rune('0'+k)), flipped, zero})
		}
		small.Add(small, torsion)
	}
	return points
}

func mustHex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	return b
}

// reversed turns a little-endian encoding (its low 31 bytes and the top
// one) into big-endian bytes.
func reversed(low []byte, top byte) []byte {
	out := []byte{top}
	for i := len(low) - 1; i >= 0; i-- {
		out = append(out, low[i])
	}
	return out
}

func littleEndian(n *big.Int) []byte {
	be := n.FillBytes(make([]byte, 32))
	slices.Reverse(be)
	return be
}

// The verifier's Ed25519 (curve25519-voi with VerifyOptionsStdLib) accepts
// and refuses exactly what crypto/ed25519 does, on keys and nonces of
// every order, non-canonical encodings of both, an undecodable key, and
// scalars S reduced, unreduced (S + ℓ) and zero: signatures made with
// each (key, R) pair as an honest signer would, which the cofactored
// equation accepts and the standard library's cofactorless one may not.
func TestEd25519AsStandardLibrary(t *testing.T) {
	keys := edgePoints(t, 1)
	nonces := edgePoints(t, 2)
	undecodable := point{name: "not a point"}
	for y := byte(2); undecodable.encoding == nil; y++ {
		enc := make([]byte, 32)
		enc[0] = y
		if _, err := new(edwards25519.Point).SetBytes(enc); err != nil {
			undecodable.encoding, undecodable.log = enc, edwards25519.NewScalar()
		}
	}
	keys = append(keys, undecodable)

	cofactored := &voi.Options{Verify: voi.VerifyOptionsZIP_215}
	var compared, accepted, onlyCofactored int
	for _, key := range keys {
		for _, nonce := range nonces {
			for _, message := range [][]byte{[]byte("0f3c"), make([]byte, 64)} {
				h := sha512.New()
				h.Write(nonce.encoding)
				h.Write(key.encoding)
				h.Write(message)
				k, err := edwards25519.NewScalar().SetUniformBytes(h.Sum(nil))
				require.NoError(t, err)
				s := edwards25519.NewScalar().MultiplyAdd(k, key.log, nonce.log)
				unreduced := new(big.Int).SetBytes(reversed(s.Bytes()[:31], s.Bytes()[31]))
				for _, sv := range []struct {
					name string
					s    []byte
				}{
					{"S", s.Bytes()},
					{"S + ℓ", littleEndian(unreduced.Add(unreduced, groupOrder))},
					{"S = 0", make([]byte, 32)},
				} {
					sig := append(slices.Clone(nonce.encoding), sv.s...)
					want := stded25519.Verify(key.encoding, message, sig)
					got := proofs.VerifyEd25519(key.encoding, message, sig)
					assert.Equal(t, want, got, "key %s, R %s, %s, message %x", key.name, nonce.name, sv.name, message)
					compared++
					if want {
						accepted++
					} else if voi.VerifyWithOptions(key.encoding, message, sig, cofactored) {
						onlyCofactored++
					}
				}
			}
		}
	}
	t.Logf("%d vectors: %d accepted, %d refused by crypto/ed25519 though the cofactored equation accepts them", compared, accepted, onlyCofactored)
	assert.Positive(t, accepted, "some vectors verify")
	assert.Less(t, accepted, compared, "some are refused")
	assert.Positive(t, onlyCofactored, "the vectors tell cofactorless from cofactored verification")
}

// FuzzEd25519AsStandardLibrary holds the same on any key, message and
// signature.
func FuzzEd25519AsStandardLibrary(f *testing.F) {
	pub, priv, err := stded25519.GenerateKey(nil)
	if err != nil {
		f.Fatal(err)
	}
	msg := []byte("a chain hash's hex")
	f.Add([]byte(pub), msg, stded25519.Sign(priv, msg))
	f.Add(make([]byte, 32), msg, make([]byte, 64))
	f.Fuzz(func(t *testing.T, key, message, sig []byte) {
		if len(key) != stded25519.PublicKeySize {
			return // the standard library panics; trust material never holds such a key
		}
		assert.Equal(t, stded25519.Verify(key, message, sig), proofs.VerifyEd25519(key, message, sig))
	})
}
