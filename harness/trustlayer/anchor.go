package trustlayer

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/big"
	"time"

	"github.com/digitorus/timestamp"
)

// tsa is the test time-stamping authority: a self-signed root and the TSA
// certificate it issued, P-384 keys and SHA-512 signatures as FreeTSA's.
type tsa struct {
	root, cert *x509.Certificate
	key        *ecdsa.PrivateKey
}

// The certificates outlive any clock a test sets, and the wall clock too:
// pkcs7 checks the chain at the token's signingTime, which it takes from
// the machine's clock, not the stand-in's.
var (
	certNotBefore = time.Date(2016, 1, 1, 0, 0, 0, 0, time.UTC)
	certNotAfter  = time.Date(2060, 1, 1, 0, 0, 0, 0, time.UTC)
)

// tsaPolicy is the TSA policy FreeTSA's tokens carry.
var tsaPolicy = asn1.ObjectIdentifier{1, 2, 3, 4, 1}

func newTSA() (*tsa, error) {
	rootKey, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		return nil, err
	}
	rootTemplate := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{Organization: []string{"Test TSA"}, OrganizationalUnit: []string{"Root CA"}, CommonName: "root.tsa.test"},
		NotBefore:    certNotBefore, NotAfter: certNotAfter,
		IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	rootDER, err := x509.CreateCertificate(rand.Reader, rootTemplate, rootTemplate, &rootKey.PublicKey, rootKey)
	if err != nil {
		return nil, err
	}
	root, err := x509.ParseCertificate(rootDER)
	if err != nil {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		return nil, err
	}
	// RFC 3161 §2.3: the TSA's certificate has exactly one extended key
	// usage, timeStamping, and marks it critical. x509 writes the extension
	// non-critical, so it is given whole; x509 then leaves its own out.
	eku, err := asn1.Marshal([]asn1.ObjectIdentifier{{1, 3, 6, 1, 5, 5, 7, 3, 8}})
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 63))
	if err != nil {
		return nil, err
	}
	template := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{Organization: []string{"Test TSA"}, OrganizationalUnit: []string{"TSA"}, CommonName: "tsa.test"},
		NotBefore:    certNotBefore, NotAfter: certNotAfter,
		KeyUsage:        x509.KeyUsageDigitalSignature | x509.KeyUsageContentCommitment,
		ExtraExtensions: []pkix.Extension{{Id: asn1.ObjectIdentifier{2, 5, 29, 37}, Critical: true, Value: eku}},
	}
	der, err := x509.CreateCertificate(rand.Reader, template, root, &key.PublicKey, rootKey)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &tsa{root: root, cert: cert, key: key}, nil
}

// stamp is the TimeStampResp for the 32 raw bytes of an anchored hash, as
// `openssl ts -query -no_nonce -sha256` asks it: imprint SHA-256 over those
// bytes, no nonce, certReq false, so the token embeds no certificate.
func (t *tsa) stamp(anchored []byte, genTime time.Time) ([]byte, error) {
	imprint := sha256.Sum256(anchored)
	ts := timestamp.Timestamp{
		HashAlgorithm: crypto.SHA256,
		HashedMessage: imprint[:],
		Time:          genTime.UTC().Truncate(time.Second),
		Policy:        tsaPolicy,
		Ordering:      true,
		// false: the library then signs with SkipCertificates, which is
		// what a certReq=false request gets from FreeTSA.
		AddTSACertificate: false,
	}
	return ts.CreateResponseWithOpts(t.cert, t.key, crypto.SHA512)
}

// CloseBatch anchors every pending proof as one batch: leaves the chain
// hashes in queue order, one RFC 3161 token and one Rekor entry on the
// root. It returns the batch id, "" when nothing was pending.
func (tl *TrustLayer) CloseBatch() (string, error) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return tl.closeLocked()
}

func (tl *TrustLayer) closeLocked() (string, error) {
	if len(tl.pending) == 0 {
		return "", nil
	}
	now := tl.clock().UTC()
	t := newTree()
	for _, r := range tl.pending {
		t.appendLeaf(leafHash(r.chainRaw))
	}
	root := t.root()
	rootHex := hex.EncodeToString(root)
	tsr, err := tl.tsa.stamp(root, now)
	if err != nil {
		return "", fmt.Errorf("trustlayer: the TSA: %w", err)
	}
	entry, err := tl.log.submit(rootHex, tl.rekorKeys[tl.submitter], now)
	if err != nil {
		return "", fmt.Errorf("trustlayer: Rekor: %w", err)
	}
	tl.batches++
	batchID := fmt.Sprintf("batch_%s_%03d", now.Format("20060102_150405"), now.Nanosecond()/int(time.Millisecond))
	tsaView := &TimestampAuthority{Status: "verified", Provider: tl.opts.TSAProvider,
		TSRBase64: base64.StdEncoding.EncodeToString(tsr), Anchored: "batch_root"}
	tlog := &TransparencyLog{Provider: "sigstore-rekor", Status: "verified", UUID: entry.uuid,
		LogIndex: entry.logIndex, IntegratedTime: entry.integratedTime,
		LogURL:    tl.opts.RekorURL + "/api/v1/log/entries/" + entry.uuid,
		VerifyURL: fmt.Sprintf("%s/?logIndex=%d", tl.opts.RekorURL, entry.logIndex),
		Anchored:  "batch_root"}
	for i, r := range tl.pending {
		path := t.inclusion(uint64(i))
		audit := make([]string, len(path))
		for j, h := range path {
			audit[j] = hex.EncodeToString(h)
		}
		r.batch = &BatchAnchor{Status: "anchored", BatchID: batchID, LeafIndex: i, TreeSize: len(tl.pending),
			AuditPath: audit, Root: "sha256:" + rootHex}
		r.tsa = tsaView
		r.tlog = tlog
		r.tsr = tsr
	}
	tl.pending = nil
	return batchID, nil
}
