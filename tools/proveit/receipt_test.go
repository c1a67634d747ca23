package main

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/tools/receipt"
	"github.com/arkforge/proveit-corpus/tools/seasonservice"
)

// A participant checks its receipts against the published season folder
// with one command: a receipt replaced by a later one of its task, the
// last one whose submission is exported as acknowledged, one whose
// exported bytes differ, one not published, one signed by another key.
func TestReceiptCommand(t *testing.T) {
	dir := t.TempDir()
	_, key, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	_, other, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	first, second, theirs := []byte(`{"v": 1}`), []byte(`{"v": 2}`), []byte(`{"b": 1}`)
	receipts := []receipt.Receipt{
		{Season: 1, Track: "conformite", Enrollment: "alice", TaskID: "conf-01", SHA256: anchor.SHA256(first), ReceivedAt: "2026-10-02T09:00:00Z"},
		{Season: 1, Track: "conformite", Enrollment: "alice", TaskID: "conf-01", SHA256: anchor.SHA256(second), ReceivedAt: "2026-10-02T10:00:00Z", Replaces: true},
		{Season: 1, Track: "conformite", Enrollment: "bob", TaskID: "conf-02", SHA256: anchor.SHA256(theirs), ReceivedAt: "2026-10-02T11:00:00Z"},
	}
	published := receipt.File{Season: 1, Track: "conformite", Key: base64.StdEncoding.EncodeToString(key.Public().(ed25519.PublicKey))}
	kept := map[string][]byte{}
	for i, r := range receipts {
		signed := receipt.Sign(key, r)
		published.Receipts = append(published.Receipts, signed)
		kept[[]string{"replaced", "last", "tampered"}[i]] = signed
	}
	kept["unpublished"] = receipt.Sign(key, receipt.Receipt{Season: 1, Track: "conformite", Enrollment: "bob", TaskID: "conf-03", SHA256: anchor.SHA256(theirs), ReceivedAt: "2026-10-02T12:00:00Z"})
	kept["other-key"] = receipt.Sign(other, receipts[1])
	track := filepath.Join(dir, "saison", "conformite")
	for file, data := range map[string][]byte{"soumissions/alice/conf-01.json": second, "soumissions/bob/conf-02.json": []byte(`{"b": 2}`)} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(track, file)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(track, file), data, 0o644))
	}
	data, err := json.Marshal(published)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(track, receipt.FileName), data, 0o644))
	files := map[string]string{}
	for name, data := range kept {
		files[name] = filepath.Join(dir, name+".json")
		require.NoError(t, os.WriteFile(files[name], data, 0o644))
	}

	code, out, errOut := runCLI("receipt", "-season", filepath.Join(dir, "saison"), files["replaced"], files["last"])
	require.Equal(t, 0, code, out+errOut)
	assert.Contains(t, out, "OK "+files["replaced"]+": replaced by the receipt of 2026-10-02T10:00:00Z")
	assert.Contains(t, out, "OK "+files["last"]+": exported as conformite/soumissions/alice/conf-01.json")

	for name, want := range map[string]string{
		"tampered":    "the last receipt of its task, but conformite/soumissions/bob/conf-02.json has SHA-256",
		"unpublished": "not among the receipts conformite/recus.json publishes",
		"other-key":   "its signature does not verify with the season's receipt key",
	} {
		code, out, errOut := runCLI("receipt", "-season", filepath.Join(dir, "saison"), files[name])
		assert.Equal(t, 1, code, name+out+errOut)
		assert.Contains(t, out, "MISMATCH "+files[name]+": "+want, name)
		assert.Equal(t, 1, strings.Count(out, "\n"), out)
	}
	code, out, _ = runCLI("receipt", "-season", filepath.Join(dir, "saison"), "-key", base64.StdEncoding.EncodeToString(other.Public().(ed25519.PublicKey)), files["last"])
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "is signed with the key")
}

// TestReceiptKey: the key is written for the owner only, reads back as the
// season service reads it, and its printed public half is the key's; an
// existing file is never overwritten.
func TestReceiptKey(t *testing.T) {
	file := filepath.Join(t.TempDir(), "recus.pem")
	code, out, errOut := runCLI("receipt-key", "-o", file)
	require.Equal(t, 0, code, errOut)
	key, err := seasonservice.ReadReceiptKey(file)
	require.NoError(t, err)
	assert.Contains(t, out, base64.StdEncoding.EncodeToString(key.Public().(ed25519.PublicKey)))
	info, err := os.Stat(file)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	before, err := os.ReadFile(file)
	require.NoError(t, err)

	code, _, errOut = runCLI("receipt-key", "-o", file)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "never overwritten")
	after, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, before, after, "the first key is kept")
}
