package proofs

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"

	"github.com/arkforge/proveit-corpus/manifest/pyjson"
)

// The fields every spec 3.1 proof commits (chain_data): the call's six,
// then the identity block, which the public view opens in "disclosed".
var (
	callFields     = []string{"request_hash", "response_hash", "transaction_id", "timestamp", "buyer_fingerprint", "seller"}
	identityFields = []string{"agent_identity", "agent_identity_verified", "did_resolution_status", "identity_consistent"}
)

// Window bounds the RFC 3161 time of the season's proofs, both ends
// included. A zero end leaves that side open.
type Window struct {
	Opening, Closing time.Time
}

// contains reports whether t lies within the window, bounds included.
func (w Window) contains(t time.Time) bool {
	return (w.Opening.IsZero() || !t.Before(w.Opening)) && (w.Closing.IsZero() || !t.After(w.Closing))
}

// Verifier verifies proofs against pinned trust material. Witnesses are
// checked once per batch root: a Verifier remembers each one's outcome.
type Verifier struct {
	Trust  *Trust
	Season Window

	witnessed map[witnessKey]witnessResult
}

// Input is one proof to verify.
type Input struct {
	View *View
	// Entry is the Rekor entry of the proof's batch, as Rekor answers
	// GET /api/v1/log/entries/{uuid}; nil: not supplied.
	Entry []byte
	// Disclosure is what the citing submission discloses; nil verifies the
	// view alone, with no pair to open.
	Disclosure *Disclosure
	// AgentDID is the citing submission's DID; "" with no submission.
	AgentDID string
}

// verification gathers one proof's failures as its checks run.
type verification struct {
	Result
}

func (v *verification) fail(c Check) {
	if !slices.Contains(v.Failures, c) {
		v.Failures = append(v.Failures, c)
	}
}

func (v *verification) incident(pointer string) { v.Incidents = append(v.Incidents, pointer) }

// Verify runs every check on one proof, in order, and returns its result.
// A check whose input is missing fails by its own name; later checks still
// run where they can, so that a report names everything that is wrong.
func (vr *Verifier) Verify(in Input) Result {
	view := in.View
	r := &verification{}
	receivable := specAtLeast31(view.SpecVersion)
	if !receivable {
		r.fail(CheckSpecVersion)
	}
	commitments := vr.checkCommitments(r, view)
	vr.checkIdentity(r, view, commitments, in.AgentDID, receivable)
	if in.Disclosure != nil {
		r.RequestHash = checkPair(r, "request_hash", in.Disclosure.RequestHash, commitments, view.Hashes.Request, CheckRequestPair)
		r.ResponseHash = checkPair(r, "response_hash", in.Disclosure.ResponseHash, commitments, view.Hashes.Response, CheckResponsePair)
	}
	chain, chainOK := decodeHex64(bareHex(view.Hashes.Chain))
	key, keyOK := vr.checkSignature(r, view, chain, chainOK)

	anchored, pending := checkBatch(r, view, chain, chainOK)
	signedAt, hasTime := parseIssued(view.Timestamp)
	if !pending && anchored != nil {
		w := vr.witness(view, anchored, in.Entry)
		for _, c := range w.failures {
			r.fail(c)
		}
		if w.tokenTime != nil {
			signedAt, hasTime = *w.tokenTime, true
		}
	}
	if keyOK && hasTime && retiredAt(key.Retired, signedAt) {
		r.fail(CheckKeyRetired)
	}
	slices.SortFunc(r.Failures, func(a, b Check) int { return slices.Index(Checks, a) - slices.Index(Checks, b) })
	r.Pending = pending && len(r.Failures) == 0
	r.Valid = !pending && len(r.Failures) == 0
	if r.Failures == nil {
		r.Failures = []Check{}
	}
	if r.Incidents == nil {
		r.Incidents = []string{}
	}
	return r.Result
}

// specAtLeast31 reports whether a spec_version is "3.1" or later.
func specAtLeast31(s string) bool {
	major, minor, ok := strings.Cut(s, ".")
	if !ok {
		return false
	}
	ma, err1 := strconv.Atoi(major)
	mi, err2 := strconv.Atoi(minor)
	if err1 != nil || err2 != nil || ma < 0 || mi < 0 {
		return false
	}
	return ma > 3 || ma == 3 && mi >= 1
}

// checkCommitments decodes every commitment, requires the fields a spec 3.1
// proof commits, and checks that their root is the chain hash. It returns
// the commitments it could decode.
func (vr *Verifier) checkCommitments(r *verification, view *View) map[string][]byte {
	commitments := make(map[string][]byte, len(view.Commitments))
	for field, c := range view.Commitments {
		b, ok := decodeHex64(bareHex(c))
		if !ok {
			r.fail(CheckCommitments)
			continue
		}
		commitments[field] = b
	}
	for _, fields := range [][]string{callFields, identityFields} {
		for _, f := range fields {
			if _, ok := commitments[f]; !ok {
				r.fail(CheckCommitments)
			}
		}
	}
	if len(commitments) == 0 {
		return commitments
	}
	chain, ok := decodeHex64(bareHex(view.Hashes.Chain))
	if !ok || len(commitments) != len(view.Commitments) || string(CommitmentsRoot(commitments)) != string(chain) {
		r.fail(CheckCommitmentsRoot)
	}
	return commitments
}

