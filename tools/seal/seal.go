// Package seal makes and checks the pre-registration record of each track of
// a season (docs/contract.md, section 8; spec §8), one record per track since the tracks
// are never aggregated. The record is public and lives in the repository; it
// anchors the SHA-256 of the manifest (the corpus's identity), of the task
// statements (whose bounds, entities, activities and categories build the
// graph and the admissibility), of the frozen scoring section, and the
// commitment sha256(salt || key) to the sealed answer key, with a fresh
// random 32-byte salt.
//
// The salt goes to a private file, outside every repository, and is
// revealed with the key at the season's close. Without it, a key of ten
// verdicts among three could be found from its hash by brute force: no
// function here computes an unsalted hash of a key.
package seal

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/tools/atomicfile"
	"github.com/arkforge/proveit-corpus/tools/privatefile"
	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// saltSize is the length of the salt in bytes.
const saltSize = 32

// Record is a track's pre-registration record, as the repository holds it
// and Trust Layer anchors it.
type Record struct {
	Track                string `json:"piste"`
	Season               string `json:"saison"`
	ManifestSHA256       string `json:"manifest_sha256"`
	TasksSHA256          string `json:"taches_sha256"`
	KeyCommitment        string `json:"engagement_cle"` // sha256(salt || key)
	ScoringSectionSHA256 string `json:"bareme_sha256"`  // the frozen scoring section's published text
	// The season's opening and closing, RFC 3339 in UTC: the RFC 3161 time
	// of every proof a submission cites lies between them, bounds included
	// (spec §4.1, condition 1).
	Opening string `json:"ouverture"`
	Closing string `json:"cloture"`
}

// Window is the season the record dates, as a verification bounds it.
func (r Record) Window() (proofs.Window, error) {
	opening, err := ParseUTC(r.Opening)
	if err != nil {
		return proofs.Window{}, fmt.Errorf("/ouverture: %w", err)
	}
	closing, err := ParseUTC(r.Closing)
	if err != nil {
		return proofs.Window{}, fmt.Errorf("/cloture: %w", err)
	}
	if closing.Before(opening) {
		return proofs.Window{}, errors.New("/cloture: before /ouverture")
	}
	return proofs.Window{Opening: opening, Closing: closing}, nil
}

// ParseUTC reads a time as the record writes it, RFC 3339 in UTC.
func ParseUTC(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil || !strings.HasSuffix(s, "Z") {
		return time.Time{}, fmt.Errorf("%q: want an RFC 3339 time in UTC, such as 2026-10-01T00:00:00Z", s)
	}
	return t, nil
}

