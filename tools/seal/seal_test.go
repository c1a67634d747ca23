package seal

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/tools/proofs"
)

// testWindow is the season the test records date.
var testWindow = proofs.Window{
	Opening: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC),
	Closing: time.Date(2026, 12, 31, 23, 59, 59, 0, time.UTC),
}

var files = Files{
	Manifest:       File{"manifest.json", []byte("{\"format\": \"proveit-corpus-manifest/1\"}\n")},
	Tasks:          File{"taches.json", []byte("{\"saison\": \"1\", \"piste\": \"conformite\", \"taches\": []}\n")},
	Key:            File{"cle.json", []byte("{\"taches\": [{\"id\": \"conf-01\", \"verdict\": \"conforme\"}]}\n")},
	ScoringSection: File{"bareme.md", []byte("## 5. PISTE CONFORMITÉ — barème\n")},
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func TestNewAnchorsEachFile(t *testing.T) {
	rec, salt := newRecord("conformite", "1", testWindow, files)
	assert.Equal(t, Record{
		Track:                "conformite",
		Season:               "1",
		ManifestSHA256:       sum(files.Manifest.Data),
		TasksSHA256:          sum(files.Tasks.Data),
		KeyCommitment:        sum(append(append([]byte{}, salt...), files.Key.Data...)),
		ScoringSectionSHA256: sum(files.ScoringSection.Data),
		Opening:              "2026-10-01T00:00:00Z",
		Closing:              "2026-12-31T23:59:59Z",
	}, rec)
	assert.NotEqual(t, sum(files.Key.Data), rec.KeyCommitment, "the salt changes the hash")
	require.NoError(t, rec.Check("rec.json", "conformite", files, salt))

	other, otherSalt := newRecord("conformite", "1", testWindow, files)
	assert.NotEqual(t, salt, otherSalt)
	assert.NotEqual(t, rec.KeyCommitment, other.KeyCommitment, "the same key seals to different commitments")
}

// A fixed vector, computed with Python: hashlib.sha256(bytes(range(32)) + b"cle").hexdigest().
func TestCommitVector(t *testing.T) {
	salt := make([]byte, saltSize)
	for i := range salt {
		salt[i] = byte(i)
	}
	assert.Equal(t, "4163ed0599b2c90cecb6104f0a5fd67776c6b26a3d6468e962dc40f849f584b2", commit(salt, []byte("cle")))
}

// Check names each file that does not match, and never shows an unsalted
// hash of the key.
func TestCheckNamesTheFile(t *testing.T) {
	rec, salt := newRecord("conformite", "1", testWindow, files)
	changed := func(f File) File {
		data := append([]byte{}, f.Data...)
		data[len(data)/2] ^= 0x01
		return File{f.Name, data}
	}
	wrongSalt := append([]byte{}, salt...)
	wrongSalt[0] ^= 0x80
	tests := []struct {
		name  string
		track string
		alter func(*Files)
		salt  []byte
		want  string
	}{
		{"manifest", "conformite", func(f *Files) { f.Manifest = changed(f.Manifest) }, salt, "manifest.json: sha256 " + sum(changed(files.Manifest).Data) + " is not the record's manifest_sha256 " + rec.ManifestSHA256},
		{"statements", "conformite", func(f *Files) { f.Tasks = changed(f.Tasks) }, salt, "taches.json: sha256 "},
		{"scoring section", "conformite", func(f *Files) { f.ScoringSection = changed(f.ScoringSection) }, salt, "bareme.md: sha256 "},
		{"key", "conformite", func(f *Files) { f.Key = changed(f.Key) }, salt, "cle.json: the key and the salt do not open the record's engagement_cle " + rec.KeyCommitment},
		{"key with a byte more", "conformite", func(f *Files) { f.Key.Data = append(append([]byte{}, f.Key.Data...), '\n') }, salt, "cle.json: the key and the salt"},
		{"salt", "conformite", func(*Files) {}, wrongSalt, "cle.json: the key and the salt"},
		{"track", "generique", func(*Files) {}, salt, `the record is of the track "conformite", not "generique"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := files
			tt.alter(&f)
			err := rec.Check("rec.json", tt.track, f, tt.salt)
			var mismatch *MismatchError
			require.ErrorAs(t, err, &mismatch)
			require.Len(t, mismatch.Lines, 1, "only the altered file: %v", err)
			assert.Contains(t, mismatch.Lines[0], tt.want)
			assert.NotContains(t, err.Error(), sum(f.Key.Data), "no unsalted hash of the key")
		})
	}
	t.Run("a check without the scoring section", func(t *testing.T) {
		f := files
		f.ScoringSection = File{}
		assert.NoError(t, rec.Check("rec.json", "conformite", f, salt))
	})
}

// Sealing writes the salt to a private file and the record beside the
// statements; it refuses to seal a sealed track unless re-sealing is asked
// for, and never writes a salt over another.
func TestSeal(t *testing.T) {
	dir := t.TempDir()
	recordFile := filepath.Join(dir, "preenregistrement.json")
	saltFile := filepath.Join(dir, "sel")
	rec, err := Seal(recordFile, saltFile, "conformite", "1", testWindow, files, false)
	require.NoError(t, err)

	read, err := ReadRecord(recordFile)
	require.NoError(t, err)
	assert.Equal(t, rec, read)
	salt, err := ReadSalt(saltFile)
	require.NoError(t, err)
	require.NoError(t, read.Check(recordFile, "conformite", files, salt), "the salt written opens the record written")
	written, err := os.ReadFile(recordFile)
	require.NoError(t, err)
	assert.NotContains(t, string(written), sum(files.Key.Data))
	assert.NotContains(t, string(written), hex.EncodeToString(salt), "the record never holds the salt")

	info, err := os.Stat(saltFile)
	require.NoError(t, err)
	if runtime.GOOS != "windows" {
		assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	}

	_, err = Seal(recordFile, filepath.Join(dir, "sel2"), "conformite", "1", testWindow, files, false)
	assert.ErrorIs(t, err, ErrSealed)
	assert.NoFileExists(t, filepath.Join(dir, "sel2"), "a refused seal draws no salt")
	again, err := ReadRecord(recordFile)
	require.NoError(t, err)
	assert.Equal(t, rec, again, "the refused seal leaves the record as it was")

	_, err = Seal(recordFile, saltFile, "conformite", "1", testWindow, files, true)
	require.ErrorContains(t, err, saltFile+" exists")
	kept, err := ReadSalt(saltFile)
	require.NoError(t, err)
	assert.Equal(t, salt, kept, "the first salt is kept")

	resealed, err := Seal(recordFile, filepath.Join(dir, "sel2"), "conformite", "1", testWindow, files, true)
	require.NoError(t, err)
	assert.NotEqual(t, rec.KeyCommitment, resealed.KeyCommitment)
	newSalt, err := ReadSalt(filepath.Join(dir, "sel2"))
	require.NoError(t, err)
	read, err = ReadRecord(recordFile)
	require.NoError(t, err)
	assert.NoError(t, read.Check(recordFile, "conformite", files, newSalt))
}

func TestSaltRefusedInsideAWorkTree(t *testing.T) {
	repo := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(repo, ".git"), 0o755))
	require.NoError(t, os.Mkdir(filepath.Join(repo, "corpus"), 0o755))
	recordFile := filepath.Join(repo, "corpus", "preenregistrement.json")
	saltFile := filepath.Join(repo, "corpus", "sel")
	_, err := Seal(recordFile, saltFile, "conformite", "1", testWindow, files, false)
	require.ErrorContains(t, err, "salt file "+saltFile+": inside the git work tree "+repo)
	assert.NoFileExists(t, saltFile)
	assert.NoFileExists(t, recordFile, "no record without its salt")
}

func TestReadRecordIsStrict(t *testing.T) {
	rec, _ := newRecord("conformite", "1", testWindow, files)
	valid := `{"piste": "conformite", "saison": "1", "manifest_sha256": "` + rec.ManifestSHA256 + `", "taches_sha256": "` + rec.TasksSHA256 +
		`", "engagement_cle": "` + rec.KeyCommitment + `", "bareme_sha256": "` + rec.ScoringSectionSHA256 + `", "ouverture": "2026-10-01T00:00:00Z", "cloture": "2026-12-31T23:59:59Z"}`
	tests := []struct {
		name, data, want string
	}{
		{"a name in another case", strings.Replace(valid, `"piste"`, `"Piste"`, 1), `/Piste: unknown member (want bareme_sha256, cloture, engagement_cle, manifest_sha256, ouverture, piste, saison, taches_sha256)`},
		{"a duplicate key", strings.Replace(valid, `"saison": "1"`, `"saison": "1", "saison": "2"`, 1), `/saison: not JSON as Python reads it: duplicate key "saison"`},
		{"an unknown key", strings.Replace(valid, `"saison": "1"`, `"saison": "1", "sel": "00"`, 1), `/sel: unknown member (want bareme_sha256, cloture, engagement_cle, manifest_sha256, ouverture, piste, saison, taches_sha256)`},
		{"an unknown track", strings.Replace(valid, `"conformite"`, `"autre"`, 1), `/piste: `},
		{"a season not a number", strings.Replace(valid, `"saison": "1"`, `"saison": "un"`, 1), `/saison: want the season's number`},
		{"a season as a number", strings.Replace(valid, `"saison": "1"`, `"saison": 1`, 1), `/saison: want a string, not a number`},
		{"a hash in upper case", strings.Replace(valid, rec.TasksSHA256, strings.ToUpper(rec.TasksSHA256), 1), `/taches_sha256: want a SHA-256`},
		{"a missing hash", strings.Replace(valid, `"bareme_sha256": "`+rec.ScoringSectionSHA256+`"`, `"bareme_sha256": ""`, 1), `/bareme_sha256: want a SHA-256`},
		{"an opening not in UTC", strings.Replace(valid, `"2026-10-01T00:00:00Z"`, `"2026-10-01T02:00:00+02:00"`, 1), `/ouverture: "2026-10-01T02:00:00+02:00": want an RFC 3339 time in UTC`},
		{"a closing as a date", strings.Replace(valid, `"2026-12-31T23:59:59Z"`, `"2026-12-31"`, 1), `/cloture: "2026-12-31": want an RFC 3339 time in UTC`},
		{"a closing before the opening", strings.Replace(valid, `"2026-12-31T23:59:59Z"`, `"2026-09-30T23:59:59Z"`, 1), `/cloture: before /ouverture`},
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "rec.json")
	require.NoError(t, os.WriteFile(file, []byte(valid), 0o644))
	read, err := ReadRecord(file)
	require.NoError(t, err)
	assert.Equal(t, rec, read)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NotEqual(t, valid, tt.data, "the alteration applies")
			require.NoError(t, os.WriteFile(file, []byte(tt.data), 0o644))
			_, err := ReadRecord(file)
			require.Error(t, err)
			assert.Contains(t, err.Error(), file+" "+tt.want)
		})
	}
}

func TestReadSalt(t *testing.T) {
	dir := t.TempDir()
	write := func(content string) string {
		file := filepath.Join(dir, "sel")
		os.Remove(file)
		require.NoError(t, os.WriteFile(file, []byte(content), 0o600))
		return file
	}
	salt := NewSalt()
	got, err := ReadSalt(write(hex.EncodeToString(salt) + "\n"))
	require.NoError(t, err)
	assert.Equal(t, salt, got)
	_, err = ReadSalt(write(hex.EncodeToString(salt[:31])))
	assert.ErrorContains(t, err, "31 bytes, want 32")
	_, err = ReadSalt(write("zz" + hex.EncodeToString(salt)[2:]))
	assert.ErrorContains(t, err, "not hex")
	_, err = ReadSalt(filepath.Join(dir, "none"))
	assert.True(t, errors.Is(err, os.ErrNotExist))
}
