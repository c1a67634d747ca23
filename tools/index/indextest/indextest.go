// Package indextest builds a season's folder, as a season's close hands it
// over, for the Index's tests and benchmarks: enrollments that answer every
// task with the reference solver through the Trust Layer stand-in, which
// relays to the compiled-in corpus on loopback, a record sealed for the
// season, and the views of every proof. Nothing here is deployed or scored.
package indextest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/harness/participant"
	"github.com/arkforge/proveit-corpus/harness/trustlayer"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/index"
	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/score"
	"github.com/arkforge/proveit-corpus/tools/seal"
	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/solver"
)

// The season the builder seals: its proofs are dated within it (and
// within the stand-in's key history, which starts in March 2026), and it
// is closed before any test runs.
var (
	Opening = time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)
	Closing = time.Date(2026, 4, 30, 23, 59, 59, 0, time.UTC)
	// AfterClose is a time at which the season is closed.
	AfterClose = Closing.Add(time.Hour)
	firstCall  = time.Date(2026, 3, 15, 9, 0, 0, 0, time.UTC)
)

// Behaviour is how an enrollment answers.
type Behaviour int

const (
	// Careful answers every task as the reference solver does.
	Careful Behaviour = iota
	// Hurried leaves its last three tasks unsubmitted.
	Hurried
	// Guesser answers the key's most frequent verdict everywhere and
	// misquotes the value of its first assertion on each task.
	Guesser
)

// T is what the builder needs of a test or a benchmark; a testing.TB is
// one.
type T interface {
	require.TestingT
	Helper()
	Cleanup(func())
}

// Enrollment is one enrollment of a track and how it answers.
type Enrollment struct {
	index.Enrollment
	APIKey    string
	Behaviour Behaviour
}

// Season is a season's folder being built.
type Season struct {
	Dir      string
	Trust    string // TrustOf(Dir), the stand-in's trust material
	TL       *trustlayer.TrustLayer
	api      *httptest.Server
	mu       sync.Mutex
	cited    []string // every proof a submission cites, in order
	clockNow time.Time
}

// New starts the corpus and the stand-in on loopback for a season written
// into dir.
func New(t T, dir string) *Season { return NewBatched(t, dir, -1) }

// NewBatched is New with the stand-in closing a batch at every batchSize
// proofs, as Trust Layer does at 100; a negative size closes none but
// CloseBatch.
func NewBatched(t T, dir string, batchSize int) *Season {
	t.Helper()
	s := &Season{Dir: dir, Trust: TrustOf(dir), clockNow: firstCall}
	upstream := httptest.NewServer(corpusHandler(t))
	t.Cleanup(upstream.Close)
	origin := manifestOf(t, corpus.Tracks[0]).Origin
	tl, err := trustlayer.New(trustlayer.Options{
		Clock:        s.clock,
		Upstreams:    map[string]trustlayer.Upstream{origin: {URL: upstream.URL}},
		BatchMaxSize: batchSize,
	})
	require.NoError(t, err)
	s.TL = tl
	s.api = httptest.NewServer(tl.Handler())
	t.Cleanup(s.api.Close)
	require.NoError(t, os.MkdirAll(s.Trust, 0o755))
	require.NoError(t, tl.WriteTrust(s.Trust))
	return s
}

// TrustOf is where New writes the stand-in's trust material for a season
// written into dir: beside the season's folder, never in it, since a
// reader never trusts material a season ships.
func TrustOf(dir string) string { return filepath.Clean(dir) + ".trust" }

// clock dates each call a second after the last, within the season.
func (s *Season) clock() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clockNow = s.clockNow.Add(time.Second)
	return s.clockNow
}

func manifestOf(t T, track *corpus.Track) *manifest.Manifest {
	m, err := manifest.Decode(manifest.Embedded(track))
	require.NoError(t, err)
	return m
}

