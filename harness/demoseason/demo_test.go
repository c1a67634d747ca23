package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/harness/browser"
	"github.com/arkforge/proveit-corpus/harness/pgtest"
	"github.com/arkforge/proveit-corpus/harness/servertest"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/tools/index"
	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/score"
	"github.com/arkforge/proveit-corpus/tools/seal"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// screenshot, when set, is where TestIndexInBrowser writes a PNG of the
// demo season's Index, the conformity track's page (make demo-screenshot).
var screenshot = flag.String("screenshot", "", "write a PNG of the demo season's Index to this file")

// workDir holds the demo season the tests share: playing it takes half a
// minute, most of it waiting for its closing.
var workDir string

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "proveit-demo-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	workDir = dir
	code := m.Run()
	pgtest.Stop()
	os.RemoveAll(dir)
	os.Exit(code)
}

var (
	demoOnce   sync.Once
	played     *demo
	playErr    error
	playOutput bytes.Buffer
)

// demoSeason plays the demo season once for the test process, with the
// real binaries (the server servertest's tests run, the toolbox built from
// this tree) and the season service on SQLite, as make demo does.
func demoSeason(t *testing.T) *demo {
	t.Helper()
	<-startDemoSeason(t)
	require.NoError(t, playErr, playOutput.String())
	return played
}

// demoPlayed is closed once the shared demo season has been played.
var demoPlayed = make(chan struct{})

// startDemoSeason starts playing the shared demo season, once, and
// returns the channel closed when it is over: most of a play is waiting
// for its season's closing, so that another test may play meanwhile.
func startDemoSeason(t *testing.T) <-chan struct{} {
	t.Helper()
	cfg := demoConfig(t, filepath.Join(workDir, "demo"), &playOutput)
	demoOnce.Do(func() {
		go func() {
			defer close(demoPlayed)
			ctx, cancel := context.WithTimeout(context.Background(), cfg.timeout)
			defer cancel()
			played, playErr = playSeason(ctx, cfg)
		}()
	})
	return demoPlayed
}

// demoConfig is make demo's configuration, into out, with the binaries
// under test.
func demoConfig(t *testing.T, out string, stdout io.Writer) config {
	return config{repo: servertest.RepoRoot(t), out: out, caddy: servertest.Binary(t), proveit: servertest.Toolbox(t),
		window: defaultWindow, timeout: 3 * time.Minute, stdout: stdout}
}

// The demo season plays the same on PostgreSQL, as make demo DEMO_FLAGS=
// -database postgres://... plays it: through the season service on one
// PostgreSQL database, its close exported from it, the Index built from
// the export and re-derived, every player's receipts matching the folder.
// It plays while the shared season on SQLite plays.
func TestDemoOnPostgres(t *testing.T) {
	startDemoSeason(t)
	database := pgtest.Database(t)
	var out bytes.Buffer
	cfg := demoConfig(t, filepath.Join(workDir, "demo-postgres"), &out)
	cfg.database = database
	ctx, cancel := context.WithTimeout(context.Background(), cfg.timeout)
	defer cancel()
	d, err := playSeason(ctx, cfg)
	require.NoError(t, err, out.String())
	require.NoError(t, d.publish(ctx), out.String())
	assert.Contains(t, out.String(), "on PostgreSQL")
	assert.NotContains(t, out.String(), database, "the database's URL is never printed")
	assert.Contains(t, out.String(), "every cell is the replay's")
	assert.Contains(t, out.String(), "Every player's receipts match the season folder")
	for _, tp := range d.tracks {
		export, err := index.ReadEnrollments(filepath.Join(d.dir(tp), "inscriptions.json"), tp.track.Name)
		require.NoError(t, err)
		assert.Len(t, export.Enrollments, len(tp.enrolled()), tp.track.Name)
	}
}

