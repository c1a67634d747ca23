package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/verify"
	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/score"
	"github.com/arkforge/proveit-corpus/tools/seal"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// runScore replays the scoring of submissions against the statements, the
// key, the manifest and the frozen tree, once it has checked that they are
// the files the track's pre-registration record anchors, and writes the
// report. Bad input (an unreadable file, a file the record does not anchor,
// submissions of two DIDs) is exit status 2; a scored run, whatever its
// scores, 0.
func runScore(args []string, stdout io.Writer) error {
	f, err := parseScoreFlags(args)
	if err != nil {
		return err
	}
	return f.run(stdout)
}

// scoreFlags are proveit score's flags, checked against one another.
type scoreFlags struct {
	corpus      corpusFlags
	record      string
	salt        string
	dryRun      bool
	views       string
	trust       string
	proofs      string
	unverified  bool
	format      string
	submissions []string
}

// parseScoreFlags reads the command line and refuses a combination of
// flags that cannot replay anything, before a file is read.
func parseScoreFlags(args []string) (*scoreFlags, error) {
	fs := newFlagSet("score")
	f := &scoreFlags{corpus: corpusFlags{compiledIn: true}}
	f.corpus.register(fs, "tree", "manifest", "tasks", "key")
	describeTrackFlags(fs, "replayed (required)")
	fs.Lookup("tree").Usage = "the frozen tree (default: the track's, compiled in)"
	fs.Lookup("manifest").Usage = "the track's manifest (default: the one compiled in)"
	fs.Lookup("tasks").Usage = "the track's task statements (default: those compiled in, " + season.Dir + "/taches[-<track>].json)"
	fs.StringVar(&f.record, "record", "", "the track's pre-registration record (default: the one compiled in, "+season.Dir+"/preenregistrement[-<track>].json)")
	fs.StringVar(&f.salt, "salt", "", "the salt file that opens the record's key commitment (required, unless -dry-run)")
	fs.BoolVar(&f.dryRun, "dry-run", false, "score files no record anchors, checking nothing of the anchoring; the report says so in its first field")
	fs.StringVar(&f.views, "views", "", "the views folder proveit proofs fetch filled: the replay verifies conditions 1 and 2 itself (docs/scoring.md)")
	fs.StringVar(&f.trust, "trust", "", "with -views: "+trustUsage)
	fs.StringVar(&f.proofs, "proofs", "", "instead of -views, what an outside verifier established for each proof (docs/contract.md, section 7)")
	fs.BoolVar(&f.unverified, "unverified-proofs", false, "instead of -views or -proofs, count every proof valid and bound, verified by no one; the report says so (a dry run without -views or -proofs does so already)")
	fs.StringVar(&f.format, "format", "json", "json or text")
	fs.args = "SUBMISSION.json..."
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: proveit score -track TRACK -salt FILE [-record FILE] (-views DIR [-trust DIR] | -proofs FILE | -unverified-proofs) [-tasks FILE] [-key FILE] [-manifest FILE] [-tree DIR] [-format json|text] SUBMISSION.json...")
		fmt.Fprintln(fs.Output(), "       proveit score -track TRACK -dry-run [-views DIR [-trust DIR] | -proofs FILE | -unverified-proofs] [-tasks FILE] [-key FILE] [-manifest FILE] [-tree DIR] [-format json|text] SUBMISSION.json...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	given := givenFlags(fs)
	usage := func(format string, args ...any) error { return badUsage(fmt.Errorf(format, args...)) }
	switch {
	case f.corpus.track == "":
		return nil, usage("say which track with -track: a replay scores one track's submissions")
	case f.dryRun && (given["record"] || given["salt"]):
		return nil, usage("-dry-run checks no record: -record and -salt are not its flags")
	case !f.dryRun && f.salt == "":
		return nil, usage("-salt is required: the replay scores only files the record anchors, and the salt opens its key commitment (or ask for -dry-run)")
	case f.views != "" && f.proofs != "":
		return nil, usage("-views and -proofs both say where conditions 1 and 2 come from: give one")
	case f.unverified && (f.views != "" || f.proofs != ""):
		return nil, usage("-unverified-proofs says no one verified the proofs: not with -views or -proofs")
	case !f.dryRun && f.views == "" && f.proofs == "" && !f.unverified:
		return nil, usage("refusing to render scores whose proofs nobody verified: give -views (the replay verifies them) or -proofs (an outside verifier's outcomes), or say -unverified-proofs")
	case f.trust != "" && f.views == "":
		return nil, usage("-trust is the trust material of -views' verification: give -views too")
	case f.format != "json" && f.format != "text":
		return nil, usage("-format %q: want json or text", f.format)
	case fs.NArg() == 0:
		return nil, usage("no submission given")
	}
	if f.views != "" {
		// A folder that is not there is bad input, not a missing view for
		// every proof.
		if err := requireFolder("-views", f.views); err != nil {
			return nil, err
		}
	}
	f.submissions = fs.Args()
	return f, nil
}

// run replays the scoring: the track's season (its files, checked against
// the record unless in a dry run), then every submission, reported on
// stdout.
func (f *scoreFlags) run(stdout io.Writer) error {
	s, err := f.season()
	if err != nil {
		return err
	}
	var subs []score.Parsed
	for _, file := range f.submissions {
		data, err := readSubmission(file)
		if err != nil {
			return badInput(err)
		}
		sub, err := score.ParseSubmission(file, data)
		subs = append(subs, score.Parsed{Submission: sub, Err: err})
	}
	conditions, err := f.conditions(s, subs)
	if err != nil {
		return err
	}
	report, err := s.Replay.Score(subs, conditions)
	if err != nil {
		return badInput(err)
	}
	if f.format == "text" {
		_, err = io.WriteString(stdout, report.Text())
		return err
	}
	data, err := score.MarshalReport(report)
	if err != nil {
		return err
	}
	_, err = stdout.Write(data)
	return err
}

// readSubmission reads a submission's file as a views folder's files are
// read, participants' files being as untrusted: a regular file within its
// folder, of at most a submission's size.
func readSubmission(file string) ([]byte, error) {
	return proofs.ReadFolderFile(filepath.Dir(file), filepath.Base(file), score.SubmissionLimit)
}

// season reads the track's files the flags name and opens its season
// (score.OpenSeason, as the Index does): the record read once, the files
// checked against it unless in a dry run, where it is read only for
// -views' season window.
func (f *scoreFlags) season() (*score.Season, error) {
	tracks, err := f.corpus.tracks()
	if err != nil {
		return nil, err
	}
	t := tracks[0]
	// What no flag names is what the binary embeds: a replay gives the
	// same report from any folder.
	in := score.TrackFiles{Track: t.track, Tree: t.track.Embedded()}
	if t.tree != "" {
		in.Tree = os.DirFS(t.tree)
	}
	read := func(into *seal.File, name string, compiledIn func() (string, []byte)) error {
		if name == "" && compiledIn == nil {
			return errors.New("-key: the track's answer key is required, revealed at the close")
		}
		if name == "" {
			label, data := compiledIn()
			*into = seal.File{Name: label, Data: data}
			return nil
		}
		var err error
		*into, err = readFile(name, sealedFileLimit)
		return err
	}
	for _, file := range []struct {
		into       *seal.File
		name       string
		compiledIn func() (string, []byte)
	}{
		{&in.Sealed.Manifest, t.manifest, func() (string, []byte) {
			return manifest.EmbeddedName(t.track), manifest.Embedded(t.track)
		}},
		{&in.Sealed.Tasks, t.tasks, func() (string, []byte) { return season.EmbeddedTasks(t.track) }},
		{&in.Sealed.Key, t.key, nil},
	} {
		if err := read(file.into, file.name, file.compiledIn); err != nil {
			return nil, badInput(err)
		}
	}
	if !f.dryRun || f.views != "" {
		if err := read(&in.Record, f.record, func() (string, []byte) { return season.EmbeddedRecord(t.track) }); err != nil {
			return nil, badInput(err)
		}
		f.record = in.Record.Name
	}
	if !f.dryRun {
		salt, err := readFile(f.salt, seal.SaltLimit)
		if err != nil {
			return nil, badInput(err)
		}
		in.Salt = &salt
	}
	s, err := score.OpenSeason(in)
	var anchoring *seal.MismatchError
	var mismatch *verify.MismatchError
	switch {
	case errors.As(err, &anchoring):
		return nil, badInput(fmt.Errorf("refusing to score: %w", anchoring))
	case errors.As(err, &mismatch):
		return nil, badInput(fmt.Errorf("%s against %s: %w", or(t.tree != "", t.tree, "the compiled-in tree"), in.Sealed.Manifest.Name, err))
	case err != nil:
		return nil, badInput(err)
	}
	return s, nil
}

// readFile reads a file a flag names as anyone's file is read
// (proofs.ReadFolderFile): a regular file, bounded.
func readFile(name string, limit proofs.Limit) (seal.File, error) {
	data, err := proofs.ReadFolderFile(filepath.Dir(name), filepath.Base(name), limit)
	return seal.File{Name: name, Data: data}, err
}

// conditions are conditions 1 and 2 of the proofs the submissions cite,
// from the source the flags name: -views, verified here in the season
// window of the record; -proofs, an outside verifier's; else verified by
// no one, which parseScoreFlags allows only in a dry run or by name.
func (f *scoreFlags) conditions(s *score.Season, subs []score.Parsed) (score.Conditions, error) {
	switch {
	case f.views != "":
		trust, err := loadTrust(f.trust)
		if err != nil {
			return score.Conditions{}, err
		}
		vr, err := s.Verifier(trust)
		if err != nil {
			return score.Conditions{}, badInput(fmt.Errorf("%s: %w", f.record, err))
		}
		results, err := score.VerifyCited(vr, trust, f.views, score.Citations(subs))
		if err != nil {
			// The keys failed, not the participant: no score is rendered.
			return score.Conditions{}, badInput(fmt.Errorf("refusing to score: %w", err))
		}
		return score.Verified(results), nil
	case f.proofs != "":
		data, err := proofs.ReadFolderFile(filepath.Dir(f.proofs), filepath.Base(f.proofs), proofsInputLimit)
		if err != nil {
			return score.Conditions{}, badInput(err)
		}
		outcomes, err := score.ParseProofs(f.proofs, data)
		if err != nil {
			return score.Conditions{}, badInput(err)
		}
		return score.Given(outcomes), nil
	}
	return score.Unverified(), nil
}

// proofsInputLimit bounds a verifier's input: a few hundred bytes a proof.
var proofsInputLimit = proofs.Limit{What: "a verifier's input", Bytes: 64 << 20}

// inputError is input the command cannot work from: exit status 2.
type inputError struct{ err error }

func (e inputError) Error() string { return e.err.Error() }
func (e inputError) Unwrap() error { return e.err }

func badInput(err error) error { return inputError{err} }
