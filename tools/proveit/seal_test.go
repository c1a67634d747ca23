package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/harness/trustlayer"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/seal"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// sealed is a track sealed into a temporary folder.
type sealed struct {
	record, salt, section string
}

// testOpening and testClosing are the season the tests seal: a day either
// side of the run, so that the proofs a test issues now lie within it.
var (
	testOpening = seal.FormatUTC(time.Now().Add(-24 * time.Hour).Truncate(time.Second))
	testClosing = seal.FormatUTC(time.Now().Add(24 * time.Hour).Truncate(time.Second))
)

// sealTrack seals a track's files as they are, its record and salt in a
// temporary folder, with a scoring section made for the test.
func sealTrack(t *testing.T, track *corpus.Track) sealed {
	t.Helper()
	dir := t.TempDir()
	s := sealed{
		record:  filepath.Join(dir, "preenregistrement.json"),
		salt:    filepath.Join(dir, "sel.hex"),
		section: filepath.Join(dir, "bareme.md"),
	}
	require.NoError(t, os.WriteFile(s.section, []byte("## Barème de la piste "+track.Name+"\n"), 0o644))
	code, out, errOut := runCLI("seal", "-track", track.Name, "-record", s.record, "-salt-out", s.salt, "-scoring-section", s.section,
		"-opening", testOpening, "-closing", testClosing)
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "sealed track "+track.Name)
	return s
}

// Each track's record anchors its manifest, its statements, its scoring
// section and its key's salted commitment, never an unsalted hash of the
// key; the salt written opens it, and the other track's does not.
func TestSeal(t *testing.T) {
	inRepoRoot(t)
	sealings := map[*corpus.Track]sealed{}
	for _, track := range corpus.Tracks {
		sealings[track] = sealTrack(t, track)
	}
	for i, track := range corpus.Tracks {
		s := sealings[track]
		key, err := os.ReadFile(season.KeyFile(track))
		require.NoError(t, err)
		rec, err := seal.ReadRecord(s.record)
		require.NoError(t, err)
		assert.Equal(t, track.Name, rec.Track)
		assert.Equal(t, "1", rec.Season)
		assert.Equal(t, fileSHA256(t, filepath.Join("manifest", manifest.FileName(track))), rec.ManifestSHA256)
		assert.Equal(t, fileSHA256(t, season.TasksFile(track)), rec.TasksSHA256)
		assert.Equal(t, fileSHA256(t, s.section), rec.ScoringSectionSHA256)
		assert.Equal(t, testOpening, rec.Opening)
		assert.Equal(t, testClosing, rec.Closing)
		written, err := os.ReadFile(s.record)
		require.NoError(t, err)
		assert.NotContains(t, string(written), anchor.SHA256(key), "no unsalted hash of the key")

		info, err := os.Stat(s.salt)
		require.NoError(t, err)
		if runtime.GOOS != "windows" {
			assert.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "the salt is its owner's only")
		}

		code, out, errOut := runCLI("seal", "-verify", "-track", track.Name, "-record", s.record, "-salt", s.salt, "-scoring-section", s.section)
		assert.Equal(t, 0, code, errOut)
		assert.Contains(t, out, "OK "+s.record+" anchors ")
		assert.NotContains(t, out+errOut, anchor.SHA256(key))

		other := sealings[corpus.Tracks[(i+1)%len(corpus.Tracks)]]
		code, out, _ = runCLI("seal", "-verify", "-track", track.Name, "-record", s.record, "-salt", other.salt)
		assert.Equal(t, 1, code, "one track's salt does not open the other's commitment")
		assert.Contains(t, out, "MISMATCH "+season.KeyFile(track)+": the key and the salt do not open the record's engagement_cle "+rec.KeyCommitment)
		assert.NotContains(t, out, anchor.SHA256(key))
	}
}

