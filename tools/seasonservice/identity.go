package seasonservice

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// identityClient asks Trust Layer who an API key is: GET /v1/keys/identity
// with the same X-Api-Key (Trust Layer 1.10.0 and later).
type identityClient struct {
	url     string
	timeout time.Duration
	client  *http.Client
}

// identityLimit bounds what is read of Trust Layer's answer: four members
// and a key's few past bindings.
const identityLimit = 64 << 10

// maxHistory bounds the past bindings taken from an answer.
const maxHistory = 256

func newIdentityClient(c TrustLayer) (*identityClient, error) {
	u, err := url.Parse(c.URL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, errors.New("seasonservice: the Trust Layer URL must be an absolute http or https origin")
	}
	ic := &identityClient{url: strings.TrimSuffix(c.URL, "/") + "/v1/keys/identity", timeout: c.Timeout, client: c.Client}
	if ic.timeout <= 0 {
		ic.timeout = 5 * time.Second
	}
	if ic.client == nil {
		ic.client = &http.Client{
			// A redirect would carry X-Api-Key to wherever it points: an
			// answer other than 200 or 401 is off-shape, never followed.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	return ic, nil
}

// keyIdentity is who a key is, as the enrollment keeps it.
type keyIdentity struct {
	// DID is the DID bound to the key, empty for none.
	DID string
	// History is the DIDs bound before, oldest first.
	History []string
}

// errUnknownKey is Trust Layer's 401: a missing or unknown key.
var errUnknownKey = errors.New("Trust Layer does not know the key")

// unavailableError is Trust Layer down, slow or answering off-shape. Its
// text says what happened, never the key.
type unavailableError struct{ reason string }

func (e *unavailableError) Error() string { return "Trust Layer unavailable: " + e.reason }

// identity asks who key is: errUnknownKey for Trust Layer's 401, an
// *unavailableError for anything else but a 200 of the exact shape.
func (c *identityClient) identity(ctx context.Context, key string) (keyIdentity, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	if err != nil {
		return keyIdentity{}, &unavailableError{"the request cannot be built"}
	}
	req.Header.Set("X-Api-Key", key)
	req.Header.Set("Accept", "application/json")
	resp, err := c.client.Do(req)
	if err != nil {
		// The error names the URL, which holds no key (the key is a header).
		return keyIdentity{}, &unavailableError{err.Error()}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, identityLimit+1))
	switch {
	case err != nil:
		return keyIdentity{}, &unavailableError{"reading the answer: " + err.Error()}
	case resp.StatusCode == http.StatusUnauthorized:
		return keyIdentity{}, errUnknownKey
	case resp.StatusCode != http.StatusOK:
		return keyIdentity{}, &unavailableError{fmt.Sprintf("status %d", resp.StatusCode)}
	case len(body) > identityLimit:
		return keyIdentity{}, &unavailableError{"an answer over 64 KiB"}
	}
	id, err := parseIdentity(body)
	if err != nil {
		return keyIdentity{}, &unavailableError{"off-shape answer: " + err.Error()}
	}
	return id, nil
}

// The members of GET /v1/keys/identity's answer and of each past binding.
var (
	identityMembers = season.Exactly("verified_did", "verified_did_method", "verified_did_bound_at", "verified_did_history")
	bindingMembers  = season.Exactly("did", "bound_at", "method", "unbound_at")
	bindingMethods  = []string{"challenge_response", "oatr_delegation"}
)

// parseIdentity reads Trust Layer's answer strictly: exactly its four
// members, read as Python reads JSON (no duplicate key); verified_did a
// DID with its method and binding time, or all three null; each past
// binding exactly {did, bound_at, method, unbound_at}.
func parseIdentity(body []byte) (keyIdentity, error) {
	doc, err := pyjson.Parse(body)
	if err != nil {
		return keyIdentity{}, err
	}
	if err := identityMembers.Check(doc, ""); err != nil {
		return keyIdentity{}, err
	}
	obj := doc.(pyjson.Object)
	get := func(name string) pyjson.Value { v, _ := obj.Get(name); return v }
	var id keyIdentity
	did, method, boundAt := get("verified_did"), get("verified_did_method"), get("verified_did_bound_at")
	switch {
	case did == nil && method == nil && boundAt == nil:
	case did == nil || method == nil || boundAt == nil:
		return keyIdentity{}, errors.New("verified_did, verified_did_method and verified_did_bound_at are all null or none")
	default:
		s, ok := did.(string)
		if !ok || !isDID(s) {
			return keyIdentity{}, errors.New("/verified_did: want a DID")
		}
		if m, ok := method.(string); !ok || !slices.Contains(bindingMethods, m) {
			return keyIdentity{}, errors.New("/verified_did_method: want challenge_response or oatr_delegation")
		}
		if _, ok := boundAt.(string); !ok {
			return keyIdentity{}, errors.New("/verified_did_bound_at: want a time")
		}
		id.DID = s
	}
	list, ok := get("verified_did_history").(pyjson.Array)
	if !ok {
		return keyIdentity{}, errors.New("/verified_did_history: want an array")
	}
	if len(list) > maxHistory {
		return keyIdentity{}, fmt.Errorf("/verified_did_history: over %d bindings", maxHistory)
	}
	type past struct {
		did     string
		boundAt time.Time
		dated   bool
	}
	history := make([]past, 0, len(list))
	for i, item := range list {
		at := fmt.Sprintf("/verified_did_history/%d", i)
		if err := bindingMembers.Check(item, at); err != nil {
			return keyIdentity{}, err
		}
		b := item.(pyjson.Object)
		v, _ := b.Get("did")
		s, ok := v.(string)
		if !ok || !isDID(s) {
			return keyIdentity{}, errors.New(at + "/did: want a DID")
		}
		p := past{did: s}
		v, _ = b.Get("bound_at")
		text, ok := v.(string)
		if !ok {
			return keyIdentity{}, errors.New(at + "/bound_at: want a time")
		}
		p.boundAt, err = time.Parse(time.RFC3339, text)
		p.dated = err == nil
		for _, name := range []string{"method", "unbound_at"} {
			if v, _ := b.Get(name); v != nil {
				if _, ok := v.(string); !ok {
					return keyIdentity{}, fmt.Errorf("%s/%s: want a string or null", at, name)
				}
			}
		}
		history = append(history, p)
	}
	// Oldest first: by binding time when every one reads as a time, else
	// in Trust Layer's order.
	if !slices.ContainsFunc(history, func(p past) bool { return !p.dated }) {
		slices.SortStableFunc(history, func(a, b past) int { return a.boundAt.Compare(b.boundAt) })
	}
	for _, p := range history {
		id.History = append(id.History, p.did)
	}
	return id, nil
}

// isDID is the store's and the Index's rule for a DID: did:..., at most
// 256 characters, printable.
func isDID(s string) bool {
	return len(s) <= 256 && strings.HasPrefix(s, "did:") && printable(s)
}

// printable is valid UTF-8, not empty, with no control character: the
// Index's rule for text it shows as given.
func printable(s string) bool {
	if s == "" || !utf8.ValidString(s) {
		return false
	}
	return strings.IndexFunc(s, unicode.IsControl) < 0
}
