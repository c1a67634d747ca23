package seasonservice

import (
	"crypto/ed25519"
	"fmt"
	"path/filepath"

	"github.com/arkforge/proveit-corpus/tools/didkey"
	"github.com/arkforge/proveit-corpus/tools/proofs"
)

// receiptKeyLimit bounds a receipt key's file: a PEM block of a few
// hundred bytes.
var receiptKeyLimit = proofs.Limit{What: "a receipt key", Bytes: 64 << 10}

// ReadReceiptKey reads the season's receipt key, an Ed25519 private key,
// PKCS #8 in PEM (openssl genpkey -algorithm ed25519). Its errors name the
// file, never a byte of it.
func ReadReceiptKey(path string) (ed25519.PrivateKey, error) {
	data, err := proofs.ReadFolderFile(filepath.Dir(path), filepath.Base(path), receiptKeyLimit)
	if err != nil {
		return nil, err
	}
	priv, err := didkey.ParsePrivateKey(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return priv, nil
}

// NewReceiptKey draws a season's receipt key and returns it as
// ReadReceiptKey reads it (PKCS #8 in PEM), with its public half.
func NewReceiptKey() (pemBytes []byte, public ed25519.PublicKey, err error) {
	public, private, err := ed25519.GenerateKey(nil) // crypto/rand
	if err != nil {
		return nil, nil, err
	}
	pemBytes, err = didkey.MarshalPrivateKey(private)
	return pemBytes, public, err
}
