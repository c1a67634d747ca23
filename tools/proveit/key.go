package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/solver"
)

// keyHelp is the key command's help, above its flags.
const keyHelp = `usage: proveit key [-track T] [-design F -tasks F -tree D -key F] [-check] [-v]

Writes each track's answer key from its design: the one file the authors
write by hand, corpus/saison-1/conception.json (conception-generique.json
for the purchasing track). A design states, per task, only what is the
authors' to decide: the verdict, the trap families, the control flag and,
for a conforme or product verdict, the facts of its trap ("faits", as
resource and field), or for the control task the criteria any one of which
proven whole founds it ("un_de", groups of facts). Everything else is
derived by the reference solver from the served bytes: for non_conforme and
indeterminable, one alternative per criterion that decides the verdict; for
aucune_option_valide, every candidate excluded by any one of the rules that
exclude it; for a product, its standing against each candidate supplied or
displayed cheaper (the rules that exclude it, or the terms that show it
dearer); every fact with its values and every equivalent form.

It fails (exit 1), naming the task and why, where the corpus does not bear
the design out: another verdict, a named fact the verdict does not rest on,
a case that rests on nothing an assertion can state; or where the key it
derives breaks a rule of the founding formula that proveit solve checks
(no room under a ceiling, a control alternative beyond the minimum). With -check it writes
nothing and fails when the key on disk is not the one the design derives.
The key is then sealed (proveit seal) and checked (proveit solve).

Flags:
`

// runKey writes, or with -check compares, each track's key derived from its
// design.
func runKey(args []string, stdout io.Writer) error {
	fs := newFlagSet("key")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), keyHelp)
		fs.PrintDefaults()
	}
	var c corpusFlags
	c.register(fs, "tree", "tasks", "key")
	designFile := fs.String("design", "", "the authors' design (default corpus/saison-1/conception<-track>.json)")
	check := fs.Bool("check", false, "write nothing; fail when the key on disk differs from the derived one")
	verbose := fs.Bool("v", false, "print each task's number of alternatives and smallest founding set")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return badInput(fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if given["design"] && c.track == "" {
		return badInput(fmt.Errorf("-design names one track's file: say which with -track"))
	}
	return forEachTrack(&c, func(t trackFiles) error {
		tasks, err := readTasks(t)
		if err != nil {
			return badInput(err)
		}
		path := season.DesignFile(t.track)
		if given["design"] {
			path = *designFile
		}
		design, err := season.ReadDesign(path, t.track.Name)
		if err != nil {
			return badInput(err)
		}
		fetch := solver.ServeTree(os.DirFS(t.tree))
		key, problems, err := solver.DeriveKey(tasks, design, fetch)
		if err != nil {
			return err
		}
		if len(problems) == 0 && !*check {
			// A key the design derives must still meet every rule of the
			// formula (room under each ceiling, the control task's
			// alternatives within its minimum): refused, it is not written.
			// With -check the key on disk must be this one, and proveit
			// solve checks that key against the same rules.
			results, err := solver.SolveSeason(tasks, fetch)
			if err != nil {
				return err
			}
			if problems, err = solver.CheckKey(tasks, key, results, fetch); err != nil {
				return err
			}
		}
		if err := reportProblems(stdout, problems); err != nil {
			return err
		}
		data, err := key.Encode()
		if err != nil {
			return err
		}
		if *verbose {
			for _, k := range key.Tasks {
				smallest, err := k.Founding.Smallest()
				if err != nil {
					return err
				}
				alternatives, err := k.Founding.Alternatives()
				if err != nil {
					return err
				}
				fmt.Fprintf(stdout, "%s  %s  %d alternatives, smallest founding set %d:\n", k.ID, k.Verdict, len(alternatives), len(smallest))
				for _, f := range smallest {
					fmt.Fprintf(stdout, "    %s %s = %s\n", f.Resource, f.Field, f.Value)
				}
			}
		}
		if *check {
			onDisk, err := os.ReadFile(t.key)
			if err != nil {
				return err
			}
			if !bytes.Equal(onDisk, data) {
				fmt.Fprintf(stdout, "FAIL %s is not the key %s derives: run proveit key -track %s\n", t.key, path, t.track.Name)
				return errFailed
			}
			fmt.Fprintf(stdout, "OK %s is the key %s derives\n", t.key, path)
			return nil
		}
		if err := os.WriteFile(t.key, data, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s from %s (%d tasks)\n", t.key, path, len(key.Tasks))
		return nil
	})
}
