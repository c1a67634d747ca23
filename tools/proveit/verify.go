package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/arkforge/proveit-corpus/manifest"
)

// runVerify checks that the manifest file is byte for byte the manifest the
// tree builds to, at the manifest's origin. Equal bytes prove every entry
// (each hash is recomputed from the tree's bytes by the build), so the tree
// is read and hashed once; only when they differ is every entry checked on
// its own, to name each problem.
func runVerify(args []string, stdout io.Writer) error {
	fs := newFlagSet("verify")
	var c corpusFlags
	c.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	m, data, err := manifest.ReadFile(c.manifest)
	if err != nil {
		return err
	}
	header := m.CheckHeader()
	rebuilt, buildErr := buildManifest(c, m.Origin)
	if header == nil && buildErr == nil && bytes.Equal(rebuilt, data) {
		fmt.Fprintf(stdout, "OK %d entries of %s match %s (manifest sha256 %s)\n", len(m.Resources), c.manifest, c.tree, manifest.SHA256(data))
		return nil
	}
	_, err = m.Check(manifest.Dir(c.tree), manifest.Full)
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
		fmt.Fprintf(stdout, "FAIL %s is not byte for byte the manifest the tree builds to (run proveit manifest and review the diff)\n", c.manifest)
	}
	return errFailed
}
