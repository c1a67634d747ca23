package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/harness/participant"
	"github.com/arkforge/proveit-corpus/harness/servertest"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/tools/probe"
	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/score"
	"github.com/arkforge/proveit-corpus/tools/seal"
	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/tracks/purchasing"
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
	proof    edit // the verifier's outcome of the assertion's proof changed, or the pairs disclosed
	shared   edit // a second task, whose first proof takes the id of this track's first task's
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
		track: corpus.Conformity,
		// The published distribution's best: non_conforme on 4 tasks of 10.
		constant: score.ConstantAnswerFigure{Verdict: "non_conforme", Success: 4},
		changed:  edit{task: "conf-02", assertion: 1, value: json.RawMessage(`"2026-09-30"`)},
		other:    edit{task: "conf-02", assertion: 1, resource: "/entites/ENT-9012"},
		refused:  edit{task: "conf-07"},
		ceiling: edit{task: "conf-07", extra: []season.Fact{
			{Resource: "/entites/ENT-7346", Field: "/existe", Value: json.RawMessage(`true`)},
			{Resource: "/entites/ENT-7346", Field: "/statut", Value: json.RawMessage(`"active"`)},
			{Resource: "/entites/ENT-7346", Field: "/beneficiaires", Value: json.RawMessage(`"/beneficiaires/ENT-7346"`)}}},
		field:    edit{task: "conf-01", field: "/denomination", value: json.RawMessage(`"Bureau de change des Cordeliers"`)},
		outsider: edit{task: "conf-01", resource: "/entites/ENT-2231"},
		missing:  edit{task: "conf-05", assertion: 3},
		belowMin: edit{task: "conf-02"},
		proof:    edit{task: "conf-04"},
		shared:   edit{task: "conf-02"},
	},
	{
		track: corpus.Purchasing,
		// aucune_option_valide on 3 tasks of 10; every product answers one.
		constant: score.ConstantAnswerFigure{Verdict: purchasing.NoValidOption, Success: 3},
		changed:  edit{task: "gen-01", value: json.RawMessage(`"279.90"`)},
		other:    edit{task: "gen-01", resource: "/tarifs/TAR-ECR-2734"},
		refused:  edit{task: "gen-04", assertion: 1},
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
		shared:   edit{task: "gen-02"},
	},
}

// referenceDID is the reference participant's DID.
const referenceDID = "did:key:z6MkReferenceParticipant"

// chain is what the reference participant produced over HTTP on one
// track: one submission per task, every proof it recorded as a verifier
// would establish it, and the track's files sealed as they are.
type chain struct {
	track    chainTrack
	tasks    *season.Tasks
	subs     map[string]*score.Submission
	outcomes map[string]proofs.Outcome
	origin   string
	refused  *participant.Proof // a call relayed without the secret
	sealed   sealed
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

	c := &chain{track: tr, tasks: tasks, subs: map[string]*score.Submission{}, outcomes: map[string]proofs.Outcome{}, origin: m.Origin,
		sealed: sealTrack(t, tr.track)}
	for i, task := range tasks.Tasks {
		relay := participant.NewRelay(client, secret, m.Origin, "prf_"+strings.ReplaceAll(task.ID, "-", ""))
		sub, err := participant.Answer(tasks, task, key.Tasks[i], relay, referenceDID)
		require.NoError(t, err, "the participant answers %s", task.ID)
		c.subs[task.ID] = sub
		for _, p := range relay.Proofs() {
			require.Equal(t, 200, p.Status, "%s %s", task.ID, p.Path)
			c.outcomes[p.ID] = verified(p.Disclosure)
		}
	}
	// A call of the track relayed by a proxy that failed to add the secret.
	unsent := participant.NewRelay(client, "", m.Origin, "prf_nosecret")
	c.refused, err = unsent.Call(key.Tasks[0].Founding.Facts()[0].Resource)
	require.NoError(t, err)
	require.Equal(t, 403, c.refused.Status)
	return c
}