// corpusHandler serves both compiled-in trees as the corpus does past its
// gate.
func corpusHandler(t T) http.Handler {
	manifests := map[*corpus.Track]*manifest.Manifest{}
	for _, tr := range corpus.Tracks {
		manifests[tr] = manifestOf(t, tr)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tr, ok := corpus.TrackOf(r.URL.Path)
		if !ok {
			http.NotFound(w, r)
			return
		}
		body, err := solver.ServeTree(tr.Embedded())(r.URL.Path)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		status := http.StatusOK
		if e, ok := manifests[tr].Lookup(r.URL.Path); ok {
			status = e.Status
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(body)
	})
}

// Track seals the track's record for the season into its folder, with its
// key, salt and statements as the repository has them, writes
// inscriptions.json and has each enrollment answer every task.
func (s *Season) Track(t T, track *corpus.Track, enrollments []Enrollment) {
	t.Helper()
	dir := filepath.Join(s.Dir, track.Name)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	tasksData, err := os.ReadFile(season.TasksFile(track))
	require.NoError(t, err)
	keyData, err := os.ReadFile(season.KeyFile(track))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cle.json"), keyData, 0o644))
	files := seal.Files{
		Manifest:       seal.File{Name: "manifest", Data: manifest.Embedded(track)},
		Tasks:          seal.File{Name: "taches", Data: tasksData},
		Key:            seal.File{Name: "cle", Data: keyData},
		ScoringSection: seal.File{Name: "bareme", Data: []byte("## Barème de la piste " + track.Name + "\n")},
	}
	tasks, err := season.DecodeTasks("taches", tasksData)
	require.NoError(t, err)
	key, err := season.DecodeKey("cle", keyData)
	require.NoError(t, err)
	_, err = seal.Seal(filepath.Join(dir, "preenregistrement.json"), filepath.Join(dir, "sel"), track.Name, tasks.Season,
		proofs.Window{Opening: Opening, Closing: Closing}, files, false)
	require.NoError(t, err)

	export := index.Enrollments{Season: 1, Track: track.Name}
	for _, e := range enrollments {
		export.Enrollments = append(export.Enrollments, e.Enrollment)
	}
	WriteJSON(t, filepath.Join(dir, "inscriptions.json"), export)
	origin := manifestOf(t, track).Origin
	guess := mostFrequentVerdict(key)
	// The enrollments answer side by side, a few at a time, as they would
	// during a season.
	errs := make([]error, len(enrollments))
	work := make(chan int)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for i := range work {
				errs[i] = s.answer(tasks, key, enrollments[i], origin, guess, filepath.Join(dir, "soumissions", enrollments[i].ID))
			}
		})
	}
	for i := range enrollments {
		work <- i
	}
	close(work)
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
}

