// Package index builds a season's public Index from what the season's
// close hands over (docs/scoring.md, "Publishing the Index"; spec §7): per
// track, the two tables of its enrollments, reference runs and community,
// each figure the replay's for that enrollment, one participant per key,
// and a report per ranked enrollment; as JSON for programs and as static
// HTML pages (no script, no outside request) for people. Check re-derives
// a published Index from the same files and names each cell that differs.
//
// The same inputs give the same bytes. The tracks are never aggregated: no
// page, table or chart holds the figures of two tracks.
package index

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/internal/printable"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/score"
	"github.com/arkforge/proveit-corpus/tools/seal"
	"github.com/arkforge/proveit-corpus/tools/season"

	// Every track of the season: the Index reads each one's files.
	_ "github.com/arkforge/proveit-corpus/tools/tracks/all"
)

// Options say what a build or a check reads.
type Options struct {
	// Season is the season's folder (docs/scoring.md lays it out).
	Season string
	// TrustDir is the trust material of the proofs' verification; empty:
	// the one the repository pins. A trust folder inside the season is
	// never read: the reader chooses what to trust.
	TrustDir string
	// DryRun builds from files no record anchors, before the close if need
	// be; every page then says in its first line it is not a publication.
	DryRun bool
	// Now is the clock the record's closing is compared with; nil: time.Now.
	Now func() time.Time
	// Version is the tool's version, proveitcorpus.Version() (what
	// proveit -version prints after "proveit "): every page names it, so
	// that a reader re-derives the page with the same tool.
	Version string
}

// InputError is input the Index cannot be built from: a missing or
// malformed file, a file the record does not anchor, the season not closed,
// a pending proof. Its message names the file, the JSON pointer and the rule.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func badInput(err error) error {
	var ie *InputError
	if err == nil || errors.As(err, &ie) {
		return err
	}
	return &InputError{err}
}

// trackInputs are a track's files, read and checked.
type trackInputs struct {
	track       *corpus.Track
	season      *score.Season
	recordProof *string
	enrollments *Enrollments
	receipts    receipts
	// folder is the season's folder, every file named by its path in it.
	folder *proofs.Folder
}

