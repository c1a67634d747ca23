package main

import (
	"fmt"
	"io"
	"os"

	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/tools/lint"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// runLint checks every file rule of the corpus contract on the tree, the tree
// against its manifest, and the task statements' citations.
func runLint(args []string, stdout io.Writer) error {
	fs := newFlagSet("lint")
	var c corpusFlags
	c.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	opts := lint.Options{ManifestFile: c.manifest, TasksFile: c.tasks}
	if c.manifest != "" {
		m, _, err := manifest.ReadFile(c.manifest)
		if err != nil {
			return err
		}
		opts.Manifest = m
	}
	if c.tasks != "" {
		tasks, err := season.ReadTasks(c.tasks)
		if err != nil {
			return err
		}
		opts.Tasks = tasks
	}
	report := lint.Lint(os.DirFS(c.tree), opts)
	if !report.OK() {
		for _, f := range report.Findings {
			fmt.Fprintln(stdout, f)
		}
		fmt.Fprintf(stdout, "%d findings in %s\n", len(report.Findings), c.tree)
		return errFailed
	}
	fmt.Fprintln(stdout, report.Summary())
	return nil
}
