package proofs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
)

// Bounds on what a view or an entry may hold: they are untrusted input, read
// whole into memory, so each is refused past a size no real one approaches.
const (
	// MaxViewSize bounds a public view's file (a real one is about 6 KiB).
	MaxViewSize = 1 << 20
	// MaxEntrySize bounds a Rekor entry's file (a real one is about 5 KiB).
	MaxEntrySize = 1 << 20
	// maxPathLength bounds an audit path or an inclusion proof: 64 hashes
	// cover any tree a 64-bit index can address.
	maxPathLength = 64
	// maxTokenSize bounds a decoded RFC 3161 response (FreeTSA's is 941 bytes).
	maxTokenSize = 64 << 10
)

// isHex64 reports whether s is a SHA-256 or a nonce as Trust Layer writes
// them bare: 64 lowercase hex digits (Python's bytes.fromhex is laxer).
func isHex64(s string) bool { return isHex(s, 64) }

// isHex reports whether s is n lowercase hex digits.
func isHex(s string, n int) bool { return anchor.IsLowerHex(s, n) }

// proofID is the grammar of Trust Layer's proof ids, which name files here.
var proofID = regexp.MustCompile(`^prf_[0-9]{8}_[0-9]{6}_[0-9a-f]{6}$`)

// ValidProofID reports whether id is a proof id as Trust Layer writes them,
// and so safe as a file name.
func ValidProofID(id string) bool { return proofID.MatchString(id) }

// ValidRekorUUID reports whether uuid names a Rekor entry, the tree id (16
// hex digits) and the leaf hash (64), and so is safe as a file name; the
// "_already_exists" placeholder Trust Layer may store is not.
func ValidRekorUUID(uuid string) bool { return isHex(uuid, 80) }

// View is the public view of a proof, as GET /v1/proof/{id} serves it
// (docs/scoring.md, "Verifying proofs"). Only the members a verifier reads
// are kept; the others are left unread.
type View struct {
	ProofID     string
	SpecVersion string
	Hashes      ViewHashes
	Commitments map[string]string
	Disclosed   map[string]FieldOpening
	Timestamp   string
	Signature   string // arkforge_signature
	PublicKey   string // arkforge_pubkey
	KeyID       string // arkforge_kid, which public views do not carry yet
	Batch       *BatchAnchor
	TSA         *TimestampAuthority
	Log         *TransparencyLog
	// Flat holds the view's flat copies of the identity block, by field:
	// informative, used for nothing but an incident when one differs from
	// its opened value.
	Flat map[string]pyjson.Value
}

// ViewHashes are the view's flat hashes, each "sha256:" and 64 hex digits.
type ViewHashes struct {
	Request, Response, Chain string
}

// FieldOpening opens one commitment of the view's identity block: the nonce
// (64 hex digits, 32 bytes) and the committed value, as Python reads it.
type FieldOpening struct {
	Nonce string
	Value pyjson.Value
}

// BatchAnchor places the proof's chain hash in the batch whose root the
// witnesses attest.
type BatchAnchor struct {
	Status    string
	BatchID   string
	LeafIndex *int64
	TreeSize  *int64
	AuditPath []string
	Root      string
}

// anchoredStatus is the batch status of a proof whose witnesses exist.
const anchoredStatus = "anchored"

// TimestampAuthority holds the RFC 3161 response over the anchored hash.
type TimestampAuthority struct {
	Status    string
	Provider  string
	TSRBase64 string // tsr_base64
}

// TransparencyLog locates the Rekor entry over the anchored hash.
type TransparencyLog struct {
	Provider       string
	Status         string
	UUID           string
	LogIndex       *int64
	IntegratedTime *int64
}

