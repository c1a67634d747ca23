// Command proveit is the corpus's toolbox: it builds and verifies the
// manifest, writes the public catalogue, prints the hashes of one resource as
// a scorer replays them, lints the corpus, solves the season's tasks, seals
// the answer key, replays a season's scoring, builds and checks the season's
// Index, probes a live server and writes the nginx vhost.
//
// Usage: proveit <command> [flags]; proveit <command> -h for its flags.
// Every command exits 0 when done, 1 when a check failed and 2 on bad usage
// or bad input.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/internal/printable"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/tools/season"

	// Every track of the season, for the commands that read its files.
	_ "github.com/arkforge/proveit-corpus/tools/tracks/all"
)

// command is one subcommand: it parses its own flags from args and writes
// its report to stdout.
type command struct {
	summary string
	run     func(args []string, stdout io.Writer) error
}

var commands = map[string]command{
	"manifest":    {"build the manifest of a corpus tree", runManifest},
	"catalogue":   {"write each track's public catalogue, or -check it and the opening's publication policy", runCatalogue},
	"verify":      {"verify a corpus tree against its manifest", runVerify},
	"hash":        {"print the hashes Trust Layer anchors for one path or URL", runHash},
	"lint":        {"check every file rule of the corpus contract on a tree", runLint},
	"solve":       {"answer the season's tasks with the reference solver and check the key", runSolve},
	"key":         {"write each track's answer key from the authors' design, or -check it", runKey},
	"seal":        {"write a track's pre-registration record and its salt, or -verify a record", runSeal},
	"probe":       {"check a live server against the contract and the manifest", runProbe},
	"score":       {"replay the scoring of submissions from the files a track's record anchors", runScore},
	"proofs":      {"fetch the cited proofs' public views and Rekor entries, or verify them offline", runProofs},
	"index":       {"build the season's public Index from its folder, or -check a published one cell by cell", runIndex},
	"receipt":     {"check receipts of the season service against the season folder its close published", runReceipt},
	"receipt-key": {"draw a season's receipt key into a new file and print its public half", runReceiptKey},
	"did-key":     {"draw a participant's did:key into a new private file, or print a key's did:key or its signature of a bind-did challenge", runDIDKey},
	"anchor":      {"anchor a track's record before the opening: a GET of its published URL through Trust Layer, its proof and disclosure written", runAnchor},
	"enroll":      {"enroll one of the operator's reference runs on the season service's database and write its season token", runEnroll},
	"close":       {"close a track on the season service's database after its record's cloture, and export its season folder", runClose},
	"nginx":       {"write the nginx vhost that serves the corpus under the contract", runNginx},
}

// errFailed reports a check that found problems and already printed them.
var errFailed = errors.New("check failed")

