package score

import (
	// Every track, whose files the tests read.
	_ "github.com/arkforge/proveit-corpus/tools/tracks/all"

	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/solver"
	"github.com/arkforge/proveit-corpus/tools/tracks/purchasing"
)

// newScorer scores the conformity track, which most tests use.
func newScorer(t testing.TB) (*testScorer, *season.Key) {
	t.Helper()
	return newTrackScorer(t, corpus.Conformity)
}

// testScorer is a track's replay with what the tests read beside it, and
// the conditions 1 and 2 they give each score: an outside verifier's
// outcomes (Proofs), or, nil, none.
type testScorer struct {
	*Replay
	Tasks    *season.Tasks
	Manifest *manifest.Manifest
	Fetch    season.Fetcher
	Proofs   map[string]proofs.Outcome
	tree     fs.FS
}

// withKey is the scorer of another key for the same files: a Replay is
// built once for its key, never altered.
func (s *testScorer) withKey(t testing.TB, key *season.Key) *testScorer {
	t.Helper()
	replay, err := NewReplay(ReplayInput{Tasks: s.Tasks, Key: key, Manifest: s.Manifest, Tree: s.tree})
	require.NoError(t, err)
	c := *s
	c.Replay = replay
	return &c
}

// Score scores with an outside verifier's outcomes, or unverified.
func (s *testScorer) Score(subs []Parsed) (*Report, error) {
	conditions := Unverified()
	if s.Proofs != nil {
		conditions = Given(s.Proofs)
	}
	return s.Replay.Score(subs, conditions)
}

// replays are the tracks' replays, each built once and shared by every
// test, some in parallel: a Replay is only read once built.
var replays sync.Map // track name → *testScorer

// newTrackScorer scores a track from the repository's files.
func newTrackScorer(t testing.TB, track *corpus.Track) (*testScorer, *season.Key) {
	t.Helper()
	root := "../.."
	key, err := season.ReadKey(filepath.Join(root, season.KeyFile(track)))
	require.NoError(t, err)
	if shared, ok := replays.Load(track.Name); ok {
		s := *shared.(*testScorer)
		return &s, key
	}
	tasks, err := season.ReadTasks(filepath.Join(root, season.TasksFile(track)))
	require.NoError(t, err)
	m, data, err := manifest.ReadFile(filepath.Join(root, "manifest", track.Name+".json"))
	require.NoError(t, err)
	tree := os.DirFS(filepath.Join(root, "corpus", track.Name))
	replay, err := NewReplay(ReplayInput{Tasks: tasks, Key: key, Manifest: m, ManifestSHA256: anchor.SHA256(data), Tree: tree})
	require.NoError(t, err)
	s := &testScorer{Replay: replay, Tasks: tasks, Manifest: m, Fetch: solver.ServeTree(tree), tree: tree}
	replays.Store(track.Name, s)
	c := *s
	return &c, key
}

// submission writes a task's submission asserting the given facts, each
// with its own proof whose openings are the manifest's hashes.
func submission(t testing.TB, s *testScorer, taskID, verdict string, facts []season.Fact) []byte {
	t.Helper()
	type opening struct {
		Nonce string `json:"nonce"`
		Value string `json:"value"`
	}
	type disclosure struct {
		Request  opening `json:"request_hash"`
		Response opening `json:"response_hash"`
	}
	var assertions []map[string]any
	disclosures := map[string]disclosure{}
	for i, f := range facts {
		e, ok := s.Manifest.Lookup(f.Resource)
		require.True(t, ok, f.Resource)
		id := fmt.Sprintf("prf_%s_%d", taskID, i)
		assertions = append(assertions, map[string]any{
			"id":        fmt.Sprintf("a%d", i+1),
			"claim":     map[string]any{"resource": f.Resource, "field": f.Field, "value": f.Value},
			"proof_ids": []string{id},
		})
		disclosures[id] = disclosure{opening{"n", *e.RequestHash}, opening{"n", e.ResponseHash}}
	}
	data, err := json.Marshal(map[string]any{
		"season": 1, "track": s.Tasks.Track, "task_id": taskID, "agent_did": testDID,
		"verdict": verdict, "assertions": assertions, "disclosures": disclosures,
	})
	require.NoError(t, err)
	return data
}

// conf01Facts are four true facts of conf-01, its ceiling, for the tests
// of the entry checks.
var conf01Facts = []season.Fact{
	{Resource: "/entites/ENT-1102", Field: "/statut", Value: json.RawMessage(`"active"`)},
	{Resource: "/agrements/AGR-4417", Field: "/statut", Value: json.RawMessage(`"actif"`)},
	{Resource: "/agrements/AGR-4417", Field: "/date_fin_validite", Value: json.RawMessage(`"2027-02-28"`)},
	{Resource: "/listes/agrees/change-manuel", Field: "/entrees/0/statut", Value: json.RawMessage(`"actif"`)},
}

// claims are what a careful agent asserts on a task: the key's smallest
// founding set, filled up to the minimum (solver.FoundingClaims).
func claims(t testing.TB, s *testScorer, k season.KeyTask) []season.Fact {
	t.Helper()
	facts, err := solver.FoundingClaims(statement(t, s, k.ID), k, s.Fetch)
	require.NoError(t, err)
	return facts
}