// FormatUTC writes a time as a record does.
func FormatUTC(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// File is one file the record anchors: its name, for messages, and its
// bytes.
type File struct {
	Name string
	Data []byte
}

// Files are the files a record anchors. A check leaves out a
// ScoringSection without a Name: the replay does not read it.
type Files struct {
	Manifest, Tasks, Key, ScoringSection File
}

// newRecord seals a track's files with a fresh salt and returns the record and
// the salt. The track and season are those the statements declare; window
// is the season's opening and closing.
func newRecord(track, season string, window proofs.Window, f Files) (Record, []byte) {
	salt := NewSalt()
	return Record{
		Opening:              FormatUTC(window.Opening),
		Closing:              FormatUTC(window.Closing),
		Track:                track,
		Season:               season,
		ManifestSHA256:       anchor.SHA256(f.Manifest.Data),
		TasksSHA256:          anchor.SHA256(f.Tasks.Data),
		KeyCommitment:        commit(salt, f.Key.Data),
		ScoringSectionSHA256: anchor.SHA256(f.ScoringSection.Data),
	}, salt
}

// NewSalt returns saltSize bytes from the operating system's secure random
// source.
func NewSalt() []byte {
	salt := make([]byte, saltSize)
	rand.Read(salt) // never fails since Go 1.24: it crashes the program instead
	return salt
}

// commit is the commitment to a key: the lowercase hex sha256(salt || key).
func commit(salt, key []byte) string {
	return anchor.SHA256(append(append(make([]byte, 0, len(salt)+len(key)), salt...), key...))
}

// MismatchError lists every file that does not match its record, one line
// each.
type MismatchError struct {
	Record string   // the record's file
	Lines  []string // one per file that does not match
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("%s does not anchor these files:\n  %s", e.Record, strings.Join(e.Lines, "\n  "))
}

// Check reports whether the files are those the record anchors: the track,
// each file's SHA-256, and the key with salt opening the commitment. It
// returns a *MismatchError naming each file that does not match.
func (r Record) Check(recordFile, track string, f Files, salt []byte) error {
	var lines []string
	if r.Track != track {
		lines = append(lines, fmt.Sprintf("the record is of the track %q, not %q", r.Track, track))
	}
	hashed := []struct {
		file  File
		field string
		want  string
	}{
		{f.Manifest, "manifest_sha256", r.ManifestSHA256},
		{f.Tasks, "taches_sha256", r.TasksSHA256},
		{f.ScoringSection, "bareme_sha256", r.ScoringSectionSHA256},
	}
	for _, h := range hashed {
		if h.file.Name == "" {
			continue
		}
		if got := anchor.SHA256(h.file.Data); got != h.want {
			lines = append(lines, fmt.Sprintf("%s: sha256 %s is not the record's %s %s", h.file.Name, got, h.field, h.want))
		}
	}
	if commit(salt, f.Key.Data) != r.KeyCommitment {
		// Of the key, nothing but the salted commitment is ever shown.
		lines = append(lines, fmt.Sprintf("%s: the key and the salt do not open the record's engagement_cle %s", f.Key.Name, r.KeyCommitment))
	}
	if len(lines) > 0 {
		return &MismatchError{Record: recordFile, Lines: lines}
	}
	return nil
}

// The most a record and a salt file may hold: a record is a few hundred
// bytes, a salt one line. Both are read as anyone's files are, bounded.
var (
	RecordLimit = proofs.Limit{What: "a pre-registration record", Bytes: 64 << 10}
	SaltLimit   = proofs.Limit{What: "a salt file", Bytes: 256}
)

// ReadRecord reads a record file as any published file is read
// (proofs.ReadFolderFile: a regular file, bounded), then DecodeRecord.
func ReadRecord(path string) (Record, error) {
	data, err := proofs.ReadFolderFile(filepath.Dir(path), filepath.Base(path), RecordLimit)
	if err != nil {
		return Record{}, err
	}
	return DecodeRecord(path, data)
}

// DecodeRecord reads a record as strictly as a submission is read, and
// checks its values' forms; path names it in errors.
func DecodeRecord(path string, data []byte) (Record, error) {
	var r Record
	if err := season.DecodeStrict(path, data, &r); err != nil {
		return Record{}, err
	}
	if _, err := corpus.TrackNamed(r.Track); err != nil {
		return Record{}, fmt.Errorf("%s /piste: %w", path, err)
	}
	if r.Season == "" || strings.Trim(r.Season, "0123456789") != "" {
		return Record{}, fmt.Errorf("%s /saison: want the season's number as a string, such as \"1\"", path)
	}
	if _, err := r.Window(); err != nil {
		return Record{}, fmt.Errorf("%s %w", path, err)
	}
	for _, h := range []struct{ field, value string }{
		{"manifest_sha256", r.ManifestSHA256},
		{"taches_sha256", r.TasksSHA256},
		{"engagement_cle", r.KeyCommitment},
		{"bareme_sha256", r.ScoringSectionSHA256},
	} {
		if !anchor.IsSHA256(h.value) {
			return Record{}, fmt.Errorf("%s /%s: want a SHA-256 as 64 lowercase hex digits", path, h.field)
		}
	}
	return r, nil
}

// ErrSealed is returned when a track already has a record and re-sealing
// was not asked for.
var ErrSealed = errors.New("the track is sealed already: re-sealing draws a new salt and replaces the record, whose anchored commitment only the old salt opens")

// Seal seals a track: it draws a salt, writes it to the private file
// saltFile (refused inside a git work tree, and never over an existing
// file), then the record to recordFile. A record already at recordFile is
// replaced only when reseal is set. The salt is written first: a record
// whose salt was lost would lose the season.
func Seal(recordFile, saltFile, track, season string, window proofs.Window, f Files, reseal bool) (Record, error) {
	if _, err := os.Lstat(recordFile); err == nil && !reseal {
		return Record{}, fmt.Errorf("%s: %w", recordFile, ErrSealed)
	}
	r, salt := newRecord(track, season, window, f)
	if err := WriteSalt(saltFile, salt); err != nil {
		return Record{}, err
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return Record{}, err
	}
	return r, atomicfile.Replace(recordFile, append(data, '\n'), 0o644) // a public file
}

// WriteSalt writes a salt, in hex on one line, to a new private file.
func WriteSalt(path string, salt []byte) error {
	if err := privatefile.Create(path, []byte(hex.EncodeToString(salt)+"\n")); err != nil {
		return fmt.Errorf("salt file %w", err)
	}
	return nil
}

// ReadSalt reads a salt file: saltSize bytes in hex, on one line.
func ReadSalt(path string) ([]byte, error) {
	data, err := proofs.ReadFolderFile(filepath.Dir(path), filepath.Base(path), SaltLimit)
	if err != nil {
		return nil, err
	}
	return DecodeSalt(path, data)
}

// DecodeSalt reads a salt file's bytes; path names it in errors.
func DecodeSalt(path string, data []byte) ([]byte, error) {
	salt, err := hex.DecodeString(string(bytes.TrimSpace(data)))
	if err != nil {
		return nil, fmt.Errorf("salt file %s: not hex", path)
	}
	if len(salt) != saltSize {
		return nil, fmt.Errorf("salt file %s: %d bytes, want %d", path, len(salt), saltSize)
	}
	return salt, nil
}
