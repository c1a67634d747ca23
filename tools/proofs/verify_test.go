package proofs_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/tools/proofs"
)

// The real artefacts of testdata/trustlayer (README.md there says where
// each comes from) and what they establish.
const (
	gelDID     = "did:key:z6MktKdvc6Pb3e7iabTpEinZuX8CE8MnGMGGQsdEgm9BVqWq"
	gelGenTime = "2026-09-23T07:31:48Z" // the FreeTSA token's time over the gel batch's root
)

// gelSeason holds the gel proof's token time.
var gelSeason = proofs.Window{
	Opening: time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC),
	Closing: time.Date(2026, 9, 30, 23, 59, 59, 0, time.UTC),
}

func readFile(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "trustlayer", name))
	require.NoError(t, err)
	return data
}

func readView(t testing.TB, name string) *proofs.View {
	t.Helper()
	v, err := proofs.ParseView(name, readFile(t, name))
	require.NoError(t, err)
	return v
}

// newVerifier is a verifier of trust holding tokens to the season.
func newVerifier(t testing.TB, trust *proofs.Trust, season proofs.Window, opts ...proofs.VerifierOption) *proofs.Verifier {
	t.Helper()
	vr, err := proofs.NewVerifier(trust, append([]proofs.VerifierOption{proofs.WithSeason(season)}, opts...)...)
	require.NoError(t, err)
	return vr
}

func pinned(t testing.TB) *proofs.Trust {
	t.Helper()
	trust, err := proofs.PinnedTrust()
	require.NoError(t, err)
	return trust
}

func TestRealProofs(t *testing.T) {
	tests := []struct {
		name, view, entry string
		want              []proofs.Check
		did               string
	}{
		// The 3.1 view passes every check but Rekor, whose entry is not
		// public: not supplied, never valid.
		{"spec 3.1, identity bound", "proof_proveit_gel.json", "", []proofs.Check{proofs.CheckRekorMissing}, gelDID},
		// The 2.0 proof's entry verifies (no rekor_* failure), but its
		// identity is not receivable, and its token is of March 2026.
		{"spec 2.0 with its entry", "proof_rekor.json", "rekor_entry.json",
			[]proofs.Check{proofs.CheckSpecVersion, proofs.CheckCommitments, proofs.CheckIdentityOpening, proofs.CheckTokenOutOfTime}, ""},
		{"spec 2.0 with an unrelated entry", "proof_rekor.json", "rekor_unrelated.json",
			[]proofs.Check{proofs.CheckSpecVersion, proofs.CheckCommitments, proofs.CheckIdentityOpening, proofs.CheckTokenOutOfTime, proofs.CheckRekorKind}, ""},
		{"spec 1.2", "proof_2026_07.json", "",
			[]proofs.Check{proofs.CheckSpecVersion, proofs.CheckCommitments, proofs.CheckIdentityOpening, proofs.CheckTokenOutOfTime, proofs.CheckRekorMissing}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var entry []byte
			if tt.entry != "" {
				entry = readFile(t, tt.entry)
			}
			vr := newVerifier(t, pinned(t), gelSeason)
			r := vr.Verify(proofs.Input{View: readView(t, tt.view), Entry: entry})
			assert.Equal(t, tt.want, r.Failures)
			assert.False(t, r.Valid)
			assert.False(t, r.Pending)
			assert.Equal(t, tt.did, r.AgentDID)
			assert.Empty(t, r.Incidents)
		})
	}
}

