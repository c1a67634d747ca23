package trustlayer

import (
	"encoding/json"
	"errors"
)

// The JSON a verifier reads. None of it is hashed (the hashed forms are
// written by package pyjson), so encoding/json writes it; members follow
// Trust Layer's get_public_proof, as in its real fixture proof_proveit_gel.json.

// Hashes is a proof's hashes, each "sha256:" + 64 hex.
type Hashes struct {
	Request  string `json:"request"`
	Response string `json:"response"`
	Chain    string `json:"chain"`
}

// Parties is who took part in a call (the owner's view only).
type Parties struct {
	BuyerFingerprint      string `json:"buyer_fingerprint"`
	Seller                string `json:"seller"`
	AgentIdentity         any    `json:"agent_identity"`
	AgentIdentityVerified any    `json:"agent_identity_verified"`
	DidResolutionStatus   any    `json:"did_resolution_status"`
	AgentVersion          any    `json:"agent_version"`
}

// Fee is certification_fee (the owner's view only).
type Fee struct {
	Method        string  `json:"method"`
	TransactionID string  `json:"transaction_id"`
	Amount        float64 `json:"amount"`
	Currency      string  `json:"currency"`
	Status        string  `json:"status"`
}

// BatchAnchor is batch_anchor: {"status":"pending"} until the batch closes.
type BatchAnchor struct {
	Status    string   `json:"status"`
	BatchID   string   `json:"batch_id"`
	LeafIndex int      `json:"leaf_index"`
	TreeSize  int      `json:"tree_size"`
	AuditPath []string `json:"audit_path"`
	Root      string   `json:"root"`
}

// MarshalJSON writes a pending anchor as Trust Layer does, its status alone.
func (b BatchAnchor) MarshalJSON() ([]byte, error) {
	if b.Status == "pending" {
		return []byte(`{"status":"pending"}`), nil
	}
	type plain BatchAnchor
	if b.AuditPath == nil {
		b.AuditPath = []string{} // a batch of one has the path [], never null
	}
	return json.Marshal(plain(b))
}

// TimestampAuthority is timestamp_authority.
type TimestampAuthority struct {
	Status    string `json:"status"`
	Provider  string `json:"provider,omitempty"`
	TSRURL    string `json:"tsr_url,omitempty"`
	TSRBase64 string `json:"tsr_base64,omitempty"`
	Anchored  string `json:"anchored,omitempty"`
}

// TransparencyLog is transparency_log, null until the batch closes.
type TransparencyLog struct {
	Provider       string `json:"provider"`
	Status         string `json:"status"`
	UUID           string `json:"uuid"`
	LogIndex       int64  `json:"log_index"`
	IntegratedTime int64  `json:"integrated_time"`
	LogURL         string `json:"log_url"`
	VerifyURL      string `json:"verify_url"`
	Anchored       string `json:"anchored"`
}

// Opening is a committed value and its nonce (64 hex).
type Opening struct {
	Nonce string `json:"nonce"`
	Value any    `json:"value"`
}

// View is the public view, GET /v1/proof/{id}.
type View struct {
	ProofID               string              `json:"proof_id"`
	IsDemo                bool                `json:"is_demo"`
	SpecVersion           string              `json:"spec_version"`
	Hashes                Hashes              `json:"hashes"`
	Commitments           map[string]string   `json:"commitments"`
	BatchAnchor           *BatchAnchor        `json:"batch_anchor"`
	TimestampAuthority    *TimestampAuthority `json:"timestamp_authority"`
	Timestamp             string              `json:"timestamp"`
	UpstreamTimestamp     *string             `json:"upstream_timestamp"`
	VerificationAlgorithm string              `json:"verification_algorithm"`
	ArkforgeSignature     string              `json:"arkforge_signature"`
	ArkforgePubkey        string              `json:"arkforge_pubkey"`
	IdentityConsistent    any                 `json:"identity_consistent"`
	ViewsCount            int                 `json:"views_count"`
	TransactionSuccess    bool                `json:"transaction_success"`
	UpstreamStatusCode    *int                `json:"upstream_status_code"`
	Disputed              any                 `json:"disputed"`
	DisputeID             any                 `json:"dispute_id"`
	TransparencyLog       *TransparencyLog    `json:"transparency_log"`
	AgentIdentity         any                 `json:"agent_identity"`
	AgentIdentityVerified any                 `json:"agent_identity_verified"`
	DidResolutionStatus   any                 `json:"did_resolution_status"`
	Seller                string              `json:"seller"`
	Disclosed             map[string]Opening  `json:"disclosed"`
	ProviderPayment       any                 `json:"provider_payment"`
	IntegrityVerified     bool                `json:"integrity_verified"`
}

// Full is the owner's view, GET /v1/proof/{id}/full: the public view with
// the parties, the fee and every nonce and committed value.
type Full struct {
	View
	Parties              Parties           `json:"parties"`
	CertificationFee     Fee               `json:"certification_fee"`
	BuyerReputationScore any               `json:"buyer_reputation_score"`
	BuyerProfileURL      any               `json:"buyer_profile_url"`
	CommitmentNonces     map[string]string `json:"commitment_nonces"`
	ChainData            map[string]any    `json:"chain_data"`
}