// verified is what the verifier establishes for a proof of the reference
// participant: valid, bound to its DID, opening the pairs it discloses.
func verified(d proofs.Disclosure) proofs.Outcome {
	return proofs.Outcome{Valid: true, AgentDID: referenceDID, RequestHash: d.RequestHash.Value, ResponseHash: d.ResponseHash.Value}
}

// clone deep-copies the chain's submissions and proofs, for one alteration.
func (c *chain) clone(t *testing.T) (map[string]*score.Submission, map[string]proofs.Outcome) {
	t.Helper()
	data, err := json.Marshal(c.subs)
	require.NoError(t, err)
	var subs map[string]*score.Submission
	require.NoError(t, json.Unmarshal(data, &subs))
	outcomes := make(map[string]proofs.Outcome, len(c.outcomes))
	for k, v := range c.outcomes {
		outcomes[k] = v
	}
	return subs, outcomes
}

// bounds returns a task's assertion bounds from the statements.
func (c *chain) bounds(t *testing.T, id string) (min, max int) {
	t.Helper()
	task, ok := c.tasks.Task(id)
	require.True(t, ok, id)
	return task.AssertionsMin, task.AssertionsMax
}

// score writes submissions and proofs to files and runs proveit score on
// the track, its files by default, against the record sealed for the test.
func (c *chain) score(t *testing.T, subs map[string]*score.Submission, outcomes map[string]proofs.Outcome) *score.Report {
	t.Helper()
	code, out, errOut := c.run(t, subs, outcomes, "-record", c.sealed.record, "-salt", c.sealed.salt)
	require.Equal(t, 0, code, errOut)
	var report score.Report
	require.NoError(t, json.Unmarshal([]byte(out), &report), out)
	assert.Equal(t, score.Anchored, report.Anchoring)
	return &report
}

// run writes submissions and proofs to files and runs proveit score on the
// track with the flags given.
func (c *chain) run(t *testing.T, subs map[string]*score.Submission, outcomes map[string]proofs.Outcome, flags ...string) (int, string, string) {
	t.Helper()
	dir := t.TempDir()
	args := append([]string{"score", "-track", c.track.track.Name}, flags...)
	if outcomes != nil {
		file := filepath.Join(dir, "proofs.json")
		writeJSON(t, file, outcomes)
		args = append(args, "-proofs", file)
	} else {
		args = append(args, "-unverified-proofs")
	}
	for _, id := range slices.Sorted(maps.Keys(subs)) {
		file := filepath.Join(dir, id+".json")
		writeJSON(t, file, subs[id])
		args = append(args, file)
	}
	return runCLI(args...)
}

func writeJSON(t *testing.T, file string, v any) {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(file, data, 0o644))
}

func taskReport(t *testing.T, r *score.Report, id string) score.TaskReport {
	t.Helper()
	for _, tr := range r.Tasks {
		if tr.TaskID == id {
			return tr
		}
	}
	t.Fatalf("no row for %s", id)
	return score.TaskReport{}
}

// renameProofID gives a submission's proof another id, in its assertions
// and its disclosures.
func renameProofID(sub *score.Submission, from, to string) {
	for i := range sub.Assertions {
		for j, id := range sub.Assertions[i].ProofIDs {
			if id == from {
				sub.Assertions[i].ProofIDs[j] = to
			}
		}
	}
	sub.Disclosures[to] = sub.Disclosures[from]
	delete(sub.Disclosures, from)
}

// proofOf returns the proof an assertion cites.
func proofOf(sub *score.Submission, assertion int) string {
	return sub.Assertions[assertion].ProofIDs[0]
}

