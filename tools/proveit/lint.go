package main

import (
	"fmt"
	"io"
	"os"

	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/tools/lint"
)

// runLint checks every file rule of the corpus contract on each track's
// tree, the tree against its manifest, and the task statements' citations.
func runLint(args []string, stdout io.Writer) error {
	fs := newFlagSet("lint")
	var c corpusFlags
	c.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	return forEachTrack(&c, func(t trackFiles) error {
		opts := lint.Options{Track: t.track, ManifestFile: t.manifest, TasksFile: t.tasks}
		if t.manifest != "" {
			m, _, err := manifest.ReadFile(t.manifest)
			if err != nil {
				return err
			}
			opts.Manifest = m
		}
		if t.tasks != "" {
			tasks, err := readTasks(t)
			if err != nil {
				return err
			}
			opts.Tasks = tasks
		}
		report := lint.Lint(os.DirFS(t.tree), opts)
		if !report.OK() {
			for _, f := range report.Findings {
				fmt.Fprintln(stdout, f)
			}
			fmt.Fprintf(stdout, "%d findings in %s\n", len(report.Findings), t.tree)
			return errFailed
		}
		fmt.Fprintf(stdout, "%s: %s\n", t.tree, report.Summary())
		return nil
	})
}
