package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/tools/participant"
	"github.com/arkforge/proveit-corpus/tools/probe"
	"github.com/arkforge/proveit-corpus/tools/score"
	"github.com/arkforge/proveit-corpus/tools/seal"
	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/servertest"
	"github.com/arkforge/proveit-corpus/tools/solver"
)

const (
	tasksPath    = "corpus/saison-1/taches.json"
	keyPath      = "corpus/saison-1/cle.json"
	manifestPath = "manifest/conformite.json"
)

// chain is what the reference participant produced over HTTP: one
// submission per task, and every proof it recorded.
type chain struct {
	subs    map[string]*participant.Submission
	proofs  map[string]score.ProofOutcome
	relays  map[string]*participant.Relay
	origin  string
	refused *participant.Proof // a call relayed without the secret
}

// walkChain starts the real server, lets the reference solver answer every
// task through it as Trust Layer would relay its calls, and records the
// proofs. The secret is made for the test and never printed.
func walkChain(t *testing.T) *chain {
	t.Helper()
	secretBytes := make([]byte, 32)
	_, err := rand.Read(secretBytes)
	require.NoError(t, err)
	secret := hex.EncodeToString(secretBytes)
	s := servertest.Start(t, servertest.Options{Secrets: []string{secret}})
	client, err := probe.NewClient(s.URL, 10*time.Second)
	require.NoError(t, err)
	m, _, err := manifest.ReadFile(manifestPath)
	require.NoError(t, err)
	tasks, err := season.ReadTasks(tasksPath)
	require.NoError(t, err)
	key, err := season.ReadKey(keyPath)
	require.NoError(t, err)

	c := &chain{subs: map[string]*participant.Submission{}, proofs: map[string]score.ProofOutcome{}, relays: map[string]*participant.Relay{}, origin: m.Origin}
	for i, task := range tasks.Taches {
		relay := participant.NewRelay(client, secret, m.Origin, "prf_"+strings.ReplaceAll(task.ID, "-", ""))
		sub, err := participant.Answer(tasks, task, key.Taches[i], relay, "did:key:z6MkReferenceParticipant")
		require.NoError(t, err, "the participant answers %s", task.ID)
		c.subs[task.ID], c.relays[task.ID] = sub, relay
		for _, p := range relay.Proofs() {
			require.Equal(t, 200, p.Status, "%s %s", task.ID, p.Path)
			c.proofs[p.ID] = score.ProofOutcome{Valide: true, IdentiteLiee: true}
		}
	}
	// The same call relayed by a proxy that failed to add the secret.
	unsent := participant.NewRelay(client, "", m.Origin, "prf_nosecret")
	c.refused, err = unsent.Call(tasks.Taches[0].Entite)
	require.NoError(t, err)
	require.Equal(t, 403, c.refused.Status)
	if strings.Contains(s.AllLogs(t), secret) {
		t.Error("a log of the server holds the secret") // never print it
	}
	return c
}

// clone deep-copies the chain's submissions and proofs, for one alteration.
func (c *chain) clone(t *testing.T) (map[string]*participant.Submission, map[string]score.ProofOutcome) {
	t.Helper()
	data, err := json.Marshal(c.subs)
	require.NoError(t, err)
	var subs map[string]*participant.Submission
	require.NoError(t, json.Unmarshal(data, &subs))
	proofs := make(map[string]score.ProofOutcome, len(c.proofs))
	for k, v := range c.proofs {
		proofs[k] = v
	}
	return subs, proofs
}

// scoreFiles writes submissions and proofs to files and runs proveit score.
func scoreFiles(t *testing.T, subs map[string]*participant.Submission, proofs map[string]score.ProofOutcome, extra ...string) *score.Report {
	t.Helper()
	dir := t.TempDir()
	args := []string{"score", "-taches", tasksPath, "-key", keyPath}
	if proofs != nil {
		file := filepath.Join(dir, "proofs.json")
		writeJSON(t, file, proofs)
		args = append(args, "-proofs", file)
	}
	args = append(args, extra...)
	for id, sub := range subs {
		file := filepath.Join(dir, id+".json")
		writeJSON(t, file, sub)
		args = append(args, file)
	}
	code, out, errOut := runCLI(args...)
	require.Equal(t, 0, code, errOut)
	var report score.Report
	require.NoError(t, json.Unmarshal([]byte(out), &report), out)
	return &report
}

