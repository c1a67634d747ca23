package score

import (
	"fmt"
	"maps"
	"slices"

	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// outcomeMembers are the members of a proof's outcome.
var outcomeMembers = season.FieldsOf[proofs.Outcome]()

// ParseProofs reads the verifier's input, {"<proof_id>": {"valide",
// "en_attente", "agent_did", "request_hash", "response_hash"}}, as strictly
// as a submission: exact names, no duplicate or unknown key, every member
// given, each hash a SHA-256 in lowercase hex or "" (no disclosed nonce
// opens it). An empty agent_did says the identity block opens to no bound
// DID. file names it in errors.
func ParseProofs(file string, data []byte) (map[string]proofs.Outcome, error) {
	var outcomes map[string]proofs.Outcome
	if err := season.DecodeStrict(file, data, &outcomes); err != nil {
		return nil, err
	}
	if outcomes == nil {
		return nil, fmt.Errorf("%s (root): want an object keyed by proof_id", file)
	}
	// The typed decoding cannot tell a member left out from false or "".
	doc, err := pyjson.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	for _, m := range doc.(pyjson.Object) {
		at := pyjson.FormatPointer([]string{m.Key})
		if m.Key == "" {
			return nil, fmt.Errorf("%s %s: a proof_id is a non-empty string", file, pyjson.ShowPointer(at))
		}
		if err := outcomeMembers.Check(m.Value, at); err != nil {
			return nil, fmt.Errorf("%s %w", file, err)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(outcomes)) {
		p := outcomes[id]
		at := pyjson.FormatPointer([]string{id})
		switch {
		case p.RequestHash != "" && !anchor.IsSHA256(p.RequestHash):
			return nil, fmt.Errorf("%s %s/request_hash: want the opened value, a SHA-256 as 64 lowercase hex digits, or \"\" when no nonce opens it", file, at)
		case p.ResponseHash != "" && !anchor.IsSHA256(p.ResponseHash):
			return nil, fmt.Errorf("%s %s/response_hash: want the opened value, a SHA-256 as 64 lowercase hex digits, or \"\" when no nonce opens it", file, at)
		}
	}
	return outcomes, nil
}

// Citations are the proofs the submissions cite, each with its citing
// submission's DID and disclosure, in the submissions' order: what a
// verification of conditions 1 and 2 opens. A submission rejected at entry
// is scored on nothing, so its proofs are not among them.
func Citations(subs []Parsed) []proofs.Citation {
	var out []proofs.Citation
	for _, p := range subs {
		if p.Err != nil || p.Submission == nil {
			continue
		}
		for _, a := range p.Submission.Assertions {
			for _, id := range a.ProofIDs {
				d := p.Submission.Disclosures[id]
				out = append(out, proofs.Citation{ProofID: id, AgentDID: p.Submission.AgentDID, Disclosure: &d})
			}
		}
	}
	return out
}