// alteration changes one task's submission, or the verifier's outcome of
// one of its proofs, and says what the replay must make of it.
type alteration struct {
	name   string
	at     edit
	alter  func(sub *score.Submission, outcomes map[string]proofs.Outcome)
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
	proofOutcome := func(change func(*proofs.Outcome)) func(*score.Submission, map[string]proofs.Outcome) {
		return func(sub *score.Submission, outcomes map[string]proofs.Outcome) {
			id := proofOf(sub, tr.proof.assertion)
			o := outcomes[id]
			change(&o)
			outcomes[id] = o
		}
	}
	disclosed := func(change func(*proofs.Disclosure)) func(*score.Submission, map[string]proofs.Outcome) {
		return func(sub *score.Submission, _ map[string]proofs.Outcome) {
			id := proofOf(sub, tr.proof.assertion)
			d := sub.Disclosures[id]
			change(&d)
			sub.Disclosures[id] = d
		}
	}
	return []alteration{
		{name: "value changed", at: tr.changed, alter: func(sub *score.Submission, _ map[string]proofs.Outcome) {
			sub.Assertions[tr.changed.assertion].Claim.Value = tr.changed.value
		}, statut: score.Rendered, want: score.Unsupported, cause: score.ValueMismatch},
		// A proof of a call to another resource, as the verifier opens it.
		{name: "request hash of another resource", at: tr.other, alter: func(sub *score.Submission, outcomes map[string]proofs.Outcome) {
			id := proofOf(sub, tr.other.assertion)
			d := sub.Disclosures[id]
			d.RequestHash.Value = anchor.RequestHash(c.origin + tr.other.resource)
			sub.Disclosures[id] = d
			outcomes[id] = verified(d)
		}, statut: score.Rendered, want: score.Unsupported, cause: score.ResourceMismatch},
		// A proof of a call the proxy relayed without the secret.
		{name: "response hash of the 403 body", at: tr.refused, alter: func(sub *score.Submission, outcomes map[string]proofs.Outcome) {
			id := proofOf(sub, tr.refused.assertion)
			d := sub.Disclosures[id]
			d.ResponseHash = c.refused.Disclosure.ResponseHash
			sub.Disclosures[id] = d
			outcomes[id] = verified(d)
		}, statut: score.Rendered, want: score.InstrumentFault},
		{name: "assertion past the ceiling", at: tr.ceiling, alter: func(sub *score.Submission, _ map[string]proofs.Outcome) {
			for _, f := range tr.ceiling.extra {
				sub.Assertions = append(sub.Assertions, score.Assertion{ID: fmt.Sprintf("a%d", len(sub.Assertions)+1),
					Claim: f, ProofIDs: []string{proofOf(sub, 0)}})
			}
			require.Len(t, sub.Assertions, ceiling+1, "the extra assertions pass the ceiling by one")
		}, statut: score.RejectedEntry, motif: fmt.Sprintf("au-delà du plafond de %d", ceiling)},
		{name: "field outside the probative table", at: tr.field, alter: func(sub *score.Submission, _ map[string]proofs.Outcome) {
			a := &sub.Assertions[tr.field.assertion]
			a.Claim.Field, a.Claim.Value = tr.field.field, tr.field.value
		}, statut: score.RejectedAtClose, motif: fmt.Sprintf("/assertions/%d/claim/field: %s n'est pas un champ probant", tr.field.assertion, tr.field.field)},
		{name: "resource outside the task's graph", at: tr.outsider, alter: func(sub *score.Submission, _ map[string]proofs.Outcome) {
			sub.Assertions[tr.outsider.assertion].Claim.Resource = tr.outsider.resource
		}, statut: score.RejectedAtClose, motif: tr.outsider.resource + " est hors du graphe de la tâche"},
		{name: "missing disclosure", at: tr.missing, alter: func(sub *score.Submission, _ map[string]proofs.Outcome) {
			delete(sub.Disclosures, proofOf(sub, tr.missing.assertion))
		}, statut: score.RejectedEntry, motif: fmt.Sprintf("/assertions/%d/proof_ids/0: la preuve", tr.missing.assertion)},
		{name: "below the minimum", at: tr.belowMin, alter: func(sub *score.Submission, _ map[string]proofs.Outcome) {
			sub.Assertions = sub.Assertions[:2]
			sub.Disclosures = map[string]proofs.Disclosure{proofOf(sub, 0): sub.Disclosures[proofOf(sub, 0)], proofOf(sub, 1): sub.Disclosures[proofOf(sub, 1)]}
			require.Less(t, len(sub.Assertions), floor)
		}, statut: score.NotRendered, motif: fmt.Sprintf("sous le minimum de %d", floor)},
		{name: "proof invalid", at: tr.proof, alter: proofOutcome(func(o *proofs.Outcome) { o.Valid = false }),
			statut: score.Rendered, want: score.Unsupported, cause: score.InvalidProof},
		{name: "proof of another DID", at: tr.proof, alter: proofOutcome(func(o *proofs.Outcome) { o.AgentDID = "did:key:z6MkAnotherParticipant" }),
			statut: score.Rendered, want: score.Unsupported, cause: score.UnboundIdentity},
		{name: "proof pending", at: tr.proof, alter: proofOutcome(func(o *proofs.Outcome) { o.Pending = true }),
			statut: score.Rendered, motif: "en attente", want: score.Pending},
		// The disclosure, not the verifier's outcome, says what the proof
		// attests: a pair the verifier did not open supports nothing.
		{name: "a request hash the verifier did not open", at: tr.proof, alter: disclosed(func(d *proofs.Disclosure) {
			d.RequestHash.Value = anchor.RequestHash(c.origin + tr.other.resource)
		}), statut: score.Rendered, want: score.Unsupported, cause: score.InvalidProof},
		{name: "a response hash the verifier did not open", at: tr.proof, alter: disclosed(func(d *proofs.Disclosure) {
			d.ResponseHash = c.refused.Disclosure.ResponseHash
		}), statut: score.Rendered, want: score.Unsupported, cause: score.InvalidProof},
		{name: "an empty nonce", at: tr.proof, alter: disclosed(func(d *proofs.Disclosure) { d.ResponseHash.Nonce = "" }),
			statut: score.Rendered, want: score.Unsupported, cause: score.InvalidProof},
	}
}

