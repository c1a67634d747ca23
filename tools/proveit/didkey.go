package main

import (
	"crypto/ed25519"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/arkforge/proveit-corpus/tools/didkey"
	"github.com/arkforge/proveit-corpus/tools/privatefile"
	"github.com/arkforge/proveit-corpus/tools/proofs"
)

// didKeyLimit bounds a did:key's private file: a PEM block of about a
// hundred bytes.
var didKeyLimit = proofs.Limit{What: "a did:key's private key", Bytes: 64 << 10}

// runDIDKey is a participant's did:key, the identity Trust Layer binds to
// its key (docs/participating.md): -new draws an Ed25519 key into a new
// private file and prints its did:key; -key prints the did:key of a key
// drawn before, and with -sign the signature of a bind-did challenge that
// POST /v1/keys/bind-did/confirm wants. Each prints one line, the value
// alone, for a person to copy or a shell to read.
func runDIDKey(args []string, stdout io.Writer) error {
	fs := newFlagSet("did-key")
	newFile := fs.String("new", "", "draw an Ed25519 key into this new `file` (outside every work tree; never overwritten) and print its did:key")
	keyFile := fs.String("key", "", "the private key's `file`, as -new wrote it (PKCS #8 in PEM): print its did:key, or with -sign a signature")
	challenge := fs.String("sign", "", "with -key, print the signature of this bind-did `challenge`: Ed25519 over its UTF-8 bytes, base64url without padding")
	if err := fs.Parse(args); err != nil {
		return err
	}
	signing := false
	fs.Visit(func(f *flag.Flag) { signing = signing || f.Name == "sign" })
	switch {
	case *newFile != "" && *keyFile != "":
		return badUsage(errors.New("-new draws a key, -key reads one: give one of them"))
	case *newFile == "" && *keyFile == "":
		return badUsage(errors.New("give -new FILE to draw a key, or -key FILE to read one"))
	case signing && *keyFile == "":
		return badUsage(errors.New("-sign needs -key: the key that signs the challenge"))
	case signing && *challenge == "":
		return badUsage(errors.New("-sign: the challenge is empty; give the one POST /v1/keys/bind-did answered"))
	}

	if *newFile != "" {
		did, priv := didkey.New()
		data, err := didkey.MarshalPrivateKey(priv)
		if err != nil {
			return err
		}
		if err := privatefile.Create(*newFile, data); err != nil {
			return badInput(err)
		}
		fmt.Fprintln(stdout, did)
		return nil
	}
	file, err := readFile(*keyFile, didKeyLimit)
	if err != nil {
		return badInput(err)
	}
	priv, err := didkey.ParsePrivateKey(file.Data)
	if err != nil {
		return badInput(fmt.Errorf("%s: %w", file.Name, err))
	}
	if signing {
		fmt.Fprintln(stdout, didkey.SignChallenge(priv, *challenge))
		return nil
	}
	fmt.Fprintln(stdout, didkey.Encode(priv.Public().(ed25519.PublicKey)))
	return nil
}
