package proofs

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/asn1"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/digitorus/pkcs7"
	"github.com/digitorus/timestamp"
	"github.com/transparency-dev/formats/log"
	"github.com/transparency-dev/merkle/proof"

	"github.com/arkforge/proveit-corpus/manifest/pyjson"
)

// The witnesses attest the anchored hash (a batch's root), not a proof: a
// batch's hundred proofs share one token and one Rekor entry, checked once.
// The key holds everything of a view the witnesses' checks read.
type witnessKey struct {
	anchored, provider, token, uuid string
	hasTSA, hasLog                  bool
	hasLogIndex, hasIntegratedTime  bool
	logIndex, integratedTime        int64
}

type witnessResult struct {
	failures  []*CheckError
	tokenTime *time.Time // the token's genTime, when it verified
}

// witnessMemo remembers each batch's witnesses for every goroutine: the
// first proof to need them checks them while the others of the batch wait.
type witnessMemo struct {
	mu    sync.Mutex
	cells map[witnessKey]*witnessCell
}

type witnessCell struct {
	once   sync.Once
	entry  []byte // the entry checked, compared whole on a hit
	result witnessResult
}

// witness checks the RFC 3161 token and the Rekor entry over the anchored
// hash, or returns what an earlier proof of the same batch found.
func (vr *Verifier) witness(view *View, anchored, entry []byte, entryErr error) witnessResult {
	key := witnessKey{anchored: string(anchored)}
	if view.TSA != nil {
		key.hasTSA, key.provider, key.token = true, view.TSA.Provider, view.TSA.TSRBase64
	}
	if l := view.Log; l != nil {
		key.hasLog, key.uuid = true, l.UUID
		if l.LogIndex != nil {
			key.hasLogIndex, key.logIndex = true, *l.LogIndex
		}
		if l.IntegratedTime != nil {
			key.hasIntegratedTime, key.integratedTime = true, *l.IntegratedTime
		}
	}
	check := func() witnessResult {
		var w witnessResult
		w.tokenTime, w.failures = vr.checkToken(view.TSA, anchored)
		w.failures = append(w.failures, vr.checkRekor(view.Log, anchored, entry, entryErr)...)
		return w
	}
	m := &vr.witnessed
	m.mu.Lock()
	cell, ok := m.cells[key]
	if !ok {
		if m.cells == nil {
			m.cells = map[witnessKey]*witnessCell{}
		}
		cell = &witnessCell{entry: entry}
		m.cells[key] = cell
	}
	m.mu.Unlock()
	if !bytes.Equal(cell.entry, entry) || (cell.entry == nil) != (entry == nil) {
		return check() // another entry for the same batch: checked on its own
	}
	cell.once.Do(func() { cell.result = check() })
	return cell.result
}

// checkToken verifies the RFC 3161 response over the anchored hash: granted,
// its imprint SHA-256 over the hash's 32 raw bytes, signed by the pinned
// certificate of the provider the view names, chained to its pinned root
// at the token's time, and dated within the season. Tokens embed no
// certificate, so timestamp.Parse checks no signature: the pinned
// certificate is made the token's only one, and pkcs7 verifies with it.
func (vr *Verifier) checkToken(tsa *TimestampAuthority, anchored []byte) (*time.Time, []*CheckError) {
	fail := func(c Check, err error) []*CheckError { return []*CheckError{{Check: c, Err: err}} }
	if tsa == nil || tsa.TSRBase64 == "" {
		return nil, fail(CheckToken, errors.New("timestamp_authority.tsr_base64: missing"))
	}
	ts, err := readToken(tsa.TSRBase64)
	if err != nil {
		return nil, fail(CheckToken, err)
	}
	var failures []*CheckError
	want := sha256.Sum256(anchored)
	if ts.HashAlgorithm != crypto.SHA256 || !bytes.Equal(ts.HashedMessage, want[:]) {
		failures = append(failures, &CheckError{CheckTokenImprint, fmt.Errorf("the token's imprint is %s %x, not SHA-256 %x of the anchored root",
			ts.HashAlgorithm, ts.HashedMessage, want)})
	}
	if pinned, ok := vr.trust.TSAs[tsa.Provider]; !ok {
		failures = append(failures, &CheckError{CheckTokenSigner, fmt.Errorf("timestamp_authority.provider %q: no TSA of that name is pinned", tsa.Provider)})
	} else if err := signedBy(ts, pinned); err != nil {
		failures = append(failures, &CheckError{CheckTokenSigner, err})
	}
	if !vr.season.contains(ts.Time) {
		failures = append(failures, &CheckError{CheckTokenOutOfTime, fmt.Errorf("the token is dated %s, outside the window %s",
			ts.Time.UTC().Format(time.RFC3339), vr.season)})
	}
	if len(failures) > 0 {
		return nil, failures
	}
	t := ts.Time.UTC()
	return &t, nil
}

