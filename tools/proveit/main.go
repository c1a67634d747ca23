// Command proveit is the corpus's toolbox: it builds and verifies the
// manifest, writes the public catalogue, prints the hashes of one resource as
// a scorer replays them, lints the corpus, solves the season's tasks, seals
// the answer key, replays a season's scoring, probes a live server and
// writes the nginx vhost.
//
// Usage: proveit <command> [flags]; proveit <command> -h for its flags;
// proveit -version for the version.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	proveitcorpus "github.com/arkforge/proveit-corpus"
	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// command is one subcommand: it parses its own flags from args and writes
// its report to stdout.
type command struct {
	summary string
	run     func(args []string, stdout io.Writer) error
}

var commands = map[string]command{
	"manifest":  {"build the manifest of a corpus tree", runManifest},
	"catalogue": {"write each track's public catalogue, or -check it and the opening's publication policy", runCatalogue},
	"verify":    {"verify a corpus tree against its manifest", runVerify},
	"hash":      {"print the hashes Trust Layer anchors for one path or URL", runHash},
	"lint":      {"check every file rule of the corpus contract on a tree", runLint},
	"solve":     {"answer the season's tasks with the reference solver and check the key", runSolve},
	"seal":      {"print the pre-registration record (manifest hash, key commitment) or -verify one", runSeal},
	"probe":     {"check a live server against the contract and the manifest", runProbe},
	"score":     {"replay the scoring of submissions from the manifest, the frozen tree and the key", runScore},
	"nginx":     {"write the nginx vhost that serves the corpus under the contract", runNginx},

	// Benchmarks (docs/performance.md).
	"gencorpus": {"write a synthetic corpus of N resources and its manifest, for benchmarks", runGencorpus},
}

// errFailed reports a check that found problems and already printed them.
var errFailed = errors.New("check failed")

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 1 && (args[0] == "-version" || args[0] == "--version") {
		fmt.Fprintln(stdout, "proveit-corpus", proveitcorpus.Version())
		return 0
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "help" {
		usage(stderr)
		return 2
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "proveit: unknown command %q\n", args[0])
		usage(stderr)
		return 2
	}
	switch err := cmd.run(args[1:], stdout); {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 2
	case errors.Is(err, errFailed):
		return 1
	case isBadInput(err):
		fmt.Fprintf(stderr, "proveit %s: %v\n", args[0], err)
		return 2
	default:
		fmt.Fprintf(stderr, "proveit %s: %v\n", args[0], err)
		return 1
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: proveit <command> [flags]")
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(w, "  %-10s %s\n", name, commands[name].summary)
	}
}

// corpusFlags are the flags every command that reads the corpus shares: the
// track, and the files of each track, which default to the track's own
// (corpus/<track>, manifest/<track>.json and its season files).
type corpusFlags struct {
	track, tree, manifest, tasks, key string
	fs                                *flag.FlagSet
}

// trackFiles are the files of one track a command works on. An empty tasks
// or key means none.
type trackFiles struct {
	track                      *corpus.Track
	tree, manifest, tasks, key string
}

// register adds -track and the file flags named (tree, manifest, tasks,
// key); with none named, the first three.
func (c *corpusFlags) register(fs *flag.FlagSet, files ...string) {
	c.fs = fs
	if len(files) == 0 {
		files = []string{"tree", "manifest", "tasks"}
	}
	fs.StringVar(&c.track, "track", "", "track (conformite, generique); empty: every track, each with its own files")
	for _, name := range files {
		switch name {
		case "tree":
			fs.StringVar(&c.tree, name, "", "corpus tree, the served folder (default corpus/<track>)")
		case "manifest":
			fs.StringVar(&c.manifest, name, "", "manifest file (default manifest/<track>.json)")
		case "tasks":
			fs.StringVar(&c.tasks, name, "", "task statements, whose citations get absent entries (default the track's; empty: none)")
		case "key":
			fs.StringVar(&c.key, name, "", "answer key (default the track's; empty: none)")
		}
	}
}

// tracks resolves the flags, once parsed, into the files of each track the
// command runs on. A file named on the command line belongs to one track,
// which -track must then name.
func (c *corpusFlags) tracks() ([]trackFiles, error) {
	given := map[string]bool{}
	c.fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	tracks := corpus.Tracks
	if c.track != "" {
		t, err := corpus.TrackNamed(c.track)
		if err != nil {
			return nil, err
		}
		tracks = []*corpus.Track{t}
	} else {
		for _, name := range []string{"tree", "manifest", "tasks", "key"} {
			if given[name] {
				return nil, fmt.Errorf("-%s names one track's file: say which with -track", name)
			}
		}
	}
	out := make([]trackFiles, len(tracks))
	for i, t := range tracks {
		out[i] = trackFiles{
			track:    t,
			tree:     or(given["tree"], c.tree, filepath.Join("corpus", t.Name)),
			manifest: or(given["manifest"], c.manifest, filepath.Join("manifest", manifest.FileName(t))),
			tasks:    or(given["tasks"], c.tasks, season.TasksFile(t)),
			key:      or(given["key"], c.key, season.KeyFile(t)),
		}
	}
	return out, nil
}

// or is value when the flag was given, else the track's default.
func or(given bool, value, fallback string) string {
	if given {
		return value
	}
	return fallback
}

// forEachTrack runs check on the files of each track the flags name and
// reports errFailed once every track has been checked, if any failed.
func forEachTrack(c *corpusFlags, check func(trackFiles) error) error {
	tracks, err := c.tracks()
	if err != nil {
		return err
	}
	failed := false
	for _, t := range tracks {
		switch err := check(t); {
		case errors.Is(err, errFailed):
			failed = true
		case err != nil:
			return fmt.Errorf("%s: %w", t.track.Name, err)
		}
	}
	if failed {
		return errFailed
	}
	return nil
}

func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("proveit "+name, flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	return fs
}