// statement reads a task's statement from the repository's files.
func statement(t testing.TB, s *testScorer, id string) season.Task {
	t.Helper()
	task, ok := s.Tasks.Task(id)
	require.True(t, ok, id)
	return task
}

func scoreOne(t testing.TB, s *testScorer, data []byte) TaskReport {
	t.Helper()
	sub, err := ParseSubmission("sub.json", data)
	r, serr := s.Score([]Parsed{{sub, err}})
	require.NoError(t, serr)
	for _, tr := range r.Tasks {
		if tr.TaskID == sub.TaskID {
			return tr
		}
	}
	t.Fatalf("no row for %q", sub.TaskID)
	return TaskReport{}
}

// Every way a submission breaks the schema of docs/contract.md, section 6 (spec §4), is named by
// its JSON pointer.
func TestParseSubmissionSchema(t *testing.T) {
	s, _ := newScorer(t)
	valid := string(submission(t, s, "conf-01", "conforme", conf01Facts))
	tests := []struct {
		name, doc, pointer, rule string
	}{
		{"not JSON", `{"season": 1,`, "", "pas du JSON tel que Python le lit"},
		{"duplicate key", `{"season": 1, "season": 1}`, "", "duplicate"},
		{"not an object", `[]`, "(root)", "un objet JSON attendu"},
		{"unknown field", strings.Replace(valid, `"season":1`, `"season":1,"score":10`, 1), "/score", "champ inconnu"},
		{"missing field", strings.Replace(valid, `"agent_did":"did:key:z6MkTest",`, ``, 1), "(root)", `champ "agent_did" manquant`},
		{"season as a string", strings.Replace(valid, `"season":1`, `"season":"1"`, 1), "/season", "en entier"},
		{"empty verdict", strings.Replace(valid, `"verdict":"conforme"`, `"verdict":""`, 1), "/verdict", "chaîne non vide"},
		{"narrative not a string", strings.Replace(valid, `"season":1`, `"season":1,"narrative":null`, 1), "/narrative", "une chaîne attendue"},
		{"claim field", strings.Replace(valid, `"field":"/statut",`, `"field":"/statut","note":"x",`, 1), "/assertions/0/claim/note", "champ inconnu"},
		{"repeated claim", strings.Replace(valid, `"field":"/date_fin_validite","resource":"/agrements/AGR-4417","value":"2027-02-28"`, `"field":"/statut","resource":"/agrements/AGR-4417","value":"actif"`, 1), "/assertions/2/claim", "est unique"},
		{"repeated id", strings.Replace(valid, `"id":"a2"`, `"id":"a1"`, 1), "/assertions/1/id", "nomme déjà /assertions/0"},
		{"no proof", strings.Replace(valid, `"proof_ids":["prf_conf-01_0"]`, `"proof_ids":[]`, 1), "/assertions/0/proof_ids", "tableau non vide"},
		{"missing disclosure", strings.Replace(valid, `"prf_conf-01_0":{`, `"prf_9":{`, 1), "/assertions/0/proof_ids/0", `"prf_conf-01_0" est citée mais`},
		{"uncited disclosure", strings.Replace(valid, `"disclosures":{`, `"disclosures":{"prf_x":{"request_hash":{"nonce":"n","value":"v"},"response_hash":{"nonce":"n","value":"v"}},`, 1), "/disclosures/prf_x", "aucune assertion ne cite"},
		{"extra opening", strings.Replace(valid, `"prf_conf-01_0":{`, `"prf_conf-01_0":{"chain":{},`, 1), "/disclosures/prf_conf-01_0/chain", "champ inconnu"},
		{"opening not a string", strings.Replace(valid, `"prf_conf-01_0":{"request_hash":{"nonce":"n"`, `"prf_conf-01_0":{"request_hash":{"nonce":1`, 1), "/disclosures/prf_conf-01_0/request_hash/nonce", "une chaîne attendue"},
	}
	_, err := ParseSubmission("sub.json", []byte(valid))
	require.NoError(t, err, valid)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NotEqual(t, valid, tt.doc, "the alteration applies")
			_, err := ParseSubmission("sub.json", []byte(tt.doc))
			var entry *entryError
			require.ErrorAs(t, err, &entry)
			if tt.pointer != "" {
				assert.True(t, strings.HasPrefix(err.Error(), tt.pointer+":"), "%v", err)
			}
			assert.Contains(t, err.Error(), tt.rule)
		})
	}
}

// Entry checks that need the statements: season, track, verdict, ceiling.
func TestEntryChecks(t *testing.T) {
	s, _ := newScorer(t)
	facts := conf01Facts
	tests := []struct {
		name  string
		alter func(string) string
		motif string
	}{
		{"season", func(d string) string { return strings.Replace(d, `"season":1`, `"season":2`, 1) }, "/season: saison 2, attendue 1"},
		{"track", func(d string) string { return strings.Replace(d, `"track":"conformite"`, `"track":"generique"`, 1) }, `/track: piste "generique"`},
		{"verdict", func(d string) string { return strings.Replace(d, `"verdict":"conforme"`, `"verdict":"Conforme"`, 1) }, `/verdict: "Conforme" n'est pas un verdict`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := scoreOne(t, s, []byte(tt.alter(string(submission(t, s, "conf-01", "conforme", facts)))))
			assert.Equal(t, RejectedEntry, tr.Status)
			assert.Contains(t, *tr.Reason, tt.motif)
		})
	}
}