// String writes the window as its two ends, an open one as "…".
func (w Window) String() string {
	end := func(t time.Time) string {
		if t.IsZero() {
			return "…"
		}
		return t.UTC().Format(time.RFC3339)
	}
	return "[" + end(w.Opening) + ", " + end(w.Closing) + "]"
}

// berReader serializes the parses of tokens: digitorus/pkcs7's BER reader
// counts its depth in a package variable (ber.go, encodeIndent), written by
// every parse, which concurrent verifications would race on. A parse is a
// small part of a batch's witnesses; their signatures are checked unlocked.
var berReader sync.Mutex

// signedBy reports why the token is not signed by the TSA's pinned
// certificate at a time its chain to the pinned root is valid, nil when it
// is (NewTSA verified the chain and the certificate's timestamping use
// once).
func signedBy(ts *timestamp.Timestamp, tsa *TSA) error {
	if ts.Time.Before(tsa.From) || ts.Time.After(tsa.Until) {
		return fmt.Errorf("the token is dated %s, outside the pinned certificate's validity [%s, %s]", ts.Time.UTC().Format(time.RFC3339),
			tsa.From.UTC().Format(time.RFC3339), tsa.Until.UTC().Format(time.RFC3339))
	}
	return guard(func() error {
		p7, err := func() (*pkcs7.PKCS7, error) {
			berReader.Lock()
			defer berReader.Unlock() // released even when the parse panics
			return pkcs7.Parse(ts.RawToken)
		}()
		if err != nil {
			return err
		}
		p7.Certificates = []*x509.Certificate{tsa.Cert}
		return p7.VerifyWithOpts(x509.VerifyOptions{}) // no Roots: the signature alone, the chain being pinned
	})
}

// maxDERDepth bounds the nesting of a token's ASN.1: a real one nests
// about ten deep.
const maxDERDepth = 32

// readToken decodes an RFC 3161 response as a view holds it (tsr_base64)
// and parses it. The bytes are untrusted: they must be DER, every element
// of definite and minimal length and tag, before the BER reader of
// digitorus/pkcs7 sees them, which indexes past the end of some malformed
// input; a panic it still raises is returned as an error.
func readToken(tsrBase64 string) (*timestamp.Timestamp, error) {
	der, err := base64.StdEncoding.DecodeString(tsrBase64)
	switch {
	case err != nil:
		return nil, fmt.Errorf("tsr_base64: not standard base64: %w", err)
	case len(der) > maxTokenSize:
		return nil, fmt.Errorf("tsr_base64: %d bytes, over the %d a token may hold", len(der), maxTokenSize)
	}
	if err := checkDER(der, 0); err != nil {
		return nil, fmt.Errorf("tsr_base64: not DER: %w", err)
	}
	var ts *timestamp.Timestamp
	err = guard(func() (err error) {
		berReader.Lock()
		defer berReader.Unlock()
		ts, err = timestamp.ParseResponse(der)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("tsr_base64: not an RFC 3161 response: %w", err)
	}
	return ts, nil
}

// checkDER requires der to be a sequence of whole DER elements, each
// constructed one's contents too, nested at most maxDERDepth deep.
func checkDER(der []byte, depth int) error {
	if depth == 0 && len(der) == 0 {
		return errors.New("empty")
	}
	for len(der) > 0 {
		var e asn1.RawValue
		rest, err := asn1.Unmarshal(der, &e)
		if err != nil {
			return err
		}
		if e.IsCompound {
			if depth == maxDERDepth {
				return fmt.Errorf("nested deeper than %d", maxDERDepth)
			}
			if err := checkDER(e.Bytes, depth+1); err != nil {
				return err
			}
		}
		if depth == 0 && len(rest) > 0 {
			return errors.New("data after the response")
		}
		der = rest
	}
	return nil
}

// guard runs a third-party parse of untrusted bytes, returning a panic it
// raises as an error.
func guard(parse func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the parser failed: %v", p)
		}
	}()
	return parse()
}

