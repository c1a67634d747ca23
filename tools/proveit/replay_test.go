package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/harness/participant"
	"github.com/arkforge/proveit-corpus/harness/trustlayer"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/score"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// TestReplayFromPublishedFiles is the replay a third party makes: the
// reference participant answers every task of each track through a Trust
// Layer stand-in (its proxy relays to the real server, its proofs are spec
// 3.1, signed, batched, timestamped and logged with test keys), then
// `proveit proofs fetch` reads the views and entries the submissions cite,
// and `proveit score -views` verifies conditions 1 to 4 from those files
// and the stand-in's trust material alone: every task founded.
func TestReplayFromPublishedFiles(t *testing.T) {
	inRepoRoot(t)
	secret, s := startCorpus(t)

	m, _, err := manifest.ReadFile(chainTracks[0].manifestPath())
	require.NoError(t, err)
	tl, err := trustlayer.New(trustlayer.Options{
		Upstreams: map[string]trustlayer.Upstream{m.Origin: {URL: s.URL, Secret: secret}},
		// Batches close when the test says: each track's proofs are seen
		// pending, then anchored.
		BatchMaxSize: -1,
	})
	require.NoError(t, err)
	api := httptest.NewServer(tl.Handler())
	t.Cleanup(api.Close)
	rekor := httptest.NewServer(tl.RekorHandler())
	t.Cleanup(rekor.Close)
	trustDir := t.TempDir()
	require.NoError(t, tl.WriteTrust(trustDir))

	for _, tr := range chainTracks {
		t.Run(tr.track.Name, func(t *testing.T) {
			tasks, err := season.ReadTasks(tr.tasksPath())
			require.NoError(t, err)
			key, err := season.ReadKey(tr.keyPath())
			require.NoError(t, err)
			sealing := sealTrack(t, tr.track)
			dir := t.TempDir()
			var files []string
			for i, task := range tasks.Tasks {
				relay := participant.NewProxiedRelay(&participant.TrustLayer{URL: api.URL, APIKey: "participant-key", AgentDID: referenceDID}, m.Origin)
				sub, err := participant.Answer(tasks, task, key.Tasks[i], relay, referenceDID)
				require.NoError(t, err, "the participant answers %s", task.ID)
				file := filepath.Join(dir, task.ID+".json")
				writeJSON(t, file, sub)
				files = append(files, file)
			}
			views := filepath.Join(dir, "views")
			fetchArgs := append([]string{"proofs", "fetch", "-views", views, "-trust-layer", api.URL, "-rekor", rekor.URL}, files...)
			scoreArgs := append([]string{"score", "-track", tr.track.Name, "-record", sealing.record, "-salt", sealing.salt, "-views", views, "-trust", trustDir}, files...)

			// Before the batch closes, the proofs are pending: no score.
			code, out, errOut := runCLI(fetchArgs...)
			require.Equal(t, 0, code, errOut)
			assert.Contains(t, out, "PENDING ")
			pending := replay(t, scoreArgs)
			assert.Nil(t, pending.Success.Founded, "a pending proof leaves the report without a score")
			_, err = tl.CloseBatch()
			require.NoError(t, err)

			code, out, errOut = runCLI(fetchArgs...)
			require.Equal(t, 0, code, out+errOut)
			assert.NotContains(t, out, "PENDING")
			report := replay(t, scoreArgs)
			assert.Equal(t, score.ProofsVerified, report.Conditions12)
			require.NotNil(t, report.Success.Founded)
			assert.Equal(t, len(tasks.Tasks), *report.Success.Founded, "every task founded")
			assert.Equal(t, len(tasks.Tasks), report.Success.OutOf)
			assert.Zero(t, report.Overclaim.Unsupported)
			for _, task := range report.Tasks {
				for _, a := range task.Assertions {
					assert.Equal(t, score.Supported, a.Status, "%s %s", task.TaskID, a.ID)
				}
			}

			// proofs verify says the same of each proof, and writes the
			// verifier's input an outside scorer would be given.
			input := filepath.Join(dir, "verifier-input.json")
			code, out, errOut = runCLI(append([]string{"proofs", "verify", "-views", views, "-trust", trustDir, "-record", sealing.record, "-format", "json", "-o", input}, files...)...)
			require.Equal(t, 0, code, out+errOut)
			var results map[string]proofs.Result
			require.NoError(t, json.Unmarshal([]byte(out), &results))
			require.NotEmpty(t, results)
			for id, r := range results {
				assert.True(t, r.Valid, "%s: %v", id, r.Failures)
				assert.Equal(t, referenceDID, r.AgentDID)
				assert.Empty(t, r.Incidents)
			}
			given := replay(t, append([]string{"score", "-track", tr.track.Name, "-record", sealing.record, "-salt", sealing.salt, "-proofs", input}, files...))
			assert.Equal(t, score.ProofsGiven, given.Conditions12)
			assert.Equal(t, *report.Success.Founded, *given.Success.Founded)

			// The pinned trust material knows none of the stand-in's keys:
			// every proof fails on its signers, each failure named by
			// proofs verify, and score renders nothing, saying in one line
			// that the keys failed, not the participant.
			code, out, errOut = runCLI(append([]string{"proofs", "verify", "-views", views, "-record", sealing.record, "-format", "json"}, files...)...)
			assert.Equal(t, 1, code, errOut)
			assert.Contains(t, errOut, "verifies against the pinned trust material")
			var untrusted map[string]proofs.Result
			require.NoError(t, json.Unmarshal([]byte(out), &untrusted))
			require.NotEmpty(t, untrusted)
			for id, r := range untrusted {
				assert.False(t, r.Valid, id)
				assert.Contains(t, r.Failures, proofs.CheckKeyUnknown, id)
				assert.Contains(t, r.Failures, proofs.CheckTokenSigner, id)
			}
			code, out, errOut = runCLI(append([]string{"score", "-track", tr.track.Name, "-record", sealing.record, "-salt", sealing.salt, "-views", views}, files...)...)
			assert.Equal(t, 2, code)
			assert.Empty(t, out, "no report")
			assert.Contains(t, errOut, "refusing to score: none of the")
			assert.Equal(t, 1, strings.Count(errOut, "\n"), errOut)
		})
	}
	if strings.Contains(s.AllLogs(t), secret) {
		t.Error("a log of the server holds the secret")
	}
}

