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

// runSeal prints the pre-registration record of each track: the manifest's
// SHA-256 and the commitment sha256(salt || key) with a fresh salt, which is
// printed once and written nowhere. Of the key it prints nothing else: an
// unsalted hash of ten verdicts could be brute-forced. With -verify, it
// checks a revealed salt and key against a commitment.
func runSeal(args []string, stdout io.Writer) error {
	fs := newFlagSet("seal")
	var c corpusFlags
	c.register(fs, "manifest", "key")
	verify := fs.Bool("verify", false, "check -salt and the track's key against -commitment instead of sealing (needs -track)")
	saltHex := fs.String("salt", "", "with -verify: the revealed salt, in hex")
	commitment := fs.String("commitment", "", "with -verify: the anchored commitment, in hex")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *verify && c.track == "" {
		return fmt.Errorf("-verify checks one track's key: say which with -track")
	}
	return forEachTrack(&c, func(t trackFiles) error {
		key, err := os.ReadFile(t.key)
		if err != nil {
			return err
		}
		if *verify {
			if *saltHex == "" || *commitment == "" {
				return fmt.Errorf("-verify needs -salt and -commitment")
			}
			switch err := seal.Verify(*saltHex, *commitment, key); {
			case errors.Is(err, seal.ErrMismatch):
				fmt.Fprintf(stdout, "MISMATCH sha256(salt || %s) is not %s\n", t.key, *commitment)
				return errFailed
			case err != nil:
				return err
			}
			fmt.Fprintf(stdout, "OK sha256(salt || %s) = %s\n", t.key, *commitment)
			return nil
		}
		m, manifestBytes, err := manifest.ReadFile(t.manifest)
		if err != nil {
			return err
		}
		if m.Piste != t.track.Name {
			return fmt.Errorf("%s: piste %q, want %q", t.manifest, m.Piste, t.track.Name)
		}
		rec := seal.New(m.Piste, manifestBytes, key)
		fmt.Fprintf(stdout, "pre-registration record, track %s\n", rec.Piste)
		fmt.Fprintf(stdout, "  manifest         %s\n", t.manifest)
		fmt.Fprintf(stdout, "  manifest_sha256  %s   (anchor)\n", rec.ManifestSHA256)
		fmt.Fprintf(stdout, "  key              %s\n", t.key)
		fmt.Fprintf(stdout, "  key_commitment   %s   (anchor: sha256(salt || key))\n", rec.Commitment)
		fmt.Fprintf(stdout, "  salt             %s\n", hex.EncodeToString(rec.Salt))
		fmt.Fprintf(stdout, "The salt is shown here once and written nowhere: store it with the sealed key and reveal both at the season's close.\n")
		return nil
	})
}