// ParseView reads a public view as Python reads JSON (a duplicate key is
// refused). file names it in errors, with the JSON pointer of the member
// and the rule it breaks. Only the shape is checked here; what the members
// prove is Verify's, and a member left out fails the check that needs it.
// The members are read from the parsed document in place: only those kept
// are copied out, a season's views being read by the thousand.
func ParseView(file string, data []byte) (*View, error) {
	if len(data) > MaxViewSize {
		return nil, fmt.Errorf("%s: %d bytes, over the %d a public view may hold", file, len(data), MaxViewSize)
	}
	doc := viewDocuments.Get().(*pyjson.Document)
	defer func() {
		doc.Reset()
		viewDocuments.Put(doc)
	}()
	if err := doc.Read(data); err != nil {
		return nil, fmt.Errorf("%s: not a public view: %w", file, err)
	}
	r := &reader{}
	root := r.object(doc.Root(), "")
	v := &View{
		ProofID:     r.str(root, "", "proof_id"),
		SpecVersion: r.str(root, "", "spec_version"),
		Timestamp:   r.str(root, "", "timestamp"),
		Signature:   r.str(root, "", "arkforge_signature"),
		PublicKey:   r.str(root, "", "arkforge_pubkey"),
		KeyID:       r.str(root, "", "arkforge_kid"),
		Flat:        map[string]pyjson.Value{},
	}
	if h, ok := r.member(root, "", "hashes"); ok {
		v.Hashes = ViewHashes{Request: r.str(h, "/hashes", "request"), Response: r.str(h, "/hashes", "response"), Chain: r.str(h, "/hashes", "chain")}
	}
	if c, ok := r.member(root, "", "commitments"); ok {
		v.Commitments = make(map[string]string, c.Len())
		for key, value := range c.Members() {
			v.Commitments[key] = r.text(value, "/commitments", key)
		}
	}
	if d, ok := r.member(root, "", "disclosed"); ok {
		v.Disclosed = make(map[string]FieldOpening, d.Len())
		for key, o := range d.Members() {
			if !o.IsObject() {
				r.fail("/disclosed", key, "an object")
				break
			}
			nonce := o.Get("nonce")
			n, ok := nonce.Text()
			if !ok && nonce.Exists() && !nonce.IsNull() {
				r.fail("/disclosed"+pyjson.FormatPointer([]string{key}), "nonce", "a string")
			}
			v.Disclosed[key] = FieldOpening{Nonce: n, Value: o.Get("value").Value()}
		}
	}
	for _, f := range identityFields {
		if value := root.Get(f); value.Exists() {
			v.Flat[f] = value.Value()
		}
	}
	if b, ok := r.member(root, "", "batch_anchor"); ok {
		v.Batch = &BatchAnchor{
			Status: r.str(b, "/batch_anchor", "status"), BatchID: r.str(b, "/batch_anchor", "batch_id"),
			LeafIndex: r.integer(b, "/batch_anchor", "leaf_index"), TreeSize: r.integer(b, "/batch_anchor", "tree_size"),
			AuditPath: r.strings(b, "/batch_anchor", "audit_path"), Root: r.str(b, "/batch_anchor", "root"),
		}
	}
	if t, ok := r.member(root, "", "timestamp_authority"); ok {
		v.TSA = &TimestampAuthority{Status: r.str(t, "/timestamp_authority", "status"),
			Provider: r.str(t, "/timestamp_authority", "provider"), TSRBase64: r.str(t, "/timestamp_authority", "tsr_base64")}
	}
	if l, ok := r.member(root, "", "transparency_log"); ok {
		v.Log = &TransparencyLog{Provider: r.str(l, "/transparency_log", "provider"), Status: r.str(l, "/transparency_log", "status"),
			UUID: r.str(l, "/transparency_log", "uuid"), LogIndex: r.integer(l, "/transparency_log", "log_index"),
			IntegratedTime: r.integer(l, "/transparency_log", "integrated_time")}
	}
	switch {
	case r.err != nil:
		return nil, fmt.Errorf("%s %w", file, r.err)
	case v.ProofID == "":
		return nil, fmt.Errorf("%s /proof_id: missing", file)
	case v.Batch != nil && len(v.Batch.AuditPath) > maxPathLength:
		return nil, fmt.Errorf("%s /batch_anchor/audit_path: %d hashes, over the %d any tree needs", file, len(v.Batch.AuditPath), maxPathLength)
	case v.TSA != nil && len(v.TSA.TSRBase64) > maxTokenSize*4/3+4:
		return nil, fmt.Errorf("%s /timestamp_authority/tsr_base64: over the %d bytes a token may hold", file, maxTokenSize)
	}
	return v, nil
}

// viewDocuments are reused by ParseView, so that reading a view allocates
// only what it keeps.
var viewDocuments = sync.Pool{New: func() any { return new(pyjson.Document) }}

// reader reads members of a parsed view, keeping the first error: the
// pointer of the member and the type it should have.
type reader struct{ err error }

func (r *reader) fail(at, key, want string) {
	if r.err == nil {
		r.err = fmt.Errorf("%s: want %s", pyjson.ShowPointer(at+pyjson.FormatPointer([]string{key})), want)
	}
}

// object is v, which must be an object; anything else is an error at
// pointer at. Reading a member of a node that is not an object finds none.
func (r *reader) object(v pyjson.Node, at string) pyjson.Node {
	if !v.IsObject() && r.err == nil {
		r.err = fmt.Errorf("%s: want an object", pyjson.ShowPointer(at))
	}
	return v
}

// member is the object at key; false when absent or null, or not an object.
func (r *reader) member(o pyjson.Node, at, key string) (pyjson.Node, bool) {
	v := o.Get(key)
	if !v.Exists() || v.IsNull() {
		return v, false
	}
	if !v.IsObject() {
		r.fail(at, key, "an object or null")
		return v, false
	}
	return v, true
}

// str is the string at key, "" when absent or null.
func (r *reader) str(o pyjson.Node, at, key string) string {
	return r.text(o.Get(key), at, key)
}

// text is v, the member key's value, as a string: "" when absent or null.
// Reading every member of an object, ranging over it, calls text for
// each, never str, which would scan the object once for each member.
func (r *reader) text(v pyjson.Node, at, key string) string {
	if !v.Exists() || v.IsNull() {
		return ""
	}
	s, ok := v.Text()
	if !ok {
		r.fail(at, key, "a string or null")
	}
	return s
}

// integer is the integer at key, nil when absent or null.
func (r *reader) integer(o pyjson.Node, at, key string) *int64 {
	v := o.Get(key)
	if !v.Exists() || v.IsNull() {
		return nil
	}
	n, ok := v.Number()
	i, err := strconv.ParseInt(string(n), 10, 64)
	if !ok || err != nil {
		r.fail(at, key, "an integer or null")
		return nil
	}
	return &i
}

// strings is the array of strings at key, nil when absent or null.
func (r *reader) strings(o pyjson.Node, at, key string) []string {
	v := o.Get(key)
	if !v.Exists() || v.IsNull() {
		return nil
	}
	if !v.IsArray() {
		r.fail(at, key, "an array of strings")
		return nil
	}
	if v.Len() > maxPathLength {
		return make([]string, v.Len()) // refused by its length
	}
	out := make([]string, 0, v.Len())
	for e := range v.Elements() {
		s, ok := e.Text()
		if !ok {
			r.fail(at, key, "an array of strings")
		}
		out = append(out, s)
	}
	return out
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