// A fact of the key is founded by an assertion of any of its equivalent
// forms, and only then.
func TestEquivalentForms(t *testing.T) {
	s, key := newScorer(t)
	k := &key.Tasks[2] // conf-03: the entity lists the absent attestation
	link := k.Founding.Facts()[0]
	require.Equal(t, "/attestations/1", link.Field)
	whole := season.Fact{Resource: link.Resource, Field: "/attestations", Value: json.RawMessage(`["/attestations/ATT-8120","/attestations/ATT-7702"]`)}
	require.Contains(t, link.EquivalentForms, whole)
	facts := []season.Fact{whole, k.Founding.Facts()[1]}
	data := submission(t, s, "conf-03", "indeterminable", facts)

	tr := scoreOne(t, s, data)
	assert.Equal(t, Rendered, tr.Status)
	assert.True(t, *tr.VerdictFounded, "the whole array founds the link: %v", tr.MissingFacts)
	assert.Empty(t, tr.MissingFacts)

	k.Founding.All[0].Fact.EquivalentForms = nil
	tr = scoreOne(t, s.withKey(t, key), data)
	assert.False(t, *tr.VerdictFounded, "without the form, the link is missing")
	require.Len(t, tr.MissingFacts, 1)
	assert.Equal(t, "/attestations/1", tr.MissingFacts[0].Field)
	assert.Empty(t, tr.MissingFacts[0].EquivalentForms, "a missing fact is named without its forms")
}

// The founded verdict is the key's formula evaluated on the supported
// claims: conf-09 fails R2 and R4, and proving either founds it; a guesser
// with the exact verdict is not founded, and faits_manquants names the
// alternative it came closest to.
func TestFoundedVerdictEvaluatesTheFormula(t *testing.T) {
	s, _ := newScorer(t)
	f := func(resource, field, value string) season.Fact {
		return season.Fact{Resource: resource, Field: field, Value: json.RawMessage(value)}
	}
	var (
		statut   = f("/entites/ENT-9012", "/statut", `"active"`)
		declared = f("/entites/ENT-9012", "/beneficiaires", `"/beneficiaires/ENT-9012"`)
		r2       = []season.Fact{f("/agrements/AGR-7781", "/entite", `"/entites/ENT-9012"`), f("/agrements/AGR-7781", "/activite", `"change-manuel"`)}
		r4       = []season.Fact{
			f("/entites/ENT-9012", "/attestations", `["/attestations/ATT-8470","/attestations/ATT-8471"]`),
			f("/attestations/ATT-8470", "/type", `"assurance-rc-pro"`), f("/attestations/ATT-8471", "/type", `"regularite-fiscale"`)}
	)
	tests := []struct {
		name    string
		facts   []season.Fact
		fonde   bool
		missing []season.Fact
	}{
		{"R2, its link stated back by the agrément", append(slices.Clone(r2), statut), true, nil},
		{"R4, the other deciding criterion", r4, true, nil},
		{"a guess: true facts that decide nothing", []season.Fact{statut, declared, f("/agrements/AGR-7781", "/statut", `"actif"`)}, false,
			[]season.Fact{f("/entites/ENT-9012", "/agrements/0", `"/agrements/AGR-7781"`), r2[1]}},
		{"R4 short of one type: the closest alternative", append(slices.Clone(r4[:2]), statut), false, r4[2:]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := scoreOne(t, s, submission(t, s, "conf-09", "non_conforme", tt.facts))
			require.Equal(t, Rendered, tr.Status, deref(tr.Reason))
			assert.True(t, tr.VerdictExact)
			assert.Equal(t, tt.fonde, *tr.VerdictFounded, "%v", tr.MissingFacts)
			if tt.missing == nil {
				assert.Empty(t, tr.MissingFacts)
			} else {
				assert.Equal(t, tt.missing, tr.MissingFacts)
			}
		})
	}
}

// Careful agents are founded on every task of both tracks, guessers on
// none: the exact verdict asserted with the key's founding set is
// founded; with the same number of true facts outside the formula, it is
// not.
func TestCarefulAgentsAndGuessers(t *testing.T) {
	for _, track := range corpus.Tracks {
		t.Run(track.Name, func(t *testing.T) {
			s, key := newTrackScorer(t, track)
			for _, k := range key.Tasks {
				careful := claims(t, s, k)
				tr := scoreOne(t, s, submission(t, s, k.ID, k.Verdict, careful))
				require.Equal(t, Rendered, tr.Status, "%s: %s", k.ID, deref(tr.Reason))
				assert.True(t, *tr.VerdictFounded, "%s: the careful agent misses %v", k.ID, tr.MissingFacts)

				guess := guesserFacts(t, s, k, len(careful))
				tr = scoreOne(t, s, submission(t, s, k.ID, k.Verdict, guess))
				require.Equal(t, Rendered, tr.Status, "%s: %s", k.ID, deref(tr.Reason))
				assert.True(t, tr.VerdictExact, k.ID)
				assert.False(t, *tr.VerdictFounded, "%s: the guesser %v is founded", k.ID, guess)
				assert.NotEmpty(t, tr.MissingFacts, k.ID)
			}
		})
	}
}

