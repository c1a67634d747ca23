package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/arkforge/proveit-corpus/internal/printable"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/index"
	"github.com/arkforge/proveit-corpus/tools/privatefile"
	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/seal"
	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/seasonservice"
	"github.com/arkforge/proveit-corpus/tools/seasonstore"
)

// referenceRunMembers are a reference run's entry file: its inscriptions.json
// entry but for what the command sets itself (id, inscrit_le, tableau).
var referenceRunMembers = season.Exactly("agent", "did", "cle", "historique_did", "stack", "lien_preuves",
	"modele", "version", "framework", "prompt")

// entryLimit bounds a reference run's entry file; its prompt is the
// longest member.
var entryLimit = proofs.Limit{What: "a reference run's entry", Bytes: seasonstore.MaxEnrollmentBytes}

// runEnroll enrolls one of the operator's reference runs on the season
// service's database, while its track is open, as the service enrolls a
// participant: the same store, the same rules, a season token of its own,
// written to a new private file, with which the run submits over HTTP like
// everyone.
func runEnroll(args []string, stdout io.Writer) error {
	fs := newFlagSet("enroll")
	var track string
	registerTrack(fs, &track, "refused: say which track")
	database := fs.String("database", "", "the season service's database: a SQLite file's path or a postgres:// URL (required)")
	id := fs.String("id", "", "the reference run's enrollment id, its folder and page in the Index (required): 1 to 40 of a-z, 0-9 and -")
	entry := fs.String("entry", "", "the run's entry, JSON (required): exactly agent, did, cle (the SHA-256 of its Trust Layer key, hex), historique_did, stack, lien_preuves, modele, version, framework, prompt")
	token := fs.String("token", "", "a new file, outside every work tree, that receives the run's season token (required)")
	record := fs.String("record", "", "the track's pre-registration record (default: the one compiled in, "+season.Dir+"/preenregistrement[-<track>].json)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case track == "":
		return badUsage(errors.New("say which track with -track: a reference run enrolls on one track"))
	case *database == "":
		return badUsage(errors.New("-database is required: the season service's SQLite file or PostgreSQL URL"))
	case *id == "":
		return badUsage(errors.New("-id is required: the reference run's enrollment id"))
	case *entry == "":
		return badUsage(errors.New("-entry is required: the reference run's entry, JSON"))
	case *token == "":
		return badUsage(errors.New("-token is required: the new file that receives the run's season token"))
	}
	rec, err := trackRecord(track, *record)
	if err != nil {
		return err
	}
	now := time.Now()
	if !rec.window.OpenAt(now) {
		return badInput(fmt.Errorf("the track %s is not open: %s gives %s to %s", track, rec.file, rec.Opening, rec.Closing))
	}
	file, err := readFile(*entry, entryLimit)
	if err != nil {
		return badInput(err)
	}
	run, err := decodeReferenceRun(file.Name, file.Data)
	if err != nil {
		return badInput(err)
	}
	run.ID, run.EnrolledAt, run.Table = *id, seal.FormatUTC(now), index.TableReference
	// The token's file first: an enrollment whose token was lost could
	// never submit.
	if err := privatefile.CheckOutsideWorkTrees(*token); err != nil {
		return badInput(err)
	}
	secret, secretSHA256 := seasonservice.NewToken()
	ctx := context.Background()
	store, err := seasonstore.Open(ctx, *database, seasonstore.Options{})
	if err != nil {
		return badInput(err)
	}
	defer store.Close()
	if err := privatefile.Create(*token, []byte(secret+"\n")); err != nil {
		return badInput(err)
	}
	enrolled, err := store.Enroll(ctx, seasonstore.NewEnrollment{Season: rec.season, Track: track, Enrollment: run, TokenSHA256: secretSHA256})
	if err != nil {
		_ = os.Remove(*token) // the token of no enrollment
		return badInput(fmt.Errorf("%s: %w", file.Name, err))
	}
	fmt.Fprintf(stdout, "enrolled the reference run %s on %s (season %d) at %s; its season token is in %s\n",
		enrolled.ID, track, rec.season, enrolled.EnrolledAt, printable.String(*token))
	return nil
}

// decodeReferenceRun reads a reference run's entry file strictly: exactly
// its members, read as Python reads JSON.
func decodeReferenceRun(name string, data []byte) (index.Enrollment, error) {
	var run index.Enrollment
	doc, err := pyjson.Parse(data)
	if err != nil {
		return run, fmt.Errorf("%s: %w", name, err)
	}
	if err := referenceRunMembers.Check(doc, ""); err != nil {
		return run, fmt.Errorf("%s: %w", name, err)
	}
	if err := json.Unmarshal(data, &run); err != nil {
		return run, fmt.Errorf("%s: %w", name, err)
	}
	return run, nil
}