// rekorFile is a Rekor entry as GET /api/v1/log/entries/{uuid} answers it:
// one member, the uuid.
type rekorFile map[string]RekorEntry

// RekorEntry is one entry of a Rekor log as the log answers it.
type RekorEntry struct {
	Body           string            `json:"body"` // std base64 of the entry's JSON
	IntegratedTime int64             `json:"integratedTime"`
	LogID          string            `json:"logID"`
	LogIndex       int64             `json:"logIndex"` // global
	Verification   RekorVerification `json:"verification"`
}

// RekorVerification is what the log signed of an entry.
type RekorVerification struct {
	InclusionProof       InclusionProof `json:"inclusionProof"`
	SignedEntryTimestamp string         `json:"signedEntryTimestamp"`
}

// InclusionProof places an entry in the log's shard: its index there, the
// audit path, and the checkpoint of the tree it reaches.
type InclusionProof struct {
	Checkpoint string   `json:"checkpoint"`
	Hashes     []string `json:"hashes"`
	LogIndex   int64    `json:"logIndex"` // the shard's
	RootHash   string   `json:"rootHash"`
	TreeSize   int64    `json:"treeSize"`
}

// SignedEntryPayload is what a log's signed entry timestamp signs: the
// canonical JSON of the entry's body, time, log id and (global) index.
func SignedEntryPayload(body string, integratedTime int64, logID string, logIndex int64) []byte {
	return pyjson.Canonical(pyjson.Object{
		{Key: "body", Value: body},
		{Key: "integratedTime", Value: pyjson.Number(strconv.FormatInt(integratedTime, 10))},
		{Key: "logID", Value: logID},
		{Key: "logIndex", Value: pyjson.Number(strconv.FormatInt(logIndex, 10))},
	})
}

// HashedRekord is the body of a hashedrekord v0.0.1 entry.
type HashedRekord struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Spec       struct {
		Data struct {
			Hash struct {
				Algorithm string `json:"algorithm"`
				Value     string `json:"value"`
			} `json:"hash"`
		} `json:"data"`
		Signature struct {
			Content   string `json:"content"`
			PublicKey struct {
				Content string `json:"content"` // std base64 of the signer's PEM
			} `json:"publicKey"`
		} `json:"signature"`
	} `json:"spec"`
}

// ParseRekorEntry reads a Rekor entry file and returns its uuid, checking
// its shape and bounds only.
func ParseRekorEntry(data []byte) (uuid string, err error) {
	_, uuid, err = parseRekorFile(data)
	return uuid, err
}

func parseRekorFile(data []byte) (*RekorEntry, string, error) {
	if len(data) > MaxEntrySize {
		return nil, "", errorf("%d bytes, over the %d a Rekor entry may hold", len(data), MaxEntrySize)
	}
	var f rekorFile
	if err := decodeJSON(data, &f); err != nil {
		return nil, "", errorf("not a Rekor entry: %v", err)
	}
	if len(f) != 1 {
		return nil, "", errorf("want one entry keyed by its uuid, found %d", len(f))
	}
	for uuid, e := range f {
		if len(e.Verification.InclusionProof.Hashes) > maxPathLength {
			at := pyjson.FormatPointer([]string{uuid, "verification", "inclusionProof", "hashes"})
			return nil, "", errorf("%s: %d hashes, over the %d any tree needs", pyjson.ShowPointer(at), len(e.Verification.InclusionProof.Hashes), maxPathLength)
		}
		return &e, uuid, nil
	}
	panic("unreachable")
}