// startCorpus starts the real server on both corpora, with a secret made
// for the test, which no output may show.
func startCorpus(t *testing.T) (string, *servertest.Server) {
	t.Helper()
	secretBytes := make([]byte, 32)
	_, err := rand.Read(secretBytes)
	require.NoError(t, err)
	secret := hex.EncodeToString(secretBytes)
	return secret, servertest.Start(t, servertest.Options{Secrets: []string{secret}})
}

// TestScoreChainEndToEnd: on each track, the reference participant's
// submissions, made over HTTP against the real server serving both
// corpora, score 10/10 with no overclaim; each alteration, one at a time,
// gets the status or cause the rules give it. The secret is made for the
// test and never printed.
func TestScoreChainEndToEnd(t *testing.T) {
	inRepoRoot(t)
	secret, s := startCorpus(t)
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
		r := c.score(t, c.subs, c.outcomes)
		assert.Equal(t, c.track.track.Name, r.Track)
		assert.Equal(t, score.ProofsGiven, r.Conditions12)
		require.Len(t, r.Tasks, 10)
		total := 0
		for _, tr := range r.Tasks {
			assert.Equal(t, score.Rendered, tr.Status, "%s: %v", tr.TaskID, deref(tr.Reason))
			assert.True(t, tr.VerdictExact, tr.TaskID)
			require.NotNil(t, tr.VerdictFounded, tr.TaskID)
			assert.True(t, *tr.VerdictFounded, "%s misses %v", tr.TaskID, tr.MissingFacts)
			assert.Empty(t, tr.MissingFacts, tr.TaskID)
			for _, a := range tr.Assertions {
				assert.Equal(t, score.Supported, a.Status, "%s %s", tr.TaskID, a.ID)
				assert.Nil(t, a.Cause)
			}
			total += len(tr.Assertions)
		}
		require.NotNil(t, r.Success.Founded)
		assert.Equal(t, 10, *r.Success.Founded)
		assert.Equal(t, 10, r.Success.OutOf)
		assert.Equal(t, 0, r.Overclaim.Unsupported)
		assert.Equal(t, total, r.Overclaim.Rendered)
		require.NotNil(t, r.Overclaim.Rate)
		assert.Zero(t, *r.Overclaim.Rate)
		assert.Equal(t, c.track.constant, r.Constant)
		composition := season.RulesOf(c.track.track).Composition
		if len(composition.Exactly) > 0 {
			best := 0
			for _, n := range composition.Exactly {
				best = max(best, n)
			}
			assert.Equal(t, best, r.Constant.Success, "the row is the published distribution's best")
		}
		for v, n := range composition.AtLeast {
			assert.GreaterOrEqual(t, r.Constant.Success, n, "%s is expected on at least %d tasks", v, n)
		}
	})

	t.Run("without proofs outcome", func(t *testing.T) {
		r := c.score(t, c.subs, nil)
		assert.Equal(t, score.ProofsUnverified, r.Conditions12)
		require.NotNil(t, r.Success.Founded)
		assert.Equal(t, 10, *r.Success.Founded)
	})

	t.Run("one proof id, two pairs", func(t *testing.T) {
		first, second := c.tasks.Tasks[0].ID, c.track.shared.task
		for _, withVerifier := range []bool{true, false} {
			subs, outcomes := c.clone(t)
			id := proofOf(subs[first], 0)
			renameProofID(subs[second], proofOf(subs[second], 0), id)
			if !withVerifier {
				outcomes = nil
			}
			r := c.score(t, subs, outcomes)
			cited := 0
			for _, task := range []string{first, second} {
				tr := taskReport(t, r, task)
				require.Equal(t, score.Rendered, tr.Status, deref(tr.Reason))
				for i, a := range tr.Assertions {
					if !slices.Contains(subs[task].Assertions[i].ProofIDs, id) {
						assert.Equal(t, score.Supported, a.Status, "%s %s", task, a.ID)
						continue
					}
					cited++
					assert.Equal(t, score.Unsupported, a.Status, "%s %s cites %s, disclosed with two pairs (verifier: %t)", task, a.ID, id, withVerifier)
					if assert.NotNil(t, a.Cause) {
						assert.Equal(t, score.InvalidProof, *a.Cause)
					}
				}
			}
			assert.GreaterOrEqual(t, cited, 2, "both tasks cite the proof")
			require.NotNil(t, r.Success.Founded)
			assert.Equal(t, 8, *r.Success.Founded, "neither task is founded")
		}
	})

	t.Run("two DIDs", func(t *testing.T) {
		subs, outcomes := c.clone(t)
		subs[c.track.shared.task].AgentDID = "did:key:z6MkAnotherParticipant"
		code, _, errOut := c.run(t, subs, outcomes, "-record", c.sealed.record, "-salt", c.sealed.salt)
		assert.Equal(t, 2, code)
		// Whichever submission comes first, the message names both DIDs.
		assert.Contains(t, errOut, `/agent_did: "`)
		assert.Contains(t, errOut, `"did:key:z6MkAnotherParticipant"`)
		assert.Contains(t, errOut, `"`+referenceDID+`": a replay scores one participant, one DID`)
	})

	t.Run("unanchored", func(t *testing.T) {
		code, out, errOut := c.run(t, c.subs, c.outcomes)
		assert.Equal(t, 2, code, out)
		assert.Contains(t, errOut, "-salt is required")
		assert.Empty(t, out, "no score")

		code, out, errOut = c.run(t, c.subs, c.outcomes, "-dry-run")
		require.Equal(t, 0, code, errOut)
		assert.True(t, strings.HasPrefix(out, "{\n  \"ancrage\": \""+score.DryRun+"\","), "the report's first field says it is a dry run: %.80s", out)
		code, out, errOut = c.run(t, c.subs, c.outcomes, "-dry-run", "-format", "text")
		require.Equal(t, 0, code, errOut)
		assert.True(t, strings.HasPrefix(out, "ancrage "+score.DryRun+" "), "%.80s", out)
	})

	t.Run("constant answer", func(t *testing.T) {
		subs, outcomes := c.clone(t)
		for _, sub := range subs {
			sub.Verdict = c.track.constant.Verdict
		}
		r := c.score(t, subs, outcomes)
		require.NotNil(t, r.Success.Founded)
		assert.Equal(t, r.Constant.Success, *r.Success.Founded, "answering the best constant everywhere scores the constant row")
	})

	for _, tt := range c.alterations(t) {
		t.Run(tt.name, func(t *testing.T) {
			subs, outcomes := c.clone(t)
			sub := subs[tt.at.task]
			require.NotNil(t, sub, tt.at.task)
			altered := sub.Assertions[tt.at.assertion].ID
			tt.alter(sub, outcomes)
			r := c.score(t, subs, outcomes)
			tr := taskReport(t, r, tt.at.task)
			assert.Equal(t, tt.statut, tr.Status, "motif: %s", deref(tr.Reason))
			if tt.motif != "" {
				assert.Contains(t, deref(tr.Reason), tt.motif)
			}
			if tt.want != "" {
				for _, a := range tr.Assertions {
					if a.ID != altered {
						assert.Equal(t, score.Supported, a.Status, "%s is untouched", a.ID)
						continue
					}
					assert.Equal(t, tt.want, a.Status)
					if tt.cause == "" {
						assert.Nil(t, a.Cause)
					} else if assert.NotNil(t, a.Cause) {
						assert.Equal(t, tt.cause, *a.Cause)
					}
				}
			}
			if tt.want == score.Pending {
				assert.Nil(t, r.Success.Founded, "no score while a proof is pending")
				assert.Nil(t, r.Overclaim.Rate)
				assert.Nil(t, tr.VerdictFounded)
				return
			}
			require.NotNil(t, r.Success.Founded)
			assert.Equal(t, 9, *r.Success.Founded)
			require.NotNil(t, tr.VerdictFounded)
			assert.False(t, *tr.VerdictFounded)
			unsupported := 0
			if tt.want == score.Unsupported {
				unsupported = 1
				assert.NotEmpty(t, tr.MissingFacts, "the fact the altered assertion carried is missing")
			}
			assert.Equal(t, unsupported, r.Overclaim.Unsupported, "overclaim counts the unsupported assertion of a rendered task only")
		})
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Bad input is exit status 2 with a message naming the file: above all,
// files the record does not anchor. Anchored files are scored.
func TestScoreBadInput(t *testing.T) {
	inRepoRoot(t)
	conformity, generic := chainTracks[0], chainTracks[1]
	manifestPath := conformity.manifestPath()
	sealing := sealTrack(t, corpus.Conformity)
	genericSealing := sealTrack(t, corpus.Purchasing)
	dir := t.TempDir()
	write := func(name, content string) string {
		file := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(file, []byte(content), 0o644))
		return file
	}
	sub := write("conf-01.json", `{"season": 1, "task_id": "conf-01"}`)
	data, err := os.ReadFile(manifestPath)
	require.NoError(t, err)
	otherTrack := write("manifest.json", strings.Replace(string(data), `"piste": "conformite"`, `"piste": "generique"`, 1))
	changedManifest := write("manifest-changed.json", strings.Replace(string(data), `"piste": "conformite"`, `"piste":  "conformite"`, 1))
	tasks, err := os.ReadFile(conformity.tasksPath())
	require.NoError(t, err)
	// conf-01's ceiling raised from 4 to 5 in a copy of the statements.
	raised := strings.Replace(string(tasks), `"assertions_max": 4,`, `"assertions_max": 5,`, 1)
	require.NotEqual(t, string(tasks), raised)
	raisedTasks := write("taches.json", raised)
	key, err := os.ReadFile(conformity.keyPath())
	require.NoError(t, err)
	changedKey := write("cle.json", string(key)+"\n")
	keyWithout := write("cle-incomplete.json", strings.Replace(string(key), `"controle": true,`, ``, 1))
	otherSalt := filepath.Join(t.TempDir(), "sel.hex")
	require.NoError(t, seal.WriteSalt(otherSalt, seal.NewSalt()))
	h := strings.Repeat("a", 64)
	proof := `"valide": true, "en_attente": false, "agent_did": "did:key:z6MkA", "request_hash": "` + h + `", "response_hash": "` + h + `"`
	caseProofs := write("proofs-case.json", `{"prf_1": {`+strings.Replace(proof, `"valide"`, `"Valide"`, 1)+`}}`)
	duplicateProofs := write("proofs-dup.json", `{"prf_1": {`+proof+`, "valide": false}}`)
	duplicateIDs := write("proofs-dup-id.json", `{"prf_1": {`+proof+`}, "prf_1": {`+proof+`}}`)
	oldProofs := write("proofs-old.json", `{"prf_1": {"valide": true, "identite_liee": true, "en_attente": false}}`)
	// Hostile files a flag names: a device, a pipe, a file over its bound.
	deviceSalt := filepath.Join(dir, "sel-zero")
	require.NoError(t, os.Symlink("/dev/zero", deviceSalt))
	pipeKey := filepath.Join(dir, "cle-pipe.json")
	pipeWant := pipeKey + ": a named pipe, not a regular file: refused"
	if err := mkfifo(pipeKey); err != nil { // no pipes here: the case is then an empty key
		require.NoError(t, os.WriteFile(pipeKey, nil, 0o644))
		pipeWant = pipeKey
	}
	hugeProofs := write("proofs-huge.json", "")
	require.NoError(t, os.Truncate(hugeProofs, 65<<20))

	// A replay that is checked renders scores only with the proofs'
	// source named: an outside verifier's, or none by name.
	checked := []string{"score", "-track", "conformite", "-record", sealing.record, "-salt", sealing.salt}
	anchored := slices.Clip(append(slices.Clone(checked), "-unverified-proofs"))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unanchored", []string{"score", "-track", "conformite", sub}, "-salt is required"},
		{"the statements' ceiling raised in a copy", append(anchored, "-tasks", raisedTasks, sub),
			"refusing to score: " + sealing.record + " does not anchor these files:\n  " + raisedTasks + ": sha256 "},
		{"a manifest changed after the seal", append(anchored, "-manifest", changedManifest, sub), changedManifest + ": sha256 "},
		{"a key changed after the seal", append(anchored, "-key", changedKey, sub), changedKey + ": the key and the salt do not open the record's engagement_cle"},
		{"another salt", []string{"score", "-track", "conformite", "-record", sealing.record, "-salt", otherSalt, "-unverified-proofs", sub}, conformity.keyPath() + ": the key and the salt do not open"},
		{"the other track's record", []string{"score", "-track", "conformite", "-record", genericSealing.record, "-salt", sealing.salt, "-unverified-proofs", sub}, `the record is of the track "generique", not "conformite"`},
		{"no record", []string{"score", "-track", "conformite", "-record", filepath.Join(dir, "none.json"), "-salt", sealing.salt, "-unverified-proofs", sub}, "none.json: no such file"},
		// The replay reads the key as the solver does, every member required.
		{"a key missing a member, in a dry run", []string{"score", "-track", "conformite", "-dry-run", "-key", keyWithout, sub}, keyWithout + " /taches/0: member \"controle\" is missing"},
		{"a dry run given a record", []string{"score", "-track", "conformite", "-dry-run", "-salt", sealing.salt, sub}, "-dry-run checks no record"},
		{"no track", []string{"score", "-record", sealing.record, "-salt", sealing.salt, sub}, "say which track with -track"},
		{"the old flag -taches", []string{"score", "-taches", conformity.tasksPath(), "-track", "conformite", sub}, "flag provided but not defined: -taches"},
		{"unreadable submission", append(anchored, filepath.Join(dir, "none.json")), "none.json: no such file"},
		{"no submission", anchored, "no submission given"},
		{"manifest of another track", append(anchored, "-manifest", otherTrack, sub), `the manifest is of the track "generique", not "conformite"`},
		{"generic manifest for conformity", append(anchored, "-manifest", generic.manifestPath(), sub),
			generic.manifestPath() + ` /piste: the manifest is of the track "generique", not "conformite"`},
		{"statements of the other track", append(anchored, "-tasks", generic.tasksPath(), sub), generic.tasksPath() + ` /piste: the statements are of the track "generique", not "conformite"`},
		{"proofs: a name in another case", append(checked, "-proofs", caseProofs, sub), caseProofs + ` /prf_1/Valide: unknown member (want agent_did, en_attente, request_hash, response_hash, valide)`},
		{"proofs: a duplicate key", append(checked, "-proofs", duplicateProofs, sub), duplicateProofs + ` /prf_1/valide: not JSON as Python reads it: duplicate key "valide"`},
		{"proofs: a duplicate proof id", append(checked, "-proofs", duplicateIDs, sub), duplicateIDs + ` /prf_1: not JSON as Python reads it: duplicate key "prf_1"`},
		{"proofs nobody verified", append(checked, sub), "refusing to render scores whose proofs nobody verified: give -views (the replay verifies them) or -proofs (an outside verifier's outcomes), or say -unverified-proofs"},
		{"proofs both unverified and given", append(checked, "-unverified-proofs", "-proofs", caseProofs, sub), "-unverified-proofs says no one verified the proofs: not with -views or -proofs"},
		{"proofs: the old format", append(checked, "-proofs", oldProofs, sub), oldProofs + ` /prf_1/identite_liee: unknown member (want agent_did, en_attente, request_hash, response_hash, valide)`},
		{"a salt linked to a device", []string{"score", "-track", "conformite", "-record", sealing.record, "-salt", deviceSalt, "-unverified-proofs", sub}, deviceSalt + ": a link to /dev/zero, out of the folder: not followed"},
		{"a key that is a pipe", append(anchored, "-key", pipeKey, sub), pipeWant},
		{"proofs over their bound", append(checked, "-proofs", hugeProofs, sub), hugeProofs + ": 68157440 bytes, over the"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(tt.args...)
			assert.Equal(t, 2, code, out)
			assert.Contains(t, errOut, tt.want)
			assert.Empty(t, out, "no report")
		})
	}

	code, out, errOut := runCLI(append(anchored, sub)...)
	require.Equal(t, 0, code, errOut)
	var r score.Report
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	assert.Equal(t, score.Anchored, r.Anchoring)
	tr := taskReport(t, &r, "conf-01")
	assert.Equal(t, score.RejectedEntry, tr.Status)
	assert.Contains(t, deref(tr.Reason), sub+` (root): champ "track" manquant`)
	assert.Equal(t, score.NotRendered, taskReport(t, &r, "conf-02").Status)

	// A submission of the other track, replayed on this one: its row names
	// the track, not an unknown task.
	otherTrackSub := write("gen-01.json", `{"season": 1, "track": "generique", "task_id": "gen-01", "agent_did": "did:key:z6MkExample",
		"verdict": "aucune_option_valide", "assertions": [], "disclosures": {}}`)
	code, out, errOut = runCLI(append(anchored, otherTrackSub)...)
	require.Equal(t, 0, code, errOut)
	r = score.Report{}
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	tr = taskReport(t, &r, "gen-01")
	assert.Equal(t, score.RejectedEntry, tr.Status)
	assert.Equal(t, otherTrackSub+` /track: piste "generique", attendue "conformite"`, deref(tr.Reason))

	for _, track := range chainTracks {
		s := map[*corpus.Track]sealed{corpus.Conformity: sealing, corpus.Purchasing: genericSealing}[track.track]
		args := []string{"score", "-track", track.track.Name, "-record", s.record, "-salt", s.salt, "-unverified-proofs", "-format", "text", sub}
		code, out, errOut = runCLI(args...)
		require.Equal(t, 0, code, errOut)
		assert.True(t, strings.HasPrefix(out, "ancrage "+score.Anchored+"   piste "+track.track.Name), out)
		assert.Contains(t, out, fmt.Sprintf("meilleure reponse constante  %s: %d / 10", track.constant.Verdict, track.constant.Success))
	}
}