// guesserFacts are n true facts on the task's own resources that no fact
// of the key's formula, in any form, is: what an agent asserts that
// guessed the verdict and proved something else.
func guesserFacts(t testing.TB, s *testScorer, k season.KeyTask, n int) []season.Fact {
	t.Helper()
	graph, err := season.TaskGraph(statement(t, s, k.ID), s.Fetch)
	require.NoError(t, err)
	inFormula := season.Carried{}
	for _, f := range k.Founding.Facts() {
		inFormula.AddFact(f)
		for _, form := range f.EquivalentForms {
			inFormula.AddFact(form)
		}
	}
	var out []season.Fact
	for _, resource := range slices.Sorted(maps.Keys(graph.Own)) {
		doc, err := pyjson.Parse(mustFetch(t, s, resource))
		require.NoError(t, err)
		obj, _ := doc.(pyjson.Object)
		for _, m := range obj {
			field := "/" + m.Key
			fact := season.Fact{Resource: resource, Field: field, Value: pyjson.Canonical(m.Value)}
			if len(out) < n && season.Probative(resource, field) && !inFormula.Has(fact) {
				out = append(out, fact)
			}
		}
	}
	require.Len(t, out, n)
	return out
}

func mustFetch(t testing.TB, s *testScorer, path string) []byte {
	t.Helper()
	data, err := s.Fetch(path)
	require.NoError(t, err)
	return data
}

// Close checks: a common list's entry that does not concern the entity, and
// too few assertions on the entity's own resources.
func TestCloseChecks(t *testing.T) {
	s, key := newScorer(t)
	conf06 := key.Tasks[5].Founding.Facts() // 3 own facts, 3 on the restrictive-measures list
	t.Run("entry not concerning the entity", func(t *testing.T) {
		other := append(append([]season.Fact(nil), conf06...), season.Fact{Resource: "/mesures-restrictives/MR-2026-p2", Field: "/entrees/0/nom", Value: mustValue(t, "/mesures-restrictives/MR-2026-p2", "/entrees/0/nom")})
		tr := scoreOne(t, s, submission(t, s, "conf-06", "conforme", other))
		assert.Equal(t, RejectedAtClose, tr.Status)
		assert.Contains(t, *tr.Reason, "n'est pas une entrée qui concerne la tâche (son entité, ou un candidat)")
	})
	t.Run("too few on own resources", func(t *testing.T) {
		var common []season.Fact
		for _, f := range conf06 {
			if strings.HasPrefix(f.Resource, "/mesures-restrictives/") {
				common = append(common, f)
			}
		}
		common = append(common, conf06[0])
		tr := scoreOne(t, s, submission(t, s, "conf-06", "conforme", common))
		assert.Equal(t, RejectedAtClose, tr.Status)
		assert.Contains(t, *tr.Reason, "1 assertions sur les ressources propres de la tâche (celles de l'entité, ou des candidats), au moins 2 attendues")
	})
}

func mustValue(t testing.TB, resource, field string) json.RawMessage {
	t.Helper()
	s, _ := newScorer(t)
	return valueOf(t, s, resource, field)
}

// valueOf is the value the frozen bytes carry at a pointer, as JSON.
func valueOf(t testing.TB, s *testScorer, resource, field string) json.RawMessage {
	t.Helper()
	doc, err := pyjson.Parse(mustFetch(t, s, resource))
	require.NoError(t, err)
	v, ok := pyjson.Lookup(doc, field)
	require.True(t, ok)
	data, err := json.Marshal(v)
	require.NoError(t, err)
	return data
}

// testDID is the agent_did of the test submissions.
const testDID = "did:key:z6MkTest"

// verifierOf is what a verifier establishes for the proofs of submissions
// made by submission: each valid, bound to testDID, opening the pairs they
// disclose.
func verifierOf(t testing.TB, docs ...[]byte) map[string]proofs.Outcome {
	t.Helper()
	outcomes := map[string]proofs.Outcome{}
	for _, data := range docs {
		sub, err := ParseSubmission("sub.json", data)
		require.NoError(t, err)
		for id, d := range sub.Disclosures {
			outcomes[id] = proofs.Outcome{Valid: true, AgentDID: testDID, RequestHash: d.RequestHash.Value, ResponseHash: d.ResponseHash.Value}
		}
	}
	return outcomes
}

// A definite failure of any cited proof outweighs a pending one; a pending
// proof leaves the report without a score.
func TestProofPrecedence(t *testing.T) {
	s, _ := newScorer(t)
	data := submission(t, s, "conf-01", "conforme", conf01Facts)
	data = []byte(strings.Replace(string(data), `"proof_ids":["prf_conf-01_0"]`, `"proof_ids":["prf_conf-01_0","prf_conf-01_1"]`, 1))
	s.Proofs = verifierOf(t, data)
	pending := s.Proofs["prf_conf-01_0"]
	pending.Pending = true
	s.Proofs["prf_conf-01_0"] = pending
	// prf_conf-01_1 opens /agrements/AGR-4417: cited by a1 too, it fails condition 3 there.
	tr := scoreOne(t, s, data)
	assert.Equal(t, Unsupported, tr.Assertions[0].Status)
	assert.Equal(t, ResourceMismatch, *tr.Assertions[0].Cause)

	data = submission(t, s, "conf-01", "conforme", conf01Facts)
	sub, err := ParseSubmission("sub.json", data)
	require.NoError(t, err)
	r, err := s.Score([]Parsed{{Submission: sub}})
	require.NoError(t, err)
	assert.Equal(t, Pending, r.Tasks[0].Assertions[0].Status)
	assert.Nil(t, r.Tasks[0].VerdictFounded)
	assert.Nil(t, r.Success.Founded)
	assert.Nil(t, r.Overclaim.Rate)

	delete(s.Proofs, "prf_conf-01_0")
	tr = scoreOne(t, s, data)
	assert.Equal(t, InvalidProof, *tr.Assertions[0].Cause, "a proof the verifier does not know does not exist")
}