// The operator's steps of the season are docs/operating.md's timeline,
// each block read from the page and run as written: a season played runs
// every one of them, the per-track ones once a track.
func TestTimelineAsWritten(t *testing.T) {
	d := demoSeason(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out bytes.Buffer
	d.cfg.stdout = &out
	require.NoError(t, d.publish(ctx))
	runs := map[string]int{}
	for _, name := range d.op.ran {
		runs[name]++
	}
	perTrack := []string{"seal", "service-files", "anchor", "record-proof", "enroll-reference", "close", "verify-record"}
	for _, name := range d.op.timeline.names() {
		want := 1
		if slices.Contains(perTrack, name) {
			want = len(d.tracks)
		}
		assert.GreaterOrEqual(t, runs[name], want, "the timeline's %q block", name)
	}
	assert.Len(t, d.op.timeline, 12, "every block of the page is one the demo runs")
	for name := range runs {
		assert.Contains(t, d.op.timeline, name)
	}
}

// The season folder holds what a season's close hands over, as the Index
// reads it: each track's enrollment export, the submissions of each
// enrollment, the key and salt that open the record sealed for the
// season's window, the views with nothing pending, and the trust material
// that verifies them; and each player's replay, through proveit score on
// those files alone, is what its strategy earns.
func TestSeasonFolder(t *testing.T) {
	d := demoSeason(t)
	for _, tp := range d.tracks {
		t.Run(tp.track.Name, func(t *testing.T) {
			dir := d.dir(tp)
			tasks, err := season.ReadTasks(filepath.Join(d.cfg.repo, season.TasksFile(tp.track)))
			require.NoError(t, err)

			// inscriptions.json, strictly.
			data, err := os.ReadFile(filepath.Join(dir, "inscriptions.json"))
			require.NoError(t, err)
			export, err := index.ReadEnrollments(filepath.Join(dir, "inscriptions.json"), tp.track.Name)
			require.NoError(t, err, "read as the Index reads it")
			assert.Equal(t, 1, export.Season)
			assert.Equal(t, tp.track.Name, export.Track)
			var raw struct {
				Enrollments []map[string]any `json:"inscriptions"`
			}
			require.NoError(t, json.Unmarshal(data, &raw))
			var agents []string
			for i, e := range export.Enrollments {
				agents = append(agents, e.Agent)
				assert.Regexp(t, `^[a-z0-9-]{1,40}$`, e.ID)
				assert.True(t, anchor.IsSHA256(e.Key), "cle is a SHA-256: %s", e.Key)
				assert.Contains(t, e.DIDHistory, e.DID)
				assert.True(t, strings.HasPrefix(e.DID, "did:key:z"), "the DID bound to the key by challenge: %s", e.DID)
				enrolled, err := seal.ParseUTC(e.EnrolledAt)
				require.NoError(t, err)
				assert.False(t, enrolled.Before(d.opening) || enrolled.After(d.closing), "%s enrolled within the season", e.ID)
				reference := e.Table == index.TableReference
				for _, member := range []string{"modele", "version", "framework", "prompt"} {
					_, present := raw.Enrollments[i][member]
					assert.Equal(t, reference, present, "%s: %s only on a reference run", e.ID, member)
				}
				if !reference {
					assert.Equal(t, index.TableCommunity, e.Table)
				}
				p := byID(tp, e.ID)
				require.NotNil(t, p, "%s is a player's", e.ID)
				assert.Equal(t, p.DID, e.DID, "the DID Trust Layer says the key is bound to")
				assert.Equal(t, anchor.SHA256([]byte(p.apiKey)), e.Key, "the key's SHA-256, never the key")
			}
			want := []string{"Solveur de référence", "Prudente", "Pressée", "Devine"}
			careful, twin := tp.player("prudente"), tp.player("prudente-bis")
			if tp.track == corpus.Conformity {
				// The same key again: the service refused it.
				require.Contains(t, tp.refused, "prudente-bis")
				assert.Equal(t, 409, tp.refused["prudente-bis"].Status)
				assert.Equal(t, "deja_inscrite", tp.refused["prudente-bis"].Code)
				assert.Empty(t, twin.ID)
			} else {
				want = append(want, "Prudente (seconde inscription)")
				assert.NotEqual(t, careful.Key, twin.Key)
				assert.NotEqual(t, careful.DID, twin.DID)
				assert.Equal(t, []string{careful.DID, twin.DID}, twin.DIDHistory, "the second key was bound to the first DID")
			}
			assert.Equal(t, want, agents, "in enrollment order")
			assert.Equal(t, "reference-"+tp.track.Name, tp.player("reference").ID, "the operator's id for its reference run")

			// Every receipt issued, in recus.json: one per submission kept,
			// and the guesser's draft it replaced; the careful player's
			// resend added none.
			var recus struct {
				Key      string            `json:"cle_recus"`
				Receipts []json.RawMessage `json:"recus"`
			}
			data, err = os.ReadFile(filepath.Join(dir, "recus.json"))
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(data, &recus))
			assert.Equal(t, d.receiptKey, recus.Key)
			exported, err := filepath.Glob(filepath.Join(dir, "soumissions", "*", "*.json"))
			require.NoError(t, err)
			assert.Len(t, recus.Receipts, len(exported)+1)

			// The record, opened by the revealed key and salt, and closed.
			rec, err := seal.ReadRecord(filepath.Join(dir, "preenregistrement.json"))
			require.NoError(t, err)
			assert.Equal(t, seal.FormatUTC(d.opening), rec.Opening)
			assert.Equal(t, seal.FormatUTC(d.closing), rec.Closing)
			assert.True(t, time.Now().After(d.closing))
			key, err := os.ReadFile(filepath.Join(d.cfg.repo, season.KeyFile(tp.track)))
			require.NoError(t, err)
			revealed, err := os.ReadFile(filepath.Join(dir, "cle.json"))
			require.NoError(t, err)
			assert.Equal(t, key, revealed)
			_, err = seal.ReadSalt(filepath.Join(dir, "sel"))
			require.NoError(t, err)
			out := runProveit(t, d, 0, "seal", "-verify", "-track", tp.track.Name, "-record", filepath.Join(dir, "preenregistrement.json"),
				"-salt", filepath.Join(dir, "sel"), "-key", filepath.Join(dir, "cle.json"))
			assert.Contains(t, out, "OK ")

			// The replay of each enrollment from the season's files alone.
			reports := map[string]*score.Report{}
			for _, e := range export.Enrollments {
				files, err := filepath.Glob(filepath.Join(dir, "soumissions", e.ID, "*.json"))
				require.NoError(t, err)
				want := len(tasks.Tasks)
				if e.ID == tp.player("pressee").ID {
					want -= 3
				}
				require.Len(t, files, want, e.ID)
				for _, f := range files {
					data, err := os.ReadFile(f)
					require.NoError(t, err)
					sub, err := score.ParseSubmission(f, data)
					require.NoError(t, err)
					assert.Equal(t, e.DID, sub.AgentDID)
					assert.Equal(t, strings.TrimSuffix(filepath.Base(f), ".json"), sub.TaskID)
				}
				args := append([]string{"score", "-track", tp.track.Name, "-record", filepath.Join(dir, "preenregistrement.json"),
					"-salt", filepath.Join(dir, "sel"), "-key", filepath.Join(dir, "cle.json"),
					"-views", filepath.Join(d.season, "views"), "-trust", d.trust}, files...)
				var r score.Report
				require.NoError(t, json.Unmarshal([]byte(runProveit(t, d, 0, args...)), &r))
				assert.Equal(t, score.Anchored, r.Anchoring)
				assert.Equal(t, score.ProofsVerified, r.Conditions12)
				require.NotNil(t, r.Success.Founded, "%s: no proof is pending", e.ID)
				reports[e.ID] = &r
			}
			for _, role := range []string{"reference", "prudente", "prudente-bis"} {
				id := tp.player(role).ID
				if id == "" {
					continue // refused at enrollment
				}
				r := reports[id]
				assert.Equal(t, len(tasks.Tasks), *r.Success.Founded, "%s founds every task", id)
				assert.Zero(t, r.Overclaim.Unsupported, id)
				assert.Positive(t, r.Overclaim.Rendered, id)
			}

			hurried := reports[tp.player("pressee").ID]
			assert.Less(t, *hurried.Success.Founded, len(tasks.Tasks)-3)
			assert.Positive(t, hurried.Overclaim.Unsupported)
			causes := map[score.Cause]bool{}
			var failures []proofs.Check
			notRendered := 0
			for _, task := range hurried.Tasks {
				if task.Status == score.NotRendered {
					notRendered++
				}
				for _, a := range task.Assertions {
					if a.Cause != nil {
						causes[*a.Cause] = true
					}
					for _, f := range a.Failures {
						failures = append(failures, f...)
					}
				}
			}
			assert.Equal(t, 3, notRendered)
			assert.True(t, causes[score.ValueMismatch], "a value assumed: %v", causes)
			assert.True(t, causes[score.ResourceMismatch], "another call's proof: %v", causes)
			assert.True(t, causes[score.InvalidProof], "a nonce copied wrong: %v", causes)
			assert.Contains(t, failures, proofs.CheckResponsePair)

			guess := reports[tp.player("devine").ID]
			assert.Zero(t, guess.Overclaim.Unsupported, "what it asserts, it read")
			assert.Less(t, *guess.Success.Founded, guess.Constant.Success, "a guess founds less than the constant answer is exact")
			for _, task := range guess.Tasks {
				require.NotNil(t, task.Verdict)
				assert.Equal(t, guess.Constant.Verdict, *task.Verdict, "the constant-best-answer row's verdict")
			}
		})
	}

	// The trust material is the stand-in's, in the pinned layout, beside
	// the season and never in it.
	for _, f := range []string{"published_keys.json", "tsa/tsa.test/root.pem", "tsa/tsa.test/tsa.pem", "rekor/rekor.test.pem"} {
		assert.FileExists(t, filepath.Join(d.trust, f))
	}
	assert.NoDirExists(t, filepath.Join(d.season, "trust"))
}

