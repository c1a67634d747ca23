package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/arkforge/proveit-corpus/manifest"
)

func runVerify(args []string, stdout io.Writer) error {
	fs := newFlagSet("verify")
	var c corpusFlags
	c.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	return forEachTrack(&c, func(t trackFiles) error { return verifyTrack(t, stdout) })
}

// verifyTrack checks that a track's manifest file is byte for byte the
// manifest the tree builds to, at the manifest's origin. Equal bytes prove
// every entry (each hash is recomputed from the tree's bytes by the build),
// so the tree is read and hashed once, and the file need not be decoded;
// only when they differ is every entry checked on its own, to name each
// problem.
func verifyTrack(t trackFiles, stdout io.Writer) error {
	// The tree is built at the origin the file's header names, the one field
	// the build needs; the file is then read as it is compared.
	origin, haveOrigin := headerOrigin(t.manifest)
	var rebuilt *manifest.Manifest
	var buildErr error
	if haveOrigin {
		rebuilt, buildErr = buildManifest(t, origin)
		if buildErr == nil && rebuilt.CheckHeader() == nil {
			same, sum, err := encodesToFile(rebuilt, t.manifest)
			if err != nil {
				return err
			}
			if same {
				// Equal bytes are still refused where Decode would refuse
				// them: a tree without its fixed bodies builds a manifest
				// no server may load.
				if err := rebuilt.CheckShape(); err != nil {
					return checkFailed(fmt.Errorf("%s: %w", t.manifest, err))
				}
				fmt.Fprintf(stdout, "OK %d entries of %s match %s (manifest sha256 %s)\n", len(rebuilt.Resources), t.manifest, t.tree, sum)
				return nil
			}
		}
	}
	m, data, err := manifest.ReadFile(t.manifest)
	if err != nil {
		return err
	}
	if !haveOrigin || origin != m.Origin {
		rebuilt, buildErr = buildManifest(t, m.Origin)
	}
	if m.Piste != t.track.Name {
		fmt.Fprintf(stdout, "FAIL %s: piste %q, want %q\n", t.manifest, m.Piste, t.track.Name)
	}
	_, err = m.Check(manifest.Dir(t.tree), manifest.Full)
	var mismatch *manifest.MismatchError
	switch {
	case errors.As(err, &mismatch):
		for _, p := range mismatch.Problems {
			fmt.Fprintf(stdout, "FAIL %s\n", p)
		}
	case err != nil:
		return err
	}
	// The manifest must also be exactly the one the tree builds to: this
	// catches a cited absence without its entry, a stale origin, an order.
	if buildErr != nil {
		fmt.Fprintf(stdout, "FAIL cannot rebuild the manifest: %v\n", buildErr)
	} else if same, _ := encodesTo(rebuilt, bytes.NewReader(data)); !same {
		fmt.Fprintf(stdout, "FAIL %s is not byte for byte the manifest the tree builds to (run proveit manifest and review the diff)\n", t.manifest)
	}
	return errFailed
}

// headerOrigin reads the origin of a manifest file from the fields before
// its resources, where Encode writes it, without reading the rest.
func headerOrigin(file string) (string, bool) {
	f, err := os.Open(file)
	if err != nil {
		return "", false
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return "", false
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil || key == "resources" {
			return "", false
		}
		if key == "origin" {
			var origin string
			err := dec.Decode(&origin)
			return origin, err == nil
		}
		var skipped json.RawMessage
		if err := dec.Decode(&skipped); err != nil {
			return "", false
		}
	}
	return "", false
}

// encodesToFile reports whether m encodes to exactly the bytes of file, and
// returns their SHA-256.
func encodesToFile(m *manifest.Manifest, file string) (same bool, sum string, err error) {
	f, err := os.Open(file)
	if err != nil {
		return false, "", err
	}
	defer f.Close()
	h := sha256.New()
	same, err = encodesTo(m, io.TeeReader(f, h))
	return same, manifest.HexSHA256([sha256.Size]byte(h.Sum(nil))), err
}
