package trustlayer_test

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/asn1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/digitorus/pkcs7"
	"github.com/digitorus/timestamp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	fnote "github.com/transparency-dev/formats/note"
	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
	"golang.org/x/mod/sumdb/note"

	"github.com/arkforge/proveit-corpus/harness/trustlayer"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/proofs"
)

// trust is what a verifier is given, read back from WriteTrust's files as
// a verifier reads them.
type trust struct {
	keys      trustlayer.PublishedKeys
	tsaRoot   *x509.Certificate
	tsaCert   *x509.Certificate
	logKey    *ecdsa.PublicKey
	logKeyDER []byte
	logName   string
}

func readTrust(t *testing.T, tl *trustlayer.TrustLayer, provider, logName string) *trust {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, tl.WriteTrust(dir))
	tr := &trust{logName: logName}
	data, err := os.ReadFile(filepath.Join(dir, "published_keys.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &tr.keys))
	cert := func(name string) *x509.Certificate {
		data, err := os.ReadFile(filepath.Join(dir, "tsa", provider, name))
		require.NoError(t, err)
		block, _ := pem.Decode(data)
		require.NotNil(t, block, name)
		c, err := x509.ParseCertificate(block.Bytes)
		require.NoError(t, err)
		return c
	}
	tr.tsaRoot, tr.tsaCert = cert("root.pem"), cert("tsa.pem")
	data, err = os.ReadFile(filepath.Join(dir, "rekor", logName+".pem"))
	require.NoError(t, err)
	block, _ := pem.Decode(data)
	require.NotNil(t, block)
	tr.logKeyDER = block.Bytes
	pub, err := x509.ParsePKIXPublicKey(block.Bytes)
	require.NoError(t, err)
	tr.logKey = pub.(*ecdsa.PublicKey)
	return tr
}

func (tr *trust) ed25519Key(t *testing.T, public string) (ed25519.PublicKey, trustlayer.PublishedKey) {
	t.Helper()
	for _, k := range tr.keys.Keys {
		if k.Public == public {
			raw, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(k.Public, "ed25519:"))
			require.NoError(t, err)
			require.Len(t, raw, ed25519.PublicKeySize)
			return raw, k
		}
	}
	t.Fatalf("%s is not a published key", public)
	return nil, trustlayer.PublishedKey{}
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.TrimPrefix(s, "sha256:"))
	require.NoError(t, err, s)
	return b
}

// merkleRoot is the RFC 6962 root of leaf hashes, computed with the
// library's compact range alone.
func merkleRoot(t *testing.T, leaves [][]byte) []byte {
	t.Helper()
	rf := &compact.RangeFactory{Hash: rfc6962.DefaultHasher.HashChildren}
	r := rf.NewEmptyRange(0)
	for _, l := range leaves {
		require.NoError(t, r.Append(l, nil))
	}
	root, err := r.GetRootHash(nil)
	require.NoError(t, err)
	return root
}

// checkProof verifies one proof as a third party does, owner disclosures
// included, and returns its decoded public view.
func checkProof(t *testing.T, tl *trustlayer.TrustLayer, tr *trust, id trustlayer.ProofID, call trustlayer.Call) trustlayer.View {
	t.Helper()
	viewBytes, err := tl.View(id)
	require.NoError(t, err)
	fullBytes, err := tl.Full(id)
	require.NoError(t, err)
	var view trustlayer.View
	require.NoError(t, json.Unmarshal(viewBytes, &view))
	var full trustlayer.Full
	require.NoError(t, json.Unmarshal(fullBytes, &full))
	assert.Equal(t, "3.1", view.SpecVersion)

	// Commitments: every one opened by the owner's nonce and value, and
	// the identity four by the public view's disclosed block.
	require.Equal(t, len(view.Commitments), len(full.CommitmentNonces))
	fields := make([]string, 0, len(view.Commitments))
	for f, c := range view.Commitments {
		fields = append(fields, f)
		nonce := unhex(t, full.CommitmentNonces[f])
		require.Len(t, nonce, 32)
		assert.Equal(t, unhex(t, c), commit(f, nonce, full.ChainData[f]), f)
	}
	for _, f := range trustlayer.IdentityFields {
		d, ok := view.Disclosed[f]
		require.True(t, ok, f)
		assert.Equal(t, unhex(t, view.Commitments[f]), commit(f, unhex(t, d.Nonce), d.Value), f)
	}
	assert.Len(t, view.Disclosed, 4)

	// The chain hash is the root over the sorted fields.
	sortStrings(fields)
	leaves := make([][]byte, len(fields))
	for i, f := range fields {
		leaves[i] = rfc6962.DefaultHasher.HashLeaf(unhex(t, view.Commitments[f]))
	}
	chain := unhex(t, view.Hashes.Chain)
	assert.Equal(t, chain, merkleRoot(t, leaves))

	// The request and response hashes the owner opens are the anchor's.
	assert.Equal(t, anchor.RequestHash(call.Target), full.ChainData["request_hash"])
	assert.Equal(t, "sha256:"+full.ChainData["request_hash"].(string), view.Hashes.Request)
	assert.Equal(t, "sha256:"+full.ChainData["response_hash"].(string), view.Hashes.Response)
	if want, err := anchor.ResponseHash(call.Body); err == nil && call.StatusCode != 0 {
		assert.Equal(t, want, full.ChainData["response_hash"])
	}
	assert.Equal(t, anchor.SHA256([]byte(call.APIKey)), full.ChainData["buyer_fingerprint"])

	// The signature, by a published key, over the chain hash's hex.
	pub, published := tr.ed25519Key(t, view.ArkforgePubkey)
	sig, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(view.ArkforgeSignature, "ed25519:"))
	require.NoError(t, err)
	assert.True(t, ed25519.Verify(pub, []byte(hex.EncodeToString(chain)), sig), "signature of %s by %s", id, published.Kid)
	return view
}

