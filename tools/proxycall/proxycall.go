// Package proxycall makes a call through Trust Layer's proxy as the
// challenge's operator and its participants make it: POST /v1/proxy for a
// GET of a target URL, then the proof's full record (GET
// /v1/proof/{id}/full, which only the key that paid for it may read) for
// the two openings its owner discloses, request_hash and response_hash.
// It also reads Trust Layer's key history (GET /v1/pubkey), which the
// operator holds the pinned trust material to.
//
// Trust Layer's answers are hostile input like any other: each is bounded
// in size and time, read strictly, and held to what the call was: the
// proof's request_hash must be the target's, and its response_hash must
// open to the body Trust Layer relayed. Redirects are never followed, so
// that the key goes nowhere but the origin given, and no error quotes it.
package proxycall

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/arkforge/proveit-corpus/internal/printable"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/proofs"
)

// AttestationKey is the member Trust Layer adds to a successful JSON
// object it relays, after hashing the body: not part of what was served.
const AttestationKey = "_arkforge_attestation"

// Headers of Trust Layer's proxy.
const (
	APIKeyHeader        = "X-Api-Key"
	AgentIdentityHeader = "X-Agent-Identity"
)

// answerLimit bounds one answer of Trust Layer: a relayed corpus resource
// is a few KiB, a season's file a few MiB.
const answerLimit = 16 << 20

// DefaultTimeout bounds one request to Trust Layer when the Client's HTTP
// client is not given.
const DefaultTimeout = 30 * time.Second

// Client calls through Trust Layer with one key.
type Client struct {
	// URL is Trust Layer's origin, such as https://trust.arkforge.tech.
	URL string
	// APIKey pays for the proofs and opens their full records.
	APIKey string
	// AgentDID, when set, is sent as X-Agent-Identity; a key bound to a
	// DID has Trust Layer write that one instead.
	AgentDID string
	// HTTP makes the requests; nil, a client of DefaultTimeout that never
	// follows a redirect. One given should not follow redirects either.
	HTTP *http.Client
}

// Call is one GET made through the proxy: its proof, what the target
// answered, and the openings its owner discloses.
type Call struct {
	ProofID string
	Target  string
	Status  int
	// Body is what the target served, in canonical form (the attestation
	// Trust Layer adds removed): the bytes whose hash the proof anchors.
	Body       []byte
	Disclosure proofs.Disclosure
}

// Get has Trust Layer GET target and returns the call, its proof checked
// against it.
func (c *Client) Get(ctx context.Context, target string) (*Call, error) {
	if u, err := url.Parse(target); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("proxycall: %q is not an absolute http or https URL", target)
	}
	request, err := json.Marshal(map[string]any{"target": target, "method": http.MethodGet,
		"payload": map[string]any{}, "amount": 0.0, "currency": "eur"})
	if err != nil {
		return nil, err
	}
	var relayed struct {
		Proof struct {
			ProofID string `json:"proof_id"`
		} `json:"proof"`
		ServiceResponse struct {
			StatusCode int             `json:"status_code"`
			Body       json.RawMessage `json:"body"`
		} `json:"service_response"`
	}
	if err := c.Do(ctx, http.MethodPost, "/v1/proxy", request, &relayed); err != nil {
		return nil, fmt.Errorf("GET %s through Trust Layer: %w", target, err)
	}
	id := relayed.Proof.ProofID
	if !proofs.ValidProofID(id) {
		return nil, fmt.Errorf("GET %s through Trust Layer: %w", target, &proofs.ProofIDError{ID: id})
	}
	var full struct {
		CommitmentNonces map[string]string `json:"commitment_nonces"`
		ChainData        map[string]any    `json:"chain_data"`
	}
	if err := c.Do(ctx, http.MethodGet, "/v1/proof/"+id+"/full", nil, &full); err != nil {
		return nil, fmt.Errorf("GET %s: the full record of %s: %w", target, id, err)
	}
	opening := func(field string) (proofs.Opening, error) {
		value, _ := full.ChainData[field].(string)
		nonce := full.CommitmentNonces[field]
		if !anchor.IsSHA256(value) || !anchor.IsSHA256(nonce) {
			return proofs.Opening{}, fmt.Errorf("GET %s: proof %s has no opening of %s", target, id, field)
		}
		return proofs.Opening{Nonce: nonce, Value: value}, nil
	}
	requestHash, err := opening("request_hash")
	if err != nil {
		return nil, err
	}
	responseHash, err := opening("response_hash")
	if err != nil {
		return nil, err
	}
	// A proof of another call would be cited as this one's.
	if want := anchor.RequestHash(target); requestHash.Value != want {
		return nil, fmt.Errorf("GET %s: proof %s anchors the request_hash %s, not the target's %s", target, id, requestHash.Value, want)
	}
	body, err := ServedBody(relayed.ServiceResponse.Body)
	if err != nil {
		return nil, fmt.Errorf("GET %s: proof %s: %w", target, id, err)
	}
	if want, err := anchor.ResponseHash(body); err != nil || responseHash.Value != want {
		return nil, fmt.Errorf("GET %s: proof %s anchors the response_hash %s, not the relayed body's", target, id, responseHash.Value)
	}
	return &Call{ProofID: id, Target: target, Status: relayed.ServiceResponse.StatusCode, Body: body,
		Disclosure: proofs.Disclosure{RequestHash: requestHash, ResponseHash: responseHash}}, nil
}