// runProveit runs the toolbox from the repository's root and wants exit
// status code.
func runProveit(t *testing.T, d *demo, code int, args ...string) string {
	t.Helper()
	cmd := exec.Command(d.cfg.proveit, args...)
	cmd.Dir = d.cfg.repo
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	got := 0
	if exit, ok := err.(*exec.ExitError); ok {
		got = exit.ExitCode()
	} else {
		require.NoError(t, err)
	}
	require.Equal(t, code, got, "proveit %s\n%s%s", strings.Join(args, " "), stdout.String(), stderr.String())
	return stdout.String()
}

// The columns of a table of the Index, in the order they must read.
var columns = []string{"agent", "DID", "taux d'overclaim", "taux de réussite", "tâches rendues", "stack déclarée", "lien vers les preuves"}

// The demo season's Index, built and re-derived by the toolbox, read in
// Chromium as a person reads it: every page loads from disk with nothing
// leaving it and no console error; the home page links both tracks and
// shows no figure; each track's page has its two tables with the columns
// in order, the constant-best-answer row first, the reference table
// labelled calibration, each community row's stack labelled as declared,
// the AI Act notice, the second enrollment on one key listed as not
// ranked, and its chart drawn with one mark per ranked agent; a report
// shows its tasks, the failed check of a proof cause and the narrative.
func TestIndexInBrowser(t *testing.T) {
	d := demoSeason(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out bytes.Buffer
	d.cfg.stdout = &out
	require.NoError(t, d.publish(ctx), "proveit index and index -check on the demo season")
	assert.Contains(t, out.String(), "The Index: ")

	b := browser.Start(t, 2*time.Minute)
	clean := func(t *testing.T, p *browser.Page) string {
		t.Helper()
		assert.Empty(t, p.Requests(), "no request leaves %s", p.URL)
		assert.Empty(t, p.Errors(), "no console error on %s", p.URL)
		text, err := p.Text("body")
		require.NoError(t, err)
		return text
	}

	home := b.Open(t, filepath.Join(d.site, "index.html"))
	text := clean(t, home)
	links, err := home.Count(`a[href$="conformite/index.html"], a[href$="generique/index.html"]`)
	require.NoError(t, err)
	assert.Equal(t, 2, links, "the home page links both tracks")
	for _, figure := range []string{"table", "svg"} {
		n, err := home.Count(figure)
		require.NoError(t, err)
		assert.Zero(t, n, "no figure on the home page: %s", figure)
	}
	assert.NotContains(t, text, "%")

	for _, tp := range d.tracks {
		t.Run(tp.track.Name, func(t *testing.T) {
			var published struct {
				Tables map[string][]struct {
					ID    string `json:"id"`
					Agent string `json:"agent"`
				} `json:"tableaux"`
				Record    string `json:"preenregistrement"`
				NotRanked []struct {
					ID     string `json:"id"`
					Motif  string `json:"motif"`
					Ranked string `json:"classee"`
				} `json:"non_classes"`
			}
			data, err := os.ReadFile(filepath.Join(d.site, tp.track.Name, "index.json"))
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(data, &published))
			assert.Equal(t, tp.recordProof, published.Record, "the proof that anchored the record")
			assert.Len(t, published.Tables[index.TableReference], 1)
			assert.Len(t, published.Tables[index.TableCommunity], 3)
			twin := tp.player("prudente-bis")
			page := b.Open(t, filepath.Join(d.site, tp.track.Name, "index.html"))
			text := clean(t, page)
			assert.Contains(t, strings.ToLower(text), "article 50")
			if twin.ID == "" {
				assert.Empty(t, published.NotRanked, "the service refused the second enrollment on one key")
				assert.NotContains(t, text, "Prudente (seconde inscription)")
			} else {
				require.Len(t, published.NotRanked, 1)
				assert.Equal(t, twin.ID, published.NotRanked[0].ID)
				assert.Equal(t, "meme_cle", published.NotRanked[0].Motif)
				assert.Equal(t, tp.player("prudente").ID, published.NotRanked[0].Ranked)
				assert.Contains(t, text, "Prudente (seconde inscription)", "the second enrollment is listed")
				assert.Regexp(t, `meme_cle|même clé`, text)
			}

			// The two tables of the ranked runs, each in its section under
			// its heading; the non-ranked enrollments are listed apart.
			boards := `table[data-table="` + index.TableReference + `"], table[data-table="` + index.TableCommunity + `"]`
			tables, err := page.Count(boards)
			require.NoError(t, err)
			require.Equal(t, 2, tables, "two tables: reference runs and community")
			captions, err := page.Texts(`section[id="` + index.TableReference + `"] h2, section[id="` + index.TableCommunity + `"] h2`)
			require.NoError(t, err)
			require.Len(t, captions, 2, "each table is labelled")
			assert.Contains(t, strings.ToLower(captions[0]), "calibration", "the reference table is labelled calibration")
			assert.NotContains(t, strings.ToLower(captions[1]), "calibration")
			headers, err := page.TextsIn(boards, "thead th")
			require.NoError(t, err)
			rows, err := page.TextsIn(boards, "tbody tr")
			require.NoError(t, err)
			for i, board := range []string{index.TableReference, index.TableCommunity} {
				assert.True(t, inOrder(headers[i], columns), "%s: the columns %q in order, not %q", board, columns, headers[i])
				require.Len(t, rows[i], 1+len(published.Tables[board]), "%s: the constant row and one per ranked agent", board)
				assert.Contains(t, strings.ToLower(rows[i][0]), "meilleure réponse constante", "%s: the constant row first", board)
				for j, row := range published.Tables[board] {
					assert.Contains(t, rows[i][1+j], row.Agent, "%s: rows in the JSON's order", board)
					if board == index.TableCommunity {
						assert.Contains(t, rows[i][1+j], "stack déclarée, non vérifiée", "each community row")
					}
				}
				for _, row := range rows[i] {
					assert.NotContains(t, row, "Prudente (seconde inscription)", "the second enrollment is not ranked")
				}
			}

			charts, err := page.Count("svg")
			require.NoError(t, err)
			assert.Equal(t, 2, charts, "one chart a table: the calibration runs are not ranked with the community")
			marks, err := page.Count("svg circle")
			require.NoError(t, err)
			assert.Equal(t, len(published.Tables[index.TableReference])+len(published.Tables[index.TableCommunity]), marks, "one mark per ranked agent")
			scripts, err := page.Count("script")
			require.NoError(t, err)
			assert.Zero(t, scripts, "the chart is drawn without a script")

			report := b.Open(t, filepath.Join(d.site, tp.track.Name, tp.player("pressee").ID+".html"))
			text = clean(t, report)
			assert.Contains(t, strings.ToLower(text), "article 50")
			tasks, err := season.ReadTasks(filepath.Join(d.cfg.repo, season.TasksFile(tp.track)))
			require.NoError(t, err)
			for _, task := range tasks.Tasks {
				assert.Contains(t, text, task.ID)
			}
			// The check is named in French (its code, paire_response_hash,
			// is the JSON's): the report's words, the method page's glossary.
			assert.Contains(t, text, "paire du hash de réponse non ouverte", "a proof cause's failed check, by name")
			assert.NotContains(t, text, string(proofs.CheckResponsePair), "no code on a page")
			assert.Contains(t, text, "Réponse rapide: certaines valeurs sont reprises de mémoire.", "the narrative as published")

			if *screenshot != "" && tp.track == corpus.Conformity {
				require.NoError(t, page.Screenshot(*screenshot))
				t.Logf("wrote %s", *screenshot)
			}
		})
	}
}