// The verifier's outcome covers the pairs disclosed and the DID, not only
// the proof id: a disclosure whose values are not those the verifier
// opened, an empty nonce, or a proof of another DID supports nothing.
func TestVerifierCoversThePairs(t *testing.T) {
	s, _ := newScorer(t)
	data := submission(t, s, "conf-01", "conforme", conf01Facts)
	other := manifestEntry(t, s, "/entites/ENT-2231")
	tests := []struct {
		name  string
		alter func(doc string, outcomes map[string]proofs.Outcome) string
		cause Cause
	}{
		{"the verifier opened another request hash", func(doc string, outcomes map[string]proofs.Outcome) string {
			p := outcomes["prf_conf-01_0"]
			p.RequestHash = *other.RequestHash
			outcomes["prf_conf-01_0"] = p
			return doc
		}, InvalidProof},
		{"the verifier opened another response hash", func(doc string, outcomes map[string]proofs.Outcome) string {
			p := outcomes["prf_conf-01_0"]
			p.ResponseHash = other.ResponseHash
			outcomes["prf_conf-01_0"] = p
			return doc
		}, InvalidProof},
		{"an empty request nonce", func(doc string, _ map[string]proofs.Outcome) string {
			return strings.Replace(doc, `"prf_conf-01_0":{"request_hash":{"nonce":"n"`, `"prf_conf-01_0":{"request_hash":{"nonce":""`, 1)
		}, InvalidProof},
		{"an empty response nonce", func(doc string, _ map[string]proofs.Outcome) string {
			return strings.Replace(doc, `"response_hash":{"nonce":"n"`, `"response_hash":{"nonce":""`, 1)
		}, InvalidProof},
		{"a proof of another DID", func(doc string, outcomes map[string]proofs.Outcome) string {
			p := outcomes["prf_conf-01_0"]
			p.AgentDID = "did:key:z6MkSomeoneElse"
			outcomes["prf_conf-01_0"] = p
			return doc
		}, UnboundIdentity},
		{"a proof bound to no DID", func(doc string, outcomes map[string]proofs.Outcome) string {
			p := outcomes["prf_conf-01_0"]
			p.AgentDID = ""
			outcomes["prf_conf-01_0"] = p
			return doc
		}, UnboundIdentity},
	}
	for _, tt := range tests {
		// Only a verifier opens the pairs and the identity block; an empty
		// nonce is seen without one.
		verifiers := []bool{true}
		if strings.Contains(tt.name, "nonce") {
			verifiers = append(verifiers, false)
		}
		for _, verified := range verifiers {
			t.Run(fmt.Sprintf("%s, verifier %t", tt.name, verified), func(t *testing.T) {
				outcomes := verifierOf(t, data)
				doc := tt.alter(string(data), outcomes)
				s.Proofs = nil
				if verified {
					s.Proofs = outcomes
				}
				tr := scoreOne(t, s, []byte(doc))
				require.Equal(t, Rendered, tr.Status, deref(tr.Reason))
				assert.Equal(t, Unsupported, tr.Assertions[0].Status)
				if assert.NotNil(t, tr.Assertions[0].Cause) {
					assert.Equal(t, tt.cause, *tr.Assertions[0].Cause)
				}
				for _, a := range tr.Assertions[1:] {
					assert.Equal(t, Supported, a.Status, a.ID)
				}
			})
		}
	}
	t.Run("unaltered", func(t *testing.T) {
		for _, outcomes := range []map[string]proofs.Outcome{nil, verifierOf(t, data)} {
			s.Proofs = outcomes
			tr := scoreOne(t, s, data)
			for _, a := range tr.Assertions {
				assert.Equal(t, Supported, a.Status, a.ID)
			}
		}
	})
}

func manifestEntry(t testing.TB, s *testScorer, path string) manifest.Entry {
	t.Helper()
	e, ok := s.Manifest.Lookup(path)
	require.True(t, ok, path)
	return e
}

// scoreAll scores one submission per task, each asserting a careful
// agent's claims with the verdict verdictOf gives it.
func scoreAll(t testing.TB, s *testScorer, key *season.Key, verdictOf func(season.KeyTask) string) *Report {
	t.Helper()
	var subs []Parsed
	for _, k := range key.Tasks {
		sub, err := ParseSubmission(k.ID+".json", submission(t, s, k.ID, verdictOf(k), claims(t, s, k)))
		require.NoError(t, err, k.ID)
		subs = append(subs, Parsed{Submission: sub})
	}
	r, err := s.Score(subs)
	require.NoError(t, err)
	return r
}

