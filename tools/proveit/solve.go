package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/solver"
)

// runSolve answers every task statement of each track with the reference
// solver and, given the answer key, checks it against the solver and the
// track's rules.
func runSolve(args []string, stdout io.Writer) error {
	fs := newFlagSet("solve")
	var c corpusFlags
	c.register(fs, "tree", "tasks", "key")
	verbose := fs.Bool("v", false, "print each task's criteria, calls and facts")
	if err := fs.Parse(args); err != nil {
		return err
	}
	return forEachTrack(&c, func(t trackFiles) error {
		tasks, err := readTasks(t)
		if err != nil {
			return err
		}
		fetch := solver.ServeTree(os.DirFS(t.tree))
		results, err := solver.SolveSeason(tasks, fetch)
		if err != nil {
			return err
		}
		for _, res := range results {
			printResult(stdout, res, *verbose)
		}
		if t.key == "" {
			return nil
		}
		key, err := season.ReadKey(t.key)
		if err != nil {
			return err
		}
		problems, err := solver.CheckKey(tasks, key, results, fetch)
		if err != nil {
			return err
		}
		if err := reportProblems(stdout, problems); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "OK %s agrees with the solver on %d tasks, founds every deciding case in every form with room under each ceiling, and meets the season's composition\n", t.key, len(results))
		return nil
	})
}

// printResult writes one task's verdict, its calls and each criterion's
// outcome (on the purchasing track, each candidate's), with -v the reasons,
// calls and facts.
func printResult(stdout io.Writer, res *solver.Result, verbose bool) {
	outcomes := make([]string, len(res.Criteria))
	for i, c := range res.Criteria {
		outcomes[i] = c.Code + " " + string(c.Outcome)
	}
	fmt.Fprintf(stdout, "%s  %-20s  %2d calls  %s\n", res.Task, res.Verdict, len(res.Calls), strings.Join(outcomes, ", "))
	if !verbose {
		return
	}
	for _, c := range res.Criteria {
		fmt.Fprintf(stdout, "    %s %s: %s\n", c.Code, c.Outcome, c.Reason)
	}
	fmt.Fprintf(stdout, "    calls: %s\n", strings.Join(res.Calls, " "))
	for _, f := range res.Facts {
		fmt.Fprintf(stdout, "    fact:  %s\n", f)
	}
}

// reportProblems prints one FAIL line for each problem a check found, and
// returns errFailed when there is any.
func reportProblems[P fmt.Stringer](stdout io.Writer, problems []P) error {
	for _, p := range problems {
		fmt.Fprintf(stdout, "FAIL %s\n", p)
	}
	if len(problems) > 0 {
		return errFailed
	}
	return nil
}
