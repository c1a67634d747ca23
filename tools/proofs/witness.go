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
	"time"

	"github.com/digitorus/pkcs7"
	"github.com/digitorus/timestamp"
	"github.com/transparency-dev/formats/log"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"

	"github.com/arkforge/proveit-corpus/manifest/pyjson"
)

// The witnesses attest the anchored hash (a batch's root), not a proof: a
// batch's hundred proofs share one token and one Rekor entry, checked once.
type witnessKey struct {
	anchored, provider, token, uuid string
	logIndex, integratedTime        int64
}

type witnessResult struct {
	entry     []byte // the entry checked, compared whole on a hit
	failures  []Check
	tokenTime *time.Time // the token's genTime, when it verified
}

// witness checks the RFC 3161 token and the Rekor entry over the anchored
// hash, or returns what an earlier proof of the same batch found.
func (vr *Verifier) witness(view *View, anchored, entry []byte) witnessResult {
	key := witnessKey{anchored: string(anchored)}
	if view.TSA != nil {
		key.provider, key.token = view.TSA.Provider, view.TSA.TSRBase64
	}
	if l := view.Log; l != nil {
		key.uuid = l.UUID
		if l.LogIndex != nil {
			key.logIndex = *l.LogIndex
		}
		if l.IntegratedTime != nil {
			key.integratedTime = *l.IntegratedTime
		}
	}
	if w, ok := vr.witnessed[key]; ok && bytes.Equal(w.entry, entry) && (w.entry == nil) == (entry == nil) {
		return w
	}
	w := witnessResult{entry: entry}
	w.tokenTime, w.failures = vr.checkToken(view.TSA, anchored)
	w.failures = append(w.failures, vr.checkRekor(view.Log, anchored, entry)...)
	if vr.witnessed == nil {
		vr.witnessed = map[witnessKey]witnessResult{}
	}
	vr.witnessed[key] = w
	return w
}

// checkToken verifies the RFC 3161 response over the anchored hash: granted,
// its imprint SHA-256 over the hash's 32 raw bytes, signed by the pinned
// certificate of the provider the view names, chained to its pinned root
// at the token's time, and dated within the season. Tokens embed no
// certificate, so timestamp.Parse checks no signature: the pinned
// certificate is made the token's only one, and pkcs7 verifies with it.
func (vr *Verifier) checkToken(tsa *TimestampAuthority, anchored []byte) (*time.Time, []Check) {
	if tsa == nil || tsa.TSRBase64 == "" {
		return nil, []Check{CheckToken}
	}
	ts, err := readToken(tsa.TSRBase64)
	if err != nil {
		return nil, []Check{CheckToken}
	}
	var failures []Check
	want := sha256.Sum256(anchored)
	if ts.HashAlgorithm != crypto.SHA256 || !bytes.Equal(ts.HashedMessage, want[:]) {
		failures = append(failures, CheckTokenImprint)
	}
	pinned, ok := vr.Trust.TSAs[tsa.Provider]
	if !ok || !signedBy(ts, pinned) {
		failures = append(failures, CheckTokenSigner)
	}
	if !vr.Season.contains(ts.Time) {
		failures = append(failures, CheckTokenOutOfTime)
	}
	if len(failures) > 0 {
		return nil, failures
	}
	t := ts.Time.UTC()
	return &t, nil
}