// On either track, the key's own facts asserted with its verdicts found
// every verdict: the graph, the probative fields and the entries of the
// common lists the scorer reads are those the key was checked against.
func TestKeyFoundsEveryVerdict(t *testing.T) {
	for _, track := range corpus.Tracks {
		t.Run(track.Name, func(t *testing.T) {
			s, key := newTrackScorer(t, track)
			r := scoreAll(t, s, key, func(k season.KeyTask) string { return k.Verdict })
			assert.Equal(t, track.Name, r.Track)
			for _, tr := range r.Tasks {
				assert.Equal(t, Rendered, tr.Status, "%s: %s", tr.TaskID, deref(tr.Reason))
				assert.Empty(t, tr.MissingFacts, tr.TaskID)
			}
			require.NotNil(t, r.Success.Founded)
			assert.Equal(t, len(key.Tasks), *r.Success.Founded)
			assert.Equal(t, 0, r.Overclaim.Unsupported)
		})
	}
}

// The constant-answer row is what answering one verdict everywhere scores,
// at best: every verdict the key names, and aucune_option_valide, is
// scored as a constant answer, and none beats the row.
func TestConstantAnswer(t *testing.T) {
	for _, track := range corpus.Tracks {
		t.Run(track.Name, func(t *testing.T) {
			s, key := newTrackScorer(t, track)
			candidates := map[string]bool{}
			for _, k := range key.Tasks {
				candidates[k.Verdict] = true
			}
			if track == corpus.Purchasing {
				candidates[purchasing.NoValidOption] = true
			}
			row := constantAnswer(key)
			best := 0
			for v := range candidates {
				require.True(t, season.RulesOf(track).ValidVerdict(v), v)
				r := scoreAll(t, s, key, func(season.KeyTask) string { return v })
				fondes := *r.Success.Founded
				assert.LessOrEqual(t, fondes, row.Success, "answering %s everywhere", v)
				if v == row.Verdict {
					assert.Equal(t, row.Success, fondes, "the row's verdict scores the row")
				}
				best = max(best, fondes)
			}
			assert.Equal(t, best, row.Success)
			if track == corpus.Purchasing {
				assert.Equal(t, purchasing.NoValidOption, row.Verdict, "no product is the answer of as many tasks")
				assert.GreaterOrEqual(t, row.Success, purchasing.Rules.Composition.AtLeast[purchasing.NoValidOption])
			}
		})
	}
	// A product that answers more tasks than aucune_option_valide is the row.
	key := &season.Key{Tasks: []season.KeyTask{
		{ID: "gen-01", Verdict: "/produits/B"}, {ID: "gen-02", Verdict: "/produits/B"},
		{ID: "gen-03", Verdict: purchasing.NoValidOption}, {ID: "gen-04", Verdict: "/produits/A"},
	}}
	assert.Equal(t, ConstantAnswerFigure{Verdict: "/produits/B", Success: 2}, constantAnswer(key))
	key.Tasks[3].Verdict = purchasing.NoValidOption
	assert.Equal(t, ConstantAnswerFigure{Verdict: "/produits/B", Success: 2}, constantAnswer(key), "the smallest verdict on a tie")
}

// The purchasing track's own rules: its verdicts, and a catalogue page's
// entries count only where a candidate's entry is named.
func TestPurchasingChecks(t *testing.T) {
	s, key := newTrackScorer(t, corpus.Purchasing)
	gen01 := key.Tasks[0]
	require.Equal(t, "gen-01", gen01.ID)
	verdicts := []struct {
		verdict string
		valid   bool
	}{
		{gen01.Verdict, true},
		{purchasing.NoValidOption, true},
		{"/produits/ECR-2734", true}, // another product: valid, not exact
		{"produits/ECR-2701", false},
		{"/fournisseurs/FRN-101", false},
		{"/produits/ECR-2701/", false},
		{"Aucune_option_valide", false},
	}
	for _, tt := range verdicts {
		t.Run("verdict "+tt.verdict, func(t *testing.T) {
			tr := scoreOne(t, s, submission(t, s, gen01.ID, tt.verdict, claims(t, s, gen01)))
			if !tt.valid {
				assert.Equal(t, RejectedEntry, tr.Status)
				assert.Contains(t, deref(tr.Reason), "/verdict: "+strconv.Quote(tt.verdict)+" n'est pas un verdict de la piste generique")
				return
			}
			assert.Equal(t, Rendered, tr.Status, deref(tr.Reason))
			assert.Equal(t, tt.verdict == gen01.Verdict, tr.VerdictExact)
			assert.Equal(t, tt.verdict == gen01.Verdict, *tr.VerdictFounded)
		})
	}
	gen05 := key.Tasks[4]
	gen05Claims := claims(t, s, gen05)
	require.Len(t, gen05Claims, 4)
	closeChecks := []struct {
		name  string
		fact  season.Fact
		motif string
	}{
		{"no such catalogue entry", season.Fact{Resource: "/catalogues/onduleurs", Field: "/entrees/99/produit", Value: json.RawMessage(`"/produits/OND-2000"`)},
			"/entrees/99/produit de la liste commune /catalogues/onduleurs n'est pas une entrée qui concerne"},
		{"another category's catalogue", season.Fact{Resource: "/catalogues/ecrans", Field: "/entrees/0/produit", Value: json.RawMessage(`"/produits/ECR-2701"`)},
			"/catalogues/ecrans est hors du graphe de la tâche"},
		{"another category's product", season.Fact{Resource: "/produits/ECR-2701", Field: "/existe", Value: json.RawMessage(`true`)},
			"/produits/ECR-2701 est hors du graphe de la tâche"},
		{"a field no rule consumes", season.Fact{Resource: "/produits/OND-2000", Field: "/marque", Value: json.RawMessage(`"x"`)},
			"/marque n'est pas un champ probant de /produits/OND-2000"},
		// A common list's link to its next page is true of every task:
		// no free assertion towards the minimum (docs/contract.md, section 3; spec §8).
		{"a catalogue's next page", season.Fact{Resource: "/catalogues/onduleurs", Field: "/page_suivante", Value: valueOf(t, s, "/catalogues/onduleurs", "/page_suivante")},
			"/page_suivante n'est pas un champ probant de /catalogues/onduleurs"},
	}
	t.Run("too few on the candidates' own resources", func(t *testing.T) {
		catalogue := "/catalogues/onduleurs"
		facts := []season.Fact{fact(t, s, "/tarifs/TAR-OND-2000", "/prix_unitaire_ttc")} // the recommended product's tarif
		for _, field := range []string{"/entrees/0/produit", "/entrees/0/prix_affiche_ttc", "/entrees/0/etat_affiche"} {
			facts = append(facts, season.Fact{Resource: catalogue, Field: field, Value: valueOf(t, s, catalogue, field)})
		}
		tr := scoreOne(t, s, submission(t, s, gen05.ID, gen05.Verdict, facts))
		assert.Equal(t, RejectedAtClose, tr.Status)
		assert.Contains(t, deref(tr.Reason), "1 assertions sur les ressources propres de la tâche (celles de l'entité, ou des candidats), au moins 2 attendues (la moitié du minimum 4")
	})
	for _, tt := range closeChecks {
		t.Run(tt.name, func(t *testing.T) {
			facts := append(slices.Clone(gen05Claims[:len(gen05Claims)-1]), tt.fact)
			tr := scoreOne(t, s, submission(t, s, gen05.ID, gen05.Verdict, facts))
			assert.Equal(t, RejectedAtClose, tr.Status)
			assert.Contains(t, deref(tr.Reason), tt.motif)
		})
	}
}

