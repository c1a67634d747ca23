package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/arkforge/proveit-corpus/tools/index"
)

// runIndex builds the season's Index from its folder, or with -check
// re-derives a published one and names each cell that differs
// (docs/scoring.md, "Publishing the Index").
func runIndex(args []string, stdout io.Writer) error {
	fs := newFlagSet("index")
	var o index.Options
	var site, check string
	fs.StringVar(&o.Season, "season", "", "the season's folder, as its close hands it over (required)")
	fs.StringVar(&site, "o", "", "the folder the site is written to (required to build)")
	fs.StringVar(&check, "check", "", "re-derive the site published in this folder instead, and name each cell that differs")
	fs.BoolVar(&o.DryRun, "dry-run", false, "build from files no record anchors, before the close if need be; every page says in its first line it is not a publication")
	fs.StringVar(&o.TrustDir, "trust", "", "trust material laid out as tools/proofs/trust (default: <season>/trust when present, else the one the repository pins)")
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
		diffs, err := index.Check(o, check)
		if err != nil {
			return badInput(err)
		}
		for _, d := range diffs {
			fmt.Fprintf(stdout, "DIFFERS %s\n", d)
		}
		if len(diffs) > 0 {
			return checkFailed(fmt.Errorf("%d cells differ from the replay", len(diffs)))
		}
		fmt.Fprintf(stdout, "OK %s: every cell is the replay's\n", check)
		return nil
	}
	if err := index.Build(o, site); err != nil {
		return badInput(err)
	}
	fmt.Fprintln(stdout, site+"/index.html")
	return nil
}
