package score

import (
	"encoding/json"
	"io/fs"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/manifest/verify"
	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// Conditions 1 and 2 come from a source named where it is chosen: the zero
// Conditions is refused, and each source is the one the report states.
func TestConditionsHaveASource(t *testing.T) {
	s, _ := newScorer(t)
	data := submission(t, s, "conf-01", "conforme", conf01Facts)
	sub, err := ParseSubmission("sub.json", data)
	require.NoError(t, err)
	subs := []Parsed{{Submission: sub}}

	_, err = s.Replay.Score(subs, Conditions{})
	assert.ErrorContains(t, err, "conditions 1 and 2 come from nowhere")

	outcomes := verifierOf(t, data)
	results := map[string]proofs.Result{}
	for id, o := range outcomes {
		results[id] = proofs.Result{Outcome: o, Failures: []proofs.Check{}, Incidents: []string{}}
	}
	failed := results["prf_conf-01_0"]
	failed.Valid, failed.Failures = false, []proofs.Check{proofs.CheckSignature}
	results["prf_conf-01_0"] = failed
	tests := []struct {
		name       string
		conditions Conditions
		source     Source
		first      AssertionStatus
		failures   map[string][]proofs.Check
	}{
		{"unverified, by name", Unverified(), ProofsUnverified, Supported, nil},
		{"an outside verifier's", Given(outcomes), ProofsGiven, Supported, nil},
		{"verified here, one proof failed", Verified(results), ProofsVerified, Unsupported, map[string][]proofs.Check{"prf_conf-01_0": {proofs.CheckSignature}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.source, tt.conditions.Source())
			r, err := s.Replay.Score(subs, tt.conditions)
			require.NoError(t, err)
			assert.Equal(t, tt.source, r.Conditions12)
			a := r.Tasks[0].Assertions
			assert.Equal(t, tt.first, a[0].Status)
			assert.Equal(t, tt.failures, a[0].Failures, "only a proof verified here names its failed checks")
			for _, other := range a[1:] {
				assert.Equal(t, Supported, other.Status, other.ID)
			}
		})
	}

	known := Given(outcomes).Of("prf_conf-01_0")
	assert.Equal(t, ProofResult{Source: ProofsGiven, Known: true, Outcome: outcomes["prf_conf-01_0"]}, known)
	assert.Equal(t, ProofResult{Source: ProofsGiven}, Given(outcomes).Of("prf_unknown"), "a proof the verifier never saw is not known")
	assert.Equal(t, ProofResult{Source: ProofsUnverified}, Unverified().Of("prf_conf-01_0"))
}

// One Replay scores many participants at once, each report the one it
// scores alone: nothing of a participant is kept in the replay.
func TestReplayScoresParticipantsConcurrently(t *testing.T) {
	for _, track := range corpus.Tracks {
		t.Run(track.Name, func(t *testing.T) {
			s, key := newTrackScorer(t, track)
			careful := map[string][]season.Fact{}
			for _, k := range key.Tasks {
				careful[k.ID] = claims(t, s, k)
			}
			participants := make([][]Parsed, 8)
			for i := range participants {
				for j, k := range key.Tasks {
					facts := careful[k.ID]
					verdict := k.Verdict
					if (i+j)%3 == 0 {
						facts = facts[:len(facts)-1] // some under the minimum, some unfounded
					}
					if (i+j)%4 == 0 {
						verdict = key.Tasks[(j+1)%len(key.Tasks)].Verdict
					}
					sub, err := ParseSubmission(k.ID+".json", submission(t, s, k.ID, verdict, facts))
					require.NoError(t, err)
					participants[i] = append(participants[i], Parsed{Submission: sub})
				}
			}
			alone := make([]*Report, len(participants))
			for i, subs := range participants {
				r, err := s.Replay.Score(subs, Unverified())
				require.NoError(t, err)
				alone[i] = r
			}
			together := make([]*Report, len(participants))
			var wg sync.WaitGroup
			for i, subs := range participants {
				wg.Go(func() {
					r, err := s.Replay.Score(subs, Unverified())
					assert.NoError(t, err)
					together[i] = r
				})
			}
			wg.Wait()
			for i := range participants {
				assert.Equal(t, alone[i], together[i], "participant %d", i)
			}
			assert.NotEqual(t, alone[0], alone[1], "the participants' answers differ")
		})
	}
}

