package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/tools/score"
	"github.com/arkforge/proveit-corpus/tools/seal"
	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/solver"
)

// runScore replays the scoring of submissions against the statements, the
// key, the manifest and the frozen tree, and writes the report. Bad input
// (an unreadable file, a manifest of another track, a key that does not open
// its commitment) is exit status 2; a scored run, whatever its scores, 0.
func runScore(args []string, stdout io.Writer) error {
	fs := newFlagSet("score")
	tasksFile := fs.String("taches", "", "task statements of the track (required)")
	keyFile := fs.String("key", "", "the answer key revealed at the close (required)")
	proofsFile := fs.String("proofs", "", `Trust Layer's verifier's outcome, {"<proof_id>": {"valide", "identite_liee", "en_attente"}} (default: conditions 1 and 2 not verified)`)
	manifestFile := fs.String("manifest", "", "the track's manifest (default manifest/<piste>.json)")
	tree := fs.String("tree", "", "the track's frozen tree (default corpus/<piste>)")
	saltHex := fs.String("salt", "", "the revealed salt: with -commitment, the key must open it")
	commitment := fs.String("commitment", "", "the anchored key commitment, with -salt")
	anchored := fs.String("manifest-sha256", "", "the anchored SHA-256 of the manifest: refuse to score another")
	format := fs.String("format", "json", "json or text")
	fs.args = "SUBMISSION.json..."
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: proveit score -taches FILE -key FILE [-proofs FILE] [-manifest FILE] [-tree DIR] [-manifest-sha256 HEX] [-salt HEX -commitment HEX] [-format json|text] SUBMISSION.json...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	bad := func(format string, args ...any) error { return badInput(fmt.Errorf(format, args...)) }
	switch {
	case *tasksFile == "" || *keyFile == "":
		return bad("-taches and -key are required")
	case (*saltHex == "") != (*commitment == ""):
		return bad("-salt and -commitment go together")
	case *format != "json" && *format != "text":
		return bad("-format %q: want json or text", *format)
	}
	track, err := score.OpenTrack(*tasksFile)
	if err != nil {
		return badInput(err)
	}
	keyBytes, err := os.ReadFile(*keyFile)
	if err != nil {
		return badInput(err)
	}
	if *saltHex != "" {
		if err := seal.Verify(*saltHex, *commitment, keyBytes); err != nil {
			return bad("%s: %w", *keyFile, err)
		}
	}
	var key season.Key
	if err := season.DecodeStrict(*keyFile, keyBytes, &key); err != nil {
		return badInput(err)
	}
	if *manifestFile == "" {
		*manifestFile = filepath.Join("manifest", track.Piste()+".json")
	}
	if *tree == "" {
		*tree = filepath.Join("corpus", track.Piste())
	}
	m, manifestBytes, err := manifest.ReadFile(*manifestFile)
	if err != nil {
		return badInput(err)
	}
	if sum := manifest.SHA256(manifestBytes); *anchored != "" && !strings.EqualFold(strings.TrimSpace(*anchored), sum) {
		return bad("%s: sha256 %s is not the anchored %s", *manifestFile, sum, *anchored)
	}
	if m.Piste != track.Piste() {
		return bad("%s /piste: the manifest is of the track %q, the statements of %q", *manifestFile, m.Piste, track.Piste())
	}
	if _, err := m.Check(os.DirFS(*tree), manifest.Full); err != nil {
		return bad("%s against %s: %w", *tree, *manifestFile, err)
	}
	scorer := &score.Scorer{
		Track:          track,
		Key:            &key,
		Manifest:       m,
		ManifestSHA256: manifest.SHA256(manifestBytes),
		Fetch:          solver.ServeTree(os.DirFS(*tree)),
	}
	if *proofsFile != "" {
		data, err := os.ReadFile(*proofsFile)
		if err != nil {
			return badInput(err)
		}
		if err := season.DecodeStrict(*proofsFile, data, &scorer.Proofs); err != nil {
			return badInput(err)
		}
		if scorer.Proofs == nil {
			scorer.Proofs = map[string]score.ProofOutcome{}
		}
	}
	if fs.NArg() == 0 {
		return bad("no submission given")
	}
	var subs []score.Parsed
	for _, file := range fs.Args() {
		data, err := os.ReadFile(file)
		if err != nil {
			return badInput(err)
		}
		sub, err := score.ParseSubmission(file, data)
		subs = append(subs, score.Parsed{Submission: sub, Err: err})
	}
	report, err := scorer.Score(subs)
	if err != nil {
		return badInput(err)
	}
	if *format == "text" {
		_, err = io.WriteString(stdout, report.Text())
		return err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(report); err != nil {
		return err
	}
	_, err = stdout.Write(buf.Bytes())
	return err
}

// inputError is input the command cannot work from: exit status 2.
type inputError struct{ err error }

func (e inputError) Error() string { return e.err.Error() }
func (e inputError) Unwrap() error { return e.err }

func badInput(err error) error { return inputError{err} }
