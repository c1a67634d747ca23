package index_test

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/tools/index"
	"github.com/arkforge/proveit-corpus/tools/index/indextest"
	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/receipt"
)

// copySeason copies the shared season to a new folder of the test's, so
// that a test may spoil it; the trust material stays the shared one's.
func copySeason(t *testing.T) (string, index.Options) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "copie")
	require.NoError(t, os.CopyFS(dir, os.DirFS(season(t))))
	o := published(dir)
	o.TrustDir = indextest.TrustOf(season(t))
	return dir, o
}

// refusal builds o into a new folder and wants a refusal on one line that
// says every part of want.
func refusal(t *testing.T, o index.Options, want ...string) {
	t.Helper()
	err := index.Build(o, filepath.Join(t.TempDir(), "site"))
	var input *index.InputError
	require.True(t, errors.As(err, &input), "%v", err)
	for _, w := range want {
		assert.Contains(t, err.Error(), w)
	}
	assert.NotContains(t, err.Error(), "\n")
}

// The same season folder, copied anywhere and read from any working
// directory, gives the same bytes, and no path of the machine in them.
func TestAnywhere(t *testing.T) {
	here := build(t, published(season(t)))
	dir, o := copySeason(t)
	wd, err := os.Getwd()
	require.NoError(t, err)
	elsewhere := t.TempDir()
	require.NoError(t, os.Chdir(elsewhere))
	t.Cleanup(func() { os.Chdir(wd) })
	there := filepath.Join(t.TempDir(), "site")
	require.NoError(t, index.Build(o, there))
	require.NoError(t, os.Chdir(wd))

	a, b := siteFiles(t, here), siteFiles(t, there)
	require.Equal(t, len(a), len(b))
	for name, data := range a {
		assert.Equal(t, string(data), string(b[name]), name)
		for _, path := range []string{season(t), dir, wd, elsewhere, os.TempDir()} {
			assert.NotContains(t, string(data), path, "%s names a path of the building machine", name)
		}
	}
}

// An optional file that is there but cannot be read is an error naming
// it, never replaced by the binary's own.
func TestBrokenOptionalFile(t *testing.T) {
	for _, name := range []string{"taches.json", "preenregistrement.json"} {
		t.Run(name, func(t *testing.T) {
			dir, o := copySeason(t)
			file := filepath.Join(dir, "conformite", name)
			os.Remove(file)
			require.NoError(t, os.Symlink(filepath.Join(dir, "absent.json"), file))
			refusal(t, o, "conformite/"+name)
		})
	}
}

// Nothing is trusted that the reader did not choose: a trust folder in
// the season is never read, a made-up anchoring is refused, and a season
// whose proofs no key of the material signed is refused in one line that
// names the material.
func TestTrustChosenByTheReader(t *testing.T) {
	t.Run("the season's own trust folder", func(t *testing.T) {
		dir, o := copySeason(t)
		require.NoError(t, os.CopyFS(filepath.Join(dir, "trust"), os.DirFS(indextest.TrustOf(season(t)))))
		o.TrustDir = ""
		refusal(t, o, "none of the", "verifies against the pinned trust material", "-trust")
	})
	t.Run("a made-up anchoring", func(t *testing.T) {
		dir, o := copySeason(t)
		indextest.WriteJSON(t, filepath.Join(dir, "conformite", "preenregistrement.ancrage.json"), map[string]any{
			"proof_id": "prf_20990101_000000_abcdef", "record_url": "https://proveit.arkforge.tech/v1/season/1/conformite/preenregistrement.json",
			"disclosure": proofs.Disclosure{RequestHash: proofs.Opening{Nonce: strings.Repeat("0", 64), Value: strings.Repeat("1", 64)},
				ResponseHash: proofs.Opening{Nonce: strings.Repeat("2", 64), Value: strings.Repeat("3", 64)}},
		})
		refusal(t, o, "conformite/preenregistrement.ancrage.json", "prf_20990101_000000_abcdef does not anchor", "vue_absente")
	})
}

