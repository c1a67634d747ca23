package seasonstore

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/tools/index"
	"github.com/arkforge/proveit-corpus/tools/receipt"
)

// The close's export is the season folder the Index reads: the
// enrollments as ReadEnrollments reads them, each counted submission's
// exact bytes at soumissions/<id>/<task_id>.json, every receipt in
// recus.json with the key's public half; refused while the track is open
// or when the folder holds an export already.
func TestWriteExport(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *testDB) {
		ctx := context.Background()
		s := db.open(t)
		var r receipts
		a, err := s.Enroll(ctx, participant(conformite))
		require.NoError(t, err)
		b, err := s.Enroll(ctx, participant(conformite))
		require.NoError(t, err)
		for _, sub := range []NewSubmission{submission(a.ID, "conf-01", 1), submission(b.ID, "conf-02", 1), submission(a.ID, "conf-01", 2)} {
			_, err := s.Submit(ctx, sub, r.build)
			require.NoError(t, err)
		}
		public, _, err := ed25519.GenerateKey(nil)
		require.NoError(t, err)
		dir := t.TempDir()

		require.ErrorIs(t, WriteExport(ctx, s, season1, conformite, public, dir), ErrTrackOpen)
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		assert.Empty(t, entries, "nothing written while the track is open")
		_, err = s.CloseTrack(ctx, season1, conformite, time.Now())
		require.NoError(t, err)
		require.NoError(t, WriteExport(ctx, s, season1, conformite, public, dir))

		read, err := index.ReadEnrollments(filepath.Join(dir, conformite, "inscriptions.json"), conformite)
		require.NoError(t, err)
		require.Len(t, read.Enrollments, 2)
		assert.Equal(t, []string{a.ID, b.ID}, []string{read.Enrollments[0].ID, read.Enrollments[1].ID})
		data, err := os.ReadFile(filepath.Join(dir, conformite, "soumissions", a.ID, "conf-01.json"))
		require.NoError(t, err)
		assert.Equal(t, body(a.ID, "conf-01", 2), data, "the last accepted bytes, exactly")
		data, err = os.ReadFile(filepath.Join(dir, conformite, "soumissions", b.ID, "conf-02.json"))
		require.NoError(t, err)
		assert.Equal(t, body(b.ID, "conf-02", 1), data)

		var rec receipt.File
		data, err = os.ReadFile(filepath.Join(dir, conformite, "recus.json"))
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(data, &rec))
		assert.Equal(t, base64.StdEncoding.EncodeToString(public), rec.Key)
		assert.Len(t, rec.Receipts, 3, "every receipt issued, replaced ones included")

		err = WriteExport(ctx, s, season1, conformite, public, dir)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "holds conformite/inscriptions.json already")
	})
}
