// Package didkey is the did:key of an Ed25519 key (the did:key method of
// the W3C Credentials Community Group, https://w3c-ccg.github.io/did-method-key/):
// "did:key:z", then the base58btc of the key's multicodec prefix (0xed 0x01)
// followed by its 32 bytes. It also signs a Trust Layer bind-did challenge
// with that key, and writes and reads the key's private file (PKCS #8 in
// PEM, as openssl genpkey -algorithm ed25519 writes it).
//
// One implementation for everyone who writes or reads a did:key here: the
// Trust Layer stand-in (harness/trustlayer) resolving the DID it binds, and
// a participant's proveit did-key. The cryptography is the standard
// library's crypto/ed25519; this package only encodes.
package didkey

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Prefix starts every did:key this package writes: the method, and z, the
// multibase code of base58btc.
const Prefix = "did:key:z"

// ed25519Multicodec is the multicodec of an Ed25519 public key (0xed, as
// an unsigned varint), which the encoded bytes start with.
var ed25519Multicodec = []byte{0xed, 0x01}

// Encode is the did:key of an Ed25519 public key.
func Encode(pub ed25519.PublicKey) string {
	return Prefix + base58Encode(append(slices.Clone(ed25519Multicodec), pub...))
}

// Decode is the Ed25519 public key a did:key encodes; an error for any
// other DID, another key type or a malformed value.
func Decode(did string) (ed25519.PublicKey, error) {
	value, ok := strings.CutPrefix(did, Prefix)
	if !ok {
		return nil, errors.New("not a did:key in base58btc (did:key:z...)")
	}
	raw, err := base58Decode(value)
	if err != nil {
		return nil, fmt.Errorf("did:key: %w", err)
	}
	key, ok := strings.CutPrefix(string(raw), string(ed25519Multicodec))
	if !ok || len(key) != ed25519.PublicKeySize {
		return nil, errors.New("did:key: not an Ed25519 key (multicodec 0xed01, 32 bytes)")
	}
	return ed25519.PublicKey(key), nil
}

// New draws an Ed25519 key and returns its did:key and the private key.
func New() (string, ed25519.PrivateKey) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		panic(err) // crypto/rand never fails (Go 1.24)
	}
	return Encode(pub), priv
}

// SignChallenge is the signature Trust Layer's POST
// /v1/keys/bind-did/confirm wants of a challenge: Ed25519 over the
// challenge's UTF-8 bytes, in base64url without padding.
func SignChallenge(priv ed25519.PrivateKey, challenge string) string {
	return base64.RawURLEncoding.EncodeToString(ed25519.Sign(priv, []byte(challenge)))
}

// pemType is the PEM block of a PKCS #8 private key.
const pemType = "PRIVATE KEY"

// MarshalPrivateKey writes a private key as its file holds it: PKCS #8 in
// PEM. The season service's receipt key is kept the same way
// (seasonservice.ReadReceiptKey), one Ed25519 key file format for both.
func MarshalPrivateKey(priv ed25519.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: pemType, Bytes: der}), nil
}

// ParsePrivateKey reads an Ed25519 private key written as
// MarshalPrivateKey (or openssl genpkey -algorithm ed25519) writes it. Its
// errors never quote a byte of data.
func ParsePrivateKey(data []byte) (ed25519.PrivateKey, error) {
	block, _ := pem.Decode(data)
	if block == nil || block.Type != pemType {
		return nil, errors.New(`want a PEM "PRIVATE KEY" block (openssl genpkey -algorithm ed25519)`)
	}
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, errors.New("not a PKCS #8 private key")
	}
	priv, ok := key.(ed25519.PrivateKey)
	if !ok {
		return nil, errors.New("not an Ed25519 key")
	}
	return priv, nil
}

const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// base58Encode is base58btc (Bitcoin's alphabet), each leading zero byte
// written as a '1'.
func base58Encode(data []byte) string {
	zeros := 0
	for zeros < len(data) && data[zeros] == 0 {
		zeros++
	}
	// log(256)/log(58) < 1.37: enough digits for any value.
	digits := make([]byte, 0, len(data)*137/100+1)
	for _, b := range data[zeros:] {
		carry := int(b)
		for i := range digits {
			carry += int(digits[i]) << 8
			digits[i] = byte(carry % 58)
			carry /= 58
		}
		for carry > 0 {
			digits = append(digits, byte(carry%58))
			carry /= 58
		}
	}
	out := make([]byte, 0, zeros+len(digits))
	for range zeros {
		out = append(out, '1')
	}
	for i := len(digits) - 1; i >= 0; i-- {
		out = append(out, base58Alphabet[digits[i]])
	}
	return string(out)
}

// base58Decode reads base58btc; an empty value, or one longer than any
// did:key's, is refused.
func base58Decode(s string) ([]byte, error) {
	if s == "" || len(s) > 128 {
		return nil, errors.New("empty or too long a base58 value")
	}
	zeros := 0
	for zeros < len(s) && s[zeros] == '1' {
		zeros++
	}
	var bytes []byte // little-endian
	for i := zeros; i < len(s); i++ {
		carry := strings.IndexByte(base58Alphabet, s[i])
		if carry < 0 {
			return nil, fmt.Errorf("%q is not a base58btc digit", s[i])
		}
		for j := range bytes {
			carry += int(bytes[j]) * 58
			bytes[j] = byte(carry)
			carry >>= 8
		}
		for carry > 0 {
			bytes = append(bytes, byte(carry))
			carry >>= 8
		}
	}
	out := make([]byte, zeros, zeros+len(bytes))
	for i := len(bytes) - 1; i >= 0; i-- {
		out = append(out, bytes[i])
	}
	return out, nil
}
