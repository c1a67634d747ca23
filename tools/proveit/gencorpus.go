package main

import (
	"fmt"
	"io"

	"github.com/arkforge/proveit-corpus/tools/gencorpus"
)

// runGencorpus writes a synthetic corpus of the track's schema and its
// manifest, for benchmarks: the same size and seed give the same bytes.
func runGencorpus(args []string, stdout io.Writer) error {
	fs := newFlagSet("gencorpus")
	n := fs.Int("n", 100_000, "number of resources (files of the tree)")
	out := fs.String("o", "", "folder to write into: the tree goes to <o>/conformite, the manifest to <o>/conformite.json")
	seed := fs.Uint64("seed", 1, "seed of the generator")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" {
		return badUsage(fmt.Errorf("-o: want the folder to write into"))
	}
	r, err := gencorpus.Write(*out, gencorpus.Options{Resources: *n, Seed: *seed})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d files (%d bytes) to %s and %d manifest entries to %s\n", r.Files, r.Bytes, r.Tree, r.Entries, r.Manifest)
	return nil
}
