package main

import (
	"fmt"
	"io"
	"os"

	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/manifest/verify"
	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/score"
	"github.com/arkforge/proveit-corpus/tools/seal"
	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/solver"
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
	format      string
	submissions []string
}

// parseScoreFlags reads the command line and refuses a combination of
// flags that cannot replay anything, before a file is read.
func parseScoreFlags(args []string) (*scoreFlags, error) {
	fs := newFlagSet("score")
	f := &scoreFlags{}
	f.corpus.register(fs, "tree", "manifest", "tasks", "key")
	describeTrackFlags(fs, "replayed (required)")
	fs.StringVar(&f.record, "record", "", "the track's pre-registration record (default "+season.Dir+"/preenregistrement[-<track>].json)")
	fs.StringVar(&f.salt, "salt", "", "the salt file that opens the record's key commitment (required, unless -dry-run)")
	fs.BoolVar(&f.dryRun, "dry-run", false, "score files no record anchors, checking nothing of the anchoring; the report says so in its first field")
	fs.StringVar(&f.views, "views", "", "the views folder proveit proofs fetch filled: the replay verifies conditions 1 and 2 itself (docs/scoring.md)")
	fs.StringVar(&f.trust, "trust", "", "with -views: "+trustUsage)
	fs.StringVar(&f.proofs, "proofs", "", "instead of -views, what an outside verifier established for each proof (docs/contract.md, section 7); with neither, conditions 1 and 2 are not verified")
	fs.StringVar(&f.format, "format", "json", "json or text")
	fs.args = "SUBMISSION.json..."
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: proveit score -track TRACK -salt FILE [-record FILE] [-views DIR [-trust DIR] | -proofs FILE] [-tasks FILE] [-key FILE] [-manifest FILE] [-tree DIR] [-format json|text] SUBMISSION.json...")
		fmt.Fprintln(fs.Output(), "       proveit score -track TRACK -dry-run [-views DIR [-trust DIR] | -proofs FILE] [-tasks FILE] [-key FILE] [-manifest FILE] [-tree DIR] [-format json|text] SUBMISSION.json...")
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
	case f.trust != "" && f.views == "":
		return nil, usage("-trust is the trust material of -views' verification: give -views too")
	case f.format != "json" && f.format != "text":
		return nil, usage("-format %q: want json or text", f.format)
	case fs.NArg() == 0:
		return nil, usage("no submission given")
	}
	f.submissions = fs.Args()
	return f, nil
}

// run replays the scoring: the track's files, checked against the record
// unless in a dry run, then every submission, reported on stdout.
func (f *scoreFlags) run(stdout io.Writer) error {
	scorer, err := f.scorer()
	if err != nil {
		return err
	}
	var subs []score.Parsed
	for _, file := range f.submissions {
		data, err := os.ReadFile(file)
		if err != nil {
			return badInput(err)
		}
		sub, err := score.ParseSubmission(file, data)
		subs = append(subs, score.Parsed{Submission: sub, Err: err})
	}
	if f.views != "" {
		// The season's dates are the record's: the anchored one, or in a
		// dry run the track's, read for its dates alone.
		if err := verifyConditions12(scorer, subs, f.views, f.trust, f.record); err != nil {
			return err
		}
	}
	report, err := scorer.Score(subs)
	if err != nil {
		return badInput(err)
	}
	if f.format == "text" {
		_, err = io.WriteString(stdout, report.Text())
		return err
	}
	data, err := marshalIndent(report)
	if err != nil {
		return err
	}
	_, err = stdout.Write(data)
	return err
}

// scorer reads the track's files, checks their anchoring (unless in a dry
// run) and the tree against the manifest, and returns the scorer of the
// track, with the outcomes of -proofs when given.
func (f *scoreFlags) scorer() (*score.Scorer, error) {
	tracks, err := f.corpus.tracks()
	if err != nil {
		return nil, err
	}
	t := tracks[0]
	files, err := readSealedFiles(t, "")
	if err != nil {
		return nil, badInput(err)
	}
	if f.record == "" {
		f.record = season.RecordFile(t.track)
	}
	if !f.dryRun {
		if err := checkAnchoring(f.record, f.salt, t, files); err != nil {
			return nil, badInput(err)
		}
	}
	key, err := season.DecodeKey(t.key, files.Key.Data)
	if err != nil {
		return nil, badInput(err)
	}
	if err := verify.Check(files.manifest, os.DirFS(t.tree), verify.Full, nil); err != nil {
		return nil, badInput(fmt.Errorf("%s against %s: %w", t.tree, t.manifest, err))
	}
	scorer := &score.Scorer{
		Tasks:          files.tasks,
		Key:            key,
		Manifest:       files.manifest,
		ManifestSHA256: anchor.SHA256(files.Manifest.Data),
		Fetch:          solver.ServeTree(os.DirFS(t.tree)),
		Anchored:       !f.dryRun,
	}
	if f.proofs != "" {
		data, err := os.ReadFile(f.proofs)
		if err != nil {
			return nil, badInput(err)
		}
		if scorer.Proofs, err = score.ParseProofs(f.proofs, data); err != nil {
			return nil, badInput(err)
		}
	}
	return scorer, nil
}

// verifyConditions12 establishes conditions 1 and 2 of every proof the
// submissions cite from the views folder, as proveit proofs verify does,
// and gives the scorer their outcomes and failed checks.
func verifyConditions12(scorer *score.Scorer, subs []score.Parsed, views, trustDir, recordFile string) error {
	trust, err := loadTrust(trustDir)
	if err != nil {
		return err
	}
	rec, err := seal.ReadRecord(recordFile)
	if err != nil {
		return badInput(err)
	}
	window, err := rec.Window()
	if err != nil {
		return badInput(fmt.Errorf("%s %w", recordFile, err))
	}
	vr, err := proofs.NewVerifier(trust, proofs.WithSeason(window))
	if err != nil {
		return badInput(err)
	}
	results, err := vr.VerifyFolder(views, score.Citations(subs))
	if err != nil {
		return badInput(err)
	}
	scorer.Proofs = proofs.Outcomes(results)
	scorer.Failures = make(map[string][]proofs.Check, len(results))
	for id, r := range results {
		scorer.Failures[id] = r.Failures
	}
	return nil
}

// checkAnchoring refuses files the track's record does not anchor: the
// manifest, the statements, and the key with the salt (docs/contract.md, section 8; spec §8.5).
func checkAnchoring(recordFile, saltFile string, t trackFiles, files sealedFiles) error {
	rec, err := seal.ReadRecord(recordFile)
	if err != nil {
		return err
	}
	salt, err := seal.ReadSalt(saltFile)
	if err != nil {
		return err
	}
	if err := rec.Check(recordFile, t.track.Name, files.Files, salt); err != nil {
		return fmt.Errorf("refusing to score: %w", err)
	}
	return nil
}

// inputError is input the command cannot work from: exit status 2.
type inputError struct{ err error }

func (e inputError) Error() string { return e.err.Error() }
func (e inputError) Unwrap() error { return e.err }

func badInput(err error) error { return inputError{err} }
