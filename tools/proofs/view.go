package proofs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Bounds on what a view or an entry may hold: they are untrusted input, read
// whole into memory, so each is refused past a size no real one approaches.
const (
	// MaxViewSize bounds a public view's file (a real one is about 6 KiB).
	MaxViewSize = 1 << 20
	// MaxEntrySize bounds a Rekor entry's file (a real one is about 5 KiB).
	MaxEntrySize = 1 << 20
	// MaxPathLength bounds an audit path or an inclusion proof: 64 hashes
	// cover any tree a 64-bit index can address.
	MaxPathLength = 64
	// MaxTokenSize bounds a decoded RFC 3161 response (FreeTSA's is 941 bytes).
	MaxTokenSize = 64 << 10
)

// hex64 is a SHA-256 as Trust Layer writes it bare: 64 lowercase hex digits.
var hex64 = regexp.MustCompile(`^[0-9a-f]{64}$`)

// proofID is the grammar of Trust Layer's proof ids, which name files here.
var proofID = regexp.MustCompile(`^prf_[0-9]{8}_[0-9]{6}_[0-9a-f]{6}$`)

// ValidProofID reports whether id is a proof id as Trust Layer writes them,
// and so safe as a file name.
func ValidProofID(id string) bool { return proofID.MatchString(id) }

// rekorUUID is a Rekor entry's uuid: the tree id (16 hex) and the leaf hash
// (64 hex).
var rekorUUID = regexp.MustCompile(`^[0-9a-f]{80}$`)

// ValidRekorUUID reports whether uuid names a Rekor entry, and so is safe as
// a file name; the "_already_exists" placeholder Trust Layer may store is not.
func ValidRekorUUID(uuid string) bool { return rekorUUID.MatchString(uuid) }

// View is the public view of a proof, as GET /v1/proof/{id} serves it
// (docs/scoring.md, "Verifying proofs"). Only the members a verifier reads
// are declared; the others are left unread.
type View struct {
	ProofID     string                  `json:"proof_id"`
	SpecVersion string                  `json:"spec_version"`
	Hashes      ViewHashes              `json:"hashes"`
	Commitments map[string]string       `json:"commitments"`
	Disclosed   map[string]FieldOpening `json:"disclosed"`
	Timestamp   string                  `json:"timestamp"`
	Signature   string                  `json:"arkforge_signature"`
	PublicKey   string                  `json:"arkforge_pubkey"`
	KeyID       string                  `json:"arkforge_kid"`
	Batch       *BatchAnchor            `json:"batch_anchor"`
	TSA         *TimestampAuthority     `json:"timestamp_authority"`
	Log         *TransparencyLog        `json:"transparency_log"`

	// The flat copies of the identity block: informative, used for
	// nothing but an incident when they differ from the opened values.
	AgentIdentity         json.RawMessage `json:"agent_identity"`
	AgentIdentityVerified json.RawMessage `json:"agent_identity_verified"`
	DIDResolutionStatus   json.RawMessage `json:"did_resolution_status"`
	IdentityConsistent    json.RawMessage `json:"identity_consistent"`
}

// ViewHashes are the view's flat hashes, each "sha256:" and 64 hex digits.
type ViewHashes struct {
	Request  string `json:"request"`
	Response string `json:"response"`
	Chain    string `json:"chain"`
}

// FieldOpening opens one commitment of the view's identity block: the nonce
// (64 hex digits, 32 bytes) and the committed value, kept as its JSON text
// so that it is hashed exactly as Python reads it.
type FieldOpening struct {
	Nonce string          `json:"nonce"`
	Value json.RawMessage `json:"value"`
}

// BatchAnchor places the proof's chain hash in the batch whose root the
// witnesses attest.
type BatchAnchor struct {
	Status    string   `json:"status"`
	BatchID   string   `json:"batch_id"`
	LeafIndex *int64   `json:"leaf_index"`
	TreeSize  *int64   `json:"tree_size"`
	AuditPath []string `json:"audit_path"`
	Root      string   `json:"root"`
}

// Anchored is the batch status of a proof whose witnesses exist.
const Anchored = "anchored"

// TimestampAuthority holds the RFC 3161 response over the anchored hash.
type TimestampAuthority struct {
	Status    string `json:"status"`
	Provider  string `json:"provider"`
	TSRBase64 string `json:"tsr_base64"`
}

// TransparencyLog locates the Rekor entry over the anchored hash.
type TransparencyLog struct {
	Provider       string `json:"provider"`
	Status         string `json:"status"`
	UUID           string `json:"uuid"`
	LogIndex       *int64 `json:"log_index"`
	IntegratedTime *int64 `json:"integrated_time"`
}

// ParseView reads a public view. file names it in errors. Only the shape is
// checked here; what the members prove is Verify's.
func ParseView(file string, data []byte) (*View, error) {
	if len(data) > MaxViewSize {
		return nil, fmt.Errorf("%s: %d bytes, over the %d a public view may hold", file, len(data), MaxViewSize)
	}
	var v View
	if err := decodeJSON(data, &v); err != nil {
		return nil, fmt.Errorf("%s: not a public view: %w", file, err)
	}
	if v.ProofID == "" {
		return nil, fmt.Errorf("%s /proof_id: missing", file)
	}
	if v.Batch != nil && len(v.Batch.AuditPath) > MaxPathLength {
		return nil, fmt.Errorf("%s /batch_anchor/audit_path: %d hashes, over the %d any tree needs", file, len(v.Batch.AuditPath), MaxPathLength)
	}
	if v.TSA != nil && len(v.TSA.TSRBase64) > MaxTokenSize*4/3+4 {
		return nil, fmt.Errorf("%s /timestamp_authority/tsr_base64: over the %d bytes a token may hold", file, MaxTokenSize)
	}
	return &v, nil
}

// decodeJSON decodes one JSON document into v, refusing trailing data.
func decodeJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("data after the document")
	}
	return nil
}

// bareHex strips the "sha256:" prefix Trust Layer writes before a hash.
func bareHex(s string) string { return strings.TrimPrefix(s, "sha256:") }

// errorf is fmt.Errorf, kept short for the parsers' many messages.
func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }
