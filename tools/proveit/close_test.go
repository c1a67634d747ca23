package main

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/tools/index"
	"github.com/arkforge/proveit-corpus/tools/seal"
	"github.com/arkforge/proveit-corpus/tools/seasonstore"
)

// proveit close refuses before the record's cloture; after it, it closes
// the track on the service's database and exports the season folder the
// Index reads, each submission's last accepted bytes and every receipt.
func TestCloseCommand(t *testing.T) {
	inRepoRoot(t)
	dir := t.TempDir()
	database := filepath.Join(dir, "season.db")
	ctx := context.Background()
	store, err := seasonstore.Open(ctx, database, seasonstore.Options{})
	require.NoError(t, err)
	did := "did:key:z6MkClose"
	en, err := store.Enroll(ctx, seasonstore.NewEnrollment{Season: 1, Track: "conformite", TokenSHA256: sha256.Sum256([]byte("jeton")),
		Enrollment: index.Enrollment{Agent: "Agente", DID: did, Key: hexOf(sha256.Sum256([]byte("key"))), DIDHistory: []string{did},
			EnrolledAt: "2026-10-02T08:00:00Z", Table: index.TableCommunity, Stack: "Go", ProofsLink: "https://example.org/p/"}})
	require.NoError(t, err)
	body := []byte(`{"season": 1, "track": "conformite", "task_id": "conf-01"}` + "\n")
	_, err = store.Submit(ctx, seasonstore.NewSubmission{EnrollmentID: en.ID, TaskID: "conf-01", Body: body, ReceivedAt: time.Now()},
		func(f seasonstore.ReceiptFacts) ([]byte, error) { return []byte(`{"sha256": "` + f.SHA256 + `"}`), nil })
	require.NoError(t, err)
	require.NoError(t, store.Close())

	_, private, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	der, err := x509.MarshalPKCS8PrivateKey(private)
	require.NoError(t, err)
	keyFile := filepath.Join(dir, "recus.pem")
	require.NoError(t, os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600))
	out := filepath.Join(dir, "saison")
	require.NoError(t, os.Mkdir(out, 0o755))

	open := sealTrack(t, corpus.Conformity) // closes tomorrow
	assertOneLine(t, []string{"close", "-track", "conformite", "-database", database, "-receipt-key", keyFile, "-record", open.record, "-o", out},
		2, "refusing to close before the season's close")

	closed := filepath.Join(t.TempDir(), "preenregistrement.json")
	section := filepath.Join(t.TempDir(), "bareme.md")
	require.NoError(t, os.WriteFile(section, []byte("## Barème\n"), 0o644))
	code, _, errOut := runCLI("seal", "-track", "conformite", "-record", closed, "-salt-out", filepath.Join(t.TempDir(), "sel.hex"),
		"-scoring-section", section, "-opening", seal.FormatUTC(time.Now().Add(-48*time.Hour).Truncate(time.Second)),
		"-closing", seal.FormatUTC(time.Now().Add(-time.Hour).Truncate(time.Second)))
	require.Equal(t, 0, code, errOut)
	code, stdout, errOut := runCLI("close", "-track", "conformite", "-database", database, "-receipt-key", keyFile, "-record", closed, "-o", out)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, stdout, "closed conformite")
	assert.NotContains(t, stdout+errOut, "PRIVATE")

	read, err := index.ReadEnrollments(filepath.Join(out, "conformite", "inscriptions.json"), "conformite")
	require.NoError(t, err)
	require.Len(t, read.Enrollments, 1)
	assert.Equal(t, en.ID, read.Enrollments[0].ID)
	data, err := os.ReadFile(filepath.Join(out, "conformite", "soumissions", en.ID, "conf-01.json"))
	require.NoError(t, err)
	assert.Equal(t, body, data, "exactly the bytes received")
	assert.FileExists(t, filepath.Join(out, "conformite", "recus.json"))

	// Closed and exported once: a second export into the folder is refused.
	assertOneLine(t, []string{"close", "-track", "conformite", "-database", database, "-receipt-key", keyFile, "-record", closed, "-o", out},
		2, "holds conformite/inscriptions.json already")
}

func hexOf(sum [32]byte) string { return hex.EncodeToString(sum[:]) }
