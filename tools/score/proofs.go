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
