package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/arkforge/proveit-corpus/internal/printable"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/seal"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// Flags of each of the seal's two modes: given to the other, they are an
// error, never silently ignored.
var (
	sealingFlags   = []string{"salt-out", "reseal", "opening", "closing"}
	verifyingFlags = []string{"salt", "views", "proof", "disclosure", "record-url", "anchoring", "trust"}
)

// runSeal writes a track's pre-registration record into the repository
// (the SHA-256 of its manifest, statements and frozen scoring section, and
// the commitment sha256(salt || key)) and its fresh salt to a private file
// outside every repository. Of the key it shows nothing but the salted
// commitment: an unsalted hash of ten verdicts could be brute-forced. With
// -verify, it checks a record against the files and a revealed salt.
func runSeal(args []string, stdout io.Writer) error {
	fs := newFlagSet("seal")
	var c corpusFlags
	c.register(fs, "manifest", "tasks", "key")
	describeTrackFlags(fs, "sealed or verified (required: each is sealed on its own)")
	record := fs.String("record", "", "the pre-registration record (default "+season.Dir+"/preenregistrement[-<track>].json)")
	section := fs.String("scoring-section", "", "the published text of the track's frozen scoring section (required to seal; with -verify, checked too)")
	saltOut := fs.String("salt-out", "", "where to write the new salt: a file that does not exist yet, outside every git work tree (required to seal)")
	reseal := fs.Bool("reseal", false, "replace the record of a sealed track with a new salt: the old anchored commitment then opens with the old salt only")
	verify := fs.Bool("verify", false, "check the record against the manifest, the statements, the key and -salt instead of sealing")
	saltFile := fs.String("salt", "", "with -verify: the revealed salt file")
	opening := fs.String("opening", "", "the season's opening, RFC 3339 in UTC (required to seal): no cited proof may be timestamped before it")
	closing := fs.String("closing", "", "the season's closing, RFC 3339 in UTC (required to seal): no cited proof may be timestamped after it")
	var anchoring recordAnchoring
	fs.StringVar(&anchoring.views, "views", "", "with -verify: the views folder holding the record's own proof (proveit proofs fetch PROOF_ID)")
	fs.StringVar(&anchoring.proofID, "proof", "", "with -verify and -views: the proof_id that anchored the record")
	fs.StringVar(&anchoring.disclosure, "disclosure", "", "with -proof: the owner's disclosure of that proof, {\"request_hash\": {nonce, value}, \"response_hash\": {nonce, value}}")
	fs.StringVar(&anchoring.url, "record-url", "", "with -proof: the URL the record was served at when Trust Layer anchored it")
	fs.StringVar(&anchoring.trust, "trust", "", "with -proof or -anchoring: "+trustUsage)
	fs.StringVar(&anchoring.file, "anchoring", "", "with -verify and -views: the record's anchoring file ("+seal.AnchoringFile+", proveit anchor's), instead of -proof, -disclosure and -record-url")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: proveit seal -track TRACK -scoring-section FILE -salt-out FILE -opening TIME -closing TIME [-reseal] [-manifest FILE] [-tasks FILE] [-key FILE] [-record FILE]")
		fmt.Fprintln(fs.Output(), "       proveit seal -verify -track TRACK -salt FILE [-views DIR -proof PROOF_ID -disclosure FILE -record-url URL [-trust DIR]] [-scoring-section FILE] [-manifest FILE] [-tasks FILE] [-key FILE] [-record FILE]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	given := givenFlags(fs)
	unused, mode := verifyingFlags, "sealing (-salt is -verify's; sealing writes its salt to -salt-out)"
	if *verify {
		unused, mode = sealingFlags, "-verify"
	}
	for _, name := range unused {
		if given[name] {
			return badUsage(fmt.Errorf("-%s is not a flag of %s", name, mode))
		}
	}
	switch {
	case c.track == "":
		return badUsage(errors.New("say which track with -track: each track is sealed on its own, with its own scoring section and salt"))
	case *verify && *saltFile == "":
		return badUsage(errors.New("-verify needs -salt, the revealed salt file"))
	case !*verify && (*section == "" || *saltOut == ""):
		return badUsage(errors.New("sealing needs -scoring-section and -salt-out"))
	case !*verify && (*opening == "" || *closing == ""):
		return badUsage(errors.New("sealing needs -opening and -closing, the season's dates the record publishes"))
	}
	if err := anchoring.check(); err != nil {
		return err
	}
	var window proofs.Window
	if !*verify {
		var err error
		if window, err = seasonWindow(*opening, *closing); err != nil {
			return err
		}
	}
	tracks, err := c.tracks()
	if err != nil {
		return err
	}
	t := tracks[0]
	if *record == "" {
		*record = season.RecordFile(t.track)
	}
	files, err := readSealedFiles(t, *section)
	if err != nil {
		return badInput(err)
	}
	if *verify {
		return verifySeal(stdout, *record, t, files.Files, *saltFile, anchoring)
	}
	rec, err := seal.Seal(*record, *saltOut, t.track.Name, files.tasks.Season, window, files.Files, *reseal)
	if errors.Is(err, seal.ErrSealed) {
		return badInput(fmt.Errorf("%w (pass -reseal to do it anyway)", err))
	} else if err != nil {
		return badInput(err)
	}
	fmt.Fprintf(stdout, "sealed track %s, season %s: %s\n", rec.Track, rec.Season, *record)
	fmt.Fprintf(stdout, "  manifest_sha256  %s  %s\n", rec.ManifestSHA256, files.Manifest.Name)
	fmt.Fprintf(stdout, "  taches_sha256    %s  %s\n", rec.TasksSHA256, files.Tasks.Name)
	fmt.Fprintf(stdout, "  engagement_cle   %s  sha256(salt || %s)\n", rec.KeyCommitment, files.Key.Name)
	fmt.Fprintf(stdout, "  bareme_sha256    %s  %s\n", rec.ScoringSectionSHA256, files.ScoringSection.Name)
	fmt.Fprintf(stdout, "  ouverture        %s\n  cloture          %s\n", rec.Opening, rec.Closing)
	fmt.Fprintf(stdout, "The salt is in %s (mode 0600), and nowhere else: keep it offline with a copy of the key, and reveal both at the close.\n", *saltOut)
	fmt.Fprintf(stdout, "Commit the record, publish it at its URL, and anchor it before the opening: a GET of that URL through Trust Layer with the challenge's key (docs/operating.md, \"The season's timeline\").\n")
	return nil
}

// verifySeal checks a record against the files and a revealed salt: each
// file that does not match is a failed check.
func verifySeal(stdout io.Writer, recordFile string, t trackFiles, files seal.Files, saltFile string, anchoring recordAnchoring) error {
	rec, err := seal.ReadRecord(recordFile)
	if err != nil {
		return badInput(err)
	}
	salt, err := seal.ReadSalt(saltFile)
	if err != nil {
		return badInput(err)
	}
	var mismatch *seal.MismatchError
	switch err := rec.Check(recordFile, t.track.Name, files, salt); {
	case errors.As(err, &mismatch):
		for _, line := range mismatch.Lines {
			fmt.Fprintf(stdout, "MISMATCH %s\n", line)
		}
		return errFailed
	case err != nil:
		return err
	}
	checked := []string{files.Manifest.Name, files.Tasks.Name, files.Key.Name + " with " + saltFile}
	if files.ScoringSection.Name != "" {
		checked = append(checked, files.ScoringSection.Name)
	}
	fmt.Fprintf(stdout, "OK %s anchors %s\n", recordFile, strings.Join(checked, ", "))
	if anchoring.proofID == "" && anchoring.file == "" {
		return nil
	}
	return anchoring.verify(stdout, recordFile, rec)
}

// seasonWindow reads the season's dates a record is sealed with.
func seasonWindow(opening, closing string) (proofs.Window, error) {
	var w proofs.Window
	var err error
	if w.Opening, err = seal.ParseUTC(opening); err != nil {
		return w, badUsage(fmt.Errorf("-opening %w", err))
	}
	if w.Closing, err = seal.ParseUTC(closing); err != nil {
		return w, badUsage(fmt.Errorf("-closing %w", err))
	}
	if w.Closing.Before(w.Opening) {
		return w, badUsage(errors.New("-closing is before -opening"))
	}
	return w, nil
}

// recordAnchoring is the record's own proof (spec §8.5): the call through
// Trust Layer that anchored the record's bytes before the season opened.
type recordAnchoring struct {
	views, proofID, disclosure, url, trust string
	// file is an anchoring file (proveit anchor's), in place of proofID,
	// disclosure and url.
	file string
}

// check requires the flags of the record's proof together or not at all.
func (a recordAnchoring) check() error {
	if a.file != "" {
		if a.proofID != "" || a.disclosure != "" || a.url != "" {
			return badUsage(errors.New("-anchoring holds the proof, its disclosure and the record's URL: give it instead of -proof, -disclosure and -record-url"))
		}
		if a.views == "" {
			return badUsage(errors.New("-anchoring needs -views, the folder holding the record's proof"))
		}
		return nil
	}
	given := []bool{a.views != "", a.proofID != "", a.disclosure != "", a.url != ""}
	if slices.Contains(given, true) && slices.Contains(given, false) {
		return badUsage(errors.New("-views, -proof, -disclosure and -record-url go together: the record's proof, its owner's disclosure and the URL it was served at"))
	}
	if a.trust != "" && a.proofID == "" && a.file == "" {
		return badUsage(errors.New("-trust is for verifying the record's proof: give -proof too"))
	}
	return nil
}

// verify checks the record's proof as every reader does
// (seal.Record.VerifyAnchoring): valid, dated no later than the season's
// opening, and opening to the hashes of the call that anchored the record,
// a GET of its URL answered with its bytes.
func (a recordAnchoring) verify(stdout io.Writer, recordFile string, rec seal.Record) error {
	data, err := proofs.ReadFolderFile(filepath.Dir(recordFile), filepath.Base(recordFile), seal.RecordLimit)
	if err != nil {
		return badInput(err)
	}
	anchoring, err := a.read()
	if err != nil {
		return badInput(err)
	}
	trust, err := loadTrust(a.trust)
	if err != nil {
		return err
	}
	err = rec.VerifyAnchoring(recordFile, data, anchoring, trust, a.views)
	var mismatch *seal.AnchoringError
	switch {
	case errors.As(err, &mismatch):
		for _, l := range mismatch.Lines {
			fmt.Fprintf(stdout, "MISMATCH %s\n", l)
		}
		return errFailed
	case err != nil:
		return badInput(err)
	}
	fmt.Fprintf(stdout, "OK %s anchors %s, served at %s, before the season's opening %s\n", anchoring.ProofID, recordFile, printable.String(anchoring.RecordURL), rec.Opening)
	return nil
}

// read is the anchoring the flags give: an anchoring file, or the proof
// id, the disclosure's file and the URL.
func (a recordAnchoring) read() (seal.Anchoring, error) {
	if a.file != "" {
		return readAnchoring(a.file)
	}
	raw, err := proofs.ReadFolderFile(filepath.Dir(a.disclosure), filepath.Base(a.disclosure), seal.AnchoringLimit)
	if err != nil {
		return seal.Anchoring{}, err
	}
	var d proofs.Disclosure
	if err := season.DecodeStrict(a.disclosure, raw, &d); err != nil {
		return seal.Anchoring{}, err
	}
	return seal.Anchoring{ProofID: a.proofID, RecordURL: a.url, Disclosure: d}, nil
}

// readAnchoring reads an anchoring file (proveit anchor's) as anyone's
// file.
func readAnchoring(file string) (seal.Anchoring, error) {
	data, err := proofs.ReadFolderFile(filepath.Dir(file), filepath.Base(file), seal.AnchoringLimit)
	if err != nil {
		return seal.Anchoring{}, err
	}
	return seal.DecodeAnchoring(file, data)
}

// sealedFileLimit bounds each file a record anchors: a manifest is a few
// hundred KiB, statements and a key a few dozen.
var sealedFileLimit = proofs.Limit{What: "a season's manifest, statements, key or scoring section", Bytes: 16 << 20}

// sealedFiles are the files a record anchors, read once: what is checked
// against the record is what is then used.
type sealedFiles struct {
	seal.Files
	manifest *manifest.Manifest
	tasks    *season.Tasks
}

// readSealedFiles reads the files a track's record anchors, and the scoring
// section if named; the manifest and the statements must be of the track.
func readSealedFiles(t trackFiles, scoringSection string) (sealedFiles, error) {
	var f sealedFiles
	// Read as anyone's files are: a key or a manifest linked to a device
	// or a pipe is refused, and each is bounded.
	read := func(into *seal.File, name string) error {
		var err error
		*into, err = readFile(name, sealedFileLimit)
		return err
	}
	for _, file := range []struct {
		into *seal.File
		name string
	}{{&f.Manifest, t.manifest}, {&f.Tasks, t.tasks}, {&f.Key, t.key}} {
		if err := read(file.into, file.name); err != nil {
			return f, err
		}
	}
	if scoringSection != "" {
		if err := read(&f.ScoringSection, scoringSection); err != nil {
			return f, err
		}
	}
	var err error
	if f.manifest, err = manifest.Decode(f.Manifest.Data); err != nil {
		return f, fmt.Errorf("%s: %w", t.manifest, err)
	}
	if f.manifest.Track != t.track.Name {
		return f, fmt.Errorf("%s /piste: the manifest is of the track %q, not %q", t.manifest, f.manifest.Track, t.track.Name)
	}
	if f.tasks, err = season.DecodeTasks(t.tasks, f.Tasks.Data); err != nil {
		return f, err
	}
	if f.tasks.Track != t.track.Name {
		return f, fmt.Errorf("%s /piste: the statements are of the track %q, not %q", t.tasks, f.tasks.Track, t.track.Name)
	}
	return f, nil
}

// describeTrackFlags says what -track, -tasks and -key are to a command
// that works on exactly one track, whose statements and key it needs.
func describeTrackFlags(fs *flagSet, track string) {
	fs.Lookup("track").Usage = "the `track` " + track + ", one of " + strings.Join(trackNames(), ", ")
	fs.Lookup("tasks").Usage = "the track's task statements (default " + season.Dir + "/taches[-<track>].json)"
	fs.Lookup("key").Usage = "the track's answer key (default " + season.Dir + "/cle[-<track>].json)"
}

// givenFlags names the flags set on the command line.
func givenFlags(fs *flagSet) map[string]bool {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	return given
}