func writeJSON(t *testing.T, file string, v any) {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(file, data, 0o644))
}

func taskReport(t *testing.T, r *score.Report, id string) score.TaskReport {
	t.Helper()
	for _, tr := range r.Taches {
		if tr.TaskID == id {
			return tr
		}
	}
	t.Fatalf("no row for %s", id)
	return score.TaskReport{}
}

// proofOf returns the proof an assertion cites.
func proofOf(sub *participant.Submission, assertion int) string {
	return sub.Assertions[assertion].ProofIDs[0]
}

// TestScoreChainEndToEnd: the reference participant's submissions, made
// over HTTP against the real server, score 10/10 with no overclaim; each
// alteration, one at a time, gets the status or cause the rules give it.
func TestScoreChainEndToEnd(t *testing.T) {
	inRepoRoot(t)
	c := walkChain(t)

	t.Run("reference", func(t *testing.T) {
		r := scoreFiles(t, c.subs, c.proofs)
		assert.Equal(t, "conformite", r.Piste)
		assert.Equal(t, score.ProofsGiven, r.Conditions12)
		require.Len(t, r.Taches, 10)
		total := 0
		for _, tr := range r.Taches {
			assert.Equal(t, score.Rendered, tr.Statut, "%s: %v", tr.TaskID, deref(tr.Motif))
			assert.True(t, tr.VerdictExact, tr.TaskID)
			require.NotNil(t, tr.VerdictFonde, tr.TaskID)
			assert.True(t, *tr.VerdictFonde, "%s misses %v", tr.TaskID, tr.FaitsManquants)
			assert.Empty(t, tr.FaitsManquants, tr.TaskID)
			for _, a := range tr.Assertions {
				assert.Equal(t, score.Supported, a.Statut, "%s %s", tr.TaskID, a.ID)
				assert.Nil(t, a.Cause)
			}
			total += len(tr.Assertions)
		}
		require.NotNil(t, r.Reussite.Fondes)
		assert.Equal(t, 10, *r.Reussite.Fondes)
		assert.Equal(t, 10, r.Reussite.Sur)
		assert.Equal(t, 0, r.Overclaim.NonEtayees)
		assert.Equal(t, total, r.Overclaim.Rendues)
		require.NotNil(t, r.Overclaim.Taux)
		assert.Zero(t, *r.Overclaim.Taux)
		// The published distribution's best: non_conforme on 4 tasks of 10.
		assert.Equal(t, score.ConstantAnswerFigure{Verdict: "non_conforme", Reussite: 4}, r.Constant)
		best := 0
		for _, n := range solver.VerdictCounts {
			best = max(best, n)
		}
		assert.Equal(t, best, r.Constant.Reussite, "the row is the published distribution's best")
	})

	t.Run("without proofs outcome", func(t *testing.T) {
		r := scoreFiles(t, c.subs, nil)
		assert.Equal(t, score.ProofsUnverified, r.Conditions12)
		require.NotNil(t, r.Reussite.Fondes)
		assert.Equal(t, 10, *r.Reussite.Fondes)
	})

	t.Run("constant answer", func(t *testing.T) {
		subs, proofs := c.clone(t)
		for _, sub := range subs {
			sub.Verdict = "non_conforme"
		}
		r := scoreFiles(t, subs, proofs)
		require.NotNil(t, r.Reussite.Fondes)
		assert.Equal(t, r.Constant.Reussite, *r.Reussite.Fondes, "answering the best constant everywhere scores the constant row")
	})

	type alteration struct {
		name   string
		task   string
		alter  func(t *testing.T, sub *participant.Submission, proofs map[string]score.ProofOutcome)
		statut score.Status
		motif  string // part of the motif
		// For a rendered task: the assertion whose outcome changes.
		assertion string
		want      score.AssertionStatus
		cause     score.Cause
		fondes    int // -1: no score (pending)
	}
	tests := []alteration{
		{name: "value changed", task: "conf-02", alter: func(t *testing.T, sub *participant.Submission, _ map[string]score.ProofOutcome) {
			sub.Assertions[3].Claim.Value = json.RawMessage(`"2026-09-30"`)
		}, statut: score.Rendered, assertion: "a4", want: score.Unsupported, cause: score.ValueMismatch, fondes: 9},
		{name: "request hash of another resource", task: "conf-01", alter: func(t *testing.T, sub *participant.Submission, _ map[string]score.ProofOutcome) {
			d := sub.Disclosures[proofOf(sub, 0)]
			d.RequestHash.Value = manifest.RequestHash(c.origin + "/entites/ENT-2231")
			sub.Disclosures[proofOf(sub, 0)] = d
		}, statut: score.Rendered, assertion: "a1", want: score.Unsupported, cause: score.ResourceMismatch, fondes: 9},
		{name: "response hash of the 403 body", task: "conf-01", alter: func(t *testing.T, sub *participant.Submission, _ map[string]score.ProofOutcome) {
			d := sub.Disclosures[proofOf(sub, 0)]
			d.ResponseHash = c.refused.Disclosure.ResponseHash
			sub.Disclosures[proofOf(sub, 0)] = d
		}, statut: score.Rendered, assertion: "a1", want: score.InstrumentFault, fondes: 9},
		{name: "assertion past the ceiling", task: "conf-08", alter: func(t *testing.T, sub *participant.Submission, _ map[string]score.ProofOutcome) {
			sub.Assertions = append(sub.Assertions, participant.Assertion{ID: "a9",
				Claim:    season.Fact{Resource: "/entites/ENT-8263", Field: "/existe", Value: json.RawMessage(`true`)},
				ProofIDs: []string{proofOf(sub, 0)}})
		}, statut: score.RejectedEntry, motif: "above the ceiling of 8", fondes: 9},
		{name: "field outside the probative table", task: "conf-01", alter: func(t *testing.T, sub *participant.Submission, _ map[string]score.ProofOutcome) {
			sub.Assertions[0].Claim.Field = "/denomination"
			sub.Assertions[0].Claim.Value = json.RawMessage(`"Bureau de change des Cordeliers"`)
		}, statut: score.RejectedAtClose, motif: "/assertions/0/claim/field: /denomination is not a probative field", fondes: 9},
		{name: "resource outside the task's graph", task: "conf-01", alter: func(t *testing.T, sub *participant.Submission, _ map[string]score.ProofOutcome) {
			sub.Assertions[0].Claim.Resource = "/entites/ENT-2231"
		}, statut: score.RejectedAtClose, motif: "/entites/ENT-2231 is outside the task's graph", fondes: 9},
		{name: "missing disclosure", task: "conf-05", alter: func(t *testing.T, sub *participant.Submission, _ map[string]score.ProofOutcome) {
			delete(sub.Disclosures, proofOf(sub, 4))
		}, statut: score.RejectedEntry, motif: "/assertions/4/proof_ids/0: proof", fondes: 9},
		{name: "below the minimum", task: "conf-02", alter: func(t *testing.T, sub *participant.Submission, _ map[string]score.ProofOutcome) {
			sub.Assertions = sub.Assertions[:2]
			sub.Disclosures = map[string]participant.Disclosure{proofOf(sub, 0): sub.Disclosures[proofOf(sub, 0)], proofOf(sub, 1): sub.Disclosures[proofOf(sub, 1)]}
		}, statut: score.NotRendered, motif: "below the minimum of 3", fondes: 9},
		{name: "proof invalid", task: "conf-06", alter: func(t *testing.T, sub *participant.Submission, proofs map[string]score.ProofOutcome) {
			proofs[proofOf(sub, 0)] = score.ProofOutcome{Valide: false, IdentiteLiee: true}
		}, statut: score.Rendered, assertion: "a1", want: score.Unsupported, cause: score.InvalidProof, fondes: 9},
		{name: "identity unbound", task: "conf-06", alter: func(t *testing.T, sub *participant.Submission, proofs map[string]score.ProofOutcome) {
			proofs[proofOf(sub, 0)] = score.ProofOutcome{Valide: true, IdentiteLiee: false}
		}, statut: score.Rendered, assertion: "a1", want: score.Unsupported, cause: score.UnboundIdentity, fondes: 9},
		{name: "proof pending", task: "conf-06", alter: func(t *testing.T, sub *participant.Submission, proofs map[string]score.ProofOutcome) {
			proofs[proofOf(sub, 0)] = score.ProofOutcome{Valide: true, IdentiteLiee: true, EnAttente: true}
		}, statut: score.Rendered, motif: "pending", assertion: "a1", want: score.Pending, fondes: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			subs, proofs := c.clone(t)
			tt.alter(t, subs[tt.task], proofs)
			r := scoreFiles(t, subs, proofs)
			tr := taskReport(t, r, tt.task)
			assert.Equal(t, tt.statut, tr.Statut, "motif: %s", deref(tr.Motif))
			if tt.motif != "" {
				assert.Contains(t, deref(tr.Motif), tt.motif)
			}
			if tt.assertion != "" {
				for _, a := range tr.Assertions {
					if a.ID != tt.assertion {
						assert.Equal(t, score.Supported, a.Statut, "%s is untouched", a.ID)
						continue
					}
					assert.Equal(t, tt.want, a.Statut)
					if tt.cause == "" {
						assert.Nil(t, a.Cause)
					} else if assert.NotNil(t, a.Cause) {
						assert.Equal(t, tt.cause, *a.Cause)
					}
				}
			}
			if tt.fondes < 0 {
				assert.Nil(t, r.Reussite.Fondes, "no score while a proof is pending")
				assert.Nil(t, r.Overclaim.Taux)
				assert.Nil(t, tr.VerdictFonde)
				return
			}
			require.NotNil(t, r.Reussite.Fondes)
			assert.Equal(t, tt.fondes, *r.Reussite.Fondes)
			require.NotNil(t, tr.VerdictFonde)
			assert.False(t, *tr.VerdictFonde)
			unsupported := 0
			if tt.want == score.Unsupported {
				unsupported = 1
				assert.NotEmpty(t, tr.FaitsManquants, "the fact the altered assertion carried is missing")
			}
			assert.Equal(t, unsupported, r.Overclaim.NonEtayees, "overclaim counts the unsupported assertion of a rendered task only")
		})
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Bad input is exit status 2 with a message naming the file; a key that
// opens its commitment is scored.
func TestScoreBadInput(t *testing.T) {
	inRepoRoot(t)
	dir := t.TempDir()
	sub := filepath.Join(dir, "conf-01.json")
	require.NoError(t, os.WriteFile(sub, []byte(`{"season": 1, "task_id": "conf-01"}`), 0o644))
	otherTrack := filepath.Join(dir, "manifest.json")
	data, err := os.ReadFile(manifestPath)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(otherTrack, []byte(strings.Replace(string(data), `"piste": "conformite"`, `"piste": "generique"`, 1)), 0o644))
	keyBytes, err := os.ReadFile(keyPath)
	require.NoError(t, err)
	salt := seal.NewSalt()
	commitment := seal.Commit(salt, keyBytes)
	otherSalt := hex.EncodeToString(seal.NewSalt())

	base := []string{"score", "-taches", tasksPath, "-key", keyPath}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unreadable submission", append(base, filepath.Join(dir, "none.json")), "none.json: no such file"},
		{"no submission", base, "no submission given"},
		{"manifest of another track", append(base, "-manifest", otherTrack, sub), `the manifest is of the track "generique"`},
		{"key not opening the commitment", append(base, "-salt", otherSalt, "-commitment", commitment, sub), "do not open the commitment"},
		{"manifest not the anchored one", append(base, "-manifest-sha256", strings.Repeat("0", 64), sub), "is not the anchored " + strings.Repeat("0", 64)},
		{"salt without commitment", append(base, "-salt", otherSalt, sub), "-salt and -commitment go together"},
		{"unknown track", []string{"score", "-taches", keyPath, "-key", keyPath, sub}, "is not a track this scorer knows"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := runCLI(tt.args...)
			assert.Equal(t, 2, code)
			assert.Contains(t, errOut, tt.want)
		})
	}

	manifestBytes, err := os.ReadFile(manifestPath)
	require.NoError(t, err)
	code, out, errOut := runCLI(append(base, "-salt", hex.EncodeToString(salt), "-commitment", commitment, "-manifest-sha256", manifest.SHA256(manifestBytes), sub)...)
	require.Equal(t, 0, code, errOut)
	var r score.Report
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	tr := taskReport(t, &r, "conf-01")
	assert.Equal(t, score.RejectedEntry, tr.Statut)
	assert.Contains(t, deref(tr.Motif), sub+` (root): missing field "track"`)
	assert.Equal(t, score.NotRendered, taskReport(t, &r, "conf-02").Statut)

	code, out, _ = runCLI(append(base, "-format", "text", sub)...)
	require.Equal(t, 0, code)
	assert.Contains(t, out, "meilleure reponse constante  non_conforme: 4 / 10")
}
