// Command proveit is the corpus's toolbox: it builds and verifies the
// manifest, writes the public catalogue, prints the hashes of one resource as
// a scorer replays them, lints the corpus, solves the season's tasks, seals
// the answer key, replays a season's scoring, probes a live server and
// writes the nginx vhost.
//
// Usage: proveit <command> [flags]; proveit <command> -h for its flags.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
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

// corpusFlags are the flags every command that reads the corpus shares.
type corpusFlags struct {
	tree, manifest, tasks string
}

func (c *corpusFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.tree, "tree", "corpus/conformite", "corpus tree (the served folder)")
	fs.StringVar(&c.manifest, "manifest", "manifest/conformite.json", "manifest file")
	fs.StringVar(&c.tasks, "tasks", "corpus/saison-1/taches.json", "task statements whose citations get absent entries (empty: none)")
}

func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("proveit "+name, flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	return fs
}