// Hostile files of the season: every read bounded, a pipe or a device
// refused before it is read, a folder of submissions holding anything but
// its enrollment's <task_id>.json refused by name.
func TestHostileSeasonFiles(t *testing.T) {
	tests := []struct {
		name  string
		spoil func(t *testing.T, dir string)
		want  []string
	}{
		{"a salt linked to a device", func(t *testing.T, dir string) {
			replaceWith(t, filepath.Join(dir, "conformite", "sel"), func(p string) error { return os.Symlink("/dev/zero", p) })
		}, []string{"conformite/sel"}},
		{"a record that is a pipe", func(t *testing.T, dir string) {
			replaceWith(t, filepath.Join(dir, "conformite", "preenregistrement.json"), func(p string) error {
				if err := mkfifo(p); err != nil {
					t.Skip("no named pipes on this system")
				}
				return nil
			})
		}, []string{"conformite/preenregistrement.json", "named pipe"}},
		{"a key too large", func(t *testing.T, dir string) {
			replaceWith(t, filepath.Join(dir, "conformite", "cle.json"), func(p string) error { return os.WriteFile(p, make([]byte, 5<<20), 0o644) })
		}, []string{"conformite/cle.json", "over the"}},
		{"a submission named anything", func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "conformite", "soumissions", "bob", "notes\n.json"), []byte("{}"), 0o644))
		}, []string{`soumissions/bob/notes\n.json`, "<task_id>.json"}},
		{"an enrollment named as the track's page", func(t *testing.T, dir string) {
			file := filepath.Join(dir, "conformite", "inscriptions.json")
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(file, []byte(strings.Replace(string(data), `"id": "bob"`, `"id": "index"`, 1)), 0o644))
			require.NoError(t, os.Rename(filepath.Join(dir, "conformite", "soumissions", "bob"), filepath.Join(dir, "conformite", "soumissions", "index")))
		}, []string{"conformite/inscriptions.json /inscriptions/2/id", "reserved"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, o := copySeason(t)
			tt.spoil(t, dir)
			done := make(chan struct{})
			go func() {
				defer close(done)
				refusal(t, o, tt.want...)
			}()
			select {
			case <-done:
			case <-time.After(2 * time.Minute):
				t.Fatal("the build hangs on a hostile file")
			}
		})
	}
}

func replaceWith(t *testing.T, file string, make func(string) error) {
	t.Helper()
	require.NoError(t, os.Remove(file))
	require.NoError(t, make(file))
}

// The output: never in the season or around it, never a folder holding
// anything but a previous Index, never through a link; replaced whole by
// a build that succeeds, left as it was by one that fails.
func TestOutputFolder(t *testing.T) {
	dir, o := copySeason(t)
	t.Run("refused", func(t *testing.T) {
		foreign := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("mine"), 0o644))
		link := filepath.Join(t.TempDir(), "link")
		require.NoError(t, os.Symlink(t.TempDir(), link))
		for _, tt := range []struct{ site, want string }{
			{dir, "outside the season's folder"},
			{filepath.Join(dir, "conformite"), "outside the season's folder"},
			{filepath.Dir(dir), "outside the season's folder"},
			{foreign, "notes.txt"},
			{link, "a link"},
		} {
			err := index.Build(o, tt.site)
			require.Error(t, err, tt.site)
			assert.Contains(t, err.Error(), tt.want, tt.site)
		}
		data, err := os.ReadFile(filepath.Join(foreign, "notes.txt"))
		require.NoError(t, err)
		assert.Equal(t, "mine", string(data), "nothing written")
	})

	t.Run("replaced whole or not at all", func(t *testing.T) {
		site := filepath.Join(t.TempDir(), "site")
		require.NoError(t, index.Build(o, site))
		before := siteFiles(t, site)
		require.Contains(t, before, "conformite/eve.html")

		// A build that fails leaves the previous Index as it was.
		salt := filepath.Join(dir, "conformite", "sel")
		original, err := os.ReadFile(salt)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(salt, []byte(strings.Repeat("ab", 32)+"\n"), 0o600))
		require.Error(t, index.Build(o, site))
		assert.Equal(t, before, siteFiles(t, site))
		require.NoError(t, os.WriteFile(salt, original, 0o600))

		// A rebuild without an enrollment publishes no report of it.
		file := filepath.Join(dir, "conformite", "inscriptions.json")
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		var export index.Enrollments
		require.NoError(t, jsonUnmarshal(data, &export))
		var kept []index.Enrollment
		for _, en := range export.Enrollments {
			if en.ID != "eve" {
				kept = append(kept, en)
			}
		}
		export.Enrollments = kept
		indextest.WriteJSON(t, file, export)
		require.NoError(t, os.RemoveAll(filepath.Join(dir, "conformite", "soumissions", "eve")))
		require.NoError(t, index.Build(o, site))
		after := siteFiles(t, site)
		assert.NotContains(t, after, "conformite/eve.html")
		assert.NotContains(t, after, "conformite/eve.json")
		entries, err := os.ReadDir(filepath.Dir(site))
		require.NoError(t, err)
		assert.Len(t, entries, 1, "nothing left beside the site")
	})
}

