package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/tools/participant"
	"github.com/arkforge/proveit-corpus/tools/probe"
	"github.com/arkforge/proveit-corpus/tools/score"
	"github.com/arkforge/proveit-corpus/tools/seal"
	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/servertest"
	"github.com/arkforge/proveit-corpus/tools/solver"
)

// chainTrack is one track of the end-to-end chain: its files, its
// constant-answer row, and where each alteration applies on it.
type chainTrack struct {
	track    *corpus.Track
	constant score.ConstantAnswerFigure
	changed  edit // a claim's value changed (value)
	other    edit // the request hash of another resource (resource)
	refused  edit // the 403 body's response hash
	ceiling  edit // assertions added past the ceiling (extra)
	field    edit // a field outside the probative table (field, value)
	outsider edit // a resource outside the task's graph (resource)
	missing  edit // the disclosure of the assertion's proof left out
	belowMin edit // the first two assertions only
	proof    edit // the verifier's outcome of the assertion's proof changed
}

// edit is where an alteration applies: a task, one of its assertions, and
// what the alteration puts there.
type edit struct {
	task      string
	assertion int
	resource  string
	field     string
	value     json.RawMessage
	extra     []season.Fact
}

func (tr chainTrack) tasksPath() string    { return season.TasksFile(tr.track) }
func (tr chainTrack) keyPath() string      { return season.KeyFile(tr.track) }
func (tr chainTrack) manifestPath() string { return filepath.Join("manifest", tr.track.Name+".json") }

var chainTracks = []chainTrack{
	{
		track: corpus.Conformite,
		// The published distribution's best: non_conforme on 4 tasks of 10.
		constant: score.ConstantAnswerFigure{Verdict: "non_conforme", Reussite: 4},
		changed:  edit{task: "conf-02", assertion: 1, value: json.RawMessage(`"2026-09-30"`)},
		other:    edit{task: "conf-01", resource: "/entites/ENT-2231"},
		refused:  edit{task: "conf-05"},
		ceiling: edit{task: "conf-08", extra: []season.Fact{
			{Resource: "/entites/ENT-8263", Field: "/existe", Value: json.RawMessage(`true`)},
			{Resource: "/entites/ENT-8263", Field: "/statut", Value: json.RawMessage(`"active"`)},
			{Resource: "/entites/ENT-8263", Field: "/beneficiaires", Value: json.RawMessage(`"/beneficiaires/ENT-8263"`)}}},
		field:    edit{task: "conf-01", field: "/denomination", value: json.RawMessage(`"Bureau de change des Cordeliers"`)},
		outsider: edit{task: "conf-01", resource: "/entites/ENT-2231"},
		missing:  edit{task: "conf-05", assertion: 3},
		belowMin: edit{task: "conf-02"},
		proof:    edit{task: "conf-04"},
	},
	{
		track: corpus.Generique,
		// aucune_option_valide on 3 tasks of 10; every product answers one.
		constant: score.ConstantAnswerFigure{Verdict: season.NoValidOption, Reussite: 3},
		changed:  edit{task: "gen-01", value: json.RawMessage(`"279.90"`)},
		other:    edit{task: "gen-01", resource: "/tarifs/TAR-ECR-2734"},
		refused:  edit{task: "gen-09", assertion: 2},
		ceiling: edit{task: "gen-02", extra: []season.Fact{
			{Resource: "/produits/IMP-4410", Field: "/existe", Value: json.RawMessage(`true`)},
			{Resource: "/produits/IMP-4410", Field: "/categorie", Value: json.RawMessage(`"imprimantes"`)},
			{Resource: "/produits/IMP-4410", Field: "/tarif", Value: json.RawMessage(`"/tarifs/TAR-IMP-4410"`)},
			{Resource: "/produits/IMP-4410", Field: "/disponibilite", Value: json.RawMessage(`"/disponibilites/DSP-IMP-4410"`)}}},
		field:    edit{task: "gen-01", field: "/ressource", value: json.RawMessage(`"/tarifs/TAR-ECR-2701"`)},
		outsider: edit{task: "gen-01", resource: "/tarifs/TAR-OND-2000"},
		missing:  edit{task: "gen-05", assertion: 3},
		belowMin: edit{task: "gen-02"},
		proof:    edit{task: "gen-06"},
	},
}

