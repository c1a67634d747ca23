package main

import (
	"bytes"
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

// verifyTrack checks one track's tree against its manifest, hash for hash,
// and the manifest against the one the tree builds to, byte for byte.
func verifyTrack(t trackFiles, stdout io.Writer) error {
	m, data, err := manifest.ReadFile(t.manifest)
	if err != nil {
		return err
	}
	failed := false
	if m.Piste != t.track.Name {
		fmt.Fprintf(stdout, "FAIL %s: piste %q, want %q\n", t.manifest, m.Piste, t.track.Name)
		failed = true
	}
	_, err = m.Check(os.DirFS(t.tree), manifest.Full)
	var mismatch *manifest.MismatchError
	switch {
	case errors.As(err, &mismatch):
		for _, p := range mismatch.Problems {
			fmt.Fprintf(stdout, "FAIL %s\n", p)
		}
		failed = true
	case err != nil:
		return err
	}
	// The manifest must also be exactly the one the tree builds to: this
	// catches a cited absence without its entry, a stale origin, an order.
	if rebuilt, err := buildManifest(t, m.Origin); err != nil {
		fmt.Fprintf(stdout, "FAIL cannot rebuild the manifest: %v\n", err)
		failed = true
	} else if !bytes.Equal(rebuilt, data) {
		fmt.Fprintf(stdout, "FAIL %s is not byte for byte the manifest the tree builds to (run proveit manifest and review the diff)\n", t.manifest)
		failed = true
	}
	if failed {
		return errFailed
	}
	fmt.Fprintf(stdout, "OK %d entries of %s match %s (manifest sha256 %s)\n", len(m.Resources), t.manifest, t.tree, manifest.SHA256(data))
	return nil
}
