package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/tools/catalogue"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// catalogueDir holds the catalogue of each track, <piste>.md and
// <piste>.json, published at the opening with the statements.
const catalogueDir = "docs/catalogue"

// runCatalogue writes each track's catalogue, or with -check fails if a
// checked-in one is not the one built, or if any file published at the
// opening leaks what only the close may publish.
func runCatalogue(args []string, stdout io.Writer) error {
	fs := newFlagSet("catalogue")
	var c corpusFlags
	c.register(fs, "manifest", "tasks")
	dir := fs.String("o", catalogueDir, "folder of the catalogues (written: created if missing; with -check: must exist)")
	check := fs.Bool("check", false, "do not write: fail if a catalogue differs from the one built, or if a file published at the opening leaks")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *check {
		// A missing folder holds no catalogue: say so once, rather than
		// that each file of it is not the one built.
		if err := requireFolder("-o", *dir); err != nil {
			return err
		}
	}
	return forEachTrack(&c, func(t trackFiles) error {
		if t.tasks == "" {
			return badUsage(fmt.Errorf("-tasks: the catalogue is built from the statements, and checked with them"))
		}
		files, opening, err := buildCatalogue(t, *dir)
		if err != nil {
			return badInput(err)
		}
		failed := false
		for _, f := range files {
			if !*check {
				if err := os.MkdirAll(filepath.Dir(f.name), 0o755); err != nil {
					return err
				}
				if err := os.WriteFile(f.name, f.data, 0o644); err != nil {
					return err
				}
				fmt.Fprintf(stdout, "wrote %s\n", f.name)
				continue
			}
			current, err := os.ReadFile(f.name)
			switch {
			case err != nil && !os.IsNotExist(err):
				return err
			case !bytes.Equal(current, f.data):
				fmt.Fprintf(stdout, "FAIL %s is not the catalogue of %s: run proveit catalogue\n", f.name, t.manifest)
				failed = true
			default:
				fmt.Fprintf(stdout, "OK %s is up to date\n", f.name)
			}
		}
		for _, leak := range opening {
			fmt.Fprintf(stdout, "FAIL %s (published at the opening)\n", leak)
			failed = true
		}
		if failed {
			return errFailed
		}
		return nil
	})
}

type outputFile struct {
	name string
	data []byte
}

// buildCatalogue builds a track's catalogue files, and checks them with the
// statements against the opening's publication policy.
func buildCatalogue(t trackFiles, dir string) ([]outputFile, []catalogue.Leak, error) {
	m, manifestBytes, err := manifest.ReadFile(t.manifest)
	if err != nil {
		return nil, nil, err
	}
	if m.Track != t.track.Name {
		return nil, nil, fmt.Errorf("%s /piste: %q, want %q", t.manifest, m.Track, t.track.Name)
	}
	statements, err := os.ReadFile(t.tasks)
	if err != nil {
		return nil, nil, err
	}
	tasks, err := season.DecodeTasks(t.tasks, statements)
	if err != nil {
		return nil, nil, err
	}
	named := tasks.Citations()
	rulesFile := filepath.Join(t.tree, filepath.FromSlash(corpus.FileOf(t.track.Rules)))
	rulesDocument, err := os.ReadFile(rulesFile)
	if err != nil {
		return nil, nil, err
	}
	c, err := catalogue.Build(m, manifestBytes, tasks.Season, named, rulesDocument)
	if err != nil {
		return nil, nil, err
	}
	files := []outputFile{
		{filepath.Join(dir, t.track.Name+".md"), c.Markdown()},
		{filepath.Join(dir, t.track.Name+".json"), c.JSON()},
	}
	published := map[string][]byte{t.tasks: statements}
	for _, f := range files {
		published[f.name] = f.data
	}
	return files, catalogue.Opening(published, m, named), nil
}