// Record is the proof POST /v1/proxy answers with: the stored record
// without its private members, as it stands at issuance (pending anchors,
// no disclosed block, no nonces).
type Record struct {
	ProofID               string              `json:"proof_id"`
	SpecVersion           string              `json:"spec_version"`
	VerificationURL       string              `json:"verification_url"`
	VerificationAlgorithm string              `json:"verification_algorithm"`
	Hashes                Hashes              `json:"hashes"`
	Commitments           map[string]string   `json:"commitments"`
	Parties               Parties             `json:"parties"`
	CertificationFee      Fee                 `json:"certification_fee"`
	Timestamp             string              `json:"timestamp"`
	TimestampAuthority    *TimestampAuthority `json:"timestamp_authority"`
	BatchAnchor           *BatchAnchor        `json:"batch_anchor"`
	IdentityConsistent    any                 `json:"identity_consistent"`
	TransactionSuccess    bool                `json:"transaction_success"`
	UpstreamStatusCode    *int                `json:"upstream_status_code,omitempty"`
	UpstreamTimestamp     string              `json:"upstream_timestamp,omitempty"`
	ArkforgeSignature     string              `json:"arkforge_signature"`
	ArkforgePubkey        string              `json:"arkforge_pubkey"`
	ArkforgeKid           string              `json:"arkforge_kid"`
}

// ErrNotFound is returned for an unknown proof id or Rekor uuid.
var ErrNotFound = errors.New("trustlayer: not found")

func (r *record) view() View {
	v := View{
		ProofID: string(r.id), SpecVersion: SpecVersion, Hashes: r.hashes, Commitments: r.commitments,
		BatchAnchor: r.batch, TimestampAuthority: r.tsa, Timestamp: r.timestamp,
		VerificationAlgorithm: VerificationAlgorithm, ArkforgeSignature: r.signature, ArkforgePubkey: r.pubkey,
		ViewsCount: r.views, TransactionSuccess: r.success, UpstreamStatusCode: r.statusCode,
		TransparencyLog: r.tlog, Seller: r.parties.Seller, Disclosed: map[string]Opening{},
		// The server checks its own record, nonces included, and it holds.
		IntegrityVerified: true,
	}
	if r.upstreamTS != "" {
		ts := r.upstreamTS
		v.UpstreamTimestamp = &ts
	}
	for _, f := range IdentityFields {
		v.Disclosed[f] = Opening{Nonce: r.nonces[f], Value: r.chainData[f]}
	}
	// The flat copies are the disclosed values, never a second source.
	v.AgentIdentity = r.chainData["agent_identity"]
	v.AgentIdentityVerified = r.chainData["agent_identity_verified"]
	v.DidResolutionStatus = r.chainData["did_resolution_status"]
	v.IdentityConsistent = r.chainData["identity_consistent"]
	return v
}

func (r *record) full() Full {
	return Full{View: r.view(), Parties: r.parties, CertificationFee: r.fee,
		CommitmentNonces: r.nonces, ChainData: r.chainData}
}

func (r *record) proxyRecord(baseURL string) Record {
	return Record{
		ProofID: string(r.id), SpecVersion: SpecVersion, VerificationURL: baseURL + "/v1/proof/" + string(r.id),
		VerificationAlgorithm: VerificationAlgorithm, Hashes: r.hashes, Commitments: r.commitments,
		Parties: r.parties, CertificationFee: r.fee, Timestamp: r.timestamp,
		TimestampAuthority: &TimestampAuthority{Status: "pending_batch", TSRURL: baseURL + "/v1/proof/" + string(r.id) + "/tsr"},
		BatchAnchor:        &BatchAnchor{Status: "pending"}, IdentityConsistent: r.chainData["identity_consistent"],
		TransactionSuccess: r.success, UpstreamStatusCode: r.statusCode, UpstreamTimestamp: r.upstreamTS,
		ArkforgeSignature: r.signature, ArkforgePubkey: r.pubkey, ArkforgeKid: r.kid,
	}
}

// View is proof id's public view, as GET /v1/proof/{id} writes it (without
// counting a view).
func (tl *TrustLayer) View(id ProofID) ([]byte, error) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	r, ok := tl.proofs[id]
	if !ok {
		return nil, ErrNotFound
	}
	return json.Marshal(r.view())
}

// Full is proof id's owner view, as GET /v1/proof/{id}/full writes it.
func (tl *TrustLayer) Full(id ProofID) ([]byte, error) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	r, ok := tl.proofs[id]
	if !ok {
		return nil, ErrNotFound
	}
	return json.Marshal(r.full())
}

// TSR is proof id's TimeStampResp (DER), once its batch is anchored.
func (tl *TrustLayer) TSR(id ProofID) ([]byte, error) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	r, ok := tl.proofs[id]
	if !ok || r.tsr == nil {
		return nil, ErrNotFound
	}
	return r.tsr, nil
}

// Pending is the number of proofs waiting for the next batch.
func (tl *TrustLayer) Pending() int {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return len(tl.pending)
}