// -check reads a published site as anyone's: every name and value it
// prints is printable text on one line, and a table slipped in before the
// real one is named cell by cell.
func TestCheckHostileSite(t *testing.T) {
	o := published(season(t))
	site := build(t, o)
	require.NoError(t, os.WriteFile(filepath.Join(site, "conformite", "x\x1b[2J\nOK forged.html"), []byte("x"), 0o644))
	page := filepath.Join(site, "conformite", "index.html")
	data, err := os.ReadFile(page)
	require.NoError(t, err)
	forged := `<table data-table="communaute"><tr><th data-col="agent">agent</th><th data-col="reussite">r</th></tr><tr data-id="carol"><td>Carol</td><td>10 / 10</td></tr></table>`
	at := strings.Index(string(data), "<table")
	require.GreaterOrEqual(t, at, 0)
	require.NoError(t, os.WriteFile(page, []byte(string(data[:at])+forged+string(data[at:])), 0o644))

	diffs, err := check(o, site)
	require.NoError(t, err)
	var lines []string
	for _, d := range diffs {
		line := d.String()
		assert.NotContains(t, line, "\n")
		assert.NotContains(t, line, "\x1b")
		lines = append(lines, line)
	}
	joined := strings.Join(lines, "\n")
	assert.Contains(t, joined, `x\x1b[2J\nOK forged.html`)
	assert.Contains(t, joined, "table communaute (n°2)", "the real table, second of its name, is named")
	assert.NotContains(t, joined, "other bytes", "the forged table's cells are named, not only its bytes")
}

func jsonUnmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }

// A report's replay is written once, as proveit score writes it: a text
// holding <, > or & is written as given, not as \u003c.
func TestReportWrittenOnce(t *testing.T) {
	dir, o := copySeason(t)
	file := filepath.Join(dir, "conformite", "soumissions", "bob", "conf-01.json")
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Contains(t, string(data), `"track": "conformite"`)
	require.NoError(t, os.WriteFile(file, []byte(strings.Replace(string(data), `"track": "conformite"`, `"track": "<b>&amp;"`, 1)), 0o644))
	site := filepath.Join(t.TempDir(), "site")
	require.NoError(t, index.Build(o, site))
	report, err := os.ReadFile(filepath.Join(site, "conformite", "bob.json"))
	require.NoError(t, err)
	assert.Contains(t, string(report), `piste \"<b>&amp;\"`)
	for _, escaped := range []string{`\u003c`, `\u003e`, `\u0026`} {
		assert.NotContains(t, string(report), escaped)
	}
}

// Whatever a participant writes in its submissions, its pages stay within
// the bound a published page is held to (so that -check reads them whole)
// and show the long text in part; its JSON carries the text whole.
func TestLongThirdPartyText(t *testing.T) {
	dir, o := copySeason(t)
	file := filepath.Join(dir, "conformite", "soumissions", "bob", "conf-01.json")
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	var sub map[string]any
	require.NoError(t, json.Unmarshal(data, &sub))
	long := strings.Repeat("'", 900<<10) // a submission's worth, each byte five on a page (&#39;)
	sub["narrative"] = long
	indextest.WriteJSON(t, file, sub)
	site := filepath.Join(t.TempDir(), "site")
	require.NoError(t, index.Build(o, site))
	page, err := os.ReadFile(filepath.Join(site, "conformite", "bob.html"))
	require.NoError(t, err)
	assert.Less(t, len(page), 1<<20, "the page shows the narrative in part")
	assert.Contains(t, string(page), "tronqué")
	report, err := os.ReadFile(filepath.Join(site, "conformite", "bob.json"))
	require.NoError(t, err)
	assert.Contains(t, string(report), long, "the JSON carries it whole")
	diffs, err := check(o, site)
	require.NoError(t, err)
	assert.Empty(t, diffs)
}