// checkRekor verifies the Rekor entry over the anchored hash: a hashedrekord
// of the hash's hex, signed by a pinned ArkForge Rekor key, its SET, its
// inclusion proof and its checkpoint by the log's pinned key, and its uuid,
// index and time those the view states.
func (vr *Verifier) checkRekor(tl *TransparencyLog, anchored, data []byte, dataErr error) []*CheckError {
	var failures []*CheckError
	fail := func(c Check, err error) { failures = append(failures, &CheckError{Check: c, Err: err}) }
	switch {
	case tl == nil || tl.UUID == "":
		fail(CheckRekorMissing, errors.New("transparency_log.uuid: missing"))
		return failures
	case !ValidRekorUUID(tl.UUID) || tl.LogIndex == nil || tl.IntegratedTime == nil:
		// "_already_exists": Trust Layer lost the entry's coordinates.
		fail(CheckRekorUnverifiable, errors.New("transparency_log: want a uuid of 80 hex digits, a log_index and an integrated_time"))
		return failures
	case data == nil && dataErr != nil:
		fail(CheckRekorMissing, dataErr) // the folder's file could not be read
		return failures
	case data == nil:
		fail(CheckRekorMissing, fmt.Errorf("no Rekor entry of uuid %s supplied", tl.UUID))
		return failures
	}
	e, uuid, err := parseRekorFile(data)
	if err != nil {
		fail(CheckRekorKind, err)
		return failures
	}
	body, err := base64.StdEncoding.DecodeString(e.Body)
	var rec HashedRekord
	switch {
	case err != nil:
		fail(CheckRekorKind, fmt.Errorf("body: %w", err))
		return failures
	case decodeJSON(body, &rec) != nil || rec.Kind != "hashedrekord" || rec.APIVersion != "0.0.1":
		fail(CheckRekorKind, errors.New("body: not a hashedrekord 0.0.1"))
		return failures
	}
	var artifact [2 * sha256.Size]byte // the anchored hash's hex, which the entry signs
	hex.Encode(artifact[:], anchored)
	digest := sha256.Sum256(artifact[:len(anchored)*2])
	if wantHex := hex.EncodeToString(digest[:]); rec.Spec.Data.Hash.Algorithm != "sha256" || rec.Spec.Data.Hash.Value != wantHex {
		fail(CheckRekorImprint, fmt.Errorf("the entry's hash is %s %s, not sha256 %s of the anchored root's hex", rec.Spec.Data.Hash.Algorithm, rec.Spec.Data.Hash.Value, wantHex))
	}
	if err := vr.signedByArkForge(rec, digest[:], e.IntegratedTime); err != nil {
		fail(CheckRekorSigner, err)
	}
	lg := vr.trust.logByID(e.LogID)
	if lg == nil {
		fail(CheckRekorSET, fmt.Errorf("logID %s: no Rekor log of that key is pinned", e.LogID))
	} else if err := verifySET(lg, e); err != nil {
		fail(CheckRekorSET, err)
	}
	ip := e.Verification.InclusionProof
	leaf := hasher.HashLeaf(body)
	root, rootErr := decodeHash(ip.RootHash)
	hashes, hashesErr := decodeHashes(ip.Hashes)
	switch {
	case rootErr != nil:
		fail(CheckRekorInclusion, fmt.Errorf("inclusionProof.rootHash: %w", rootErr))
	case hashesErr != nil:
		fail(CheckRekorInclusion, fmt.Errorf("inclusionProof.hashes: %w", hashesErr))
	case ip.LogIndex < 0 || ip.TreeSize <= 0:
		fail(CheckRekorInclusion, errors.New("inclusionProof: want 0 ≤ logIndex and 0 < treeSize"))
	default:
		if err := proof.VerifyInclusion(hasher, uint64(ip.LogIndex), uint64(ip.TreeSize), leaf, hashes, root[:]); err != nil {
			fail(CheckRekorInclusion, err)
		}
	}
	if lg == nil {
		fail(CheckRekorCheckpoint, fmt.Errorf("logID %s: no Rekor log of that key is pinned", e.LogID))
	} else if err := verifyCheckpoint(lg, tl.UUID, ip.Checkpoint, ip.TreeSize, root[:]); err != nil {
		fail(CheckRekorCheckpoint, err)
	}
	switch {
	case uuid != tl.UUID:
		fail(CheckRekorCoordinates, errors.New("the entry's uuid is not the view's"))
	case uuid[16:] != hex.EncodeToString(leaf):
		fail(CheckRekorCoordinates, errors.New("the uuid does not end with the entry's leaf hash"))
	case e.LogIndex != *tl.LogIndex || e.IntegratedTime != *tl.IntegratedTime:
		fail(CheckRekorCoordinates, fmt.Errorf("the entry's logIndex %d and integratedTime %d are not the view's %d and %d",
			e.LogIndex, e.IntegratedTime, *tl.LogIndex, *tl.IntegratedTime))
	}
	return failures
}

