package seal

import (
	"fmt"

	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// Anchoring is the call through Trust Layer that anchored a record before
// its season opened (spec §8.5): a GET of the URL the record was served
// at, whose proof's owner discloses the request and response hashes.
type Anchoring struct {
	ProofID    string            `json:"proof_id"`
	RecordURL  string            `json:"record_url"`
	Disclosure proofs.Disclosure `json:"disclosure"`
}

// AnchoringFile is where a season's track folder keeps its record's
// anchoring, beside preenregistrement.json.
const AnchoringFile = "preenregistrement.ancrage.json"

// AnchoringLimit bounds an anchoring file: a few hundred bytes.
var AnchoringLimit = proofs.Limit{What: "a record's anchoring", Bytes: 16 << 10}

// DecodeAnchoring reads an anchoring file as strictly as a submission;
// name names it in errors.
func DecodeAnchoring(name string, data []byte) (Anchoring, error) {
	var a Anchoring
	if err := season.DecodeStrict(name, data, &a); err != nil {
		return a, err
	}
	if !proofs.ValidProofID(a.ProofID) {
		return a, fmt.Errorf("%s /proof_id: %w", name, &proofs.ProofIDError{ID: a.ProofID})
	}
	return a, nil
}

// AnchoringError says why a record's proof does not anchor it, one line
// a reason.
type AnchoringError struct {
	Record  string
	ProofID string
	Lines   []string
}

func (e *AnchoringError) Error() string {
	return fmt.Sprintf("%s: %s does not anchor it: %v", e.Record, e.ProofID, e.Lines)
}

// VerifyAnchoring checks that a's proof anchors the record whose bytes are
// data (named name): read from the views folder and verified against
// trust, it is valid, dated no later than the season's opening, and it
// opens to the hashes of the GET of a.RecordURL answered with these bytes.
// A proof that does not is an *AnchoringError naming each reason.
func (r Record) VerifyAnchoring(name string, data []byte, a Anchoring, trust *proofs.Trust, views string) error {
	wantResponse, err := anchor.ResponseHash(data)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	wantRequest := anchor.RequestHash(a.RecordURL)
	dates, err := r.Window()
	if err != nil {
		return fmt.Errorf("%s %w", name, err)
	}
	vr, err := proofs.NewVerifier(trust, proofs.WithAnchoredBefore(dates.Opening))
	if err != nil {
		return err
	}
	disclosure := a.Disclosure
	res := vr.VerifyFolder(views, []proofs.Citation{{ProofID: a.ProofID, Disclosure: &disclosure}})[a.ProofID]
	var lines []string
	switch {
	case res.Pending:
		lines = append(lines, a.ProofID+" is pending: its batch is not anchored yet")
	case !res.Valid:
		lines = append(lines, fmt.Sprintf("%s is not valid: %v", a.ProofID, res.Failures))
	}
	if res.RequestHash != wantRequest {
		lines = append(lines, fmt.Sprintf("%s opens request_hash %q, not %s, the GET of %s", a.ProofID, res.RequestHash, wantRequest, a.RecordURL))
	}
	if res.ResponseHash != wantResponse {
		lines = append(lines, fmt.Sprintf("%s opens response_hash %q, not %s, the hash of %s as Trust Layer hashes a served body", a.ProofID, res.ResponseHash, wantResponse, name))
	}
	if len(lines) > 0 {
		return &AnchoringError{Record: name, ProofID: a.ProofID, Lines: lines}
	}
	return nil
}