// writeReceipts writes a track's recus.json as the season service's close
// does, a receipt signed for every exported submission, and returns its
// path.
func writeReceipts(t *testing.T, dir, track string) string {
	t.Helper()
	_, key, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join(dir, track, "soumissions", "*", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	f := receipt.File{Season: 1, Track: track, Key: base64.StdEncoding.EncodeToString(key.Public().(ed25519.PublicKey))}
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		r := receipt.Receipt{Season: 1, Track: track, Enrollment: filepath.Base(filepath.Dir(file)),
			TaskID: strings.TrimSuffix(filepath.Base(file), ".json"), SHA256: anchor.SHA256(data), ReceivedAt: "2026-03-20T09:00:00Z"}
		f.Receipts = append(f.Receipts, receipt.Sign(key, r))
	}
	name := filepath.Join(dir, track, receipt.FileName)
	indextest.WriteJSON(t, name, f)
	return name
}

// Each exported submission is the one its last receipt acknowledged: a
// submission changed after the close, one the service never receipted, a
// receipt whose submission the export lacks and a forged signature are
// each refused by name.
func TestReceipts(t *testing.T) {
	t.Run("every submission its receipt's", func(t *testing.T) {
		dir, o := copySeason(t)
		writeReceipts(t, dir, "conformite")
		require.NoError(t, index.Build(o, filepath.Join(t.TempDir(), "site")))
	})
	tests := []struct {
		name  string
		spoil func(t *testing.T, dir, receipts string)
		want  []string
	}{
		{"a submission changed after the close", func(t *testing.T, dir, _ string) {
			file := filepath.Join(dir, "conformite", "soumissions", "bob", "conf-01.json")
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(file, append(data, ' '), 0o644))
		}, []string{"conformite/soumissions/bob/conf-01.json", "not the", "of its last receipt"}},
		{"a submission never receipted", func(t *testing.T, dir, receipts string) {
			var f receipt.File
			data, err := os.ReadFile(receipts)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(data, &f))
			pub, _ := base64.StdEncoding.DecodeString(f.Key)
			var kept []json.RawMessage
			for _, raw := range f.Receipts {
				r, err := receipt.Decode("r", raw)
				require.NoError(t, err)
				require.True(t, receipt.Verify(pub, r))
				if r.Enrollment != "bob" || r.TaskID != "conf-02" {
					kept = append(kept, raw)
				}
			}
			f.Receipts = kept
			indextest.WriteJSON(t, receipts, f)
		}, []string{"conformite/soumissions/bob/conf-02.json", "no receipt"}},
		{"a receipt whose submission is gone", func(t *testing.T, dir, _ string) {
			require.NoError(t, os.Remove(filepath.Join(dir, "conformite", "soumissions", "bob", "conf-03.json")))
		}, []string{"conformite/recus.json", "bob's conf-03", "the export lacks"}},
		{"a forged signature", func(t *testing.T, dir, receipts string) {
			data, err := os.ReadFile(receipts)
			require.NoError(t, err)
			require.Contains(t, string(data), `"remplace": false`)
			require.NoError(t, os.WriteFile(receipts, []byte(strings.Replace(string(data), `"remplace": false`, `"remplace": true`, 1)), 0o644))
		}, []string{"conformite/recus.json /recus/", "signature: does not verify"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, o := copySeason(t)
			receipts := writeReceipts(t, dir, "conformite")
			tt.spoil(t, dir, receipts)
			refusal(t, o, tt.want...)
		})
	}
}

// A site re-derived by a build of another version names the version it
// shows, page by page, rather than reporting other bytes.
func TestCheckNamesTheVersion(t *testing.T) {
	o := published(season(t))
	o.Version = "v1.0.0"
	site := build(t, o)
	o.Version = "v1.0.1"
	diffs, err := check(o, site)
	require.NoError(t, err)
	require.NotEmpty(t, diffs)
	for _, d := range diffs {
		assert.Equal(t, "version", d.Column, d.String())
		assert.Contains(t, d.Published, "v1.0.0")
		assert.Contains(t, d.Replayed, "v1.0.1")
	}
}
