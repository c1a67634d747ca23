package proofs_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/transparency-dev/merkle/rfc6962"

	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/manifest/pyjson/pyref"
	"github.com/arkforge/proveit-corpus/tools/proofs"
)

// pythonCommitments is Trust Layer's commitment and RFC 6962 root, written
// with Python 3's hashlib and json as its commitments.py and merkle.py
// compute them: the reference the Go side is proven against.
const pythonCommitments = `
import hashlib, json, sys

def commit(field, nonce, value):
    canonical = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(field.encode() + b"\x00" + nonce + canonical.encode()).digest()

def mth(leaves):
    if len(leaves) == 1:
        return leaves[0]
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return hashlib.sha256(b"\x01" + mth(leaves[:k]) + mth(leaves[k:])).digest()

out = []
for case in json.load(sys.stdin):
    commitments = {f: commit(f, bytes.fromhex(c["nonce"]), c["value"]) for f, c in case.items()}
    leaves = [hashlib.sha256(b"\x00" + commitments[f]).digest() for f in sorted(commitments)]
    out.append({"commitments": {f: c.hex() for f, c in commitments.items()}, "root": mth(leaves).hex()})
json.dump(out, sys.stdout)
`

// TestCommitmentsAgainstPython proves Commit and CommitmentsRoot against
// Python on generated sets of 1 to 40 fields: names and string values with
// every kind of character canonical_json escapes, booleans and null.
func TestCommitmentsAgainstPython(t *testing.T) {
	require.True(t, pyref.Available(), "python3 is required: the commitments are proven against it")
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("abz_09 \"\\/\n\t\b\f\x00\x1f\x7féè中\u2028\U0001F600<>&")
	text := func(n int) string {
		r := make([]rune, n)
		for i := range r {
			r[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(r)
	}
	type opening struct {
		Nonce string `json:"nonce"`
		Value any    `json:"value"`
	}
	var cases []map[string]opening
	for i := 0; i < 200; i++ {
		n := 1 + rng.IntN(40)
		c := map[string]opening{}
		for len(c) < n {
			nonce := make([]byte, 32)
			for j := range nonce {
				nonce[j] = byte(rng.Uint32())
			}
			var v any
			switch rng.IntN(4) {
			case 0:
				v = true
			case 1:
				v = nil
			default:
				v = text(rng.IntN(30))
			}
			c[text(1+rng.IntN(12))] = opening{hex.EncodeToString(nonce), v}
		}
		cases = append(cases, c)
	}
	in, err := json.Marshal(cases)
	require.NoError(t, err)
	cmd := exec.Command("python3", "-c", pythonCommitments)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	require.NoError(t, err)
	var want []struct {
		Commitments map[string]string `json:"commitments"`
		Root        string            `json:"root"`
	}
	require.NoError(t, json.Unmarshal(out, &want))
	require.Len(t, want, len(cases))
	for i, c := range cases {
		commitments := map[string][]byte{}
		for field, o := range c {
			nonce, _ := hex.DecodeString(o.Nonce)
			encoded, err := json.Marshal(o.Value)
			require.NoError(t, err)
			value, err := pyjson.Parse(encoded)
			require.NoError(t, err)
			sum := proofs.Commit(field, nonce, value)
			commitments[field] = sum[:]
			assert.Equal(t, want[i].Commitments[field], hex.EncodeToString(sum[:]), "case %d field %q", i, field)
		}
		assert.Equal(t, want[i].Root, hex.EncodeToString(proofs.CommitmentsRoot(commitments)), "case %d", i)
	}
}

func TestCommitmentsRootOfNothing(t *testing.T) {
	assert.Nil(t, proofs.CommitmentsRoot(nil))
	assert.Nil(t, proofs.MerkleRoot(nil))
}

// The verification's tree hasher gives rfc6962.DefaultHasher's values, on
// leaves of every length around its buffer's and on children.
func TestHasherIsRFC6962(t *testing.T) {
	for _, n := range []int{0, 1, 31, 32, 33, 63, 64, 65, 1000} {
		leaf := bytes.Repeat([]byte{byte(n)}, n)
		assert.Equal(t, rfc6962.DefaultHasher.HashLeaf(leaf), proofs.Hasher.HashLeaf(leaf), "leaf of %d bytes", n)
	}
	l, r := rfc6962.DefaultHasher.HashLeaf([]byte("l")), rfc6962.DefaultHasher.HashLeaf([]byte("r"))
	assert.Equal(t, rfc6962.DefaultHasher.HashChildren(l, r), proofs.Hasher.HashChildren(l, r))
	assert.Equal(t, rfc6962.DefaultHasher.EmptyRoot(), proofs.Hasher.EmptyRoot())
	assert.Equal(t, rfc6962.DefaultHasher.Size(), proofs.Hasher.Size())
}

// decodeHash takes exactly what isHex64 takes: 64 lowercase hex digits.
func TestDecodeHashIsLowercaseHex(t *testing.T) {
	valid := strings.Repeat("0123456789abcdef", 4)
	tests := []struct {
		name string
		s    string
		ok   bool
	}{
		{"every lowercase digit", valid, true},
		{"all f", strings.Repeat("f", 64), true},
		{"an uppercase digit", "A" + valid[1:], false},
		{"one short", valid[1:], false},
		{"one long", valid + "0", false},
		{"a g", valid[:63] + "g", false},
		{"a space", " " + valid[1:], false},
		{"a byte past ASCII", "\xff" + valid[1:], false},
		{"sha256: prefixed", "sha256:" + valid[7:], false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := proofs.DecodeHash(tt.s)
			if !tt.ok {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			want, _ := hex.DecodeString(tt.s)
			assert.Equal(t, want, got[:])
		})
	}
}
