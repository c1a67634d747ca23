package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/tools/season"
)

func runManifest(args []string, stdout io.Writer) error {
	fs := newFlagSet("manifest")
	var c corpusFlags
	c.register(fs)
	origin := fs.String("origin", manifest.DefaultOrigin, "origin agents reach the corpus at")
	check := fs.Bool("check", false, "do not write: fail if the manifest file differs from the one built")
	if err := fs.Parse(args); err != nil {
		return err
	}
	built, err := buildManifest(c, *origin)
	if err != nil {
		return err
	}
	if *check {
		current, err := os.ReadFile(c.manifest)
		if err != nil {
			return err
		}
		if !bytes.Equal(current, built) {
			fmt.Fprintf(stdout, "%s is not the manifest of %s: run proveit manifest\n", c.manifest, c.tree)
			return errFailed
		}
		fmt.Fprintf(stdout, "%s is up to date (sha256 %s)\n", c.manifest, manifest.SHA256(built))
		return nil
	}
	if err := os.WriteFile(c.manifest, built, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (sha256 %s)\n", c.manifest, manifest.SHA256(built))
	return nil
}

// buildManifest builds the manifest bytes of the tree, with absent entries for
// what the task statements cite.
func buildManifest(c corpusFlags, origin string) ([]byte, error) {
	// A short-lived run whose garbage is the parsed documents: collecting
	// at four times the live heap rather than twice costs memory for a
	// while and saves a good part of the time.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	var citations []string
	if c.tasks != "" {
		tasks, err := season.ReadTasks(c.tasks)
		if err != nil {
			return nil, err
		}
		citations = tasks.Citations()
	}
	m, err := manifest.Build(manifest.Dir(c.tree), corpus.Track, origin, citations)
	if err != nil {
		return nil, err
	}
	return m.Encode(), nil
}