// exitStatusHelp ends every help text: the exit statuses of every command.
const exitStatusHelp = `
Exit status: 0 done (every check passed); 1 a check failed, each problem
printed; 2 bad usage or bad input (an unknown flag, track or argument, a
missing or malformed file), named on one line.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs one command and returns the exit status: 0 done, 1 a check
// failed (errFailed), 2 anything that kept the command from a verdict.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help", "help":
		if len(args) > 1 {
			return run([]string{args[1], "-h"}, stdout, stderr)
		}
		usage(stdout)
		return 0
	case "-version", "--version":
		fmt.Fprintln(stdout, version())
		return 0
	}
	cmd, ok := commands[name]
	if !ok {
		what := "command"
		if strings.HasPrefix(name, "-") {
			what = "flag"
		}
		fmt.Fprintf(stderr, "proveit: unknown %s %q (proveit -h lists the commands)\n", what, name)
		return 2
	}
	err := cmd.run(args[1:], stdout)
	var help helpRequest
	switch {
	case err == nil:
		return 0
	case errors.As(err, &help):
		fmt.Fprintf(stdout, "proveit %s: %s\n\n", name, cmd.summary)
		help.print(stdout)
		return 0
	case errors.Is(err, errFailed):
		if err != errFailed {
			fmt.Fprintf(stderr, "proveit %s: %s\n", name, printable.Lines(err.Error()))
		}
		return 1
	case isBadUsage(err):
		fmt.Fprintf(stderr, "proveit %s: %s; see proveit %s -h\n", name, printable.Lines(err.Error()), helpOf(err, name))
		return 2
	default:
		fmt.Fprintf(stderr, "proveit %s: %s\n", name, printable.Lines(err.Error()))
		return 2
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: proveit <command> [flags]   (proveit <command> -h for its flags; proveit -version)")
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(w, "  %-10s %s\n", name, commands[name].summary)
	}
	fmt.Fprint(w, exitStatusHelp)
}

// corpusFlags are the flags every command that reads the corpus shares: the
// track, and the files of each track, which default to the track's own
// (corpus/<track>, manifest/<track>.json and its season files).
type corpusFlags struct {
	track, tree, manifest, tasks, key string
	fs                                *flagSet
	// compiledIn leaves the tree, the manifest and the statements empty
	// when no flag names them: the command then reads those the binary
	// embeds, whatever folder it runs from (a replay, which anyone runs
	// anywhere), rather than the checkout's (the tools that write them).
	compiledIn bool
}

// trackFiles are the files of one track a command works on. An empty tasks
// or key means none.
type trackFiles struct {
	track                      *corpus.Track
	tree, manifest, tasks, key string
}

// register adds -track and the file flags named (tree, manifest, tasks,
// key); with none named, the first three.
func (c *corpusFlags) register(fs *flagSet, files ...string) {
	c.fs = fs
	if len(files) == 0 {
		files = []string{"tree", "manifest", "tasks"}
	}
	registerTrack(fs, &c.track, "every track, each with its own files")
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

// registerTrack adds -track, the flag of every command that reads a track;
// unset is what the command does without it. An unknown track is refused
// as the flags are parsed, before the command reads anything.
func registerTrack(fs *flagSet, track *string, unset string) {
	fs.Func("track", "the `track`, one of "+strings.Join(trackNames(), ", ")+"; unset or empty: "+unset, func(name string) error {
		if _, err := corpus.TrackNamed(name); err != nil && name != "" {
			return err
		}
		*track = name
		return nil
	})
}

func trackNames() []string {
	names := make([]string, len(corpus.Tracks))
	for i, t := range corpus.Tracks {
		names[i] = t.Name
	}
	return names
}

// tracksNamed are the tracks -track names: the one given, or every track.
// An unknown name is bad usage.
func tracksNamed(name string) ([]*corpus.Track, error) {
	if name == "" {
		return corpus.Tracks, nil
	}
	t, err := corpus.TrackNamed(name)
	if err != nil {
		return nil, badUsage(fmt.Errorf("-track: %w", err))
	}
	return []*corpus.Track{t}, nil
}

// tracks resolves the flags, once parsed, into the files of each track the
// command runs on. A file named on the command line belongs to one track,
// which -track must then name. A tree the command reads must be a folder:
// a missing one is one line, not a finding per file it lacks.
func (c *corpusFlags) tracks() ([]trackFiles, error) {
	given := map[string]bool{}
	c.fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	tracks, err := tracksNamed(c.track)
	if err != nil {
		return nil, err
	}
	if c.track == "" {
		for _, name := range []string{"tree", "manifest", "tasks", "key"} {
			if given[name] {
				return nil, badUsage(fmt.Errorf("-%s names one track's file: say which with -track", name))
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
		if c.compiledIn {
			out[i].tree = or(given["tree"], c.tree, "")
			out[i].manifest = or(given["manifest"], c.manifest, "")
			out[i].tasks = or(given["tasks"], c.tasks, "")
		}
		if c.fs.Lookup("tree") != nil && out[i].tree != "" {
			if err := requireFolder("-tree", out[i].tree); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// requireFolder is bad input unless path is a folder, named by the flag
// that gave it.
func requireFolder(flagName, path string) error {
	switch info, err := os.Stat(path); {
	case errors.Is(err, fs.ErrNotExist):
		return badInput(fmt.Errorf("%s %s: no such folder", flagName, path))
	case err != nil:
		return badInput(fmt.Errorf("%s %s: %w", flagName, path, err))
	case !info.IsDir():
		return badInput(fmt.Errorf("%s %s: not a folder", flagName, path))
	}
	return nil
}

// or is value when the flag was given, else the track's default.
func or(given bool, value, fallback string) string {
	if given {
		return value
	}
	return fallback
}

// forEachTrack runs check on the files of each track the flags name and
// reports a failed check once every track has been checked, if any failed.
func forEachTrack(c *corpusFlags, check func(trackFiles) error) error {
	tracks, err := c.tracks()
	if err != nil {
		return err
	}
	failed := false
	var told []error // the failures told in one line rather than printed
	for _, t := range tracks {
		switch err := check(t); {
		case err == errFailed:
			failed = true
		case errors.Is(err, errFailed):
			told = append(told, fmt.Errorf("%s: %w", t.track.Name, err))
		case err != nil:
			return fmt.Errorf("%s: %w", t.track.Name, err)
		}
	}
	switch {
	case len(told) > 0:
		return checkFailed(errors.Join(told...))
	case failed:
		return errFailed
	}
	return nil
}

// flagSet is a command's flags, parsed as every command parses them: -h,
// -help and --help ask for the help, which run prints with the exit
// statuses; an unknown flag or an argument the command does not take is bad
// usage, named on one line.
type flagSet struct {
	*flag.FlagSet
	// args is the synopsis of the arguments after the flags ("PATH|URL");
	// empty, the command takes none.
	args string
}

func newFlagSet(name string) *flagSet {
	fs := &flagSet{FlagSet: flag.NewFlagSet("proveit "+name, flag.ContinueOnError)}
	// The flag package prints its errors and the usage as it parses: run
	// prints them instead, the error on one line, the help once.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), strings.TrimSpace("usage: "+fs.Name()+" [flags] "+fs.args))
		fs.PrintDefaults()
	}
	return fs
}

// Parse parses the command's arguments; an error it returns is a
// helpRequest or bad usage.
func (fs *flagSet) Parse(args []string) error {
	switch err := fs.FlagSet.Parse(args); {
	case errors.Is(err, flag.ErrHelp):
		return helpRequest{fs}
	case err != nil:
		return badUsage(err)
	case fs.args == "" && fs.NArg() > 0:
		return badUsage(fmt.Errorf("unexpected argument %q: the command takes flags only", fs.Arg(0)))
	}
	// Parsing stops at the first argument: a flag after it would be read
	// as one more argument (a file), so it is refused as what it is.
	for i := 1; i < fs.NArg(); i++ {
		arg := fs.Arg(i)
		if len(arg) > 1 && arg[0] == '-' {
			return badUsage(fmt.Errorf("%s after the argument %q: flags come before the arguments", arg, fs.Arg(0)))
		}
	}
	return nil
}

// helpRequest is -h, -help or --help: run prints the help and exits 0.
type helpRequest struct{ fs *flagSet }

func (h helpRequest) Error() string { return "help requested" }

func (h helpRequest) print(w io.Writer) {
	h.fs.SetOutput(w)
	h.fs.Usage()
	fmt.Fprint(w, exitStatusHelp)
}

// usageError is a command line the command cannot run: exit status 2, and
// a pointer to the help. help is the command whose -h lists the flags at
// fault, when it is a subcommand ("proofs verify"); empty, the command's.
type usageError struct {
	err  error
	help string
}

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func badUsage(err error) error { return usageError{err: err} }

// subcommandUsage points a subcommand's bad usage at that subcommand's
// help, which lists its flags.
func subcommandUsage(sub string, err error) error {
	var ue usageError
	if errors.As(err, &ue) && ue.help == "" {
		return usageError{err: ue.err, help: sub}
	}
	return err
}

// helpOf is the command whose help a usage error points at.
func helpOf(err error, name string) string {
	var ue usageError
	if errors.As(err, &ue) && ue.help != "" {
		return ue.help
	}
	return name
}

func isBadUsage(err error) bool {
	var ue usageError
	return errors.As(err, &ue)
}

// checkError is a failed check told in one line rather than printed as
// findings: exit status 1.
type checkError struct{ err error }

func (e checkError) Error() string        { return e.err.Error() }
func (e checkError) Unwrap() error        { return e.err }
func (e checkError) Is(target error) bool { return target == errFailed }

func checkFailed(err error) error { return checkError{err} }
