package main

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/tools/seal"
)

// runSeal prints the pre-registration record: the manifest's SHA-256 and the
// commitment sha256(salt || key) with a fresh salt, which is printed once and
// written nowhere. It never prints an unsalted hash of the key. With -verify, it checks a revealed salt and key against a
// commitment.
func runSeal(args []string, stdout io.Writer) error {
	fs := newFlagSet("seal")
	manifestFile := fs.String("manifest", "manifest/conformite.json", "manifest file")
	keyFile := fs.String("key", "corpus/saison-1/cle.json", "answer key file")
	verify := fs.Bool("verify", false, "check -salt and -key against -commitment instead of sealing")
	saltHex := fs.String("salt", "", "with -verify: the revealed salt, in hex")
	commitment := fs.String("commitment", "", "with -verify: the anchored commitment, in hex")
	if err := fs.Parse(args); err != nil {
		return err
	}
	key, err := os.ReadFile(*keyFile)
	if err != nil {
		return err
	}
	if *verify {
		if *saltHex == "" || *commitment == "" {
			return fmt.Errorf("-verify needs -salt and -commitment")
		}
		switch err := seal.Verify(*saltHex, *commitment, key); {
		case errors.Is(err, seal.ErrMismatch):
			fmt.Fprintf(stdout, "MISMATCH sha256(salt || %s) is not %s\n", *keyFile, *commitment)
			return errFailed
		case err != nil:
			return err
		}
		fmt.Fprintf(stdout, "OK sha256(salt || %s) = %s\n", *keyFile, *commitment)
		return nil
	}
	_, manifestBytes, err := manifest.ReadFile(*manifestFile)
	if err != nil {
		return err
	}
	rec := seal.New(manifestBytes, key)
	fmt.Fprintf(stdout, "pre-registration record\n")
	fmt.Fprintf(stdout, "  manifest         %s\n", *manifestFile)
	fmt.Fprintf(stdout, "  manifest_sha256  %s   (anchor)\n", rec.ManifestSHA256)
	fmt.Fprintf(stdout, "  key              %s\n", *keyFile)
	fmt.Fprintf(stdout, "  key_commitment   %s   (anchor: sha256(salt || key))\n", rec.Commitment)
	fmt.Fprintf(stdout, "  salt             %s\n", hex.EncodeToString(rec.Salt))
	fmt.Fprintf(stdout, "The salt is shown here once and written nowhere: store it with the sealed key and reveal both at the season's close.\n")
	return nil
}