// signedBy reports whether the token is signed by the TSA's pinned
// certificate at a time its chain to the pinned root is valid (NewTSA
// verified the chain and the certificate's timestamping use once).
func signedBy(ts *timestamp.Timestamp, tsa *TSA) bool {
	if ts.Time.Before(tsa.From) || ts.Time.After(tsa.Until) {
		return false
	}
	err := guard(func() error {
		p7, err := pkcs7.Parse(ts.RawToken)
		if err != nil {
			return err
		}
		p7.Certificates = []*x509.Certificate{tsa.Cert}
		return p7.VerifyWithOpts(x509.VerifyOptions{}) // no Roots: the signature alone, the chain being pinned
	})
	return err == nil
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
func (vr *Verifier) checkRekor(tl *TransparencyLog, anchored, data []byte) []Check {
	switch {
	case tl == nil || tl.UUID == "":
		return []Check{CheckRekorMissing}
	case !ValidRekorUUID(tl.UUID) || tl.LogIndex == nil || tl.IntegratedTime == nil:
		return []Check{CheckRekorUnverifiable} // "_already_exists": Trust Layer lost the entry's coordinates
	case data == nil:
		return []Check{CheckRekorMissing}
	}
	e, uuid, err := parseRekorFile(data)
	if err != nil {
		return []Check{CheckRekorKind}
	}
	body, err := base64.StdEncoding.DecodeString(e.Body)
	var rec HashedRekord
	if err != nil || decodeJSON(body, &rec) != nil || rec.Kind != "hashedrekord" || rec.APIVersion != "0.0.1" {
		return []Check{CheckRekorKind}
	}
	var failures []Check
	fail := func(c Check) { failures = append(failures, c) }
	artifact := []byte(hex.EncodeToString(anchored))
	digest := sha256.Sum256(artifact)
	if rec.Spec.Data.Hash.Algorithm != "sha256" || rec.Spec.Data.Hash.Value != hex.EncodeToString(digest[:]) {
		fail(CheckRekorImprint)
	}
	if !vr.signedByArkForge(rec, digest[:], e.IntegratedTime) {
		fail(CheckRekorSigner)
	}
	lg := vr.Trust.logByID(e.LogID)
	if lg == nil || !verifySET(lg, e) {
		fail(CheckRekorSET)
	}
	ip := e.Verification.InclusionProof
	leaf := rfc6962.DefaultHasher.HashLeaf(body)
	root, rootOK := decodeHex64(ip.RootHash)
	hashes, hashesOK := decodeHashes(ip.Hashes)
	if !rootOK || !hashesOK || ip.LogIndex < 0 || ip.TreeSize <= 0 ||
		proof.VerifyInclusion(rfc6962.DefaultHasher, uint64(ip.LogIndex), uint64(ip.TreeSize), leaf, hashes, root) != nil {
		fail(CheckRekorInclusion)
	}
	if lg == nil || !verifyCheckpoint(lg, tl.UUID, ip.Checkpoint, ip.TreeSize, root) {
		fail(CheckRekorCheckpoint)
	}
	if uuid != tl.UUID || uuid[16:] != hex.EncodeToString(leaf) || e.LogIndex != *tl.LogIndex || e.IntegratedTime != *tl.IntegratedTime {
		fail(CheckRekorCoordinates)
	}
	return failures
}

// signedByArkForge reports whether the entry's signature over the artifact
// is by a pinned ArkForge Rekor key not retired at the entry's time.
func (vr *Verifier) signedByArkForge(rec HashedRekord, digest []byte, integratedTime int64) bool {
	pemData, err := base64.StdEncoding.DecodeString(rec.Spec.Signature.PublicKey.Content)
	if err != nil {
		return false
	}
	block, _ := pem.Decode(pemData)
	if block == nil {
		return false
	}
	key, ok := vr.Trust.rekorKey(block.Bytes)
	if !ok || retiredAt(key.Retired, time.Unix(integratedTime, 0)) {
		return false
	}
	sig, err := base64.StdEncoding.DecodeString(rec.Spec.Signature.Content)
	return err == nil && ecdsa.VerifyASN1(key.Public, digest, sig)
}

// verifySET checks the log's signed entry timestamp: ECDSA by the log key
// over the canonical JSON of the entry's body, time, log id and index.
func verifySET(lg *Log, e *RekorEntry) bool {
	sig, err := base64.StdEncoding.DecodeString(e.Verification.SignedEntryTimestamp)
	if err != nil {
		return false
	}
	payload := SignedEntryPayload(e.Body, e.IntegratedTime, e.LogID, e.LogIndex)
	digest := sha256.Sum256(payload)
	return ecdsa.VerifyASN1(lg.Public, digest[:], sig)
}

// verifyCheckpoint opens the inclusion proof's checkpoint, a signed note by
// the log's key whose origin is "<log name> - <tree id>" (the tree id is
// the first 16 hex digits of the view's uuid, checked well formed), and requires its size and root to be the
// proof's.
func verifyCheckpoint(lg *Log, uuid, checkpoint string, size int64, root []byte) bool {
	treeID, err := strconv.ParseUint(uuid[:16], 16, 64)
	if err != nil {
		return false
	}
	origin := lg.Name + " - " + strconv.FormatUint(treeID, 10)
	cp, _, _, err := log.ParseCheckpoint([]byte(checkpoint), origin, lg.Note)
	return err == nil && size >= 0 && cp.Size == uint64(size) && bytes.Equal(cp.Hash, root)
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
func decodeHashes(list []string) ([][]byte, bool) {
	out := make([][]byte, len(list))
	for i, h := range list {
		var ok bool
		if out[i], ok = decodeHex64(h); !ok {
			return nil, false
		}
	}
	return out, true
}
