package score

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/seal"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// TrackFiles are what a replay of one track reads, already read (bounded,
// as anyone's files are), each named as its reader names it: a path given
// on a command line, or its path in a season's folder.
type TrackFiles struct {
	Track *corpus.Track
	// Record is the track's pre-registration record; zero when none is
	// read (a dry run that needs no season window).
	Record seal.File
	// Sealed are the files the record anchors: the manifest, the
	// statements and the key.
	Sealed seal.Files
	// Salt opens the record's key commitment; nil in a dry run, where
	// nothing is checked against the record.
	Salt *seal.File
	// Tree is the frozen tree the manifest describes.
	Tree fs.FS
}

// Season is one track's season ready to replay, for proveit score and the
// Index alike: its files checked against its record (unless a dry run),
// each decoded once, and its replay built once.
type Season struct {
	Track *corpus.Track
	// Record is nil when none was read.
	Record         *seal.Record
	RecordSHA256   string
	Tasks          *season.Tasks
	Key            *season.Key
	Manifest       *manifest.Manifest
	ManifestSHA256 string
	Replay         *Replay
}

// OpenSeason decodes a track's files, checks them against its record
// (unless f.Salt is nil: a dry run; a file the record does not anchor is
// a *seal.MismatchError), and builds the track's replay: the tree
// checked against the manifest, every task's graph walked. Every error
// names the file, the JSON pointer and the rule.
func OpenSeason(f TrackFiles) (*Season, error) {
	s := &Season{Track: f.Track}
	if f.Record.Name != "" {
		rec, err := seal.DecodeRecord(f.Record.Name, f.Record.Data)
		if err != nil {
			return nil, err
		}
		if rec.Track != f.Track.Name {
			return nil, fmt.Errorf("%s /piste: the record is of the track %q, not %q", f.Record.Name, rec.Track, f.Track.Name)
		}
		s.Record, s.RecordSHA256 = &rec, anchor.SHA256(f.Record.Data)
	}
	var err error
	if s.Manifest, err = manifest.Decode(f.Sealed.Manifest.Data); err != nil {
		return nil, fmt.Errorf("%s: %w", f.Sealed.Manifest.Name, err)
	}
	if s.Manifest.Track != f.Track.Name {
		return nil, fmt.Errorf("%s /piste: the manifest is of the track %q, not %q", f.Sealed.Manifest.Name, s.Manifest.Track, f.Track.Name)
	}
	s.ManifestSHA256 = anchor.SHA256(f.Sealed.Manifest.Data)
	if s.Tasks, err = season.DecodeTasks(f.Sealed.Tasks.Name, f.Sealed.Tasks.Data); err != nil {
		return nil, err
	}
	if s.Tasks.Track != f.Track.Name {
		return nil, fmt.Errorf("%s /piste: the statements are of the track %q, not %q", f.Sealed.Tasks.Name, s.Tasks.Track, f.Track.Name)
	}
	if s.Key, err = season.DecodeKey(f.Sealed.Key.Name, f.Sealed.Key.Data); err != nil {
		return nil, err
	}
	// Checked once each file is known to be of the track: a file of the
	// other track is named as such, not as a hash the record lacks.
	if f.Salt != nil {
		if s.Record == nil {
			return nil, errors.New("no record to check the files against")
		}
		salt, err := seal.DecodeSalt(f.Salt.Name, f.Salt.Data)
		if err != nil {
			return nil, err
		}
		// A file the record does not anchor is a *seal.MismatchError.
		if err := s.Record.Check(f.Record.Name, f.Track.Name, f.Sealed, salt); err != nil {
			return nil, err
		}
	}
	s.Replay, err = NewReplay(ReplayInput{
		Tasks: s.Tasks, Key: s.Key, Manifest: s.Manifest, ManifestSHA256: s.ManifestSHA256,
		Tree: f.Tree, Anchored: f.Salt != nil,
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Verifier verifies the season's proofs against trust, each token's time
// held to the record's window.
func (s *Season) Verifier(trust *proofs.Trust) (*proofs.Verifier, error) {
	if s.Record == nil {
		return nil, errors.New("no record: the season's window, which bounds the tokens' time, is the record's")
	}
	window, err := s.Record.Window()
	if err != nil {
		return nil, err
	}
	return proofs.NewVerifier(trust, proofs.WithSeason(window))
}

// VerifyCited verifies every cited proof of a views folder, once. When
// none verifies because the trust material knows none of their signers
// (proofs.TrustFailed), it is an *proofs.UntrustedError: the keys failed,
// not the participants, and nothing is to be scored.
func VerifyCited(vr *proofs.Verifier, trust *proofs.Trust, views string, cites []proofs.Citation) (map[string]proofs.Result, error) {
	results := vr.VerifyFolder(views, cites)
	if proofs.TrustFailed(results) {
		return results, &proofs.UntrustedError{Trust: trust.Name(), Proofs: len(results)}
	}
	return results, nil
}
