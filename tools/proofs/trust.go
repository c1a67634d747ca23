package proofs

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/transparency-dev/formats/note"
	sumdb "golang.org/x/mod/sumdb/note"
)

// The trust material a verification rests on, pinned in the repository
// (trust/, each file's provenance in trust/PROVENANCE.md) rather than read
// from the proofs it judges. Its layout:
//
//	published_keys.json      ArkForge's key history, as Trust Layer publishes it
//	tsa/<provider>/root.pem  a TSA's root certificate (the view's provider name)
//	tsa/<provider>/tsa.pem   the TSA's signing certificate, which its tokens omit
//	rekor/<log>.pem          a Rekor log's public key, named as its checkpoints name it
//
//go:embed trust
var pinned embed.FS

// Trust is the material Verify trusts.
type Trust struct {
	// Keys are ArkForge's Ed25519 signing keys, retired ones included.
	Keys []SigningKey
	// RekorKeys are the keys ArkForge submits its Rekor entries with.
	RekorKeys []RekorKey
	// TSAs are the timestamp authorities, by the view's provider name.
	TSAs map[string]*TSA
	// Logs are the Rekor logs, by the name their checkpoints carry.
	Logs map[string]*Log
	// Pinned says the material is the repository's own, compiled in.
	Pinned bool
	// Files are the files the material was read from, by their path in
	// its folder, in that order: what a report names it by.
	Files []TrustFile
	// dir is the folder the material was read from, for messages.
	dir string
}

// TrustFile is one file of the trust material and its SHA-256, hex.
type TrustFile struct {
	Name   string `json:"fichier"`
	SHA256 string `json:"sha256"`
}

// SigningKey is one Ed25519 key of ArkForge's history.
type SigningKey struct {
	ID      string
	Public  ed25519.PublicKey
	Encoded string // "ed25519:" and base64url, as views write arkforge_pubkey
	Retired *time.Time
}

// RekorKey is one key ArkForge signs Rekor entries with.
type RekorKey struct {
	ID      string
	Public  *ecdsa.PublicKey
	DER     []byte // its SPKI, which an entry's PEM must hold
	Retired *time.Time
}

// TSA is one timestamp authority: the signing certificate its tokens do
// not embed, verified to chain to the TSA's root for timestamping, and the
// window in which both certificates are valid.
type TSA struct {
	Cert        *x509.Certificate
	From, Until time.Time
}

// Log is one Rekor log: its key verifies entries' SETs and its checkpoints.
type Log struct {
	Name   string
	Public *ecdsa.PublicKey
	ID     string // hex SHA-256 of the key's DER: the entries' logID
	Note   sumdb.Verifier
}

// retiredAt reports whether a key retired at r no longer signs at t: "a key
// is valid for proofs dated before retired_at".
func retiredAt(r *time.Time, t time.Time) bool { return r != nil && !t.Before(*r) }

// PinnedTrust is the trust material the repository pins.
func PinnedTrust() (*Trust, error) {
	sub, err := fs.Sub(pinned, "trust")
	if err != nil {
		return nil, err
	}
	t, err := loadTrust(embeddedTrust{sub}, "tools/proofs/trust")
	if t != nil {
		t.Pinned = true
	}
	return t, err
}

// ReadTrust loads the trust material of a folder laid out as trust/ is,
// read as anyone's folder is (Folder): within it, regular files only,
// each of at most TrustFileLimit.
func ReadTrust(dir string) (*Trust, error) {
	f, err := OpenFolder(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return loadTrust(folderTrust{f}, dir)
}

// TrustFileLimit bounds each file of trust material: a key history or a
// certificate, a few KiB.
var TrustFileLimit = Limit{What: "a file of trust material", Bytes: 256 << 10}

// trustEntriesLimit bounds a trust folder's listing: a few TSAs and logs.
const trustEntriesLimit = 256

// trustSource is where trust material is read from; errors do not name
// the file, loadTrust does.
type trustSource interface {
	read(name string) ([]byte, error)
	readDir(name string) ([]fs.DirEntry, error)
}

// embeddedTrust is the pinned material, compiled in.
type embeddedTrust struct{ fsys fs.FS }

func (e embeddedTrust) read(name string) ([]byte, error)           { return fs.ReadFile(e.fsys, name) }
func (e embeddedTrust) readDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(e.fsys, name) }