// answer has one enrollment answer every task its behaviour answers, and
// writes its submissions into dir.
func (s *Season) answer(tasks *season.Tasks, key *season.Key, e Enrollment, origin, guess, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i, task := range tasks.Tasks {
		if e.Behaviour == Hurried && i >= len(tasks.Tasks)-3 {
			continue
		}
		relay := participant.NewProxiedRelay(&participant.TrustLayer{URL: s.api.URL, APIKey: e.APIKey, AgentDID: e.DID}, origin)
		sub, err := participant.Answer(tasks, task, key.Tasks[i], relay, e.DID)
		if err != nil {
			return fmt.Errorf("%s answers %s: %w", e.ID, task.ID, err)
		}
		s.mu.Lock()
		for _, a := range sub.Assertions {
			s.cited = append(s.cited, a.ProofIDs...)
		}
		s.mu.Unlock()
		if e.Behaviour == Guesser {
			misquote(sub, guess)
		}
		data, err := json.MarshalIndent(sub, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, task.ID+".json"), append(data, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// misquote makes a guesser's submission: the guessed verdict, and its
// first assertion claiming another value than the one served.
func misquote(sub *score.Submission, verdict string) {
	sub.Verdict = verdict
	sub.Narrative = "Verdict deviné, sans lecture des réponses."
	if len(sub.Assertions) > 0 {
		sub.Assertions[0].Claim.Value = pyjson.Canonical("valeur-jamais-servie")
	}
}

func mostFrequentVerdict(key *season.Key) string {
	counts := map[string]int{}
	best := ""
	for _, k := range key.Tasks {
		counts[k.Verdict]++
		if counts[k.Verdict] > counts[best] || (counts[k.Verdict] == counts[best] && k.Verdict < best) {
			best = k.Verdict
		}
	}
	return best
}

// CloseBatch anchors every proof issued so far.
func (s *Season) CloseBatch(t T) {
	t.Helper()
	if s.TL.Pending() > 0 {
		_, err := s.TL.CloseBatch()
		require.NoError(t, err)
	}
}

// WriteViews writes the views folder as proveit proofs fetch fills it: each
// cited proof's public view, and its batch's Rekor entry once anchored.
func (s *Season) WriteViews(t T) {
	t.Helper()
	dir := filepath.Join(s.Dir, "views")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "rekor"), 0o755))
	written := map[string]bool{}
	for _, id := range s.cited {
		if written[id] {
			continue
		}
		written[id] = true
		data, err := s.TL.View(trustlayer.ProofID(id))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(proofs.ViewFile(dir, id), data, 0o644))
		view, err := proofs.ParseView(id, data)
		require.NoError(t, err)
		if view.Log == nil || !proofs.ValidRekorUUID(view.Log.UUID) {
			continue
		}
		entry, err := s.TL.RekorEntry(view.Log.UUID)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(proofs.EntryFile(dir, view.Log.UUID), entry, 0o644))
	}
}

// WriteJSON writes v as indented JSON.
func WriteJSON(t T, file string, v any) {
	t.Helper()
	data, err := json.MarshalIndent(v, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(file, append(data, '\n'), 0o644))
}

// Enroll is an enrollment of the community, enrolled at the minute given
// after the opening, with its own key.
func Enroll(id, agent string, minute int, b Behaviour) Enrollment {
	did := "did:key:z6Mk" + id
	return Enrollment{
		Enrollment: index.Enrollment{
			ID: id, Agent: agent, DID: did, Key: anchor.SHA256([]byte("key-" + id)), DIDHistory: []string{did},
			EnrolledAt: seal.FormatUTC(Opening.Add(time.Duration(minute) * time.Minute)),
			Table:      index.TableCommunity, Stack: "stack de " + agent, ProofsLink: "https://proveit.arkforge.tech/saison-1/" + id + "/",
		},
		APIKey: "key-" + id, Behaviour: b,
	}
}

// Reference makes an enrollment a reference run.
func Reference(e Enrollment, model string) Enrollment {
	e.Table = index.TableReference
	version, framework, prompt := "2026-09", "harness/participant", "prompt-v1"
	e.Model, e.Version, e.Framework, e.Prompt = &model, &version, &framework, &prompt
	return e
}

// SameKeyAs binds an enrollment to another's key: one participant.
func SameKeyAs(e, first Enrollment) Enrollment {
	e.Key, e.APIKey = first.Key, first.APIKey
	e.DIDHistory = append(append([]string{}, first.DIDHistory...), e.DID)
	return e
}

// Crowd is n enrollments of a track as a large season has them: three
// reference runs, then careful, hurried and guessing agents in turn, every
// tenth a second enrollment on the key of the one before it.
func Crowd(n int) []Enrollment {
	var out []Enrollment
	behaviours := []Behaviour{Careful, Hurried, Guesser}
	for i := range n {
		id := fmt.Sprintf("agent-%03d", i)
		e := Enroll(id, fmt.Sprintf("Agent %03d", i), i, behaviours[i%len(behaviours)])
		switch {
		case i < 3:
			e = Reference(e, fmt.Sprintf("modele-%d", i))
		case i%10 == 9:
			e = SameKeyAs(e, out[i-1])
		}
		out = append(out, e)
	}
	return out
}
