// Package participant is the reference participant of the measurement
// chain's end-to-end test: the reference solver answers each task, of
// either track, through a live corpus server reached as Trust Layer's proxy
// reaches it, every call is recorded as a proof with the two hash openings
// a participant discloses (docs/contract.md, section 6; spec §4), and each task's answer is
// written as a submission.
//
// Relay plays Trust Layer: a GET of the exact canonical path with no query
// (params={}), the secret header, the body parsed as Python parses it, and
// request_hash and response_hash computed as docs/contract.md, section 1, states.
// The nonces are random: no signature, timestamp or anchoring is simulated,
// which is why a replay takes conditions 1 and 2 as input.
package participant

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/probe"
	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/solver"
)

// Proof is one relayed call: what Trust Layer anchors for it, and the body
// the participant read.
type Proof struct {
	ID         string
	Path       string
	Status     int
	Body       []byte
	Disclosure Disclosure
}

// Relay relays calls to a corpus server as Trust Layer does.
type Relay struct {
	Client *probe.Client
	// Secret is sent as X-Challenge-Secret; empty, the header is left out,
	// as a proxy that failed to add it would.
	Secret string
	// Origin is the corpus's public origin: request_data's target is
	// Origin + path, whatever address the server under test listens on.
	Origin string

	prefix string
	proofs []*Proof
	byPath map[string]*Proof
}

// NewRelay returns a relay whose proof ids start with prefix.
func NewRelay(client *probe.Client, secret, origin, prefix string) *Relay {
	return &Relay{Client: client, Secret: secret, Origin: origin, prefix: prefix, byPath: map[string]*Proof{}}
}

// Call relays a GET of a canonical path and records it as a proof.
func (r *Relay) Call(path string) (*Proof, error) {
	req := probe.Request{Method: http.MethodGet, Target: path}
	if r.Secret != "" {
		req.Header = [][2]string{{corpus.SecretHeader, r.Secret}}
	}
	resp, err := r.Client.Do(context.Background(), req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", path, err)
	}
	responseHash, err := anchor.ResponseHash(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("GET %s: the body is not JSON as Python reads it: %w", path, err)
	}
	p := &Proof{
		ID:     fmt.Sprintf("%s_%03d", r.prefix, len(r.proofs)+1),
		Path:   path,
		Status: resp.Status,
		Body:   resp.Body,
		Disclosure: Disclosure{
			RequestHash:  Opening{Nonce: nonce(), Value: anchor.RequestHash(r.Origin + path)},
			ResponseHash: Opening{Nonce: nonce(), Value: responseHash},
		},
	}
	r.proofs = append(r.proofs, p)
	if _, seen := r.byPath[path]; !seen {
		r.byPath[path] = p
	}
	return p, nil
}

// Fetch is the relay as the solver's Fetcher: the body of a 200 answer.
func (r *Relay) Fetch(path string) ([]byte, error) {
	p, err := r.Call(path)
	if err != nil {
		return nil, err
	}
	if p.Status != http.StatusOK {
		return nil, fmt.Errorf("GET %s: status %d", path, p.Status)
	}
	return p.Body, nil
}

// Proofs returns every call relayed so far, in order.
func (r *Relay) Proofs() []*Proof { return r.proofs }

func nonce() string {
	b := make([]byte, 32)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// Submission is a task's submission in the format of docs/contract.md, section 6 (spec §4).
type Submission struct {
	Season      int                   `json:"season"`
	Track       string                `json:"track"`
	TaskID      string                `json:"task_id"`
	AgentDID    string                `json:"agent_did"`
	Verdict     string                `json:"verdict"`
	Assertions  []Assertion           `json:"assertions"`
	Disclosures map[string]Disclosure `json:"disclosures"`
	Narrative   string                `json:"narrative"`
}

// Assertion is a claim, a (resource, JSON pointer, value) triple, and the
// proofs it cites.
type Assertion struct {
	ID       string      `json:"id"`
	Claim    season.Fact `json:"claim"`
	ProofIDs []string    `json:"proof_ids"`
}

// Disclosure opens a proof's two hash commitments.
type Disclosure struct {
	RequestHash  Opening `json:"request_hash"`
	ResponseHash Opening `json:"response_hash"`
}

// Opening is a committed value and its nonce.
type Opening struct {
	Nonce string `json:"nonce"`
	Value string `json:"value"`
}

// Answer walks one task through the relay with the reference solver and
// writes its submission. It asserts solver.FoundingClaims: the smallest
// set of facts that founds the key's formula, filled up to the task's
// minimum with facts outside it. The key chooses what founds, the chain
// supplies every value asserted, read from the body the relay brought
// back, with the proof of that call. The solver walks every criterion
// (solver.Derive), so that whichever alternative founds, its resources
// were called. The solver's verdict must be the key's.
func Answer(tasks *season.Tasks, task season.Task, key season.KeyTask, relay *Relay, agentDID string) (*Submission, error) {
	res, err := solver.Derive(task, relay.Fetch)
	if err != nil {
		return nil, err
	}
	if string(res.Verdict) != key.Verdict {
		return nil, fmt.Errorf("%s: the solver answers %s over HTTP, the key %s", task.ID, res.Verdict, key.Verdict)
	}
	seasonNumber, err := strconv.Atoi(tasks.Season)
	if err != nil {
		return nil, fmt.Errorf("saison %q is not an integer", tasks.Season)
	}
	claims, err := solver.FoundingClaims(task, key, relay.Fetch)
	if err != nil {
		return nil, err
	}
	sub := &Submission{
		Season: seasonNumber, Track: tasks.Track, TaskID: task.ID, AgentDID: agentDID, Verdict: string(res.Verdict),
		Disclosures: map[string]Disclosure{},
		Narrative:   fmt.Sprintf("Reference solver, %d calls.", len(res.Calls)),
	}
	for i, f := range claims {
		p, ok := relay.byPath[f.Resource]
		if !ok {
			return nil, fmt.Errorf("%s: the solver never called %s, which the key's fact %d rests on", task.ID, f.Resource, i)
		}
		doc, err := pyjson.Parse(p.Body)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Resource, err)
		}
		v, ok := pyjson.Lookup(doc, f.Field)
		if !ok {
			return nil, fmt.Errorf("%s: the body served has no value at %s", f.Resource, f.Field)
		}
		sub.Assertions = append(sub.Assertions, Assertion{
			ID:       fmt.Sprintf("a%d", i+1),
			Claim:    season.Fact{Resource: f.Resource, Field: f.Field, Value: pyjson.Canonical(v)},
			ProofIDs: []string{p.ID},
		})
		sub.Disclosures[p.ID] = p.Disclosure
	}
	return sub, nil
}
