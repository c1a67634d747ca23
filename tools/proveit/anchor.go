package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"net/http"
	"os"
	"time"

	"github.com/arkforge/proveit-corpus/internal/printable"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/tools/atomicfile"
	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/proxycall"
	"github.com/arkforge/proveit-corpus/tools/seal"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// apiKeyLimit bounds a file holding a Trust Layer key: a few dozen bytes.
var apiKeyLimit = proofs.Limit{What: "a Trust Layer key's file", Bytes: 4 << 10}

// runAnchor anchors a track's record before its season opens, as the
// specification asks (8.5): a GET of the record's published URL through
// Trust Layer's proxy with the challenge's key, whose answer must be the
// record's very bytes. It writes the call's proof id, the URL and the
// owner's disclosure of the proof where seal -verify and proveit index
// read them (preenregistrement.ancrage.json, beside the record in the
// season folder).
func runAnchor(args []string, stdout io.Writer) error {
	fs := newFlagSet("anchor")
	var track string
	registerTrack(fs, &track, "refused: say which track")
	record := fs.String("record", "", "the track's pre-registration record (default: the one compiled in, "+season.Dir+"/preenregistrement[-<track>].json)")
	recordURL := fs.String("record-url", "", "the URL the record is published at (required), such as https://proveit.arkforge.tech/v1/season/1/conformite/preenregistrement.json")
	trustLayer := fs.String("trust-layer", "https://trust.arkforge.tech", "Trust Layer's origin")
	keyFile := fs.String("api-key-file", "", "the file holding the challenge's Trust Layer key (required; never given on a command line)")
	out := fs.String("o", "", "the anchoring file to write (required, new): <season>/<track>/"+seal.AnchoringFile)
	timeout := fs.Duration("timeout", time.Minute, "the longest the two calls to Trust Layer may take")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case track == "":
		return badUsage(errors.New("say which track with -track: each record is anchored on its own"))
	case *recordURL == "":
		return badUsage(errors.New("-record-url is required: the URL the record is published at"))
	case *keyFile == "":
		return badUsage(errors.New("-api-key-file is required: the file holding the challenge's Trust Layer key"))
	case *out == "":
		return badUsage(errors.New("-o is required: the anchoring file to write"))
	}
	rec, err := trackRecord(track, *record)
	if err != nil {
		return err
	}
	if !rec.window.NotYetOpenAt(time.Now()) {
		return badInput(fmt.Errorf("the season opened at %s (%s /ouverture): a record anchored after its opening anchors nothing", rec.Opening, rec.file))
	}
	if _, err := os.Lstat(*out); !errors.Is(err, iofs.ErrNotExist) {
		return badInput(fmt.Errorf("%s exists: an anchoring is written once; remove it to anchor again", printable.String(*out)))
	}
	key, err := readFile(*keyFile, apiKeyLimit)
	if err != nil {
		return badInput(err)
	}
	apiKey := string(bytes.TrimSpace(key.Data))
	if apiKey == "" {
		return badInput(fmt.Errorf("%s: no key in it", printable.String(*keyFile)))
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	call, err := (&proxycall.Client{URL: *trustLayer, APIKey: apiKey}).Get(ctx, *recordURL)
	if err != nil {
		return badInput(err)
	}
	want, err := anchor.ResponseHash(rec.data)
	if err != nil {
		return badInput(fmt.Errorf("%s: %w", rec.file, err))
	}
	switch {
	case call.Status != http.StatusOK:
		return badInput(fmt.Errorf("GET %s through Trust Layer answered %d (proof %s): the record must be published there before it is anchored", *recordURL, call.Status, call.ProofID))
	case call.Disclosure.ResponseHash.Value != want:
		return badInput(fmt.Errorf("GET %s through Trust Layer served other bytes than %s (proof %s anchors them): publish this record there, then anchor it", *recordURL, rec.file, call.ProofID))
	}
	data, err := json.MarshalIndent(seal.Anchoring{ProofID: call.ProofID, RecordURL: *recordURL, Disclosure: call.Disclosure}, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Replace(*out, append(data, '\n'), 0o644); err != nil {
		return badInput(err)
	}
	fmt.Fprintf(stdout, "anchored %s with %s, a GET of %s through %s; wrote %s\n",
		rec.file, call.ProofID, printable.String(*recordURL), printable.String(*trustLayer), printable.String(*out))
	fmt.Fprintf(stdout, "Its view is public once its batch is anchored: proveit proofs fetch -views VIEWS %s\n", call.ProofID)
	return nil
}