// folderTrust is material a flag names, someone else's folder.
type folderTrust struct{ f *Folder }

func (t folderTrust) read(name string) ([]byte, error) {
	return readRegular(t.f.root, name, TrustFileLimit)
}

func (t folderTrust) readDir(name string) ([]fs.DirEntry, error) {
	if ok, err := t.f.Present(name); err != nil || !ok {
		return nil, fs.ErrNotExist
	}
	entries, err := t.f.ReadDir(name, trustEntriesLimit)
	if err != nil {
		return nil, errors.New(strings.TrimPrefix(err.Error(), t.f.Path(name)+": "))
	}
	return entries, nil
}

// recording keeps the name and SHA-256 of every file read.
type recording struct {
	trustSource
	files []TrustFile
}

func (r *recording) read(name string) ([]byte, error) {
	data, err := r.trustSource.read(name)
	if err == nil {
		sum := sha256.Sum256(data)
		r.files = append(r.files, TrustFile{Name: name, SHA256: hex.EncodeToString(sum[:])})
	}
	return data, err
}

// publishedKeys is published_keys.json.
type publishedKeys struct {
	Keys []struct {
		KID       string  `json:"kid"`
		Type      string  `json:"type"`
		Public    string  `json:"public"`
		RetiredAt *string `json:"retired_at"`
	} `json:"keys"`
	RekorKeys []struct {
		KID       string  `json:"kid"`
		Type      string  `json:"type"`
		PublicPEM string  `json:"public_pem"`
		RetiredAt *string `json:"retired_at"`
	} `json:"rekor_keys"`
}

// decodeKeyHistory reads a key history as published_keys.json and Trust
// Layer's GET /v1/pubkey write it (keys and rekor_keys); where names it in
// errors.
func decodeKeyHistory(data []byte, where string) ([]SigningKey, []RekorKey, error) {
	var pk publishedKeys
	if err := decodeJSON(data, &pk); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", where, err)
	}
	var keys []SigningKey
	for i, k := range pk.Keys {
		at := fmt.Sprintf("%s /keys/%d", where, i)
		if k.Type != "Ed25519" {
			return nil, nil, fmt.Errorf("%s/type: %q, want Ed25519", at, k.Type)
		}
		pub, err := decodeEd25519(k.Public)
		if err != nil {
			return nil, nil, fmt.Errorf("%s/public: %w", at, err)
		}
		retired, err := parseRetired(k.RetiredAt)
		if err != nil {
			return nil, nil, fmt.Errorf("%s/retired_at: %w", at, err)
		}
		keys = append(keys, SigningKey{ID: k.KID, Public: pub, Encoded: k.Public, Retired: retired})
	}
	var rekorKeys []RekorKey
	for i, k := range pk.RekorKeys {
		at := fmt.Sprintf("%s /rekor_keys/%d", where, i)
		pub, der, err := parseECDSAPEM([]byte(k.PublicPEM))
		if err != nil {
			return nil, nil, fmt.Errorf("%s/public_pem: %w", at, err)
		}
		retired, err := parseRetired(k.RetiredAt)
		if err != nil {
			return nil, nil, fmt.Errorf("%s/retired_at: %w", at, err)
		}
		rekorKeys = append(rekorKeys, RekorKey{ID: k.KID, Public: pub, DER: der, Retired: retired})
	}
	return keys, rekorKeys, nil
}

