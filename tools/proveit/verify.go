package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"

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
// so the tree is read and hashed once; only when they differ is every entry
// checked on its own, to name each problem.
func verifyTrack(t trackFiles, stdout io.Writer) error {
	m, data, err := manifest.ReadFile(t.manifest)
	if err != nil {
		return err
	}
	header := m.CheckHeader()
	rebuilt, buildErr := buildManifest(t, m.Origin)
	if m.Piste == t.track.Name && header == nil && buildErr == nil && bytes.Equal(rebuilt, data) {
		fmt.Fprintf(stdout, "OK %d entries of %s match %s (manifest sha256 %s)\n", len(m.Resources), t.manifest, t.tree, manifest.SHA256(data))
		return nil
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
	} else if !bytes.Equal(rebuilt, data) {
		fmt.Fprintf(stdout, "FAIL %s is not byte for byte the manifest the tree builds to (run proveit manifest and review the diff)\n", t.manifest)
	}
	return errFailed
}