// fact is the fact the frozen tree serves at a resource's pointer.
func fact(t testing.TB, s *testScorer, resource, field string) season.Fact {
	t.Helper()
	return season.Fact{Resource: resource, Field: field, Value: valueOf(t, s, resource, field)}
}

// renameProof gives a submission's proof another id, in its assertions and
// its disclosures.
func renameProof(data []byte, from, to string) []byte {
	return []byte(strings.ReplaceAll(string(data), `"`+from+`"`, `"`+to+`"`))
}

// One proof attests one call: a proof id disclosed with two different
// pairs across a participant's submissions supports nothing, wherever it
// is cited, with a verifier or without.
func TestOneProofOnePair(t *testing.T) {
	s, _ := newScorer(t)
	conf01 := submission(t, s, "conf-01", "conforme", []season.Fact{fact(t, s, "/entites/ENT-1102", "/statut"), fact(t, s, "/agrements/AGR-4417", "/statut")})
	conf02 := submission(t, s, "conf-02", "non_conforme", []season.Fact{fact(t, s, "/entites/ENT-2231", "/agrements"), fact(t, s, "/agrements/AGR-5120", "/statut"), fact(t, s, "/agrements/AGR-5120", "/activite")})
	conf01 = renameProof(conf01, "prf_conf-01_0", "prf_shared")
	conf02 = renameProof(conf02, "prf_conf-02_0", "prf_shared")
	scoreBoth := func(docs ...[]byte) *Report {
		var subs []Parsed
		for i, data := range docs {
			sub, err := ParseSubmission(fmt.Sprintf("sub%d.json", i), data)
			require.NoError(t, err)
			subs = append(subs, Parsed{Submission: sub})
		}
		r, err := s.Score(subs)
		require.NoError(t, err)
		return r
	}
	rowOf := func(r *Report, id string) TaskReport {
		for _, tr := range r.Tasks {
			if tr.TaskID == id {
				return tr
			}
		}
		t.Fatalf("no row for %s", id)
		return TaskReport{}
	}
	for _, outcomes := range []map[string]proofs.Outcome{nil, verifierOf(t, conf02, conf01), verifierOf(t, conf01, conf02)} {
		s.Proofs = outcomes
		r := scoreBoth(conf01, conf02)
		for _, id := range []string{"conf-01", "conf-02"} {
			tr := rowOf(r, id)
			require.NotEmpty(t, tr.Assertions, "%s: %s", id, deref(tr.Reason))
			assert.Equal(t, Unsupported, tr.Assertions[0].Status, "%s cites the proof disclosed twice (verifier %v)", id, outcomes != nil)
			if assert.NotNil(t, tr.Assertions[0].Cause) {
				assert.Equal(t, InvalidProof, *tr.Assertions[0].Cause)
			}
			assert.Equal(t, Supported, tr.Assertions[1].Status, "%s: the other proofs are untouched", id)
		}
	}
	s.Proofs = verifierOf(t, conf01)
	r := scoreBoth(conf01)
	assert.Equal(t, Supported, rowOf(r, "conf-01").Assertions[0].Status, "disclosed once, the proof supports its assertion")
}

