package didkey

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The did:key method's own Ed25519 test vectors
// (w3c-ccg/did-method-key, test-vectors/ed25519-x25519.json): the key
// drawn from each seed, its did:key and its publicKeyBase58.
func TestSpecVectors(t *testing.T) {
	tests := []struct {
		seed, did, publicKeyBase58 string
	}{
		{"0000000000000000000000000000000000000000000000000000000000000000",
			"did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp", "4zvwRjXUKGfvwnParsHAS3HuSVzV5cA4McphgmoCtajS"},
		{"0000000000000000000000000000000000000000000000000000000000000001",
			"did:key:z6MkjchhfUsD6mmvni8mCdXHw216Xrm9bQe2mBH1P5RDjVJG", "6ASf5EcmmEHTgDJ4X4ZT5vT6iHVJBXPg5AN5YoTCpGWt"},
		{"0000000000000000000000000000000000000000000000000000000000000002",
			"did:key:z6MknGc3ocHs3zdPiJbnaaqDi58NGb4pk1Sp9WxWufuXSdxf", "8pM1DN3RiT8vbom5u1sNryaNT1nyL8CTTW3b5PwWXRBH"},
		{"0000000000000000000000000000000000000000000000000000000000000004",
			"did:key:z6MkwW6aqMnjgrhJXFUko3NnZPGzVpkNzhYK7yEhnsibmLwL", "J3qYF7YJMKCqQke47UQwiHizgFUXapHxRxKmxbkar89x"},
	}
	for _, tt := range tests {
		t.Run(tt.did, func(t *testing.T) {
			seed, err := hex.DecodeString(tt.seed)
			require.NoError(t, err)
			pub := ed25519.NewKeyFromSeed(seed).Public().(ed25519.PublicKey)
			assert.Equal(t, tt.did, Encode(pub))
			assert.Equal(t, tt.publicKeyBase58, base58Encode(pub))
			decoded, err := Decode(tt.did)
			require.NoError(t, err)
			assert.Equal(t, pub, decoded)
		})
	}
	// RFC 8032's all-zero seed, the first vector's key.
	pub, err := Decode(tests[0].did)
	require.NoError(t, err)
	assert.Equal(t, "3b6a27bcceb6a42d62a3a8d02a6f0d73653215771de243a63ac048a18b59da29", hex.EncodeToString(pub))
}

// base58btc as Bitcoin writes it (its base58_encode_decode.json), leading
// zero bytes as '1's, both ways.
func TestBase58(t *testing.T) {
	tests := []struct{ hex, base58 string }{
		{"61", "2g"},
		{"626262", "a3gV"},
		{"636363", "aPEr"},
		{"73696d706c792061206c6f6e6720737472696e67", "2cFupjhnEsSn59qHXstmK2ffpLv2"},
		{"00eb15231dfceb60925886b67d065299925915aeb172c06647", "1NS17iag9jJgTHD1VXjvLCEnZuQ3rJDE9L"},
		{"516b6fcd0f", "ABnLTmg"},
		{"bf4f89001e670274dd", "3SEo3LWLoPntC"},
		{"572e4794", "3EFU7m"},
		{"ecac89cad93923c02321", "EJDM8drfXA6uyA"},
		{"10c8511e", "Rt5zm"},
		{"00000000000000000000", "1111111111"},
	}
	for _, tt := range tests {
		t.Run(tt.base58, func(t *testing.T) {
			data, err := hex.DecodeString(tt.hex)
			require.NoError(t, err)
			assert.Equal(t, tt.base58, base58Encode(data))
			back, err := base58Decode(tt.base58)
			require.NoError(t, err)
			assert.Equal(t, data, back)
		})
	}
	assert.Equal(t, "", base58Encode(nil))
	for _, bad := range []string{"", "0", "O", "I", "l", "abc+", strings.Repeat("2", 129)} {
		_, err := base58Decode(bad)
		assert.Error(t, err, "%q", bad)
	}
}

// Decode refuses what is not the did:key of an Ed25519 key.
func TestDecodeRefuses(t *testing.T) {
	// A did:key of a P-256 key (multicodec 0x1200), from the method's
	// vectors (test-vectors/nist-curves.json).
	const p256 = "did:key:zDnaerDaTF5BXEavCrfRZEk316dpbLsfPDZ3WJ5hRTPFU2169"
	tests := []struct{ did, want string }{
		{"did:web:example.org", "not a did:key"},
		{"did:key:", "not a did:key"},
		{"did:key:z", "empty or too long"},
		{"did:key:z0OIl", "not a base58btc digit"},
		{"did:key:z6MkParticipant", "not an Ed25519 key"},
		{p256, "not an Ed25519 key"},
		{"did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooW", "not an Ed25519 key"}, // a digit short
	}
	for _, tt := range tests {
		t.Run(tt.did, func(t *testing.T) {
			_, err := Decode(tt.did)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

// A key drawn reads back from its did:key, and its signature of a
// challenge is Ed25519 over the challenge's bytes, base64url without
// padding, as Trust Layer's confirmation checks it.
func TestNewAndSignChallenge(t *testing.T) {
	did, priv := New()
	assert.True(t, strings.HasPrefix(did, "did:key:z6Mk"), did)
	pub, err := Decode(did)
	require.NoError(t, err)
	assert.Equal(t, priv.Public(), pub)

	const challenge = "arkforge-did-bind-0123456789abcdef0123456789abcdef"
	signature := SignChallenge(priv, challenge)
	assert.NotContains(t, signature, "=")
	assert.Len(t, signature, 86, "64 bytes, base64url without padding")
	raw, err := base64.RawURLEncoding.DecodeString(signature)
	require.NoError(t, err)
	assert.True(t, ed25519.Verify(pub, []byte(challenge), raw))
	assert.False(t, ed25519.Verify(pub, []byte(challenge+"x"), raw))

	// Ed25519 is deterministic: RFC 8032's test 1 key signs the empty
	// message as the RFC says.
	seed, _ := hex.DecodeString("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
	want, _ := hex.DecodeString("e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b")
	assert.Equal(t, base64.RawURLEncoding.EncodeToString(want), SignChallenge(ed25519.NewKeyFromSeed(seed), ""))
}

// The key's file is PKCS #8 in PEM and reads back; anything else is
// refused with a reason that quotes none of it.
func TestPrivateKeyFile(t *testing.T) {
	_, priv := New()
	data, err := MarshalPrivateKey(priv)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(data), "-----BEGIN PRIVATE KEY-----\n"))
	back, err := ParsePrivateKey(data)
	require.NoError(t, err)
	assert.Equal(t, priv, back)

	der, err := x509.MarshalPKCS8PrivateKey(priv)
	require.NoError(t, err)
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, `want a PEM "PRIVATE KEY" block`},
		{"another block", pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), `want a PEM "PRIVATE KEY" block`},
		{"not PKCS #8", pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte("secret bytes")}), "not a PKCS #8 private key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParsePrivateKey(tt.data)
			assert.ErrorContains(t, err, tt.want)
			assert.NotContains(t, err.Error(), "secret")
		})
	}
}