// The seal refuses to re-seal a sealed track unless asked to by name,
// never writes a salt over another, never writes one inside a work tree,
// and treats a flag its mode does not use as an error.
func TestSealRefuses(t *testing.T) {
	inRepoRoot(t)
	s := sealTrack(t, corpus.Conformity)
	before, err := os.ReadFile(s.record)
	require.NoError(t, err)
	newSalt := filepath.Join(filepath.Dir(s.salt), "sel2.hex")
	base := []string{"seal", "-track", "conformite", "-record", s.record, "-scoring-section", s.section, "-opening", testOpening, "-closing", testClosing}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"sealing twice", append(base, "-salt-out", newSalt), "the track is sealed already"},
		{"re-sealing over the salt", append(base, "-reseal", "-salt-out", s.salt), s.salt + " exists: a private file is never overwritten"},
		{"a salt inside the work tree", append(base, "-reseal", "-salt-out", "sel.hex"), "salt file sel.hex: inside the git work tree"},
		{"-salt without -verify", []string{"seal", "-salt", "abc", "-track", "conformite"}, "-salt is not a flag of sealing"},
		{"-salt-out with -verify", []string{"seal", "-verify", "-track", "conformite", "-salt", s.salt, "-salt-out", newSalt}, "-salt-out is not a flag of -verify"},
		{"-reseal with -verify", []string{"seal", "-verify", "-track", "conformite", "-salt", s.salt, "-reseal"}, "-reseal is not a flag of -verify"},
		{"no track", []string{"seal", "-record", s.record, "-scoring-section", s.section, "-salt-out", newSalt}, "say which track with -track"},
		{"no scoring section", []string{"seal", "-track", "conformite", "-record", s.record, "-salt-out", newSalt}, "sealing needs -scoring-section and -salt-out"},
		{"no season's dates", []string{"seal", "-track", "conformite", "-record", s.record, "-scoring-section", s.section, "-salt-out", newSalt}, "sealing needs -opening and -closing"},
		{"a closing before the opening", []string{"seal", "-track", "conformite", "-record", s.record, "-scoring-section", s.section, "-salt-out", newSalt, "-opening", testClosing, "-closing", testOpening}, "-closing is before -opening"},
		{"an opening not in UTC", []string{"seal", "-track", "conformite", "-record", s.record, "-scoring-section", s.section, "-salt-out", newSalt, "-opening", "2026-10-01T02:00:00+02:00", "-closing", testClosing}, "-opening \"2026-10-01T02:00:00+02:00\": want an RFC 3339 time in UTC"},
		{"-opening with -verify", []string{"seal", "-verify", "-track", "conformite", "-salt", s.salt, "-opening", testOpening}, "-opening is not a flag of -verify"},
		{"-views without -proof", []string{"seal", "-verify", "-track", "conformite", "-salt", s.salt, "-views", "."}, "-views, -proof, -disclosure and -record-url go together"},
		{"-verify without a salt", []string{"seal", "-verify", "-track", "conformite", "-record", s.record}, "-verify needs -salt"},
		{"an unknown flag", []string{"seal", "-commitment", "00"}, "flag provided but not defined: -commitment"},
		{"statements of the other track", append(base, "-reseal", "-salt-out", newSalt, "-tasks", season.TasksFile(corpus.Purchasing)), `the statements are of the track "generique", not "conformite"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(tt.args...)
			assert.Equal(t, 2, code, out)
			assert.Contains(t, errOut, tt.want)
			assert.NoFileExists(t, newSalt)
			assert.NoFileExists(t, "sel.hex")
			after, err := os.ReadFile(s.record)
			require.NoError(t, err)
			assert.Equal(t, string(before), string(after), "the record is untouched")
		})
	}

	code, _, errOut := runCLI(append(base, "-reseal", "-salt-out", newSalt)...)
	require.Equal(t, 0, code, errOut)
	after, err := os.ReadFile(s.record)
	require.NoError(t, err)
	assert.NotEqual(t, string(before), string(after), "-reseal replaces the record")
	code, _, _ = runCLI("seal", "-verify", "-track", "conformite", "-record", s.record, "-salt", s.salt)
	assert.Equal(t, 1, code, "the old salt no longer opens the record")
	code, _, errOut = runCLI("seal", "-verify", "-track", "conformite", "-record", s.record, "-salt", newSalt)
	assert.Equal(t, 0, code, errOut)
}

// The checked-in records anchor today's manifests and statements: a change
// to either after sealing is seen here (the key's commitment needs the
// salt, which is not in the repository).
func TestCheckedInRecords(t *testing.T) {
	inRepoRoot(t)
	for _, track := range corpus.Tracks {
		rec, err := seal.ReadRecord(season.RecordFile(track))
		require.NoError(t, err, "re-seal the track: proveit seal -track %s -reseal ...", track.Name)
		assert.Equal(t, track.Name, rec.Track)
		assert.Equal(t, fileSHA256(t, filepath.Join("manifest", manifest.FileName(track))), rec.ManifestSHA256, "%s: the manifest changed since the seal", track.Name)
		assert.Equal(t, fileSHA256(t, season.TasksFile(track)), rec.TasksSHA256, "%s: the statements changed since the seal", track.Name)
		key, err := os.ReadFile(season.KeyFile(track))
		require.NoError(t, err)
		data, err := os.ReadFile(season.RecordFile(track))
		require.NoError(t, err)
		assert.False(t, strings.Contains(string(data), anchor.SHA256(key)), "no unsalted hash of the key")
	}
}

func fileSHA256(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return anchor.SHA256(data)
}

// The record's own proof (specification 8.5): the call through Trust Layer
// that anchored the record's bytes, before the season opened, verifies
// with its owner's disclosure; another URL, another proof's pairs or a
// proof dated after the opening do not.
func TestSealVerifiesTheRecordsProof(t *testing.T) {
	inRepoRoot(t)
	s := sealTrack(t, corpus.Conformity)
	record, err := os.ReadFile(s.record)
	require.NoError(t, err)
	opening, err := seal.ParseUTC(testOpening)
	require.NoError(t, err)
	const url = "https://proveit.arkforge.tech/saison-1/preenregistrement.json"

	dir := t.TempDir()
	views, trustDir := filepath.Join(dir, "views"), filepath.Join(dir, "trust")
	require.NoError(t, os.MkdirAll(filepath.Join(views, "rekor"), 0o755))
	// anchor issues the record's call at a time, as the owner would, and
	// keeps its view, entry and disclosure.
	anchorAt := func(tl *trustlayer.TrustLayer, target string, body []byte) (string, string) {
		id, err := tl.Issue(trustlayer.Call{Target: target, APIKey: "owner-key", AgentIdentity: "did:web:proveit.arkforge.tech", StatusCode: 200, Body: body})
		require.NoError(t, err)
		_, err = tl.CloseBatch()
		require.NoError(t, err)
		view, err := tl.View(id)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(proofs.ViewFile(views, string(id)), view, 0o644))
		v, err := proofs.ParseView(string(id), view)
		require.NoError(t, err)
		entry, err := tl.RekorEntry(v.Log.UUID)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(proofs.EntryFile(views, v.Log.UUID), entry, 0o644))
		full, err := tl.Full(id)
		require.NoError(t, err)
		var f trustlayer.Full
		require.NoError(t, json.Unmarshal(full, &f))
		d := proofs.Disclosure{
			RequestHash:  proofs.Opening{Nonce: f.CommitmentNonces["request_hash"], Value: f.ChainData["request_hash"].(string)},
			ResponseHash: proofs.Opening{Nonce: f.CommitmentNonces["response_hash"], Value: f.ChainData["response_hash"].(string)},
		}
		file := filepath.Join(dir, string(id)+".disclosure.json")
		writeJSON(t, file, d)
		return string(id), file
	}
	before := opening.Add(-time.Hour)
	tl, err := trustlayer.New(trustlayer.Options{Clock: func() time.Time { return before }})
	require.NoError(t, err)
	require.NoError(t, tl.WriteTrust(trustDir))
	id, disclosure := anchorAt(tl, url, record)
	otherID, otherDisclosure := anchorAt(tl, url, []byte(`{"autre": "document"}`))
	before = opening.Add(time.Hour)
	lateID, lateDisclosure := anchorAt(tl, url, record)

	verify := func(proofID, disclosure, recordURL string) (int, string) {
		code, out, errOut := runCLI("seal", "-verify", "-track", "conformite", "-record", s.record, "-salt", s.salt,
			"-views", views, "-proof", proofID, "-disclosure", disclosure, "-record-url", recordURL, "-trust", trustDir)
		return code, out + errOut
	}
	code, out := verify(id, disclosure, url)
	assert.Equal(t, 0, code, out)
	assert.Contains(t, out, "OK "+id+" anchors "+s.record+", served at "+url+", before the season's opening "+testOpening)

	tests := []struct {
		name, proof, disclosure, url, want string
	}{
		{"another URL", id, disclosure, "https://proveit.arkforge.tech/autre.json", "MISMATCH " + id + " opens request_hash"},
		{"the proof of another document", otherID, otherDisclosure, url, "MISMATCH " + otherID + " opens response_hash"},
		{"another proof's disclosure", id, otherDisclosure, url, "MISMATCH " + id + " is not valid: [paire_request_hash paire_response_hash]"},
		{"a proof dated after the opening", lateID, lateDisclosure, url, "MISMATCH " + lateID + " is not valid: [jeton_tsa_hors_saison]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out := verify(tt.proof, tt.disclosure, tt.url)
			assert.Equal(t, 1, code, out)
			assert.Contains(t, out, tt.want)
		})
	}
}
