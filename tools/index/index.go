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
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/tools/proofs"
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
	// <Season>/trust when it exists, else the one the repository pins.
	TrustDir string
	// DryRun builds from files no record anchors, before the close if need
	// be; every page then says in its first line it is not a publication.
	DryRun bool
	// Now is the clock the record's closing is compared with; nil: time.Now.
	Now func() time.Time
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
	track          *corpus.Track
	dir            string
	tasks          *season.Tasks
	key            *season.Key
	manifest       *manifest.Manifest
	manifestSHA256 string
	anchored       bool
	record         seal.Record
	recordProof    *string
	enrollments    *Enrollments
}

// Tracks names the tracks present in a season's folder, in the
// repository's order.
func Tracks(seasonDir string) ([]*corpus.Track, error) {
	var out []*corpus.Track
	for _, t := range corpus.Tracks {
		switch info, err := os.Stat(filepath.Join(seasonDir, t.Name)); {
		case err == nil && info.IsDir():
			out = append(out, t)
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return nil, badInput(err)
		}
	}
	if len(out) == 0 {
		return nil, badInput(fmt.Errorf("%s: no track's folder (%s)", seasonDir, trackList()))
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

// orDefault is the season folder's file when it is there, else the
// repository's.
func orDefault(file, fallback string) string {
	if _, err := os.Stat(file); err == nil {
		return file
	}
	return fallback
}

// readTrack reads a track's files and checks them as proveit score does:
// the manifest, the statements and the key with the salt must be those the
// record anchors (unless in a dry run), and the season closed.
func (o *Options) readTrack(t *corpus.Track) (*trackInputs, error) {
	in := &trackInputs{track: t, dir: filepath.Join(o.Season, t.Name), anchored: !o.DryRun}
	var err error
	if in.enrollments, err = ReadEnrollments(filepath.Join(in.dir, "inscriptions.json"), t.Name); err != nil {
		return nil, err
	}
	recordFile := orDefault(filepath.Join(in.dir, "preenregistrement.json"), season.RecordFile(t))
	if in.record, err = seal.ReadRecord(recordFile); err != nil {
		return nil, err
	}
	window, _ := in.record.Window() // ReadRecord checked it
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	if !o.DryRun && now().Before(window.Closing) {
		return nil, fmt.Errorf("refusing to publish before the season's close: %s /cloture is %s (a dry run, asked for by name, says on every page it is not a publication)", recordFile, in.record.Closing)
	}
	if in.recordProof, err = readRecordProof(filepath.Join(in.dir, "preenregistrement.proof")); err != nil {
		return nil, err
	}
	files := seal.Files{Manifest: seal.File{Name: "manifest/" + manifest.FileName(t) + " (compiled in)", Data: manifest.Embedded(t)}}
	tasksFile := orDefault(filepath.Join(in.dir, "taches.json"), season.TasksFile(t))
	keyFile := filepath.Join(in.dir, "cle.json")
	for _, f := range []struct {
		into *seal.File
		name string
	}{{&files.Tasks, tasksFile}, {&files.Key, keyFile}} {
		data, err := readBounded(f.name, seasonFileLimit)
		if err != nil {
			return nil, err
		}
		*f.into = seal.File{Name: f.name, Data: data}
	}
	if !o.DryRun {
		salt, err := seal.ReadSalt(filepath.Join(in.dir, "sel"))
		if err != nil {
			return nil, err
		}
		if err := in.record.Check(recordFile, t.Name, files, salt); err != nil {
			var mismatch *seal.MismatchError
			if errors.As(err, &mismatch) {
				// One line, as every refusal of the command.
				return nil, fmt.Errorf("refusing to publish: %s does not anchor these files: %s", mismatch.Record, strings.Join(mismatch.Lines, "; "))
			}
			return nil, fmt.Errorf("refusing to publish: %w", err)
		}
	}
	if in.manifest, err = manifest.Decode(files.Manifest.Data); err != nil {
		return nil, err
	}
	in.manifestSHA256 = anchor.SHA256(files.Manifest.Data)
	if in.tasks, err = season.DecodeTasks(tasksFile, files.Tasks.Data); err != nil {
		return nil, err
	}
	if in.tasks.Track != t.Name {
		return nil, fmt.Errorf("%s /piste: the statements are of the track %q, not %q", tasksFile, in.tasks.Track, t.Name)
	}
	if strconv.Itoa(in.enrollments.Season) != in.tasks.Season {
		return nil, fmt.Errorf("%s /saison: %d, but the statements are of the season %s", filepath.Join(in.dir, "inscriptions.json"), in.enrollments.Season, in.tasks.Season)
	}
	if in.key, err = season.DecodeKey(keyFile, files.Key.Data); err != nil {
		return nil, err
	}
	return in, nil
}

// seasonFileLimit bounds the statements and the key a season's folder
// holds: a few dozen KiB each.
var seasonFileLimit = proofs.Limit{What: "a season's statements or key", Bytes: 4 << 20}

// readRecordProof reads the proof_id that anchored the record, one line,
// when the season's folder holds it; nil otherwise.
func readRecordProof(file string) (*string, error) {
	data, err := readBounded(file, proofs.Limit{What: "a proof id's line", Bytes: 256})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	id := string(trimNewline(data))
	if !proofs.ValidProofID(id) {
		return nil, fmt.Errorf("%s: want the proof_id that anchored the record (prf_YYYYMMDD_HHMMSS_xxxxxx) on one line", file)
	}
	return &id, nil
}

func trimNewline(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// trust is the trust material of the season's verification.
func (o *Options) trust() (*proofs.Trust, error) {
	dir := o.TrustDir
	if dir == "" {
		if info, err := os.Stat(filepath.Join(o.Season, "trust")); err == nil && info.IsDir() {
			dir = filepath.Join(o.Season, "trust")
		}
	}
	if dir == "" {
		return proofs.PinnedTrust()
	}
	return proofs.ReadTrust(dir)
}

// submissionsDir is an enrollment's folder of submissions.
func (in *trackInputs) submissionsDir(id string) string {
	return filepath.Join(in.dir, "soumissions", id)
}

// checkSubmissionFolders refuses a folder of submissions no enrollment
// names: they would count for no one.
func (in *trackInputs) checkSubmissionFolders() error {
	root := filepath.Join(in.dir, "soumissions")
	entries, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.IsDir() || !slices.ContainsFunc(in.enrollments.Enrollments, func(en Enrollment) bool { return en.ID == e.Name() }) {
			return fmt.Errorf("%s: not the folder of an enrollment of inscriptions.json", filepath.Join(root, e.Name()))
		}
	}
	return nil
}