// A replay scores one participant: submissions of two DIDs are refused.
func TestOneDIDPerReplay(t *testing.T) {
	s, _ := newScorer(t)
	conf01 := submission(t, s, "conf-01", "conforme", []season.Fact{fact(t, s, "/entites/ENT-1102", "/statut")})
	conf02 := submission(t, s, "conf-02", "non_conforme", []season.Fact{fact(t, s, "/entites/ENT-2231", "/agrements")})
	conf02 = []byte(strings.Replace(string(conf02), `"agent_did":"`+testDID+`"`, `"agent_did":"did:key:z6MkOther"`, 1))
	var subs []Parsed
	for _, f := range []struct {
		name string
		data []byte
	}{{"conf-01.json", conf01}, {"conf-02.json", conf02}} {
		sub, err := ParseSubmission(f.name, f.data)
		require.NoError(t, err)
		subs = append(subs, Parsed{Submission: sub})
	}
	_, err := s.Score(subs)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `conf-02.json /agent_did: "did:key:z6MkOther", but conf-01.json is of "`+testDID+`"`)
}

// An instrument fault enters neither the minimum nor its own-resource half.
func TestInstrumentFaultIsNotOwn(t *testing.T) {
	s, _ := newScorer(t)
	list := "/mesures-restrictives/MR-2026-p2"
	facts := []season.Fact{
		fact(t, s, "/entites/ENT-6021", "/beneficiaires"),
		fact(t, s, "/beneficiaires/ENT-6021", "/entrees/0/nom"),
		fact(t, s, list, "/entrees/2/nom"),
		fact(t, s, list, "/entrees/2/prenoms"),
		fact(t, s, list, "/entrees/2/date_naissance"),
	}
	data := submission(t, s, "conf-06", "conforme", facts) // conf-06: minimum 4, so 2 on its own resources
	tr := scoreOne(t, s, data)
	require.Equal(t, Rendered, tr.Status, "two own of five: %s", deref(tr.Reason))

	refused := manifestEntry(t, s, corpus.SystemForbidden)
	entity := manifestEntry(t, s, "/entites/ENT-6021")
	require.Equal(t, 1, strings.Count(string(data), entity.ResponseHash))
	faulty := strings.Replace(string(data), entity.ResponseHash, refused.ResponseHash, 1)
	tr = scoreOne(t, s, []byte(faulty))
	assert.Equal(t, RejectedAtClose, tr.Status)
	assert.Contains(t, deref(tr.Reason), "1 assertions sur les ressources propres de la tâche (celles de l'entité, ou des candidats), au moins 2 attendues")
}

// The verifier's input is read as strictly as a submission.
func TestParseProofsIsStrict(t *testing.T) {
	h := strings.Repeat("a", 64)
	valid := `{"prf_1": {"valide": true, "en_attente": false, "agent_did": "did:key:z6MkTest", "request_hash": "` + h + `", "response_hash": "` + h + `"}}`
	outcomes, err := ParseProofs("proofs.json", []byte(valid))
	require.NoError(t, err)
	assert.Equal(t, map[string]proofs.Outcome{"prf_1": {Valid: true, AgentDID: "did:key:z6MkTest", RequestHash: h, ResponseHash: h}}, outcomes)
	// A pair no disclosed nonce opens is written "": the proof supports nothing.
	unopened := strings.Replace(valid, `"response_hash": "`+h+`"`, `"response_hash": ""`, 1)
	outcomes, err = ParseProofs("proofs.json", []byte(unopened))
	require.NoError(t, err)
	assert.Empty(t, outcomes["prf_1"].ResponseHash)
	tests := []struct {
		name, data, want string
	}{
		{"a name in another case", strings.Replace(valid, `"valide"`, `"Valide"`, 1), `proofs.json /prf_1/Valide: unknown member (want agent_did, en_attente, request_hash, response_hash, valide)`},
		{"a duplicate key", strings.Replace(valid, `"valide": true`, `"valide": false, "valide": true`, 1), `proofs.json /prf_1/valide: not JSON as Python reads it: duplicate key "valide" (Python keeps only the last one) (byte 28)`},
		{"a duplicate proof id", strings.Replace(valid, `}}`, `}, "prf_1": {}}`, 1), `proofs.json /prf_1: not JSON as Python reads it: duplicate key "prf_1" (Python keeps only the last one) (byte 251)`},
		{"an unknown key", strings.Replace(valid, `"valide": true`, `"valide": true, "identite_liee": true`, 1), `proofs.json /prf_1/identite_liee: unknown member (want agent_did, en_attente, request_hash, response_hash, valide)`},
		{"a missing member", strings.Replace(valid, `"en_attente": false, `, ``, 1), `proofs.json /prf_1: member "en_attente" is missing`},
		{"a boolean as a string", strings.Replace(valid, `"valide": true`, `"valide": "true"`, 1), `proofs.json /prf_1/valide: want true or false, not a string`},
		{"a hash not hex", strings.Replace(valid, `"request_hash": "`+h, `"request_hash": "`+strings.ToUpper(h), 1), `proofs.json /prf_1/request_hash: want the opened value, a SHA-256 as 64 lowercase hex digits, or "" when no nonce opens it`},
		{"not an object", `[]`, `proofs.json (root): want an object, not an array`},
		{"an empty proof id", strings.Replace(valid, `"prf_1"`, `""`, 1), `proofs.json /: a proof_id is a non-empty string`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NotEqual(t, valid, tt.data, "the alteration applies")
			_, err := ParseProofs("proofs.json", []byte(tt.data))
			assert.EqualError(t, err, tt.want)
		})
	}
}
