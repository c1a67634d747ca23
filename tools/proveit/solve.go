package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/solver"
)

// runSolve answers every task statement with the reference solver and, given
// the answer key, checks it against the solver and the track's rules.
func runSolve(args []string, stdout io.Writer) error {
	fs := newFlagSet("solve")
	tree := fs.String("tree", "corpus/conformite", "corpus tree (the served folder)")
	tasksFile := fs.String("tasks", "corpus/saison-1/taches.json", "task statements")
	keyFile := fs.String("key", "corpus/saison-1/cle.json", "answer key to check (empty: none)")
	verbose := fs.Bool("v", false, "print each task's criteria, calls and facts")
	if err := fs.Parse(args); err != nil {
		return err
	}
	tasks, err := season.ReadTasks(*tasksFile)
	if err != nil {
		return err
	}
	fetch := solver.ServeTree(os.DirFS(*tree))
	results, err := solver.SolveSeason(tasks, fetch)
	if err != nil {
		return err
	}
	for _, res := range results {
		outcomes := make([]string, len(res.Criteria))
		for i, c := range res.Criteria {
			outcomes[i] = c.Code + " " + string(c.Outcome)
		}
		fmt.Fprintf(stdout, "%s  %-14s  %2d calls  %s\n", res.Task, res.Verdict, len(res.Calls), strings.Join(outcomes, ", "))
		if *verbose {
			for _, c := range res.Criteria {
				fmt.Fprintf(stdout, "    %s %s: %s\n", c.Code, c.Outcome, c.Reason)
			}
			fmt.Fprintf(stdout, "    calls: %s\n", strings.Join(res.Calls, " "))
			for _, f := range res.Facts {
				fmt.Fprintf(stdout, "    fact:  %s\n", f)
			}
		}
	}
	if *keyFile == "" {
		return nil
	}
	key, err := season.ReadKey(*keyFile)
	if err != nil {
		return err
	}
	problems, err := solver.CheckKey(tasks, key, results, fetch)
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintf(stdout, "FAIL %s\n", p)
		}
		return errFailed
	}
	fmt.Fprintf(stdout, "OK %s agrees with the solver on %d tasks and meets the season's composition\n", *keyFile, len(results))
	return nil
}