func commit(field string, nonce []byte, value any) []byte {
	h := sha256.New()
	h.Write([]byte(field))
	h.Write([]byte{0})
	h.Write(nonce)
	h.Write(pyjson.Canonical(value))
	return h.Sum(nil)
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

var oidSigningCertificateV2 = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 9, 16, 2, 47}

// checkAnchors verifies an anchored proof's batch path, TSA token and Rekor
// entry, and returns the batch root.
func checkAnchors(t *testing.T, tl *trustlayer.TrustLayer, tr *trust, view trustlayer.View, genTime time.Time) []byte {
	t.Helper()
	b := view.BatchAnchor
	require.Equal(t, "anchored", b.Status)
	chain := unhex(t, view.Hashes.Chain)
	root := unhex(t, b.Root)
	path := make([][]byte, len(b.AuditPath))
	for i, p := range b.AuditPath {
		path[i] = unhex(t, p)
	}
	require.NoError(t, proof.VerifyInclusion(rfc6962.DefaultHasher, uint64(b.LeafIndex), uint64(b.TreeSize),
		rfc6962.DefaultHasher.HashLeaf(chain), path, root))
	assert.NotEqual(t, chain, root, "the root is never the chain hash, even for a batch of one")

	// RFC 3161: granted, no certificate embedded; verified once the TSA
	// certificate is supplied, against the root.
	ta := view.TimestampAuthority
	assert.Equal(t, "verified", ta.Status)
	assert.Equal(t, "batch_root", ta.Anchored)
	tsr, err := base64.StdEncoding.DecodeString(ta.TSRBase64)
	require.NoError(t, err)
	resp, err := timestamp.ParseResponse(tsr)
	require.NoError(t, err)
	assert.False(t, resp.AddTSACertificate)
	assert.Empty(t, resp.Certificates, "the token embeds no certificate")
	p7, err := pkcs7.Parse(resp.RawToken)
	require.NoError(t, err)
	p7.Certificates = append(p7.Certificates, tr.tsaCert)
	roots := x509.NewCertPool()
	roots.AddCert(tr.tsaRoot)
	require.NoError(t, p7.VerifyWithOpts(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageTimeStamping}}))
	var essV2 asn1.RawValue
	require.NoError(t, p7.UnmarshalSignedAttribute(oidSigningCertificateV2, &essV2))
	certHash := sha256.Sum256(tr.tsaCert.Raw)
	assert.True(t, bytes.Contains(essV2.FullBytes, certHash[:]), "ESS signingCertificateV2 names the TSA certificate")
	ts, err := timestamp.Parse(resp.RawToken)
	require.NoError(t, err)
	imprint := sha256.Sum256(root)
	assert.Equal(t, imprint[:], ts.HashedMessage, "imprint = SHA-256 of the root's raw bytes")
	assert.Equal(t, crypto.SHA256, ts.HashAlgorithm)
	assert.Nil(t, ts.Nonce)
	assert.True(t, ts.Time.Equal(genTime.Truncate(time.Second)), "genTime %s, clock %s", ts.Time, genTime)

	// Rekor.
	tlog := view.TransparencyLog
	require.NotNil(t, tlog)
	entryBytes, err := tl.RekorEntry(tlog.UUID)
	require.NoError(t, err)
	checkRekorEntry(t, tr, entryBytes, tlog, hex.EncodeToString(root))
	return root
}

