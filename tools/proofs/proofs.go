// Package proofs verifies Trust Layer's proofs offline, from what any reader
// of the Index holds: the public view of a proof, the Rekor entry of its
// batch, the two hash openings a submission discloses, and trust material
// pinned in the repository (trust/, with its provenance). It establishes
// conditions 1 and 2 of a supported assertion (docs/scoring.md, "Verifying
// proofs"; spec §4.1): each check of a spec 3.1 proof, in order, each
// failure named by a stable identifier, and the flat fields that differ from
// their opened values reported as Trust Layer incidents, never used.
//
// The views and entries are read from a views folder (folder.go), which
// package fetch fills from Trust Layer and Rekor.
package proofs

import (
	"fmt"
	"slices"
)

// Check names one check of a proof's verification, as reports write it.
// The identifiers are stable: a report read by a program keys on them.
type Check string

// The checks, in the order they are made (docs/scoring.md lists what each
// one establishes).
const (
	// The proof exists: the views folder holds its public view.
	CheckViewMissing Check = "vue_absente"
	// The view can be read: a regular file within the folder, of a public
	// view's size and shape.
	CheckViewUnreadable Check = "vue_illisible"
	// Condition 2 first: an identity below spec 3.1 is not receivable.
	CheckSpecVersion Check = "version_spec"
	// The commitments and their root, the chain hash.
	CheckCommitments     Check = "engagements_incomplets"
	CheckCommitmentsRoot Check = "racine_engagements"
	// The identity block the view opens in "disclosed".
	CheckIdentityOpening  Check = "identite_non_ouverte"
	CheckIdentityUnbound  Check = "identite_non_liee"
	CheckIdentityOtherDID Check = "identite_autre_did"
	// The pairs the submission discloses.
	CheckRequestPair  Check = "paire_request_hash"
	CheckResponsePair Check = "paire_response_hash"
	// ArkForge's signature over the chain hash.
	CheckSignature  Check = "signature"
	CheckKeyUnknown Check = "cle_hors_historique"
	CheckKeyRetired Check = "cle_retiree"
	// The batch's audit path.
	CheckBatchPath Check = "lot_chemin"
	// The RFC 3161 token over the anchored root.
	CheckToken          Check = "jeton_tsa"
	CheckTokenImprint   Check = "jeton_tsa_empreinte"
	CheckTokenSigner    Check = "jeton_tsa_signataire"
	CheckTokenOutOfTime Check = "jeton_tsa_hors_saison"
	// The Rekor entry over the anchored root.
	CheckRekorMissing      Check = "rekor_non_fourni"
	CheckRekorUnverifiable Check = "rekor_inverifiable"
	CheckRekorKind         Check = "rekor_type"
	CheckRekorImprint      Check = "rekor_empreinte"
	CheckRekorSigner       Check = "rekor_signataire"
	CheckRekorSET          Check = "rekor_set"
	CheckRekorInclusion    Check = "rekor_inclusion"
	CheckRekorCheckpoint   Check = "rekor_checkpoint"
	CheckRekorCoordinates  Check = "rekor_coordonnees"
)

// Checks lists every check in the order a verification makes them, which
// is the order a result names its failures in.
var Checks = []Check{
	CheckViewMissing, CheckViewUnreadable, CheckSpecVersion, CheckCommitments, CheckCommitmentsRoot,
	CheckIdentityOpening, CheckIdentityUnbound, CheckIdentityOtherDID,
	CheckRequestPair, CheckResponsePair,
	CheckSignature, CheckKeyUnknown, CheckKeyRetired,
	CheckBatchPath,
	CheckToken, CheckTokenImprint, CheckTokenSigner, CheckTokenOutOfTime,
	CheckRekorMissing, CheckRekorUnverifiable, CheckRekorKind, CheckRekorImprint, CheckRekorSigner,
	CheckRekorSET, CheckRekorInclusion, CheckRekorCheckpoint, CheckRekorCoordinates,
}

// Outcome is what a verification established for one proof: the
// verifier's input of docs/contract.md, section 7, which the replay reads.
type Outcome struct {
	// Valid: every check passed, the batch is anchored and witnessed.
	Valid bool `json:"valide"`
	// Pending: the batch is not anchored yet and nothing else failed; the
	// proof is neither valid nor invalid.
	Pending bool `json:"en_attente"`
	// AgentDID is the DID the identity block opens to, verified and bound;
	// "" when it opens to none (or below spec 3.1, where it is not
	// receivable).
	AgentDID string `json:"agent_did"`
	// RequestHash and ResponseHash are the values the disclosed nonces
	// open the commitments to; "" when no disclosure opens them.
	RequestHash  string `json:"request_hash"`
	ResponseHash string `json:"response_hash"`
}

// Result is a proof's outcome with what a reader needs to act on it: the
// checks that failed, in order, why each failed, and the Trust Layer
// incidents, the JSON pointers of the view's flat fields that differ from
// their opened values.
type Result struct {
	Outcome
	Failures []Check `json:"echecs"`
	// Details says why each failed check failed, in printable text: the
	// error of the library that refused it, or the rule the input broke.
	// Err gives the errors themselves.
	Details   map[Check]string `json:"details,omitempty"`
	Incidents []string         `json:"incidents"`

	errs map[Check]*CheckError
}

// Disclosure is what a submission discloses for one proof: the openings of
// its request_hash and response_hash commitments (spec §4).
type Disclosure struct {
	RequestHash  Opening `json:"request_hash"`
	ResponseHash Opening `json:"response_hash"`
}

// Opening is a committed hash and its nonce, both as 64 hex digits when
// well formed.
type Opening struct {
	Nonce string `json:"nonce"`
	Value string `json:"value"`
}

// signerUnknown are the checks that fail when the trust material does not
// know who signed: ArkForge's key, the TSA's certificate, the Rekor key.
var signerUnknown = []Check{CheckKeyUnknown, CheckTokenSigner, CheckRekorSigner}

// TrustFailed reports whether the trust material, rather than the proofs,
// failed: proofs were verified, none is valid, and each failed because its
// signer is unknown to the material. Verifying a season against the wrong
// keys gives exactly this; a reader is told so, never shown every
// participant's proofs as invalid.
func TrustFailed(results map[string]Result) bool {
	if len(results) == 0 {
		return false
	}
	for _, r := range results {
		if r.Valid || r.Pending || !slices.ContainsFunc(r.Failures, func(c Check) bool { return slices.Contains(signerUnknown, c) }) {
			return false
		}
	}
	return true
}

// UntrustedError says the trust material, not the proofs, failed
// (TrustFailed), naming the material.
type UntrustedError struct {
	Trust  string // "the pinned trust material", or the folder a flag named
	Proofs int
}

func (e *UntrustedError) Error() string {
	return fmt.Sprintf("none of the %d cited proofs verifies against %s: each is signed by a key, TSA or Rekor log it does not know; name the trust material the proofs were issued under with -trust", e.Proofs, e.Trust)
}

// Name names trust material in a message: the pinned one, or its folder.
func (t *Trust) Name() string {
	if t.Pinned {
		return "the pinned trust material (tools/proofs/trust)"
	}
	return "the trust folder " + t.dir
}
