package seasonload

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/arkforge/proveit-corpus/tools/receipt"
	"github.com/arkforge/proveit-corpus/tools/seasonstore"
)

// Export closes track on the database and writes its export into the
// season folder dir, as `proveit close` does once the record's cloture
// has passed (seasonstore.CloseTrack, then WriteExport).
func Export(ctx context.Context, database, track string, key ed25519.PublicKey, dir string) error {
	store, err := seasonstore.Open(ctx, database, seasonstore.Options{})
	if err != nil {
		return err
	}
	defer store.Close()
	if _, err := store.CloseTrack(ctx, Number, track, time.Now()); err != nil {
		return err
	}
	return seasonstore.WriteExport(ctx, store, Number, track, key, dir)
}

// Audit is what CheckExport counted.
type Audit struct {
	// Exported is the submissions in the export; Receipts, the receipts
	// in its recus.json.
	Exported, Receipts int
	// Acknowledged is the answers 200 held to the export.
	Acknowledged int
}

// CheckExport holds the export of track in the season folder dir to what
// was sent and answered, each (enrollment, task) having been handed one
// body: every submission acknowledged is exported byte for byte, with the
// receipt it was answered (the same members, the same signature); the
// export's recus.json verifies with key and holds one receipt a task, no
// second version; each receipt is of bytes that were sent for its task,
// and each exported submission is those bytes, whole. The first breach is
// the error.
func CheckExport(dir, track string, key ed25519.PublicKey, subs []Submission, outcomes []Outcome) (Audit, error) {
	var a Audit
	sent := map[receipt.Task][]byte{}
	for _, s := range subs {
		sent[receipt.Task{Enrollment: s.Entrant.ID, TaskID: s.Task}] = s.Body
	}
	folder := filepath.Join(dir, track)
	name := filepath.Join(folder, receipt.FileName)
	data, err := os.ReadFile(name)
	if err != nil {
		return a, err
	}
	file, last, err := receipt.DecodeFile(name, data)
	if err != nil {
		return a, err
	}
	if file.Key != base64.StdEncoding.EncodeToString(key) {
		return a, fmt.Errorf("%s /cle_recus: not the season's receipt key", name)
	}
	a.Receipts = len(file.Receipts)
	if len(last) != a.Receipts {
		return a, fmt.Errorf("%s: %d receipts for %d tasks: a task was recorded twice", name, a.Receipts, len(last))
	}
	for task, r := range last {
		body, ok := sent[task]
		if !ok {
			return a, fmt.Errorf("%s: a receipt of %s/%s, which was never sent", name, task.Enrollment, task.TaskID)
		}
		if r.SHA256 != digest(body) {
			return a, fmt.Errorf("%s: the receipt of %s/%s is not of the bytes sent", name, task.Enrollment, task.TaskID)
		}
	}
	subsDir := filepath.Join(folder, "soumissions")
	enrollments, err := os.ReadDir(subsDir)
	if err != nil {
		return a, err
	}
	for _, e := range enrollments {
		files, err := os.ReadDir(filepath.Join(subsDir, e.Name()))
		if err != nil {
			return a, err
		}
		for _, f := range files {
			task := receipt.Task{Enrollment: e.Name(), TaskID: strings.TrimSuffix(f.Name(), ".json")}
			exported, err := os.ReadFile(filepath.Join(subsDir, e.Name(), f.Name()))
			if err != nil {
				return a, err
			}
			if !bytes.Equal(exported, sent[task]) {
				return a, fmt.Errorf("%s/%s: not the bytes sent (%d bytes exported, %d sent)", e.Name(), f.Name(), len(exported), len(sent[task]))
			}
			if _, ok := last[task]; !ok {
				return a, fmt.Errorf("%s/%s: exported without a receipt", e.Name(), f.Name())
			}
			a.Exported++
		}
	}
	if a.Exported != a.Receipts {
		return a, fmt.Errorf("%d submissions exported, %d receipts", a.Exported, a.Receipts)
	}
	for i, o := range outcomes {
		if !o.Acknowledged() {
			continue
		}
		task := receipt.Task{Enrollment: subs[i].Entrant.ID, TaskID: subs[i].Task}
		answered, err := receipt.Decode("the receipt answered", o.Accepted.Receipt)
		if err != nil {
			return a, fmt.Errorf("%s/%s: %w", task.Enrollment, task.TaskID, err)
		}
		kept, ok := last[task]
		switch {
		case !ok:
			return a, fmt.Errorf("%s/%s: acknowledged, then lost: not in the export", task.Enrollment, task.TaskID)
		case kept != answered:
			return a, fmt.Errorf("%s/%s: exported with another receipt than the one answered", task.Enrollment, task.TaskID)
		case answered.Replaces != o.Accepted.Replaces:
			return a, fmt.Errorf("%s/%s: answered remplace %v, its receipt says %v", task.Enrollment, task.TaskID, o.Accepted.Replaces, answered.Replaces)
		}
		a.Acknowledged++
	}
	return a, nil
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