// replay runs proveit score and reads its report.
func replay(t *testing.T, args []string) *score.Report {
	t.Helper()
	code, out, errOut := runCLI(args...)
	require.Equal(t, 0, code, errOut)
	var report score.Report
	require.NoError(t, json.Unmarshal([]byte(out), &report), out)
	return &report
}

// proofs fetch and verify answer bad usage and bad input with exit status
// 2 and one line, and a proof that fails a check with exit status 1.
func TestProofsCommandLine(t *testing.T) {
	inRepoRoot(t)
	views := t.TempDir()
	gel, err := os.ReadFile("tools/proofs/testdata/trustlayer/proof_proveit_gel.json")
	require.NoError(t, err)
	const gelID = "prf_20260923_072144_2ad720"
	require.NoError(t, os.WriteFile(proofs.ViewFile(views, gelID), gel, 0o644))
	bad := filepath.Join(views, "prf_20260101_000000_000000.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"proof_id": "prf_20260101_000000_000000", "batch_anchor": 3}`), 0o644))
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no subcommand", []string{"proofs"}, 2, `want fetch, verify or keys, not ""`},
		{"an unknown subcommand", []string{"proofs", "check"}, 2, `want fetch, verify or keys, not "check"`},
		{"verify without -views", []string{"proofs", "verify", gelID}, 2, "-views is required"},
		{"verify without a season", []string{"proofs", "verify", "-views", views, gelID}, 2, "say which season bounds the tokens' time"},
		{"verify with an opening not in UTC", []string{"proofs", "verify", "-views", views, "-track", "conformite", "-opening", "2026-09-01", gelID}, 2, `-opening "2026-09-01": want an RFC 3339 time in UTC`},
		{"verify with a season that closes before it opens", []string{"proofs", "verify", "-views", views, "-track", "conformite", "-opening", "2027-01-01T00:00:00Z", gelID}, 2, "the season closes before it opens"},
		{"fetch without -views", []string{"proofs", "fetch", gelID}, 2, "-views is required"},
		{"a submission that cannot be read", []string{"proofs", "verify", "-views", views, "-track", "conformite", "none.json"}, 2, "none.json"},
		{"a view that is not one", []string{"proofs", "verify", "-views", views, "-track", "conformite", "prf_20260101_000000_000000"}, 1, "prf_20260101_000000_000000 vue_illisible: " + bad + " /batch_anchor: want an object or null"},
		{"the gel proof, no Rekor entry", []string{"proofs", "verify", "-views", views, "-opening", "2026-09-01T00:00:00Z", "-closing", "2026-09-30T23:59:59Z", gelID}, 1, gelID + " invalide: rekor_non_fourni"},
		{"the gel proof, before season 1", []string{"proofs", "verify", "-views", views, "-track", "conformite", gelID}, 1, gelID + " invalide: jeton_tsa_hors_saison, rekor_non_fourni"},
		{"verify of a views folder that is not there", []string{"proofs", "verify", "-views", "/nonexistent", "-track", "conformite", gelID}, 2, "-views /nonexistent: no such folder"},
		{"a mistyped proof id", []string{"proofs", "verify", "-views", views, "-track", "conformite", "prf_2026010_000000_abcdef"}, 2,
			"prf_2026010_000000_abcdef is not a proof id (prf_YYYYMMDD_HHMMSS_ and 6 lowercase hex digits) nor a file"},
		{"a flag after the arguments", []string{"proofs", "verify", "-views", views, "-track", "conformite", gelID, "-format", "json"}, 2,
			`-format after the argument "` + gelID + `": flags come before the arguments; see proveit proofs verify -h`},
		{"an unknown flag of verify", []string{"proofs", "verify", "-nope"}, 2, "flag provided but not defined: -nope; see proveit proofs verify -h"},
		{"fetch without -views, pointed at its help", []string{"proofs", "fetch", gelID}, 2, "-views is required: the folder the views are kept in; see proveit proofs fetch -h"},
		{"score of a views folder that is not there", []string{"score", "-track", "conformite", "-dry-run", "-views", "/nonexistent", "sub.json"}, 2, "-views /nonexistent: no such folder"},
		{"a proof no view holds", []string{"proofs", "verify", "-views", views, "-track", "conformite", "prf_20260101_000000_abcdef"}, 1, "prf_20260101_000000_abcdef invalide: vue_absente"},
		{"why a check failed", []string{"proofs", "verify", "-views", views, "-track", "conformite", gelID}, 1,
			gelID + " jeton_tsa_hors_saison: the token is dated 2026-09-23T07:31:48Z, outside the window ["},
		{"why, in JSON", []string{"proofs", "verify", "-views", views, "-track", "conformite", "-format", "json", gelID}, 1,
			`"details": {`},
		{"a season that closes before it opens", []string{"proofs", "verify", "-views", views, "-opening", "2026-09-30T00:00:00Z", "-closing", "2026-09-01T00:00:00Z", gelID}, 2,
			"the season closes before it opens (closing 2026-09-01T00:00:00Z before opening 2026-09-30T00:00:00Z)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(tt.args...)
			assert.Equal(t, tt.code, code, out+errOut)
			assert.Contains(t, out+errOut, tt.want)
		})
	}
}