// signedByArkForge reports why the entry's signature over the artifact is
// not by a pinned ArkForge Rekor key not retired at the entry's time, nil
// when it is.
func (vr *Verifier) signedByArkForge(rec HashedRekord, digest []byte, integratedTime int64) error {
	pemData, err := base64.StdEncoding.DecodeString(rec.Spec.Signature.PublicKey.Content)
	if err != nil {
		return fmt.Errorf("the entry's public key: %w", err)
	}
	block, _ := pem.Decode(pemData)
	if block == nil {
		return errors.New("the entry's public key: not PEM")
	}
	key, ok := vr.trust.rekorKey(block.Bytes)
	switch {
	case !ok:
		return errors.New("the entry's public key is not a pinned ArkForge Rekor key")
	case retiredAt(key.Retired, time.Unix(integratedTime, 0)):
		return fmt.Errorf("the ArkForge Rekor key %q retired at %s, before the entry's time", key.ID, key.Retired.UTC().Format(time.RFC3339))
	}
	sig, err := base64.StdEncoding.DecodeString(rec.Spec.Signature.Content)
	if err != nil {
		return fmt.Errorf("the entry's signature: %w", err)
	}
	if !ecdsa.VerifyASN1(key.Public, digest, sig) {
		return fmt.Errorf("ecdsa: the entry's signature does not verify with the ArkForge Rekor key %q", key.ID)
	}
	return nil
}

// verifySET checks the log's signed entry timestamp: ECDSA by the log key
// over the canonical JSON of the entry's body, time, log id and index.
func verifySET(lg *Log, e *RekorEntry) error {
	sig, err := base64.StdEncoding.DecodeString(e.Verification.SignedEntryTimestamp)
	if err != nil {
		return fmt.Errorf("signedEntryTimestamp: %w", err)
	}
	payload := SignedEntryPayload(e.Body, e.IntegratedTime, e.LogID, e.LogIndex)
	digest := sha256.Sum256(payload)
	if !ecdsa.VerifyASN1(lg.Public, digest[:], sig) {
		return fmt.Errorf("ecdsa: the signed entry timestamp does not verify with the key of %s", lg.Name)
	}
	return nil
}

// verifyCheckpoint opens the inclusion proof's checkpoint, a signed note by
// the log's key whose origin is "<log name> - <tree id>" (the tree id is
// the first 16 hex digits of the view's uuid, checked well formed), and
// requires its size and root to be the proof's.
func verifyCheckpoint(lg *Log, uuid, checkpoint string, size int64, root []byte) error {
	treeID, err := strconv.ParseUint(uuid[:16], 16, 64)
	if err != nil {
		return err
	}
	origin := lg.Name + " - " + strconv.FormatUint(treeID, 10)
	cp, _, _, err := log.ParseCheckpoint([]byte(checkpoint), origin, lg.Note)
	switch {
	case err != nil:
		return err
	case size < 0 || cp.Size != uint64(size):
		return fmt.Errorf("the checkpoint's size is %d, not the inclusion proof's %d", cp.Size, size)
	case !bytes.Equal(cp.Hash, root):
		return fmt.Errorf("the checkpoint's root is %x, not the inclusion proof's", cp.Hash)
	}
	return nil
}

// logByID finds the pinned log whose key's SHA-256 is the entry's logID.
func (t *Trust) logByID(id string) *Log {
	for _, l := range t.Logs {
		if l.ID == id {
			return l
		}
	}
	return nil
}

// decodeHashes reads a list of bare SHA-256s.
func decodeHashes(list []string) ([][]byte, error) {
	out := make([][]byte, len(list))
	for i, h := range list {
		sum, err := decodeHash(h)
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		out[i] = sum[:]
	}
	return out, nil
}