// byID is the track's player enrolled under id.
func byID(tp *trackPlay, id string) *player {
	for _, p := range tp.enrolled() {
		if p.ID == id {
			return p
		}
	}
	return nil
}

// inOrder reports whether want appears in got in its order, case aside;
// a reference table may carry more columns between them.
func inOrder(got, want []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && strings.EqualFold(strings.TrimSpace(g), want[i]) {
			i++
		}
	}
	return i == len(want)
}

// The commands docs/scoring.md gives for make demo's season run as
// written, copied from the page, from a folder laid out as the
// repository's root after make demo: bin/proveit, and .run/demo the
// season this test played.
func TestScoringPageCommands(t *testing.T) {
	d := demoSeason(t)
	page, err := os.ReadFile(filepath.Join(servertest.RepoRoot(t), "docs", "scoring.md"))
	require.NoError(t, err)
	_, block, found := strings.Cut(string(page), "<!-- demo-commands:")
	require.True(t, found, "docs/scoring.md marks the demo's commands")
	_, block, found = strings.Cut(block, "```sh\n")
	require.True(t, found)
	block, _, found = strings.Cut(block, "```")
	require.True(t, found)
	commands := strings.Split(strings.TrimSpace(block), "\n")
	require.Len(t, commands, 5)

	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "bin"), 0o755))
	require.NoError(t, os.Symlink(d.cfg.proveit, filepath.Join(root, "bin", "proveit")))
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".run"), 0o755))
	require.NoError(t, os.Symlink(d.cfg.out, filepath.Join(root, ".run", "demo")))
	for _, command := range commands {
		cmd := exec.Command("bash", "-c", command)
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s\n%s", command, out)
	}
}
