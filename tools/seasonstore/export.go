package seasonstore

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"

	"github.com/arkforge/proveit-corpus/tools/atomicfile"
	"github.com/arkforge/proveit-corpus/tools/receipt"
	"github.com/arkforge/proveit-corpus/tools/score"
)

// ErrTrackOpen refuses to export a track that is not closed: its
// submissions are not final.
var ErrTrackOpen = errors.New("seasonstore: the track is not closed; close it before exporting")

// WriteExport writes a closed track's export into the season folder dir,
// as proveit index -season reads it: <track>/inscriptions.json (in
// enrollment order), <track>/soumissions/<id>/<task_id>.json (each the
// last accepted bytes, exactly as received) and <track>/recus.json. Every
// file is written within dir (through os.Root) and whole; a track folder
// that already holds an export is refused, never mixed with this one.
func WriteExport(ctx context.Context, s Store, season int, track string, receiptKey ed25519.PublicKey, dir string) error {
	state, err := s.TrackState(ctx, season, track)
	if err != nil {
		return err
	}
	if !state.Closed {
		return ErrTrackOpen // before a file is written
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	for _, name := range []string{"inscriptions.json", "soumissions", "recus.json"} {
		if _, err := root.Lstat(path.Join(track, name)); !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: holds %s already: export a track once, into a new season folder", dir, path.Join(track, name))
		}
	}
	if err := root.MkdirAll(path.Join(track, "soumissions"), 0o755); err != nil {
		return err
	}
	export, err := s.Export(ctx, season, track, func(c Counted) error {
		folder := path.Join(track, "soumissions", c.EnrollmentID)
		if err := root.Mkdir(folder, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		return atomicfile.ReplaceIn(root, path.Join(folder, c.TaskID+".json"), c.Body, 0o644)
	})
	if err != nil {
		return err
	}
	if !export.Closed {
		return ErrTrackOpen
	}
	inscriptions, err := score.MarshalReport(export.Enrollments)
	if err != nil {
		return err
	}
	if err := atomicfile.ReplaceIn(root, path.Join(track, "inscriptions.json"), inscriptions, 0o644); err != nil {
		return err
	}
	receipts, err := score.MarshalReport(receipt.File{Season: season, Track: track,
		Key: base64.StdEncoding.EncodeToString(receiptKey), Receipts: export.Receipts})
	if err != nil {
		return err
	}
	return atomicfile.ReplaceIn(root, path.Join(track, receipt.FileName), receipts, 0o644)
}
