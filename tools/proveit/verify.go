package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/tree"
	"github.com/arkforge/proveit-corpus/manifest/verify"
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

// verifyTrack checks that a track's manifest file is the manifest its tree
// builds to: the comparison at Full depth (every file changed, missing or
// extra, every hash recomputed, every reference the tree or the statements
// cite with its entry and every absent entry cited), then the file's bytes
// as Encode writes them. The two together leave nothing in which the file
// and `proveit manifest`'s could differ, with the tree read and hashed once.
func verifyTrack(t trackFiles, stdout io.Writer) error {
	data, err := os.ReadFile(t.manifest)
	if err != nil {
		return err
	}
	citations := []string{}
	if t.tasks != "" {
		tasks, err := readTasks(t)
		if err != nil {
			return err
		}
		citations = tasks.Citations()
	}
	file, err := verify.CheckFile(data, tree.Dir(t.tree), t.track, citations)
	var shape *manifest.ShapeError
	var mismatch *verify.MismatchError
	switch {
	case errors.As(err, &shape):
		// JSON of the right fields that no server would load, such as the
		// build of a tree without its fixed bodies.
		return checkFailed(fmt.Errorf("%s: %w", t.manifest, err))
	case file == nil:
		return fmt.Errorf("%s: %w", t.manifest, err)
	case errors.As(err, &mismatch):
		for _, p := range mismatch.Problems {
			fmt.Fprintf(stdout, "FAIL %s\n", p)
		}
	case err != nil:
		return err
	}
	if !file.Canonical {
		fmt.Fprintf(stdout, "FAIL %s is not byte for byte the manifest the tree builds to (run proveit manifest and review the diff)\n", t.manifest)
	}
	if err != nil || !file.Canonical {
		return errFailed
	}
	fmt.Fprintf(stdout, "OK %d entries of %s match %s (manifest sha256 %s)\n", len(file.Manifest.Resources), t.manifest, t.tree, file.SHA256)
	return nil
}