// TestRealSpec20RekorEntry holds every Rekor check of the 2.0 proof's real
// entry, and each mutation of it fails its own check.
func TestRealSpec20RekorEntry(t *testing.T) {
	base := readFile(t, "rekor_entry.json")
	rekorChecks := func(r proofs.Result) []proofs.Check {
		var out []proofs.Check
		for _, c := range r.Failures {
			if len(c) > 6 && c[:6] == "rekor_" {
				out = append(out, c)
			}
		}
		return out
	}
	edit := func(t *testing.T, fn func(e map[string]any)) []byte {
		var f map[string]map[string]any
		require.NoError(t, json.Unmarshal(base, &f))
		for _, e := range f {
			fn(e)
		}
		out, err := json.Marshal(f)
		require.NoError(t, err)
		return out
	}
	inclusion := func(e map[string]any) map[string]any {
		return e["verification"].(map[string]any)["inclusionProof"].(map[string]any)
	}
	flipBase64 := func(s string) string {
		b, _ := base64.StdEncoding.DecodeString(s)
		b[len(b)/2] ^= 1
		return base64.StdEncoding.EncodeToString(b)
	}
	tests := []struct {
		name  string
		view  func(v *proofs.View)
		entry func(t *testing.T) []byte
		want  []proofs.Check
	}{
		{"as published", nil, nil, nil},
		{"not supplied", nil, func(*testing.T) []byte { return nil }, []proofs.Check{proofs.CheckRekorMissing}},
		{"of another kind", nil, func(t *testing.T) []byte { return readFile(t, "rekor_unrelated.json") }, []proofs.Check{proofs.CheckRekorKind}},
		{"the _already_exists uuid", func(v *proofs.View) { v.Log.UUID = "_already_exists"; v.Log.LogIndex = nil }, nil, []proofs.Check{proofs.CheckRekorUnverifiable}},
		{"altered SET", nil, func(t *testing.T) []byte {
			return edit(t, func(e map[string]any) {
				v := e["verification"].(map[string]any)
				v["signedEntryTimestamp"] = flipBase64(v["signedEntryTimestamp"].(string))
			})
		}, []proofs.Check{proofs.CheckRekorSET}},
		{"altered inclusion proof", nil, func(t *testing.T) []byte {
			return edit(t, func(e map[string]any) {
				h := inclusion(e)["hashes"].([]any)
				h[3] = "00" + h[3].(string)[2:]
			})
		}, []proofs.Check{proofs.CheckRekorInclusion}},
		{"inclusion proof one hash short", nil, func(t *testing.T) []byte {
			return edit(t, func(e map[string]any) {
				ip := inclusion(e)
				ip["hashes"] = ip["hashes"].([]any)[1:]
			})
		}, []proofs.Check{proofs.CheckRekorInclusion}},
		{"altered checkpoint signature", nil, func(t *testing.T) []byte {
			return edit(t, func(e map[string]any) {
				ip := inclusion(e)
				cp := []byte(ip["checkpoint"].(string))
				cp[len(cp)-10] ^= 1
				ip["checkpoint"] = string(cp)
			})
		}, []proofs.Check{proofs.CheckRekorCheckpoint}},
		{"checkpoint of another tree size", nil, func(t *testing.T) []byte {
			return edit(t, func(e map[string]any) {
				ip := inclusion(e)
				ip["treeSize"] = ip["treeSize"].(float64) + 1
			})
		}, []proofs.Check{proofs.CheckRekorCheckpoint}}, // the path of an inner leaf is the same in a tree one larger
		{"another log index than the view's", func(v *proofs.View) { *v.Log.LogIndex++ }, nil, []proofs.Check{proofs.CheckRekorCoordinates}},
		{"another time than the view's", func(v *proofs.View) { *v.Log.IntegratedTime++ }, nil, []proofs.Check{proofs.CheckRekorCoordinates}},
		// Another anchored hash: the entry attests a root the proof's
		// chain is not, so its imprint and its signature fail.
		{"of another root", func(v *proofs.View) { v.Hashes.Chain = "sha256:" + hexOf(0x42) }, nil, []proofs.Check{proofs.CheckRekorImprint, proofs.CheckRekorSigner}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			view := readView(t, "proof_rekor.json")
			if tt.view != nil {
				tt.view(view)
			}
			entry := base
			if tt.entry != nil {
				entry = tt.entry(t)
			}
			vr := newVerifier(t, pinned(t), gelSeason)
			r := vr.Verify(proofs.Input{View: view, Entry: entry})
			assert.Equal(t, tt.want, rekorChecks(r))
		})
	}
}

