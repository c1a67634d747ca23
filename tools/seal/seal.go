// Package seal makes and checks the pre-registration record of each track of
// a season (specification section 8), one record per track since the tracks
// are never aggregated: the SHA-256 of the manifest, which is the
// corpus's identity, and the commitment sha256(salt || key) to the sealed
// answer key, with a fresh random 32-byte salt. Without the salt, a key of
// ten verdicts among three could be found from its hash by brute force; the
// salt is shown once and revealed with the key at the season's close.
package seal

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/arkforge/proveit-corpus/manifest"
)

// SaltSize is the length of the salt in bytes.
const SaltSize = 32

// Record is what is anchored before the season, plus the salt that stays
// secret until its close.
type Record struct {
	Piste          string // the track, as its manifest names it
	ManifestSHA256 string // anchored: the identity of the corpus
	Commitment     string // anchored: sha256(salt || key)
	Salt           []byte // kept secret, revealed with the key
}

// New seals a track's manifest and key with a fresh salt. The record holds
// no unsalted hash of the key: from one, a key of ten verdicts among three
// is found by brute force.
func New(piste string, manifestBytes, key []byte) Record {
	salt := NewSalt()
	return Record{
		Piste:          piste,
		ManifestSHA256: manifest.SHA256(manifestBytes),
		Commitment:     Commit(salt, key),
		Salt:           salt,
	}
}

// NewSalt returns SaltSize bytes from the operating system's secure random
// source.
func NewSalt() []byte {
	salt := make([]byte, SaltSize)
	rand.Read(salt) // never fails since Go 1.24: it crashes the program instead
	return salt
}

// Commit is the commitment to a key: the lowercase hex sha256(salt || key).
func Commit(salt, key []byte) string {
	return manifest.SHA256(append(append(make([]byte, 0, len(salt)+len(key)), salt...), key...))
}

// ErrMismatch is returned when a key and salt do not open a commitment.
var ErrMismatch = errors.New("the key and salt do not open the commitment")

// Verify checks that salt and key open a commitment, as anyone can once both
// are revealed. saltHex must be SaltSize bytes in hex; commitment 64 hex
// digits, in either case.
func Verify(saltHex, commitment string, key []byte) error {
	salt, err := ParseSalt(saltHex)
	if err != nil {
		return err
	}
	want := strings.ToLower(strings.TrimSpace(commitment))
	if !manifest.IsSHA256(want) {
		return fmt.Errorf("commitment %q is not 64 hex digits", commitment)
	}
	if Commit(salt, key) != want {
		return ErrMismatch
	}
	return nil
}

// ParseSalt reads a salt written in hex.
func ParseSalt(s string) ([]byte, error) {
	salt, err := hex.DecodeString(strings.TrimSpace(s))
	if err != nil {
		return nil, fmt.Errorf("salt is not hex: %w", err)
	}
	if len(salt) != SaltSize {
		return nil, fmt.Errorf("salt is %d bytes, want %d", len(salt), SaltSize)
	}
	return salt, nil
}