// chain is what the reference participant produced over HTTP on one
// track: one submission per task, and every proof it recorded.
type chain struct {
	track   chainTrack
	tasks   *season.Tasks
	subs    map[string]*participant.Submission
	proofs  map[string]score.ProofOutcome
	origin  string
	refused *participant.Proof // a call relayed without the secret
}

// walkChain lets the reference solver answer every task of a track through
// the server, as Trust Layer would relay its calls, and records the proofs.
func walkChain(t *testing.T, client *probe.Client, secret string, tr chainTrack) *chain {
	t.Helper()
	m, _, err := manifest.ReadFile(tr.manifestPath())
	require.NoError(t, err)
	tasks, err := season.ReadTasks(tr.tasksPath())
	require.NoError(t, err)
	key, err := season.ReadKey(tr.keyPath())
	require.NoError(t, err)

	c := &chain{track: tr, tasks: tasks, subs: map[string]*participant.Submission{}, proofs: map[string]score.ProofOutcome{}, origin: m.Origin}
	for i, task := range tasks.Taches {
		relay := participant.NewRelay(client, secret, m.Origin, "prf_"+strings.ReplaceAll(task.ID, "-", ""))
		sub, err := participant.Answer(tasks, task, key.Taches[i], relay, "did:key:z6MkReferenceParticipant")
		require.NoError(t, err, "the participant answers %s", task.ID)
		c.subs[task.ID] = sub
		for _, p := range relay.Proofs() {
			require.Equal(t, 200, p.Status, "%s %s", task.ID, p.Path)
			c.proofs[p.ID] = score.ProofOutcome{Valide: true, IdentiteLiee: true}
		}
	}
	// A call of the track relayed by a proxy that failed to add the secret.
	unsent := participant.NewRelay(client, "", m.Origin, "prf_nosecret")
	c.refused, err = unsent.Call(key.Taches[0].Fondement.Facts()[0].Resource)
	require.NoError(t, err)
	require.Equal(t, 403, c.refused.Status)
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

// bounds returns a task's assertion bounds from the statements.
func (c *chain) bounds(t *testing.T, id string) (min, max int) {
	t.Helper()
	task, ok := c.tasks.Task(id)
	require.True(t, ok, id)
	return task.AssertionsMin, task.AssertionsMax
}

// score writes submissions and proofs to files and runs proveit score with
// the track's statements and key, the manifest chosen by default.
func (c *chain) score(t *testing.T, subs map[string]*participant.Submission, proofs map[string]score.ProofOutcome) *score.Report {
	t.Helper()
	dir := t.TempDir()
	args := []string{"score", "-taches", c.track.tasksPath(), "-key", c.track.keyPath()}
	if proofs != nil {
		file := filepath.Join(dir, "proofs.json")
		writeJSON(t, file, proofs)
		args = append(args, "-proofs", file)
	}
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

// alteration changes one task's submission, or the verifier's outcome of
// one of its proofs, and says what the replay must make of it.
type alteration struct {
	name   string
	at     edit
	alter  func(sub *participant.Submission, proofs map[string]score.ProofOutcome)
	statut score.Status
	motif  string // part of the motif
	// For a rendered task: the outcome of the altered assertion.
	want  score.AssertionStatus
	cause score.Cause
}

// alterations are the ways a submission of the chain is broken, one at a
// time, placed where the track's table says.
func (c *chain) alterations(t *testing.T) []alteration {
	tr := c.track
	_, ceiling := c.bounds(t, tr.ceiling.task)
	floor, _ := c.bounds(t, tr.belowMin.task)
	proofOutcome := func(o score.ProofOutcome) func(*participant.Submission, map[string]score.ProofOutcome) {
		return func(sub *participant.Submission, proofs map[string]score.ProofOutcome) {
			proofs[proofOf(sub, tr.proof.assertion)] = o
		}
	}
	return []alteration{
		{name: "value changed", at: tr.changed, alter: func(sub *participant.Submission, _ map[string]score.ProofOutcome) {
			sub.Assertions[tr.changed.assertion].Claim.Value = tr.changed.value
		}, statut: score.Rendered, want: score.Unsupported, cause: score.ValueMismatch},
		{name: "request hash of another resource", at: tr.other, alter: func(sub *participant.Submission, _ map[string]score.ProofOutcome) {
			id := proofOf(sub, tr.other.assertion)
			d := sub.Disclosures[id]
			d.RequestHash.Value = manifest.RequestHash(c.origin + tr.other.resource)
			sub.Disclosures[id] = d
		}, statut: score.Rendered, want: score.Unsupported, cause: score.ResourceMismatch},
		{name: "response hash of the 403 body", at: tr.refused, alter: func(sub *participant.Submission, _ map[string]score.ProofOutcome) {
			id := proofOf(sub, tr.refused.assertion)
			d := sub.Disclosures[id]
			d.ResponseHash = c.refused.Disclosure.ResponseHash
			sub.Disclosures[id] = d
		}, statut: score.Rendered, want: score.InstrumentFault},
		{name: "assertion past the ceiling", at: tr.ceiling, alter: func(sub *participant.Submission, _ map[string]score.ProofOutcome) {
			for _, f := range tr.ceiling.extra {
				sub.Assertions = append(sub.Assertions, participant.Assertion{ID: fmt.Sprintf("a%d", len(sub.Assertions)+1),
					Claim: f, ProofIDs: []string{proofOf(sub, 0)}})
			}
			require.Len(t, sub.Assertions, ceiling+1, "the extra assertions pass the ceiling by one")
		}, statut: score.RejectedEntry, motif: fmt.Sprintf("above the ceiling of %d", ceiling)},
		{name: "field outside the probative table", at: tr.field, alter: func(sub *participant.Submission, _ map[string]score.ProofOutcome) {
			a := &sub.Assertions[tr.field.assertion]
			a.Claim.Field, a.Claim.Value = tr.field.field, tr.field.value
		}, statut: score.RejectedAtClose, motif: fmt.Sprintf("/assertions/%d/claim/field: %s is not a probative field", tr.field.assertion, tr.field.field)},
		{name: "resource outside the task's graph", at: tr.outsider, alter: func(sub *participant.Submission, _ map[string]score.ProofOutcome) {
			sub.Assertions[tr.outsider.assertion].Claim.Resource = tr.outsider.resource
		}, statut: score.RejectedAtClose, motif: tr.outsider.resource + " is outside the task's graph"},
		{name: "missing disclosure", at: tr.missing, alter: func(sub *participant.Submission, _ map[string]score.ProofOutcome) {
			delete(sub.Disclosures, proofOf(sub, tr.missing.assertion))
		}, statut: score.RejectedEntry, motif: fmt.Sprintf("/assertions/%d/proof_ids/0: proof", tr.missing.assertion)},
		{name: "below the minimum", at: tr.belowMin, alter: func(sub *participant.Submission, _ map[string]score.ProofOutcome) {
			sub.Assertions = sub.Assertions[:2]
			sub.Disclosures = map[string]participant.Disclosure{proofOf(sub, 0): sub.Disclosures[proofOf(sub, 0)], proofOf(sub, 1): sub.Disclosures[proofOf(sub, 1)]}
			require.Less(t, len(sub.Assertions), floor)
		}, statut: score.NotRendered, motif: fmt.Sprintf("below the minimum of %d", floor)},
		{name: "proof invalid", at: tr.proof, alter: proofOutcome(score.ProofOutcome{Valide: false, IdentiteLiee: true}),
			statut: score.Rendered, want: score.Unsupported, cause: score.InvalidProof},
		{name: "identity unbound", at: tr.proof, alter: proofOutcome(score.ProofOutcome{Valide: true, IdentiteLiee: false}),
			statut: score.Rendered, want: score.Unsupported, cause: score.UnboundIdentity},
		{name: "proof pending", at: tr.proof, alter: proofOutcome(score.ProofOutcome{Valide: true, IdentiteLiee: true, EnAttente: true}),
			statut: score.Rendered, motif: "pending", want: score.Pending},
	}
}

// TestScoreChainEndToEnd: on each track, the reference participant's
// submissions, made over HTTP against the real server serving both
// corpora, score 10/10 with no overclaim; each alteration, one at a time,
// gets the status or cause the rules give it. The secret is made for the
// test and never printed.
func TestScoreChainEndToEnd(t *testing.T) {
	inRepoRoot(t)
	secretBytes := make([]byte, 32)
	_, err := rand.Read(secretBytes)
	require.NoError(t, err)
	secret := hex.EncodeToString(secretBytes)
	s := servertest.Start(t, servertest.Options{Secrets: []string{secret}})
	client, err := probe.NewClient(s.URL, 10*time.Second)
	require.NoError(t, err)

	for _, tr := range chainTracks {
		t.Run(tr.track.Name, func(t *testing.T) {
			c := walkChain(t, client, secret, tr)
			testChain(t, c)
		})
	}
	if strings.Contains(s.AllLogs(t), secret) {
		t.Error("a log of the server holds the secret") // never print it
	}
}

func testChain(t *testing.T, c *chain) {
	t.Run("reference", func(t *testing.T) {
		r := c.score(t, c.subs, c.proofs)
		assert.Equal(t, c.track.track.Name, r.Piste)
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
		assert.Equal(t, c.track.constant, r.Constant)
		switch c.track.track {
		case corpus.Conformite:
			best := 0
			for _, n := range solver.VerdictCounts {
				best = max(best, n)
			}
			assert.Equal(t, best, r.Constant.Reussite, "the row is the published distribution's best")
		case corpus.Generique:
			assert.GreaterOrEqual(t, r.Constant.Reussite, solver.MinNoValidOption)
		}
	})

	t.Run("without proofs outcome", func(t *testing.T) {
		r := c.score(t, c.subs, nil)
		assert.Equal(t, score.ProofsUnverified, r.Conditions12)
		require.NotNil(t, r.Reussite.Fondes)
		assert.Equal(t, 10, *r.Reussite.Fondes)
	})

	t.Run("constant answer", func(t *testing.T) {
		subs, proofs := c.clone(t)
		for _, sub := range subs {
			sub.Verdict = c.track.constant.Verdict
		}
		r := c.score(t, subs, proofs)
		require.NotNil(t, r.Reussite.Fondes)
		assert.Equal(t, r.Constant.Reussite, *r.Reussite.Fondes, "answering the best constant everywhere scores the constant row")
	})

	for _, tt := range c.alterations(t) {
		t.Run(tt.name, func(t *testing.T) {
			subs, proofs := c.clone(t)
			sub := subs[tt.at.task]
			require.NotNil(t, sub, tt.at.task)
			altered := sub.Assertions[tt.at.assertion].ID
			tt.alter(sub, proofs)
			r := c.score(t, subs, proofs)
			tr := taskReport(t, r, tt.at.task)
			assert.Equal(t, tt.statut, tr.Statut, "motif: %s", deref(tr.Motif))
			if tt.motif != "" {
				assert.Contains(t, deref(tr.Motif), tt.motif)
			}
			if tt.want != "" {
				for _, a := range tr.Assertions {
					if a.ID != altered {
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
			if tt.want == score.Pending {
				assert.Nil(t, r.Reussite.Fondes, "no score while a proof is pending")
				assert.Nil(t, r.Overclaim.Taux)
				assert.Nil(t, tr.VerdictFonde)
				return
			}
			require.NotNil(t, r.Reussite.Fondes)
			assert.Equal(t, 9, *r.Reussite.Fondes)
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
	conformity, generic := chainTracks[0], chainTracks[1]
	tasksPath, keyPath, manifestPath := conformity.tasksPath(), conformity.keyPath(), conformity.manifestPath()
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
	genericBase := []string{"score", "-taches", generic.tasksPath(), "-key", generic.keyPath()}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unreadable submission", append(base, filepath.Join(dir, "none.json")), "none.json: no such file"},
		{"no submission", base, "no submission given"},
		{"manifest of another track", append(base, "-manifest", otherTrack, sub), `the manifest is of the track "generique"`},
		{"generic manifest for conformity", append(base, "-manifest", generic.manifestPath(), sub),
			generic.manifestPath() + ` /piste: the manifest is of the track "generique", the statements of "conformite"`},
		{"conformity manifest for generic", append(genericBase, "-manifest", manifestPath, sub),
			manifestPath + ` /piste: the manifest is of the track "conformite", the statements of "generique"`},
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

	for _, track := range chainTracks {
		args := []string{"score", "-taches", track.tasksPath(), "-key", track.keyPath(), "-format", "text", sub}
		code, out, errOut = runCLI(args...)
		require.Equal(t, 0, code, errOut)
		assert.Contains(t, out, "piste "+track.track.Name)
		assert.Contains(t, out, fmt.Sprintf("meilleure reponse constante  %s: %d / 10", track.constant.Verdict, track.constant.Reussite))
	}
}