func hexOf(b byte) string {
	out := make([]byte, 64)
	for i := range out {
		out[i] = "0123456789abcdef"[b>>4]
		if i%2 == 1 {
			out[i] = "0123456789abcdef"[b&15]
		}
	}
	return string(out)
}

// TestRealSpec31Mutations holds each check of the 3.1 view against a
// mutation that breaks it alone.
func TestRealSpec31Mutations(t *testing.T) {
	genTime, err := time.Parse(time.RFC3339, gelGenTime)
	require.NoError(t, err)
	otherKey := "ed25519:" + base64.RawURLEncoding.EncodeToString(make([]byte, 32))
	tests := []struct {
		name   string
		view   func(v *proofs.View)
		trust  func(t *testing.T, tr *proofs.Trust)
		season *proofs.Window
		did    string
		want   []proofs.Check
	}{
		{name: "flipped signature byte", view: func(v *proofs.View) {
			b := []byte(v.Signature)
			b[20] ^= 1
			v.Signature = string(b)
		}, want: []proofs.Check{proofs.CheckSignature}},
		{name: "key outside the history", view: func(v *proofs.View) { v.PublicKey = otherKey }, want: []proofs.Check{proofs.CheckKeyUnknown}},
		{name: "key retired at the token's time", trust: func(t *testing.T, tr *proofs.Trust) {
			tr.Keys[0].Retired = &genTime
		}, want: []proofs.Check{proofs.CheckKeyRetired}},
		{name: "key retired after the token's time", trust: func(t *testing.T, tr *proofs.Trust) {
			later := genTime.Add(time.Second)
			tr.Keys[0].Retired = &later
		}},
		{name: "changed commitment", view: func(v *proofs.View) { v.Commitments["seller"] = "sha256:" + hexOf(0x11) }, want: []proofs.Check{proofs.CheckCommitmentsRoot}},
		{name: "missing identity commitment", view: func(v *proofs.View) { delete(v.Commitments, "agent_identity") },
			want: []proofs.Check{proofs.CheckCommitments, proofs.CheckCommitmentsRoot, proofs.CheckIdentityOpening}},
		{name: "identity opened to another DID", did: "did:key:z6MkSomeoneElse", want: []proofs.Check{proofs.CheckIdentityOtherDID}},
		{name: "identity opened to the submission's DID", did: gelDID},
		{name: "an identity value that opens nothing", view: func(v *proofs.View) {
			d := v.Disclosed["did_resolution_status"]
			d.Value = "unverified"
			v.Disclosed["did_resolution_status"] = d
		}, want: []proofs.Check{proofs.CheckIdentityOpening}},
		{name: "spec 3.0", view: func(v *proofs.View) { v.SpecVersion = "3.0" }, want: []proofs.Check{proofs.CheckSpecVersion}},
		{name: "spec 3.10 is later than 3.1", view: func(v *proofs.View) { v.SpecVersion = "3.10" }},
		{name: "audit path one short", view: func(v *proofs.View) { v.Batch.AuditPath = v.Batch.AuditPath[:3] }, want: []proofs.Check{proofs.CheckBatchPath}},
		{name: "audit path one long", view: func(v *proofs.View) { v.Batch.AuditPath = append(v.Batch.AuditPath, hexOf(0)) }, want: []proofs.Check{proofs.CheckBatchPath}},
		{name: "overstated tree size", view: func(v *proofs.View) { *v.Batch.TreeSize = 4096 }, want: []proofs.Check{proofs.CheckBatchPath}},
		{name: "leaf index past the tree", view: func(v *proofs.View) { *v.Batch.LeafIndex = 11 }, want: []proofs.Check{proofs.CheckBatchPath}},
		{name: "token of another root", view: func(v *proofs.View) {
			v.TSA.TSRBase64 = readView(t, "proof_rekor.json").TSA.TSRBase64
		}, want: []proofs.Check{proofs.CheckTokenImprint, proofs.CheckTokenOutOfTime}},
		{name: "token of a provider not pinned", view: func(v *proofs.View) { v.TSA.Provider = "digicert.com" }, want: []proofs.Check{proofs.CheckTokenSigner}},
		{name: "token checked against an untrusted certificate", trust: func(t *testing.T, tr *proofs.Trust) {
			tr.TSAs["freetsa.org"] = otherTSA(t)
		}, want: []proofs.Check{proofs.CheckTokenSigner}},
		{name: "token of a malformed response", view: func(v *proofs.View) { v.TSA.TSRBase64 = "MIIDqTADAgEA" }, want: []proofs.Check{proofs.CheckToken}},
		{name: "token not base64", view: func(v *proofs.View) { v.TSA.TSRBase64 = "%%%" }, want: []proofs.Check{proofs.CheckToken}},
		{name: "token dated after the season", season: &proofs.Window{Opening: gelSeason.Opening, Closing: genTime.Add(-time.Second)}, want: []proofs.Check{proofs.CheckTokenOutOfTime}},
		{name: "token dated before the season", season: &proofs.Window{Opening: genTime.Add(time.Second), Closing: gelSeason.Closing}, want: []proofs.Check{proofs.CheckTokenOutOfTime}},
		{name: "token dated on the season's closing", season: &proofs.Window{Opening: gelSeason.Opening, Closing: genTime}},
		{name: "token dated on the season's opening", season: &proofs.Window{Opening: genTime, Closing: gelSeason.Closing}},
		// Flat fields are used for nothing: a changed copy is an incident.
		{name: "changed flat identity", view: func(v *proofs.View) { v.Flat["agent_identity"] = "did:key:z6MkForged" }},
		{name: "changed flat hashes", view: func(v *proofs.View) { v.Hashes.Request = "sha256:" + hexOf(0x22) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			view := readView(t, "proof_proveit_gel.json")
			if tt.view != nil {
				tt.view(view)
			}
			trust := pinned(t)
			if tt.trust != nil {
				tt.trust(t, trust)
			}
			season := gelSeason
			if tt.season != nil {
				season = *tt.season
			}
			vr := newVerifier(t, trust, season)
			r := vr.Verify(proofs.Input{View: view, AgentDID: tt.did})
			assert.Equal(t, append(tt.want, proofs.CheckRekorMissing), r.Failures)
		})
	}
}

