package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	proveitcorpus "github.com/arkforge/proveit-corpus"
	"github.com/arkforge/proveit-corpus/internal/printable"
	"github.com/arkforge/proveit-corpus/tools/index"
)

// runIndex builds the season's Index from its folder, or with -check
// re-derives a published one and names each cell that differs
// (docs/scoring.md, "Publishing the Index").
func runIndex(args []string, stdout io.Writer) error {
	fs := newFlagSet("index")
	o := index.Options{Version: proveitcorpus.Version()} // every page names the tool that built it
	var site, check string
	fs.StringVar(&o.Season, "season", "", "the season's folder, as its close hands it over (required)")
	fs.StringVar(&site, "o", "", "the folder the site is written to (required to build)")
	fs.StringVar(&check, "check", "", "re-derive the site published in this folder instead, and name each cell that differs")
	fs.BoolVar(&o.DryRun, "dry-run", false, "build from files no record anchors, before the close if need be; every page says in its first line it is not a publication")
	fs.StringVar(&o.TrustDir, "trust", "", trustUsage+"; never a folder of the season's")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: proveit index -season DIR -o SITE [-dry-run] [-trust DIR]")
		fmt.Fprintln(fs.Output(), "       proveit index -check SITE -season DIR [-dry-run] [-trust DIR]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case o.Season == "":
		return badUsage(errors.New("-season is required: the season's folder"))
	case site == "" && check == "":
		return badUsage(errors.New("say where: -o SITE to build, or -check SITE to re-derive"))
	case site != "" && check != "":
		return badUsage(errors.New("-o builds and -check re-derives: give one"))
	}
	if err := requireFolder("-season", o.Season); err != nil {
		return err
	}
	if check != "" {
		if err := requireFolder("-check", check); err != nil {
			return err
		}
		// Each difference is written as it is found: a site of any size
		// is checked in bounded memory.
		n, err := index.Check(o, check, func(d index.Difference) { fmt.Fprintf(stdout, "DIFFERS %s\n", d) })
		if err != nil {
			return oneLine(err)
		}
		if n > 0 {
			return checkFailed(fmt.Errorf("%d cells differ from the replay", n))
		}
		fmt.Fprintf(stdout, "OK %s: every cell is the replay's\n", printable.String(check))
		return nil
	}
	if err := index.Build(o, site); err != nil {
		return oneLine(err)
	}
	fmt.Fprintln(stdout, printable.String(filepath.Join(site, "index.html")))
	return nil
}

// oneLine is a refusal of the Index on one line of printable text, a
// file or folder name with a line break of its own included.
func oneLine(err error) error {
	return badInput(errors.New(printable.String(err.Error())))
}