// CompareKeyHistory holds the material's keys to a key history Trust Layer
// publishes now (GET /v1/pubkey; name names it): every key it lists, with
// its retirement, must be pinned, or the proofs it signs verify against
// nothing; and every pinned key must still be listed, since the history
// only grows. It returns one line per difference, none when they agree.
func (t *Trust) CompareKeyHistory(name string, data []byte) ([]string, error) {
	keys, rekorKeys, err := decodeKeyHistory(data, name)
	if err != nil {
		return nil, err
	}
	var lines []string
	retired := func(r *time.Time) string {
		if r == nil {
			return "not retired"
		}
		return "retired at " + r.UTC().Format(time.RFC3339)
	}
	signing := func(k SigningKey) string { return k.ID + " " + k.Encoded + " " + retired(k.Retired) }
	rekor := func(k RekorKey) string { return k.ID + " " + hex.EncodeToString(k.DER) + " " + retired(k.Retired) }
	lines = append(lines, compareKeys("signing key", signing, keys, t.Keys, t.dir, name)...)
	lines = append(lines, compareKeys("Rekor key", rekor, rekorKeys, t.RekorKeys, t.dir, name)...)
	return lines, nil
}

// compareKeys lists the keys of one side that the other lacks, each
// written by describe, whose text is the key's identity.
func compareKeys[K any](kind string, describe func(K) string, published, pinned []K, pinnedName, publishedName string) []string {
	has := func(list []K, k K) bool {
		return slices.ContainsFunc(list, func(o K) bool { return describe(o) == describe(k) })
	}
	var lines []string
	for _, k := range published {
		if !has(pinned, k) {
			lines = append(lines, fmt.Sprintf("%s %s is published by %s but not pinned in %s", kind, describe(k), publishedName, pinnedName))
		}
	}
	for _, k := range pinned {
		if !has(published, k) {
			lines = append(lines, fmt.Sprintf("%s %s is pinned in %s but no longer published by %s", kind, describe(k), pinnedName, publishedName))
		}
	}
	return lines
}

// loadTrust loads trust material from fsys; name names it in errors.
func loadTrust(source trustSource, name string) (*Trust, error) {
	src := &recording{trustSource: source}
	t, err := decodeTrust(src, name)
	if err != nil {
		return nil, err
	}
	t.Files, t.dir = src.files, name
	return t, nil
}

func decodeTrust(src *recording, name string) (*Trust, error) {
	t := &Trust{TSAs: map[string]*TSA{}, Logs: map[string]*Log{}}
	at := func(file string) string { return path.Join(name, file) }
	data, err := src.read("published_keys.json")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", at("published_keys.json"), err)
	}
	if t.Keys, t.RekorKeys, err = decodeKeyHistory(data, at("published_keys.json")); err != nil {
		return nil, err
	}
	if len(t.Keys) == 0 {
		return nil, fmt.Errorf("%s: no signing key", at("published_keys.json"))
	}
	providers, err := src.readDir("tsa")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", at("tsa"), err)
	}
	for _, p := range providers {
		tsa, err := loadTSA(src, path.Join("tsa", p.Name()), name)
		if err != nil {
			return nil, err
		}
		t.TSAs[p.Name()] = tsa
	}
	logs, err := src.readDir("rekor")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", at("rekor"), err)
	}
	for _, l := range logs {
		logName, ok := strings.CutSuffix(l.Name(), ".pem")
		if !ok {
			continue
		}
		file := path.Join("rekor", l.Name())
		data, err := src.read(file)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", at(file), err)
		}
		log, err := newLog(logName, data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", at(file), err)
		}
		t.Logs[logName] = log
	}
	return t, nil
}

// loadTSA reads a TSA's folder: its root and its signing certificate, which
// must chain to the root and may sign timestamps.
func loadTSA(src trustSource, dir, name string) (*TSA, error) {
	tsa, err := readTSA(src, dir, name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path.Join(name, dir), err)
	}
	return tsa, nil
}

func readTSA(src trustSource, dir, name string) (*TSA, error) {
	certs := map[string]*x509.Certificate{}
	for _, f := range []string{"root.pem", "tsa.pem"} {
		file := path.Join(dir, f)
		data, err := src.read(file)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path.Join(name, file), err)
		}
		block, _ := pem.Decode(data)
		if block == nil || block.Type != "CERTIFICATE" {
			return nil, fmt.Errorf("%s: want a PEM certificate", path.Join(name, file))
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path.Join(name, file), err)
		}
		certs[f] = cert
	}
	return NewTSA(certs["root.pem"], certs["tsa.pem"])
}