func TestPendingBatch(t *testing.T) {
	view := readView(t, "proof_proveit_gel.json")
	view.Batch = &proofs.BatchAnchor{Status: "pending"}
	vr := newVerifier(t, pinned(t), gelSeason)
	r := vr.Verify(proofs.Input{View: view})
	assert.Equal(t, proofs.Outcome{Pending: true, AgentDID: gelDID}, r.Outcome)
	assert.Empty(t, r.Failures)

	// A definite failure is not pending: no anchoring can mend it.
	view.Signature = "ed25519:AAAA"
	r = vr.Verify(proofs.Input{View: view})
	assert.False(t, r.Pending)
	assert.Equal(t, []proofs.Check{proofs.CheckSignature}, r.Failures)
}

func TestFlatFieldsAreIncidentsOnly(t *testing.T) {
	vr := newVerifier(t, pinned(t), gelSeason)
	base := vr.Verify(proofs.Input{View: readView(t, "proof_proveit_gel.json")})
	view := readView(t, "proof_proveit_gel.json")
	view.Flat["agent_identity"] = "did:key:z6MkForged"
	view.Flat["agent_identity_verified"] = false
	r := vr.Verify(proofs.Input{View: view})
	assert.Equal(t, base.Outcome, r.Outcome)
	assert.Equal(t, base.Failures, r.Failures)
	assert.Equal(t, []string{"/agent_identity", "/agent_identity_verified"}, r.Incidents)
}

// otherTSA is a TSA of a root of its own, which signed no FreeTSA token.
func otherTSA(t *testing.T) *proofs.TSA {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "not FreeTSA"},
		NotBefore: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), NotAfter: time.Date(2040, 1, 1, 0, 0, 0, 0, time.UTC),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageTimeStamping},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	tsa, err := proofs.NewTSA(cert, cert)
	require.NoError(t, err)
	return tsa
}
