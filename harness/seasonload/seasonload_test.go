package seasonload

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/harness/participant"
	"github.com/arkforge/proveit-corpus/harness/trustlayer"
	"github.com/arkforge/proveit-corpus/tools/score"
	"github.com/arkforge/proveit-corpus/tools/seal"
	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/seasonstore"
)

const repo = "../.."

// Every task's Body passes the replay's entry check, with the narrative
// asked for; the same body on another track does not.
func TestBodyPassesTheEntryCheck(t *testing.T) {
	name, data := season.EmbeddedTasks(Track)
	tasks, err := season.DecodeTasks(name, data)
	require.NoError(t, err)
	check, err := score.NewEntryCheck(tasks)
	require.NoError(t, err)
	ids, err := Tasks(Track)
	require.NoError(t, err)
	require.Len(t, ids, len(tasks.Tasks))
	did, _ := trustlayer.NewDIDKey()
	for _, task := range ids {
		sub, err := check.Check("", Body(did, task, 2048))
		require.NoError(t, err, task)
		assert.Equal(t, did, sub.AgentDID)
		assert.Len(t, sub.Narrative, 2048)
	}
	other := bytes.Replace(Body(did, ids[0], 0), []byte(`"track":"conformite"`), []byte(`"track":"generique"`), 1)
	_, err = check.Check("", other)
	require.Error(t, err)
}

// The load's Caddyfile is the shipped one with the per-address limits
// lifted inside the season handler's block, and nothing else changed.
func TestWriteCaddyfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "Caddyfile")
	require.NoError(t, WriteCaddyfile(filepath.Join(repo, "Caddyfile"), path))
	shipped, err := os.ReadFile(filepath.Join(repo, "Caddyfile"))
	require.NoError(t, err)
	written, err := os.ReadFile(path)
	require.NoError(t, err)
	block := string(written[strings.Index(string(written), seasonDirective):])
	for _, l := range liftedLimits {
		assert.Contains(t, block[:strings.Index(block, "\n\t}\n")], "\t\t"+l+"\n")
	}
	var removed strings.Builder
	for _, line := range strings.SplitAfter(string(written), "\n") {
		if !strings.Contains(line, "limit ") && !strings.Contains(line, "harness/seasonload") {
			removed.WriteString(line)
		}
	}
	assert.Equal(t, string(shipped), removed.String())

	none := filepath.Join(t.TempDir(), "Caddyfile")
	require.NoError(t, os.WriteFile(none, []byte("localhost {\n\trespond 200\n}\n"), 0o644))
	assert.ErrorContains(t, WriteCaddyfile(none, path), "found 0")
}

// A season folder's records are sealed from the repository's files and
// open now; the closed window's record is past its close.
func TestNewFolder(t *testing.T) {
	now := time.Now()
	f, err := NewFolder(repo, filepath.Join(t.TempDir(), "saison-1"), OpenWindow(now))
	require.NoError(t, err)
	assert.Len(t, f.ReceiptKey, ed25519.PrivateKeySize)
	for _, track := range corpus.Tracks {
		rec, err := seal.ReadRecord(f.Records[track.Name])
		require.NoError(t, err)
		w, err := rec.Window()
		require.NoError(t, err)
		assert.True(t, w.OpenAt(now), track.Name)
		assert.DirExists(t, filepath.Join(f.Dir, track.Name, "apres-cloture"))
	}
	closed := filepath.Join(t.TempDir(), "preenregistrement.json")
	require.NoError(t, Seal(repo, Track, closed, filepath.Join(t.TempDir(), "sel"), ClosedWindow(now)))
	rec, err := seal.ReadRecord(closed)
	require.NoError(t, err)
	w, err := rec.Window()
	require.NoError(t, err)
	assert.True(t, w.ClosedAt(now))
}

// CheckExport passes the export of what the store acknowledged, and
// names each breach: a submission lost, bytes changed, another receipt
// than the one answered, a second receipt for a task.
func TestCheckExport(t *testing.T) {
	ctx := context.Background()
	database := filepath.Join(t.TempDir(), "saison.db")
	store, err := seasonstore.Open(ctx, database, seasonstore.Options{})
	require.NoError(t, err)
	_, key, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	public := key.Public().(ed25519.PublicKey)
	var entrants []Entrant
	for i := range 3 {
		token := make([]byte, 32)
		_, err := rand.Read(token)
		require.NoError(t, err)
		did, _ := trustlayer.NewDIDKey()
		entrants = append(entrants, Entrant{Key: fmt.Sprintf("mcp_test_%d", i), DID: did,
			Enrollment: &participant.Enrollment{ID: fmt.Sprintf("load-%d", i), Token: base64.RawURLEncoding.EncodeToString(token)}})
	}
	require.NoError(t, EnrollInStore(ctx, store, Track.Name, entrants))
	ids, err := Tasks(Track)
	require.NoError(t, err)
	subs := Deadline(entrants, ids[:3], 100, 7)
	r := StoreSurge(ctx, store, key, subs, 4)
	require.Equal(t, len(subs), r.Acknowledged(), r.Counts())
	require.NoError(t, store.Close())

	dir := t.TempDir()
	require.NoError(t, Export(ctx, database, Track.Name, public, dir))
	audit, err := CheckExport(dir, Track.Name, public, subs, r.Outcomes)
	require.NoError(t, err)
	assert.Equal(t, Audit{Exported: 9, Receipts: 9, Acknowledged: 9}, audit)

	file := func(s Submission) string {
		return filepath.Join(dir, Track.Name, "soumissions", s.Entrant.ID, s.Task+".json")
	}
	// Bytes changed in the export.
	require.NoError(t, os.WriteFile(file(subs[0]), append(bytes.Clone(subs[0].Body), ' '), 0o644))
	_, err = CheckExport(dir, Track.Name, public, subs, r.Outcomes)
	assert.ErrorContains(t, err, "not the bytes sent")
	// A submission exported without its receipt (or lost with it).
	require.NoError(t, os.Remove(file(subs[0])))
	_, err = CheckExport(dir, Track.Name, public, subs, r.Outcomes)
	assert.ErrorContains(t, err, "9 receipts")
	require.NoError(t, os.WriteFile(file(subs[0]), subs[0].Body, 0o644))
	// Another receipt than the one answered.
	swapped := append([]Outcome(nil), r.Outcomes...)
	swapped[0], swapped[1] = swapped[1], swapped[0]
	_, err = CheckExport(dir, Track.Name, public, subs, swapped)
	assert.ErrorContains(t, err, "another receipt")
	// A second receipt of one task: a second version recorded.
	recus := filepath.Join(dir, Track.Name, "recus.json")
	data, err := os.ReadFile(recus)
	require.NoError(t, err)
	first := data[bytes.Index(data, []byte(`"recus": [`))+len(`"recus": [`):]
	first = first[:bytes.IndexByte(first, '}')+1]
	require.NoError(t, os.WriteFile(recus, bytes.Replace(data, first, append(append(bytes.Clone(first), ','), first...), 1), 0o644))
	_, err = CheckExport(dir, Track.Name, public, subs, r.Outcomes)
	assert.ErrorContains(t, err, "recorded twice")
}