// NewTSA pins a TSA: its signing certificate must chain to its root and be
// for timestamping. The chain is verified here, once, for every time both
// certificates are valid at; a token's time is held to that window.
func NewTSA(root, cert *x509.Certificate) (*TSA, error) {
	roots := x509.NewCertPool()
	roots.AddCert(root)
	from, until := cert.NotBefore, cert.NotAfter
	if root.NotBefore.After(from) {
		from = root.NotBefore
	}
	if root.NotAfter.Before(until) {
		until = root.NotAfter
	}
	if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, CurrentTime: from,
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageTimeStamping}}); err != nil {
		return nil, fmt.Errorf("the TSA certificate %q: %w", cert.Subject.CommonName, err)
	}
	return &TSA{Cert: cert, From: from, Until: until}, nil
}

// newLog builds a Rekor log's verifiers from its PEM key: the checkpoint's
// signed-note verifier is formats' ECDSA verifier, whose key string is
// "<name>+<first 4 bytes of SHA-256(DER), hex>+<base64(0x02 || DER)>".
func newLog(name string, pemData []byte) (*Log, error) {
	pub, der, err := parseECDSAPEM(pemData)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(der)
	vkey := fmt.Sprintf("%s+%x+%s", name, sum[:4], base64.StdEncoding.EncodeToString(append([]byte{0x02}, der...)))
	v, err := note.NewECDSAVerifier(vkey)
	if err != nil {
		return nil, err
	}
	return &Log{Name: name, Public: pub, ID: fmt.Sprintf("%x", sum), Note: v}, nil
}

// parseECDSAPEM reads a PEM public key that must be ECDSA P-256, and returns
// it with its DER.
func parseECDSAPEM(data []byte) (*ecdsa.PublicKey, []byte, error) {
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "PUBLIC KEY" {
		return nil, nil, errors.New("want a PEM public key")
	}
	key, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, nil, err
	}
	pub, ok := key.(*ecdsa.PublicKey)
	if !ok || pub.Curve.Params().Name != "P-256" {
		return nil, nil, errors.New("want an ECDSA P-256 key")
	}
	return pub, block.Bytes, nil
}

// decodeEd25519 reads "ed25519:" and the key in base64url without padding.
func decodeEd25519(s string) (ed25519.PublicKey, error) {
	raw, ok := strings.CutPrefix(s, "ed25519:")
	if !ok {
		return nil, errors.New(`want "ed25519:" and the key in base64url`)
	}
	key, err := base64.RawURLEncoding.DecodeString(raw)
	if err != nil || len(key) != ed25519.PublicKeySize {
		return nil, errors.New("want a 32-byte Ed25519 key in base64url without padding")
	}
	return key, nil
}

// parseRetired reads a retired_at, null or an RFC 3339 UTC time.
func parseRetired(s *string) (*time.Time, error) {
	if s == nil {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339, *s)
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// signingKey finds the key a view names: by its kid when the view carries
// one, else by the public key it embeds, which must then be the history's.
func (t *Trust) signingKey(v *View) (SigningKey, bool) {
	for _, k := range t.Keys {
		if v.KeyID != "" {
			if k.ID == v.KeyID {
				return k, k.Encoded == v.PublicKey || v.PublicKey == ""
			}
			continue
		}
		if k.Encoded == v.PublicKey {
			return k, true
		}
	}
	return SigningKey{}, false
}

// rekorKey finds the ArkForge Rekor key whose SPKI is der.
func (t *Trust) rekorKey(der []byte) (RekorKey, bool) {
	for _, k := range t.RekorKeys {
		if string(k.DER) == string(der) {
			return k, true
		}
	}
	return RekorKey{}, false
}
