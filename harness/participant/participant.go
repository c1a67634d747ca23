// Package participant is the reference participant of the measurement
// chain's end-to-end test: the reference solver answers each task, of
// either track, through a live corpus server reached as Trust Layer's proxy
// reaches it, every call is recorded as a proof with the two hash openings
// a participant discloses (docs/contract.md, section 6; spec §4), and each task's answer is
// written as a submission.
//
// A Relay works in one of two modes. Direct (NewRelay), it plays Trust
// Layer itself: a GET of the exact canonical path with no query
// (params={}), the secret header, the body parsed as Python parses it, and
// request_hash and response_hash computed as docs/contract.md, section 1,
// states; the nonces are random and nothing is signed, timestamped or
// anchored, which is why a replay then takes conditions 1 and 2 as input.
// Proxied (NewProxiedRelay), it goes through Trust Layer, or the stand-in of
// package harness/trustlayer, as a participant does: POST /v1/proxy, then
// GET /v1/proof/{id}/full for the nonces of the two openings it discloses,
// so that every proof is a real spec 3.1 proof a verifier can check.
package participant

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/probe"
	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/proxycall"
	"github.com/arkforge/proveit-corpus/tools/score"
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
	Disclosure proofs.Disclosure
}

// Relay relays calls to a corpus server as Trust Layer does, or through it.
type Relay struct {
	// Client reaches the corpus server in direct mode.
	Client *probe.Client
	// Secret is sent as X-Challenge-Secret; empty, the header is left out,
	// as a proxy that failed to add it would.
	Secret string
	// Origin is the corpus's public origin: request_data's target is
	// Origin + path, whatever address the server under test listens on.
	Origin string
	// TrustLayer, when set, is where every call goes (proxied mode);
	// Client and Secret are then unused.
	TrustLayer *TrustLayer

	prefix string
	proofs []*Proof
	byPath map[string]*Proof
}

// NewRelay returns a relay whose proof ids start with prefix.
func NewRelay(client *probe.Client, secret, origin, prefix string) *Relay {
	return &Relay{Client: client, Secret: secret, Origin: origin, prefix: prefix, byPath: map[string]*Proof{}}
}

// TrustLayer is how a proxied relay reaches Trust Layer.
type TrustLayer struct {
	// URL is Trust Layer's base URL, e.g. https://trust.arkforge.tech.
	URL string
	// APIKey pays for the proofs (sent as X-Api-Key) and opens their full
	// records.
	APIKey string
	// AgentDID is the participant's DID, sent as X-Agent-Identity: the
	// identity the proofs commit to.
	AgentDID string
	// HTTP is the client; nil, one with a 30 s timeout.
	HTTP *http.Client
}

// NewProxiedRelay returns a relay whose calls go through Trust Layer; the
// proof ids are Trust Layer's.
func NewProxiedRelay(tl *TrustLayer, origin string) *Relay {
	return &Relay{TrustLayer: tl, Origin: origin, byPath: map[string]*Proof{}}
}

// Call relays a GET of a canonical path and records it as a proof.
func (r *Relay) Call(path string) (*Proof, error) {
	var p *Proof
	var err error
	if r.TrustLayer != nil {
		p, err = r.callProxied(path)
	} else {
		p, err = r.callDirect(path)
	}
	if err != nil {
		return nil, err
	}
	r.proofs = append(r.proofs, p)
	if _, seen := r.byPath[path]; !seen {
		r.byPath[path] = p
	}
	return p, nil
}

func (r *Relay) callDirect(path string) (*Proof, error) {
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
		Disclosure: proofs.Disclosure{
			RequestHash:  proofs.Opening{Nonce: nonce(), Value: anchor.RequestHash(r.Origin + path)},
			ResponseHash: proofs.Opening{Nonce: nonce(), Value: responseHash},
		},
	}
	return p, nil
}

// callProxied has Trust Layer relay the GET and reads the proof's
// openings, as a participant's client does (tools/proxycall).
func (r *Relay) callProxied(path string) (*Proof, error) {
	call, err := r.TrustLayer.client().Get(context.Background(), r.Origin+path)
	if err != nil {
		return nil, err
	}
	return &Proof{ID: call.ProofID, Path: path, Status: call.Status, Body: call.Body, Disclosure: call.Disclosure}, nil
}

// do sends one request to Trust Layer with the API key and the DID, and
// decodes its JSON answer into out, as a participant's client does.
func (tl *TrustLayer) do(method, path string, body []byte, out any) error {
	return tl.client().Do(context.Background(), method, path, body, out)
}

// client is the participant's client of Trust Layer (tools/proxycall),
// with this key, DID and HTTP client.
func (tl *TrustLayer) client() *proxycall.Client {
	return &proxycall.Client{URL: tl.URL, APIKey: tl.APIKey, AgentDID: tl.AgentDID, HTTP: tl.HTTP}
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

// Answer walks one task through the relay with the reference solver and
// writes its submission. It asserts solver.FoundingClaims: the smallest
// set of facts that founds the key's formula, filled up to the task's
// minimum with facts outside it. The key chooses what founds, the chain
// supplies every value asserted, read from the body the relay brought
// back, with the proof of that call. The solver walks every criterion
// (solver.Derive), so that whichever alternative founds, its resources
// were called. The solver's verdict must be the key's.
func Answer(tasks *season.Tasks, task season.Task, key season.KeyTask, relay *Relay, agentDID string) (*score.Submission, error) {
	if relay.TrustLayer != nil && relay.TrustLayer.AgentDID != agentDID {
		return nil, fmt.Errorf("%s: the proofs commit to %q, the submission would name %q", task.ID, relay.TrustLayer.AgentDID, agentDID)
	}
	res, err := solver.Derive(task, relay.Fetch)
	if err != nil {
		return nil, err
	}
	if string(res.Verdict) != key.Verdict {
		return nil, fmt.Errorf("%s: the solver answers %s over HTTP, the key %s", task.ID, res.Verdict, key.Verdict)
	}
	if _, err := strconv.Atoi(tasks.Season); err != nil {
		return nil, fmt.Errorf("saison %q is not an integer", tasks.Season)
	}
	claims, err := solver.FoundingClaims(task, key, relay.Fetch)
	if err != nil {
		return nil, err
	}
	sub := &score.Submission{
		Season: json.Number(tasks.Season), Track: tasks.Track, TaskID: task.ID, AgentDID: agentDID, Verdict: string(res.Verdict),
		Disclosures: map[string]proofs.Disclosure{},
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
		sub.Assertions = append(sub.Assertions, score.Assertion{
			ID:       fmt.Sprintf("a%d", i+1),
			Claim:    season.Fact{Resource: f.Resource, Field: f.Field, Value: pyjson.Canonical(v)},
			ProofIDs: []string{p.ID},
		})
		sub.Disclosures[p.ID] = p.Disclosure
	}
	return sub, nil
}
