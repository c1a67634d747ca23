package main

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"time"

	"github.com/arkforge/proveit-corpus/internal/printable"
	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/seal"
	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/seasonservice"
	"github.com/arkforge/proveit-corpus/tools/seasonstore"
)

// runClose closes a track on the season service's database once its
// record's cloture has passed, and exports what the close hands over into
// a season folder, as proveit index -season reads it: the enrollments,
// each enrollment's last accepted submission of each task, and every
// receipt with the receipt key's public half. A submission racing the
// close is either exported with its receipt or refused, never both (the
// store's close waits for the submissions it races).
func runClose(args []string, stdout io.Writer) error {
	fs := newFlagSet("close")
	var track string
	registerTrack(fs, &track, "refused: say which track")
	database := fs.String("database", "", "the season service's database: a SQLite file's path or a postgres:// URL (required)")
	receiptKey := fs.String("receipt-key", "", "the season's receipt key, PEM (required): its public half is published with the receipts")
	record := fs.String("record", "", "the track's pre-registration record (default: the one compiled in, "+season.Dir+"/preenregistrement[-<track>].json)")
	out := fs.String("o", "", "the season folder to export into (required); <folder>/<track> must hold no export yet")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: proveit close -track TRACK -database DB -receipt-key FILE -o SEASON_DIR [-record FILE]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case track == "":
		return badUsage(errors.New("say which track with -track: each track closes and exports on its own"))
	case *database == "":
		return badUsage(errors.New("-database is required: the season service's SQLite file or PostgreSQL URL"))
	case *receiptKey == "":
		return badUsage(errors.New("-receipt-key is required: the export publishes its public half"))
	case *out == "":
		return badUsage(errors.New("-o is required: the season folder to export into"))
	}
	if err := requireFolder("-o", *out); err != nil {
		return err
	}
	rec, err := trackRecord(track, *record)
	if err != nil {
		return err
	}
	now := time.Now()
	if !rec.window.ClosedAt(now) {
		return badInput(fmt.Errorf("refusing to close before the season's close: %s /cloture is %s", rec.file, rec.Closing))
	}
	key, err := seasonservice.ReadReceiptKey(*receiptKey)
	if err != nil {
		return badInput(err)
	}
	ctx := context.Background()
	store, err := seasonstore.Open(ctx, *database, seasonstore.Options{})
	if err != nil {
		return badInput(err)
	}
	defer store.Close()
	closedAt, err := store.CloseTrack(ctx, rec.season, track, now)
	if err != nil {
		return badInput(err)
	}
	if err := seasonstore.WriteExport(ctx, store, rec.season, track, key.Public().(ed25519.PublicKey), *out); err != nil {
		return badInput(err)
	}
	fmt.Fprintf(stdout, "closed %s at %s; exported %s\n", track, seal.FormatUTC(closedAt), printable.String(filepath.Join(*out, track)))
	return nil
}

// seasonRecord is a track's pre-registration record as the season's
// commands act on it: its dates and its season's number.
type seasonRecord struct {
	seal.Record
	file   string
	data   []byte
	window proofs.Window
	season int
}

// trackRecord reads the record of a track that a -record flag names, or
// the one compiled in when it names none, and checks it is the track's.
func trackRecord(track, file string) (*seasonRecord, error) {
	t, err := tracksNamed(track)
	if err != nil {
		return nil, err
	}
	recordFile := seal.File{}
	if file == "" {
		recordFile.Name, recordFile.Data = season.EmbeddedRecord(t[0])
	} else if recordFile, err = readFile(file, seal.RecordLimit); err != nil {
		return nil, badInput(err)
	}
	rec, err := seal.DecodeRecord(recordFile.Name, recordFile.Data)
	if err != nil {
		return nil, badInput(err)
	}
	if rec.Track != track {
		return nil, badInput(fmt.Errorf("%s /piste: the record is of the track %q, not %q", recordFile.Name, rec.Track, track))
	}
	window, _ := rec.Window() // DecodeRecord checked it
	number, err := strconv.Atoi(rec.Season)
	if err != nil {
		return nil, badInput(fmt.Errorf("%s /saison: %w", recordFile.Name, err))
	}
	return &seasonRecord{Record: rec, file: recordFile.Name, data: recordFile.Data, window: window, season: number}, nil
}
