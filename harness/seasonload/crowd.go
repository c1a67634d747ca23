package seasonload

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	mathrand "math/rand/v2"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/harness/participant"
	"github.com/arkforge/proveit-corpus/harness/trustlayer"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// TrustLayer is the Trust Layer stand-in on a loopback port: enrollment
// asks it who a key is (GET /v1/keys/identity).
type TrustLayer struct {
	*trustlayer.TrustLayer
	URL    string
	server *httptest.Server
}

// StartTrustLayer starts the stand-in on a loopback port.
func StartTrustLayer() (*TrustLayer, error) {
	tl, err := trustlayer.New(trustlayer.Options{})
	if err != nil {
		return nil, err
	}
	server := httptest.NewServer(tl.Handler())
	return &TrustLayer{TrustLayer: tl, URL: server.URL, server: server}, nil
}

// Close stops the stand-in.
func (tl *TrustLayer) Close() { tl.server.Close() }

// Entrant is one participant of a crowd: its Trust Layer key, the did:key
// bound to it, and the service's answer to its enrollment (id, token).
type Entrant struct {
	Key, DID string
	*participant.Enrollment
}

// Agent, stack and proofs link every entrant enrolls with.
const (
	agentName  = "charge-seasonload"
	stackName  = "harness/seasonload"
	proofsLink = "https://example.org/seasonload"
)

// Enroll enrolls n new participants on track through the service, conns
// at a time: each a key the stand-in knows, bound by challenge to a fresh
// did:key, then POST /v1/season/{n}/enroll. The first refusal or error
// ends it.
func Enroll(tl *TrustLayer, client *participant.Season, track string, n, conns int) ([]Entrant, error) {
	prefix := make([]byte, 6)
	if _, err := rand.Read(prefix); err != nil {
		return nil, err
	}
	entrants := make([]Entrant, n)
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, min(conns, n)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				e := &entrants[i]
				e.Key = fmt.Sprintf("mcp_load_%s_%06d", hex.EncodeToString(prefix), i)
				e.DID, _ = trustlayer.NewDIDKey()
				tl.RegisterKey(e.Key)
				if errs[i] = tl.BindDID(e.Key, e.DID, trustlayer.MethodChallenge); errs[i] != nil {
					continue
				}
				e.Enrollment, errs[i] = client.Enroll(e.Key, track, agentName, stackName, proofsLink)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("enrollment %d of %d: %w", i+1, n, err)
		}
	}
	return entrants, nil
}

// Track is the track a crowd submits on: the conformity track, whose
// verdict Body writes.
var Track = corpus.Conformity

// Tasks are a track's task ids, in the order of its statements.
func Tasks(track *corpus.Track) ([]string, error) {
	name, data := season.EmbeddedTasks(track)
	tasks, err := season.DecodeTasks(name, data)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, t := range tasks.Tasks {
		ids = append(ids, t.ID)
	}
	return ids, nil
}

// Body is a submission of task by did on the conformity track that the
// replay's entry check admits (one assertion citing one proof, its
// disclosure), with a narrative of narrative bytes: a real submission's
// few KiB. Its bytes depend on did, task and narrative only.
func Body(did, task string, narrative int) []byte {
	text := strings.Repeat("Releve de l'agent pour "+task+". ", narrative/30+1)[:narrative]
	b, err := json.Marshal(map[string]any{
		"season":    Number,
		"track":     Track.Name,
		"task_id":   task,
		"agent_did": did,
		"verdict":   "conforme",
		"assertions": []any{map[string]any{
			"id":        "a1",
			"claim":     map[string]any{"resource": "/agrements/AGR-4417", "field": "/statut", "value": "actif"},
			"proof_ids": []string{"prf_1"},
		}},
		"disclosures": map[string]any{"prf_1": map[string]any{
			"request_hash":  map[string]string{"nonce": "0", "value": "1"},
			"response_hash": map[string]string{"nonce": "2", "value": "3"},
		}},
		"narrative": text,
	})
	if err != nil {
		panic(err) // fixed shapes of strings: never
	}
	return b
}

// Submission is one submission to hand in: whose, for which task, its
// exact bytes.
type Submission struct {
	Entrant *Entrant
	Task    string
	Body    []byte
}

// Deadline is every entrant's submission of every task, in an order
// shuffled with seed: what a crowd hands in before a close.
func Deadline(entrants []Entrant, tasks []string, narrative int, seed uint64) []Submission {
	var subs []Submission
	for i := range entrants {
		e := &entrants[i]
		for _, task := range tasks {
			subs = append(subs, Submission{Entrant: e, Task: task, Body: Body(e.DID, task, narrative)})
		}
	}
	r := mathrand.New(mathrand.NewPCG(seed, seed^0x5eed))
	r.Shuffle(len(subs), func(i, j int) { subs[i], subs[j] = subs[j], subs[i] })
	return subs
}
