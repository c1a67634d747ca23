package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/tools/index"
	"github.com/arkforge/proveit-corpus/tools/seal"
	"github.com/arkforge/proveit-corpus/tools/seasonstore"
)

// referenceEntry is a reference run's entry file, one member changed by
// edit.
func referenceEntry(t *testing.T, edit func(string) string) string {
	t.Helper()
	entry := `{"agent": "Solveur de référence", "did": "did:key:z6MkReference", "cle": "` + strings.Repeat("ab", 32) + `",
		"historique_did": ["did:key:z6MkReference"], "stack": "solveur du dépôt", "lien_preuves": "https://proveit.arkforge.tech/saison-1/",
		"modele": "aucun", "version": "saison 1", "framework": "harness/participant", "prompt": "aucun"}`
	if edit != nil {
		entry = edit(entry)
	}
	file := filepath.Join(t.TempDir(), "reference.json")
	require.NoError(t, os.WriteFile(file, []byte(entry), 0o644))
	return file
}

// proveit enroll keeps a reference run on the service's database while its
// track is open, exactly the entry given as a reference-table enrollment,
// and writes the token the run submits with to a new private file; a
// refusal leaves neither an enrollment nor a token behind.
func TestEnrollCommand(t *testing.T) {
	inRepoRoot(t)
	open := sealTrack(t, corpus.Conformity)
	closed := filepath.Join(t.TempDir(), "preenregistrement.json")
	section := filepath.Join(t.TempDir(), "bareme.md")
	require.NoError(t, os.WriteFile(section, []byte("## Barème\n"), 0o644))
	code, _, errOut := runCLI("seal", "-track", "conformite", "-record", closed, "-salt-out", filepath.Join(t.TempDir(), "sel.hex"),
		"-scoring-section", section, "-opening", seal.FormatUTC(time.Now().Add(-48*time.Hour).Truncate(time.Second)),
		"-closing", seal.FormatUTC(time.Now().Add(-time.Hour).Truncate(time.Second)))
	require.Equal(t, 0, code, errOut)

	database := filepath.Join(t.TempDir(), "season.db")
	tokens := t.TempDir()
	enroll := func(id, entry, token, record string) []string {
		return []string{"enroll", "-track", "conformite", "-database", database, "-id", id, "-entry", entry, "-token", token, "-record", record}
	}
	token := filepath.Join(tokens, "reference.token")
	code, out, errOut := runCLI(enroll("reference", referenceEntry(t, nil), token, open.record)...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "enrolled the reference run reference on conformite (season 1)")
	info, err := os.Stat(token)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	data, err := os.ReadFile(token)
	require.NoError(t, err)
	assert.NotContains(t, out, strings.TrimSpace(string(data)), "the token is in its file only")
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimSpace(string(data)))
	require.NoError(t, err)
	require.Len(t, raw, 32)

	store, err := seasonstore.Open(context.Background(), database, seasonstore.Options{})
	require.NoError(t, err)
	defer store.Close()
	found, err := store.EnrollmentByToken(context.Background(), sha256.Sum256(raw))
	require.NoError(t, err, "the token written is the enrollment's")
	e := found.Enrollment
	assert.Equal(t, "reference", e.ID)
	assert.Equal(t, index.TableReference, e.Table)
	assert.Equal(t, "did:key:z6MkReference", e.DID)
	assert.Equal(t, strings.Repeat("ab", 32), e.Key)
	require.NotNil(t, e.Prompt)
	assert.Equal(t, "aucun", *e.Prompt)
	enrolledAt, err := seal.ParseUTC(e.EnrolledAt)
	require.NoError(t, err)
	assert.WithinDuration(t, time.Now(), enrolledAt, time.Minute)

	other := func(entry string) string {
		return strings.NewReplacer("z6MkReference", "z6MkOther", strings.Repeat("ab", 32), strings.Repeat("cd", 32)).Replace(entry)
	}
	for _, tt := range []struct {
		name  string
		args  []string
		token string
		want  string
	}{
		{"a member too many", enroll("second", referenceEntry(t, func(s string) string { return strings.Replace(s, `"agent"`, `"score": 1, "agent"`, 1) }),
			filepath.Join(tokens, "a.token"), open.record), "a.token", "/score"},
		{"a member missing", enroll("second", referenceEntry(t, func(s string) string { return strings.Replace(s, `"prompt": "aucun"`, `"x": 1`, 1) }),
			filepath.Join(tokens, "b.token"), open.record), "b.token", "prompt"},
		{"the id taken", enroll("reference", referenceEntry(t, other), filepath.Join(tokens, "c.token"), open.record), "c.token", "id"},
		{"the key enrolled", enroll("second", referenceEntry(t, nil), filepath.Join(tokens, "d.token"), open.record), "d.token", "key"},
		{"a reserved id", enroll("index", referenceEntry(t, other), filepath.Join(tokens, "e.token"), open.record), "e.token", "/id"},
		{"the track closed", enroll("second", referenceEntry(t, other), filepath.Join(tokens, "f.token"), closed), "f.token", "is not open"},
		{"the token in a work tree", enroll("second", referenceEntry(t, other), "reference.token", open.record), "", "work tree"},
		{"the token file exists", enroll("second", referenceEntry(t, other), token, open.record), "", "never overwritten"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assertOneLine(t, tt.args, 2, tt.want)
			if tt.token != "" {
				assert.NoFileExists(t, filepath.Join(tokens, tt.token), "no token without its enrollment")
			}
		})
	}
	assert.NoFileExists(t, "reference.token")
	state, err := store.TrackState(context.Background(), 1, "conformite")
	require.NoError(t, err)
	assert.Equal(t, 1, state.Enrollments, "every refusal left the store as it was")
	again, err := os.ReadFile(token)
	require.NoError(t, err)
	assert.Equal(t, data, again, "an existing token file is kept")
}