// checkIdentity opens the identity block and binds it: each field opens its
// commitment, the identity is verified and bound, and, for a submission, it
// is the submission's DID. The opened DID becomes the outcome's only when
// everything holds on a receivable proof.
func (vr *Verifier) checkIdentity(r *verification, view *View, commitments map[string][]byte, agentDID string, receivable bool) {
	opened := make(map[string]pyjson.Value, len(identityFields))
	for _, f := range identityFields {
		d, ok := view.Disclosed[f]
		if !ok || !opens(f, d.Nonce, d.Value, commitments[f]) {
			r.fail(CheckIdentityOpening)
			continue
		}
		opened[f] = d.Value
	}
	for _, f := range identityFields {
		value, ok := opened[f]
		flat, given := view.Flat[f]
		if ok && given && !pyjson.Equal(flat, value) {
			r.incident("/" + f)
		}
	}
	did, isString := opened["agent_identity"].(string)
	if len(opened) < len(identityFields) {
		return // not opened: identite_non_ouverte says why
	}
	if !isString || did == "" || opened["agent_identity_verified"] != true || opened["did_resolution_status"] != "bound" {
		r.fail(CheckIdentityUnbound)
		return
	}
	if agentDID != "" && did != agentDID {
		r.fail(CheckIdentityOtherDID)
	}
	if receivable {
		r.AgentDID = did
	}
}

// checkPair opens one hash commitment with the submission's pair and
// returns the opened value, "" when it opens nothing. The view's flat copy
// of that hash is compared, for an incident only.
func checkPair(r *verification, field string, o Opening, commitments map[string][]byte, flat string, c Check) string {
	if !isHex64(o.Value) || !opens(field, o.Nonce, o.Value, commitments[field]) {
		r.fail(c)
		return ""
	}
	if bareHex(flat) != o.Value {
		r.incident("/hashes/" + strings.TrimSuffix(field, "_hash"))
	}
	return o.Value
}

// checkSignature verifies ArkForge's Ed25519 signature over the 64 hex
// digits of the chain hash with the key of the pinned history the view
// names. It returns that key, for the retirement test.
func (vr *Verifier) checkSignature(r *verification, view *View, chain []byte, chainOK bool) (SigningKey, bool) {
	key, ok := vr.Trust.signingKey(view)
	if !ok {
		r.fail(CheckKeyUnknown)
		return key, false
	}
	raw, hasPrefix := strings.CutPrefix(view.Signature, "ed25519:")
	sig, err := base64.RawURLEncoding.DecodeString(raw)
	var message [2 * sha256.Size]byte // the chain hash's 64 hex digits
	if chainOK {
		hex.Encode(message[:], chain)
	}
	if !hasPrefix || err != nil || len(sig) != ed25519.SignatureSize || !chainOK ||
		!ed25519.Verify(key.Public, message[:], sig) {
		r.fail(CheckSignature)
	}
	return key, true
}

// checkBatch walks the audit path from the chain hash's leaf to the batch
// root, requiring the exact length RFC 6962 gives for (leaf_index,
// tree_size). It returns the hash the witnesses attest: the root, or the
// chain hash itself before spec 3.0, which had no batches; pending reports
// a batch not anchored yet.
func checkBatch(r *verification, view *View, chain []byte, chainOK bool) (anchored []byte, pending bool) {
	b := view.Batch
	if b == nil {
		if strings.HasPrefix(view.SpecVersion, "1.") || strings.HasPrefix(view.SpecVersion, "2.") {
			if chainOK {
				return chain, false
			}
			return nil, false
		}
		r.fail(CheckBatchPath)
		return nil, false
	}
	if b.Status != anchoredStatus {
		return nil, true
	}
	root, rootOK := decodeHex64(bareHex(b.Root))
	if !rootOK || b.LeafIndex == nil || b.TreeSize == nil || *b.LeafIndex < 0 || *b.LeafIndex >= *b.TreeSize {
		r.fail(CheckBatchPath)
		return root, false
	}
	path := make([][]byte, len(b.AuditPath))
	for i, h := range b.AuditPath {
		var ok bool
		if path[i], ok = decodeHex64(h); !ok {
			r.fail(CheckBatchPath)
			return root, false
		}
	}
	if !chainOK || proof.VerifyInclusion(rfc6962.DefaultHasher, uint64(*b.LeafIndex), uint64(*b.TreeSize),
		rfc6962.DefaultHasher.HashLeaf(chain), path, root) != nil {
		r.fail(CheckBatchPath)
	}
	return root, false
}

// parseIssued reads the view's issuer-asserted timestamp, used for a key's
// retirement only when no token dates the proof.
func parseIssued(s string) (time.Time, bool) {
	t, err := time.Parse("2006-01-02T15:04:05Z", s)
	return t, err == nil
}

// hexSum is the hex SHA-256 of b.
func hexSum(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