// A replay is built only from a season it can score: a tree that does not
// match the manifest, or a key without an entry for a task, is refused
// when the replay is made, before any participant.
func TestNewReplayRefuses(t *testing.T) {
	s, key := newScorer(t)
	changed := fstest.MapFS{}
	for _, e := range s.Manifest.Resources {
		if e.File == nil {
			continue
		}
		data, err := fs.ReadFile(s.tree, *e.File)
		require.NoError(t, err)
		changed[*e.File] = &fstest.MapFile{Data: data}
	}
	_, err := NewReplay(ReplayInput{Tasks: s.Tasks, Key: key, Manifest: s.Manifest, Tree: changed})
	require.NoError(t, err, "the same bytes in another file system")
	entity := "entites/ENT-1102.json"
	changed[entity] = &fstest.MapFile{Data: append(changed[entity].Data, ' ')}
	_, err = NewReplay(ReplayInput{Tasks: s.Tasks, Key: key, Manifest: s.Manifest, Tree: changed})
	var mismatch *verify.MismatchError
	require.ErrorAs(t, err, &mismatch)
	assert.ErrorContains(t, err, "entites/ENT-1102.json: bytes changed")

	short := *key
	short.Tasks = short.Tasks[1:]
	_, err = NewReplay(ReplayInput{Tasks: s.Tasks, Key: &short, Manifest: s.Manifest, Tree: s.tree})
	assert.EqualError(t, err, "the key has no entry for task conf-01")

	_, err = NewReplay(ReplayInput{Tasks: s.Tasks, Key: key})
	assert.Error(t, err, "no manifest, no tree")
}

// A submission is read once into typed values: each claim's reference,
// pointer, value as Python reads it and comparable identity, beside the
// claim as written.
func TestSubmissionReadOnce(t *testing.T) {
	s, _ := newScorer(t)
	facts := append(conf01Facts[:1:1], season.Fact{Resource: "/entites/ENT-1102", Field: "/agrements", Value: json.RawMessage(`[ "/agrements/AGR-4417" ]`)})
	sub, err := ParseSubmission("sub.json", submission(t, s, "conf-01", "conforme", facts))
	require.NoError(t, err)
	require.Len(t, sub.Assertions, 2)
	a := sub.Assertions[1]
	assert.Equal(t, json.RawMessage(`["/agrements/AGR-4417"]`), a.Claim.Value, "the claim as written, its value canonical")
	assert.Equal(t, pyjson.Array{"/agrements/AGR-4417"}, a.Value)
	assert.Equal(t, "entites", a.Reference.Collection())
	assert.Equal(t, "/entites/ENT-1102", a.Reference.Path())
	assert.Equal(t, []string{"", "agrements"}, a.Pointer)
	assert.Equal(t, season.ClaimOf("/entites/ENT-1102", "/agrements", pyjson.Array{"/agrements/AGR-4417"}), a.Identity)
	assert.Equal(t, season.Claim{Place: season.Place{Resource: "/entites/ENT-1102", Field: "/statut"}, Value: `"active"`}, sub.Assertions[0].Identity)
}

// BenchmarkReplay measures what a season's Index pays: the replay built
// once, then each participant scored from it (a careful agent's ten
// submissions, unverified).
func BenchmarkReplay(b *testing.B) {
	s, key := newTrackScorer(b, corpus.Conformity)
	var subs []Parsed
	for _, k := range key.Tasks {
		sub, err := ParseSubmission(k.ID+".json", submission(b, s, k.ID, k.Verdict, claims(b, s, k)))
		require.NoError(b, err)
		subs = append(subs, Parsed{Submission: sub})
	}
	b.Run("NewReplay", func(b *testing.B) {
		for b.Loop() {
			_, err := NewReplay(ReplayInput{Tasks: s.Tasks, Key: key, Manifest: s.Manifest, Tree: s.tree})
			require.NoError(b, err)
		}
	})
	b.Run("Score", func(b *testing.B) {
		for b.Loop() {
			_, err := s.Replay.Score(subs, Unverified())
			require.NoError(b, err)
		}
	})
}