// Tracks names the tracks present in a season's folder, in the
// repository's order.
func Tracks(folder *proofs.Folder) ([]*corpus.Track, error) {
	var out []*corpus.Track
	for _, t := range corpus.Tracks {
		switch present, err := folder.Present(t.Name); {
		case err != nil:
			return nil, badInput(err)
		case present:
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, badInput(fmt.Errorf("%s: no track's folder (%s)", folder.Path("."), trackList()))
	}
	return out, nil
}

func trackList() string {
	var names []string
	for _, t := range corpus.Tracks {
		names = append(names, t.Name)
	}
	return fmt.Sprint(names)
}

// seasonFile reads a track's file of the season's folder by its name in
// the folder (conformite/taches.json); when the folder holds nothing of
// that name, the file the binary embeds, if any. Something there that
// cannot be read (a dangling link, a pipe, a file too large) is an error
// naming it, never a reason to fall back on the default.
func seasonFile(folder *proofs.Folder, name string, limit proofs.Limit, fallback func() (string, []byte)) (seal.File, error) {
	present, err := folder.Present(name)
	if err != nil {
		return seal.File{}, err
	}
	if !present && fallback != nil {
		label, data := fallback()
		return seal.File{Name: label, Data: data}, nil
	}
	data, err := folder.Read(name, limit)
	if err != nil {
		return seal.File{}, err
	}
	return seal.File{Name: name, Data: data}, nil
}

// readTrack reads a track's files and checks them as proveit score does:
// the manifest, the statements and the key with the salt must be those the
// record anchors (unless in a dry run), and the season closed. Files are
// named by their path in the season's folder, never this machine's: the
// same folder anywhere gives the same bytes.
func (o *Options) readTrack(folder *proofs.Folder, t *corpus.Track, trust *proofs.Trust) (*trackInputs, error) {
	in := &trackInputs{track: t, folder: folder}
	at := func(file string) string { return t.Name + "/" + file }
	var err error
	if in.enrollments, err = readEnrollments(folder, at("inscriptions.json"), t.Name); err != nil {
		return nil, err
	}
	recordFile, err := seasonFile(folder, at("preenregistrement.json"), seal.RecordLimit, func() (string, []byte) { return season.EmbeddedRecord(t) })
	if err != nil {
		return nil, err
	}
	// Read first for its closing: before it, the salt is not revealed.
	record, err := seal.DecodeRecord(recordFile.Name, recordFile.Data)
	if err != nil {
		return nil, err
	}
	window, _ := record.Window() // DecodeRecord checked it
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	if !o.DryRun && now().Before(window.Closing) {
		return nil, fmt.Errorf("refusing to publish before the season's close: %s /cloture is %s (a dry run, asked for by name, says on every page it is not a publication)", recordFile.Name, record.Closing)
	}
	if in.recordProof, err = verifyAnchoring(folder, at(seal.AnchoringFile), recordFile, record, trust); err != nil {
		return nil, err
	}
	files := score.TrackFiles{Track: t, Record: recordFile, Tree: t.Embedded(),
		Sealed: seal.Files{Manifest: seal.File{Name: manifest.EmbeddedName(t), Data: manifest.Embedded(t)}}}
	if files.Sealed.Tasks, err = seasonFile(folder, at("taches.json"), seasonFileLimit, func() (string, []byte) { return season.EmbeddedTasks(t) }); err != nil {
		return nil, err
	}
	if files.Sealed.Key, err = seasonFile(folder, at("cle.json"), seasonFileLimit, nil); err != nil {
		return nil, err
	}
	if !o.DryRun {
		salt, err := seasonFile(folder, at("sel"), seal.SaltLimit, nil)
		if err != nil {
			return nil, err
		}
		files.Salt = &salt
	}
	// The season's files are opened as proveit score opens them.
	in.season, err = score.OpenSeason(files)
	var mismatch *seal.MismatchError
	switch {
	case errors.As(err, &mismatch):
		// One line, as every refusal of the command.
		return nil, fmt.Errorf("refusing to publish: %s does not anchor these files: %s", mismatch.Record, strings.Join(mismatch.Lines, "; "))
	case err != nil:
		return nil, err
	}
	if strconv.Itoa(in.enrollments.Season) != in.season.Tasks.Season {
		return nil, fmt.Errorf("%s /saison: %d, but the statements are of the season %s", at("inscriptions.json"), in.enrollments.Season, in.season.Tasks.Season)
	}
	if err := in.readReceipts(); err != nil {
		return nil, err
	}
	return in, nil
}

// seasonFileLimit bounds the statements and the key a season's folder
// holds: a few dozen KiB each.
var seasonFileLimit = proofs.Limit{What: "a season's statements or key", Bytes: 4 << 20}

// verifyAnchoring verifies the record's anchoring when the season's
// folder holds one, as proveit seal -verify does (the record's proof,
// read from the season's views, against the same trust material as every
// other proof), and returns the proof's id to publish; nil when the
// folder holds none. A proof that does not anchor the record is a
// refusal: the Index never names an anchor it did not verify.
func verifyAnchoring(folder *proofs.Folder, name string, record seal.File, rec seal.Record, trust *proofs.Trust) (*string, error) {
	present, err := folder.Present(name)
	if err != nil || !present {
		return nil, err
	}
	data, err := folder.Read(name, seal.AnchoringLimit)
	if err != nil {
		return nil, err
	}
	a, err := seal.DecodeAnchoring(name, data)
	if err != nil {
		return nil, err
	}
	if err := rec.VerifyAnchoring(record.Name, record.Data, a, trust, folder.Path(viewsFolder)); err != nil {
		var mismatch *seal.AnchoringError
		if errors.As(err, &mismatch) {
			return nil, fmt.Errorf("refusing to publish: %s: %s does not anchor %s: %s", name, a.ProofID, record.Name, strings.Join(mismatch.Lines, "; "))
		}
		return nil, err
	}
	return &a.ProofID, nil
}

// viewsFolder is the season's folder of proofs' views, as proveit proofs
// fetch fills it.
const viewsFolder = "views"

// trust is the trust material of the season's verification: the one the
// repository pins, or the folder the reader named. Never a folder found
// in the season: a season would then vouch for itself.
func (o *Options) trust() (*proofs.Trust, error) {
	if o.TrustDir == "" {
		return proofs.PinnedTrust()
	}
	return proofs.ReadTrust(o.TrustDir)
}

// submissionsDir is an enrollment's folder of submissions, by its path
// in the season's folder.
func (in *trackInputs) submissionsDir(id string) string {
	return in.track.Name + "/soumissions/" + id
}

// checkSubmissionFolders refuses a folder of submissions no enrollment
// names: they would count for no one.
func (in *trackInputs) checkSubmissionFolders() error {
	root := in.track.Name + "/soumissions"
	present, err := in.folder.Present(root)
	if err != nil || !present {
		return err
	}
	entries, err := in.folder.ReadDir(root, len(in.enrollments.Enrollments))
	if err != nil {
		return fmt.Errorf("%w (one folder an enrollment of inscriptions.json)", err)
	}
	enrolled := make(map[string]bool, len(in.enrollments.Enrollments))
	for _, en := range in.enrollments.Enrollments {
		enrolled[en.ID] = true
	}
	for _, e := range entries {
		if !e.IsDir() || !enrolled[e.Name()] {
			return fmt.Errorf("%s: not the folder of an enrollment of inscriptions.json", printable.String(in.folder.Path(root+"/"+e.Name())))
		}
	}
	return nil
}

// submissions reads an enrollment's submissions that count, one
// <task_id>.json a task of the statements at most, in the order of their
// names (the order of proveit score's arguments from the shell's
// soumissions/<id>/*.json), and refuses one of another DID than the
// enrollment's. Each is named by its path in the season's folder, which
// the reports publish.
func (in *trackInputs) submissions(en *Enrollment) ([]score.Parsed, error) {
	dir := in.submissionsDir(en.ID)
	present, err := in.folder.Present(dir)
	if err != nil || !present {
		return nil, err // not there: nothing submitted, every task not rendered
	}
	entries, err := in.folder.ReadDir(dir, len(in.season.Tasks.Tasks))
	if err != nil {
		return nil, fmt.Errorf("%w (one <task_id>.json a task)", err)
	}
	tasks := make(map[string]bool, len(in.season.Tasks.Tasks))
	for _, t := range in.season.Tasks.Tasks {
		tasks[t.ID] = true
	}
	var subs []score.Parsed
	for _, e := range entries {
		file := dir + "/" + e.Name()
		task, isJSON := strings.CutSuffix(e.Name(), ".json")
		if !e.Type().IsRegular() || !isJSON || !tasks[task] {
			return nil, fmt.Errorf("%s: not a submission (a <task_id>.json file, for a task of the statements)", printable.String(in.folder.Path(file)))
		}
		data, err := in.folder.Read(file, score.SubmissionLimit)
		if err != nil {
			return nil, err
		}
		if err := in.checkReceipt(file, en.ID, task, data); err != nil {
			return nil, err
		}
		sub, err := score.ParseSubmission(file, data)
		if sub.AgentDID != "" && sub.AgentDID != en.DID {
			return nil, fmt.Errorf("%s /agent_did: %q, not the DID %q the enrollment names", file, sub.AgentDID, en.DID)
		}
		subs = append(subs, score.Parsed{Submission: sub, Err: err})
	}
	return subs, nil
}