func checkRekorEntry(t *testing.T, tr *trust, entryBytes []byte, tlog *trustlayer.TransparencyLog, anchoredHex string) {
	t.Helper()
	var answer map[string]proofs.RekorEntry
	require.NoError(t, json.Unmarshal(entryBytes, &answer))
	require.Len(t, answer, 1)
	e, ok := answer[tlog.UUID]
	require.True(t, ok)
	body, err := base64.StdEncoding.DecodeString(e.Body)
	require.NoError(t, err)
	var rekord proofs.HashedRekord
	require.NoError(t, json.Unmarshal(body, &rekord))
	assert.Equal(t, "hashedrekord", rekord.Kind)
	assert.Equal(t, "0.0.1", rekord.APIVersion)
	artifact := sha256.Sum256([]byte(anchoredHex))
	assert.Equal(t, "sha256", rekord.Spec.Data.Hash.Algorithm)
	assert.Equal(t, hex.EncodeToString(artifact[:]), rekord.Spec.Data.Hash.Value)
	submitterPEM, err := base64.StdEncoding.DecodeString(rekord.Spec.Signature.PublicKey.Content)
	require.NoError(t, err)
	published := false
	for _, k := range tr.keys.RekorKeys {
		published = published || k.PublicPEM == string(submitterPEM)
	}
	assert.True(t, published, "the submitter key is published")
	block, _ := pem.Decode(submitterPEM)
	require.NotNil(t, block)
	submitter, err := x509.ParsePKIXPublicKey(block.Bytes)
	require.NoError(t, err)
	sig, err := base64.StdEncoding.DecodeString(rekord.Spec.Signature.Content)
	require.NoError(t, err)
	assert.True(t, ecdsa.VerifyASN1(submitter.(*ecdsa.PublicKey), artifact[:], sig), "entry signature")

	// SET over the sorted compact JSON, by the log key.
	logID := sha256.Sum256(tr.logKeyDER)
	assert.Equal(t, hex.EncodeToString(logID[:]), e.LogID)
	set := fmt.Sprintf(`{"body":%q,"integratedTime":%d,"logID":%q,"logIndex":%d}`, e.Body, e.IntegratedTime, e.LogID, e.LogIndex)
	setSig, err := base64.StdEncoding.DecodeString(e.Verification.SignedEntryTimestamp)
	require.NoError(t, err)
	setDigest := sha256.Sum256([]byte(set))
	assert.True(t, ecdsa.VerifyASN1(tr.logKey, setDigest[:], setSig), "SET")

	// Inclusion with the shard-local index.
	ip := e.Verification.InclusionProof
	assert.NotEmpty(t, ip.Hashes)
	assert.NotEqual(t, e.LogIndex, ip.LogIndex, "global and shard-local indexes differ")
	leaf := rfc6962.DefaultHasher.HashLeaf(body)
	hashes := make([][]byte, len(ip.Hashes))
	for i, h := range ip.Hashes {
		hashes[i] = unhex(t, h)
	}
	require.NoError(t, proof.VerifyInclusion(rfc6962.DefaultHasher, uint64(ip.LogIndex), uint64(ip.TreeSize), leaf, hashes, unhex(t, ip.RootHash)))

	// The checkpoint, opened by formats' ECDSA verifier.
	vkey := fmt.Sprintf("%s+%08x+%s", tr.logName, logID[:4], base64.StdEncoding.EncodeToString(append([]byte{0x02}, tr.logKeyDER...)))
	verifier, err := fnote.NewECDSAVerifier(vkey)
	require.NoError(t, err)
	n, err := note.Open([]byte(ip.Checkpoint), note.VerifierList(verifier))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(n.Text, "\n"), "\n")
	require.Len(t, lines, 3)
	origin, treeID, ok := strings.Cut(lines[0], " - ")
	require.True(t, ok)
	assert.Equal(t, tr.logName, origin)
	assert.Equal(t, strconv.FormatInt(ip.TreeSize, 10), lines[1])
	cpRoot, err := base64.StdEncoding.DecodeString(lines[2])
	require.NoError(t, err)
	assert.Equal(t, unhex(t, ip.RootHash), cpRoot)
	id, err := strconv.ParseUint(treeID, 10, 64)
	require.NoError(t, err)
	assert.Equal(t, fmt.Sprintf("%016x%x", id, leaf), tlog.UUID)
	assert.Equal(t, e.LogIndex, tlog.LogIndex)
	assert.Equal(t, e.IntegratedTime, tlog.IntegratedTime)
}
