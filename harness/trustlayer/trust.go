package trustlayer

import (
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"time"
)

// PublishedKeys is published_keys.json, ArkForge's key history.
type PublishedKeys struct {
	Doc       string         `json:"_doc"`
	Keys      []PublishedKey `json:"keys"`
	RekorKeys []PublishedKey `json:"rekor_keys"`
}

// PublishedKey is one key of the history: Public for an Ed25519 key
// ("ed25519:" + base64url, no padding), PublicPEM for a Rekor key.
type PublishedKey struct {
	Kid       string  `json:"kid"`
	Type      string  `json:"type"`
	Public    string  `json:"public,omitempty"`
	PublicPEM string  `json:"public_pem,omitempty"`
	Node      string  `json:"node"`
	ValidFrom string  `json:"valid_from"`
	RetiredAt *string `json:"retired_at"`
}

func keyTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

func retired(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := keyTime(*t)
	return &s
}

// Published is the stand-in's key history, as published_keys.json holds it.
func (tl *TrustLayer) Published() PublishedKeys {
	p := PublishedKeys{Doc: "Published key history of the Trust Layer stand-in (test keys, never ArkForge's). " +
		"A key is valid for proofs dated before retired_at. Append only."}
	for _, k := range tl.keys {
		pub, _ := tl.PublicKey(k.spec.Kid)
		p.Keys = append(p.Keys, PublishedKey{Kid: k.spec.Kid, Type: "Ed25519", Public: ed25519Text(pub),
			Node: "stand-in", ValidFrom: keyTime(k.spec.ValidFrom), RetiredAt: retired(k.spec.RetiredAt)})
	}
	for _, k := range tl.rekorKeys {
		p.RekorKeys = append(p.RekorKeys, PublishedKey{Kid: k.spec.Kid, Type: "ECDSA-P256-SHA256", PublicPEM: k.pem,
			Node: "stand-in", ValidFrom: keyTime(k.spec.ValidFrom), RetiredAt: retired(k.spec.RetiredAt)})
	}
	return p
}

// WriteTrust writes the trust material a verifier is given, in the layout
// it reads (the real one holds FreeTSA's and Sigstore's):
//
//	published_keys.json
//	tsa/<provider>/root.pem   the TSA's root CA
//	tsa/<provider>/tsa.pem    the TSA's certificate (tokens embed none)
//	rekor/<log name>.pem      the log's public key, PKIX PEM
func (tl *TrustLayer) WriteTrust(dir string) error {
	keys, err := json.MarshalIndent(tl.Published(), "", "  ")
	if err != nil {
		return err
	}
	logPEM, err := publicPEM(&tl.log.key.PublicKey)
	if err != nil {
		return err
	}
	tsaDir := filepath.Join(dir, "tsa", tl.opts.TSAProvider)
	files := []struct {
		path string
		data []byte
	}{
		{filepath.Join(dir, "published_keys.json"), append(keys, '\n')},
		{filepath.Join(tsaDir, "root.pem"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: tl.tsa.root.Raw})},
		{filepath.Join(tsaDir, "tsa.pem"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: tl.tsa.cert.Raw})},
		{filepath.Join(dir, "rekor", tl.opts.LogName+".pem"), []byte(logPEM)},
	}
	for _, f := range files {
		if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(f.path, f.data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