// KeyHistory is Trust Layer's key history as GET /v1/pubkey answers it
// (no key needed): the raw JSON, for the trust material to be held to
// (proofs.Trust.CompareKeyHistory).
func (c *Client) KeyHistory(ctx context.Context) ([]byte, error) {
	var raw json.RawMessage
	if err := c.Do(ctx, http.MethodGet, "/v1/pubkey", nil, &raw); err != nil {
		return nil, err
	}
	return raw, nil
}

// ServedBody is the body Trust Layer relayed without the attestation it
// adds to a successful object after hashing it, in canonical form: the
// values the target served, whose canonical form is the one anchored.
func ServedBody(relayed []byte) ([]byte, error) {
	doc, err := pyjson.Parse(relayed)
	if err != nil {
		return nil, fmt.Errorf("the relayed body: %w", err)
	}
	if obj, ok := doc.(pyjson.Object); ok {
		kept := make(pyjson.Object, 0, len(obj))
		for _, m := range obj {
			if m.Key != AttestationKey {
				kept = append(kept, m)
			}
		}
		doc = kept
	}
	return pyjson.Canonical(doc), nil
}

// StatusError is an answer of Trust Layer other than 200.
type StatusError struct {
	Method, Path string
	Status       int
	// Body is the start of the answer, printable.
	Body string
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("%s %s: status %d: %s", e.Method, e.Path, e.Status, e.Body)
}

// Do sends one request to Trust Layer, path on its origin, with the
// client's key and DID when it has them and body as JSON when there is
// one, and decodes its 200 answer, at most 16 MiB, into out; any other
// status is a *StatusError. The proxy, the proofs and the key history go
// through it, as do a key's sign-up and its DID's binding.
func (c *Client) Do(ctx context.Context, method, path string, body []byte, out any) error {
	client := c.HTTP
	if client == nil {
		client = &http.Client{Timeout: DefaultTimeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(c.URL, "/")+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	if c.APIKey != "" {
		req.Header.Set(APIKeyHeader, c.APIKey)
	}
	if c.AgentDID != "" {
		req.Header.Set(AgentIdentityHeader, c.AgentDID)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := client.Do(req)
	if err != nil {
		var u *url.Error
		if errors.As(err, &u) {
			err = u.Err // the URL is the caller's; its error alone
		}
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, answerLimit+1))
	if err != nil {
		return err
	}
	if len(data) > answerLimit {
		return fmt.Errorf("%s %s: an answer over %d bytes", method, path, answerLimit)
	}
	if resp.StatusCode != http.StatusOK {
		return &StatusError{Method: method, Path: path, Status: resp.StatusCode, Body: printable.String(string(data[:min(len(data), 200)]))}
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s %s: the answer is not the JSON expected: %w", method, path, err)
	}
	return nil
}
