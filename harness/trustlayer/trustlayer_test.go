package trustlayer_test

import (
	"bytes"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/harness/trustlayer"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/manifest/pyjson/pyref"
)

// clock is a settable clock, one second further at every reading.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(time.Second)
	return c.now
}

func (c *clock) peek() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

const origin = "https://corpus.arkforge.tech"

func call(i int, did string) trustlayer.Call {
	body := fmt.Sprintf(`{"ressource": "/agrements/AGR-%d", "existe": true, "nom": "Société \"Ü\" %d"}`, i, i)
	return trustlayer.Call{Target: fmt.Sprintf("%s/agrements/AGR-%d", origin, i), APIKey: "key-of-the-participant",
		AgentIdentity: did, StatusCode: 200, Body: []byte(body), UpstreamDate: "Wed, 23 Sep 2026 07:21:45 GMT"}
}

func newStandIn(t *testing.T, opts trustlayer.Options) (*trustlayer.TrustLayer, *clock) {
	t.Helper()
	c := &clock{now: time.Date(2026, 9, 23, 7, 21, 44, 0, time.UTC)}
	opts.Clock = c.Now
	tl, err := trustlayer.New(opts)
	require.NoError(t, err)
	return tl, c
}

func TestBatchesVerify(t *testing.T) {
	for _, size := range []int{1, 2, 3, 5, 8, 11} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			tl, c := newStandIn(t, trustlayer.Options{})
			tr := readTrust(t, tl, "tsa.test", "rekor.test")
			calls := map[trustlayer.ProofID]trustlayer.Call{}
			for i := range size {
				did := "did:key:z6MkParticipant"
				if i%3 == 2 {
					did = "" // no identity: the four fields committed as null
				}
				cl := call(i, did)
				id, err := tl.Issue(cl)
				require.NoError(t, err)
				calls[id] = cl
				view := checkProof(t, tl, tr, id, cl)
				assert.Equal(t, "pending", view.BatchAnchor.Status)
				assert.Equal(t, "pending_batch", view.TimestampAuthority.Status)
				assert.Nil(t, view.TransparencyLog)
			}
			require.Equal(t, size, tl.Pending())
			batchID, err := tl.CloseBatch()
			require.NoError(t, err)
			genTime := c.peek()
			assert.Regexp(t, `^batch_\d{8}_\d{6}_\d{3}$`, batchID)
			assert.Zero(t, tl.Pending())
			var root []byte
			for id, cl := range calls {
				view := checkProof(t, tl, tr, id, cl)
				assert.Regexp(t, `^prf_\d{8}_\d{6}_[0-9a-f]{6}$`, view.ProofID)
				assert.Equal(t, size, view.BatchAnchor.TreeSize)
				assert.Equal(t, batchID, view.BatchAnchor.BatchID)
				r := checkAnchors(t, tl, tr, view, genTime)
				if root != nil {
					assert.Equal(t, root, r, "one root for the batch")
				}
				root = r
				if size == 1 {
					assert.Empty(t, view.BatchAnchor.AuditPath)
				}
				if cl.AgentIdentity == "" {
					assert.Nil(t, view.AgentIdentity)
					assert.Nil(t, view.Disclosed["did_resolution_status"].Value)
				} else {
					assert.Equal(t, cl.AgentIdentity, view.AgentIdentity)
					assert.Equal(t, true, view.AgentIdentityVerified)
					assert.Equal(t, "bound", view.DidResolutionStatus)
					assert.Equal(t, true, view.IdentityConsistent)
				}
			}
			empty, err := tl.CloseBatch()
			require.NoError(t, err)
			assert.Empty(t, empty, "nothing pending, no batch")
		})
	}
}

// The public view has the members of the real one, vectors/proof_proveit_gel.json.
func TestViewMembersAreTrustLayers(t *testing.T) {
	real := []string{"proof_id", "is_demo", "spec_version", "hashes", "commitments", "batch_anchor", "timestamp_authority",
		"timestamp", "upstream_timestamp", "verification_algorithm", "arkforge_signature", "arkforge_pubkey",
		"identity_consistent", "views_count", "transaction_success", "upstream_status_code", "disputed", "dispute_id",
		"transparency_log", "agent_identity", "agent_identity_verified", "did_resolution_status", "seller", "disclosed",
		"provider_payment", "integrity_verified"}
	tl, _ := newStandIn(t, trustlayer.Options{})
	id, err := tl.Issue(call(1, "did:key:z6MkParticipant"))
	require.NoError(t, err)
	_, err = tl.CloseBatch()
	require.NoError(t, err)
	data, err := tl.View(id)
	require.NoError(t, err)
	doc, err := pyjson.Parse(data)
	require.NoError(t, err)
	var keys []string
	for _, m := range doc.(pyjson.Object) {
		keys = append(keys, m.Key)
	}
	assert.Equal(t, real, keys)
	sub := func(key string) []string {
		v, _ := doc.(pyjson.Object).Get(key)
		var ks []string
		for _, m := range v.(pyjson.Object) {
			ks = append(ks, m.Key)
		}
		return ks
	}
	assert.Equal(t, []string{"status", "batch_id", "leaf_index", "tree_size", "audit_path", "root"}, sub("batch_anchor"))
	assert.Equal(t, []string{"status", "provider", "tsr_base64", "anchored"}, sub("timestamp_authority"))
	assert.Equal(t, []string{"provider", "status", "uuid", "log_index", "integrated_time", "log_url", "verify_url", "anchored"}, sub("transparency_log"))
	assert.Len(t, sub("commitments"), 11, "six core fields, upstream_timestamp, the identity four")
}

func TestKeyHistory(t *testing.T) {
	retired := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	tl, _ := newStandIn(t, trustlayer.Options{Keys: []trustlayer.KeySpec{
		{Kid: "key-0", ValidFrom: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), RetiredAt: &retired},
		{Kid: "key-1", ValidFrom: time.Date(2026, 2, 26, 0, 0, 0, 0, time.UTC)},
		{Kid: "key-2", ValidFrom: time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)},
	}})
	tr := readTrust(t, tl, "tsa.test", "rekor.test")
	require.Len(t, tr.keys.Keys, 3)
	require.NotNil(t, tr.keys.Keys[0].RetiredAt)
	assert.Equal(t, "2026-06-01T00:00:00Z", *tr.keys.Keys[0].RetiredAt)
	assert.Nil(t, tr.keys.Keys[1].RetiredAt)
	assert.Equal(t, "rekor-1", tr.keys.RekorKeys[0].Kid)
	tests := []struct{ kid string }{{"key-1"}, {"key-2"}, {"key-0"}}
	for _, tt := range tests {
		t.Run(tt.kid, func(t *testing.T) {
			require.NoError(t, tl.UseKey(tt.kid))
			cl := call(7, "did:key:z6MkParticipant")
			id, err := tl.Issue(cl)
			require.NoError(t, err)
			view := checkProof(t, tl, tr, id, cl)
			pub, ok := tl.PublicKey(tt.kid)
			require.True(t, ok)
			assert.Equal(t, "ed25519:"+b64url(pub), view.ArkforgePubkey)
		})
	}
	assert.Error(t, tl.UseKey("key-9"))
	_, err := trustlayer.New(trustlayer.Options{Keys: []trustlayer.KeySpec{{Kid: "old", RetiredAt: &retired}}})
	assert.Error(t, err, "a history whose every key is retired names the signer")
}

func TestTrustMaterial(t *testing.T) {
	tl, _ := newStandIn(t, trustlayer.Options{TSAProvider: "freetsa.test", LogName: "log.example"})
	tr := readTrust(t, tl, "freetsa.test", "log.example")
	assert.Equal(t, []x509.ExtKeyUsage{x509.ExtKeyUsageTimeStamping}, tr.tsaCert.ExtKeyUsage)
	critical := false
	for _, e := range tr.tsaCert.Extensions {
		if e.Id.String() == "2.5.29.37" {
			critical = e.Critical
		}
	}
	assert.True(t, critical, "the timeStamping usage is critical")
	require.NoError(t, tr.tsaCert.CheckSignatureFrom(tr.tsaRoot))
	assert.True(t, tr.tsaRoot.IsCA)
	assert.Equal(t, tr.tsaRoot.Subject.String(), tr.tsaRoot.Issuer.String(), "self-signed root")
	logID := sha256.Sum256(tr.logKeyDER)
	assert.Equal(t, fmt.Sprintf("log.example+%08x+%s", logID[:4], base64.StdEncoding.EncodeToString(append([]byte{0x02}, tr.logKeyDER...))),
		tl.LogVerifierKey())
}

func TestResponseData(t *testing.T) {
	errorNull := `{"error":null}`
	tests := []struct {
		body, serviceError string
		status             int
		want               string
	}{
		{`{"a": "b"}`, "", 200, `{"a":"b"}`},
		{`{}`, "", 200, errorNull},
		{`[]`, "", 200, errorNull},
		{`""`, "", 200, errorNull},
		{`null`, "", 200, errorNull},
		{`false`, "", 200, errorNull},
		{`0`, "", 200, errorNull},
		{`0.0`, "", 200, errorNull},
		{`not json`, "", 502, `{"_raw_text":"not json"}`},
		{"caf\xe9", "", 200, `{"_raw_text":"caf\ufffd"}`},
		{``, "proxy_timeout", 0, `{"error":"proxy_timeout"}`},
		{``, "service_error", 0, `{"error":"service_error"}`},
	}
	for _, tt := range tests {
		t.Run(tt.body+tt.serviceError, func(t *testing.T) {
			data, _ := trustlayer.ResponseData([]byte(tt.body), tt.status, tt.serviceError)
			assert.Equal(t, tt.want, string(pyjson.Canonical(data)))
			if h, err := anchor.ResponseHash([]byte(tt.body)); err == nil && tt.status != 0 {
				assert.Equal(t, h, anchor.SHA256(pyjson.Canonical(data)), "anchor's hash")
			}
		})
	}
}

// Python's hashlib and json compute the same commitments, chain hash and
// batch root as the stand-in, from the owner's disclosures alone.
func TestAgainstPython(t *testing.T) {
	require.True(t, pyref.Available(), "python3 is required: the hashing is proven against it")
	tl, _ := newStandIn(t, trustlayer.Options{BatchMaxSize: -1})
	dids := []string{"did:key:z6MkParticipant", "", "did:web:exämple.test:ü😀:\"q\"\\/"}
	var ids []trustlayer.ProofID
	for i := range 7 {
		cl := call(i, dids[i%len(dids)])
		if i == 4 {
			cl.UpstreamDate = ""
			cl.Body = []byte(`{}`)
		}
		id, err := tl.Issue(cl)
		require.NoError(t, err)
		ids = append(ids, id)
	}
	_, err := tl.CloseBatch()
	require.NoError(t, err)
	type input struct {
		Nonces    map[string]string `json:"nonces"`
		ChainData json.RawMessage   `json:"chain_data"`
	}
	var inputs []input
	var want []map[string]any
	for _, id := range ids {
		data, err := tl.Full(id)
		require.NoError(t, err)
		var full struct {
			trustlayer.Full
			ChainData json.RawMessage `json:"chain_data"`
		}
		require.NoError(t, json.Unmarshal(data, &full))
		inputs = append(inputs, input{Nonces: full.CommitmentNonces, ChainData: full.ChainData})
		want = append(want, map[string]any{"commitments": full.Commitments, "chain": full.Hashes.Chain,
			"root": full.BatchAnchor.Root})
	}
	stdin, err := json.Marshal(inputs)
	require.NoError(t, err)
	cmd := exec.Command("python3", "-c", pythonReference)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, stderr.String())
	var got []map[string]any
	require.NoError(t, json.Unmarshal(out, &got))
	require.Len(t, got, len(want))
	for i := range want {
		wantJSON, _ := json.Marshal(want[i])
		gotJSON, _ := json.Marshal(got[i])
		assert.JSONEq(t, string(wantJSON), string(gotJSON), "proof %d", i)
	}
}

// pythonReference recomputes, for each proof, every commitment
// SHA-256(field || 0x00 || nonce || json.dumps(value, sort_keys=True,
// separators=(",",":"))), the chain hash as RFC 6962's MTH over the sorted
// fields, and the batch root over the chain hashes in order.
const pythonReference = `
import hashlib, json, sys

def leaf(b): return hashlib.sha256(b"\x00" + b).digest()
def node(l, r): return hashlib.sha256(b"\x01" + l + r).digest()
def mth(leaves):
    if len(leaves) == 1: return leaves[0]
    k = 1
    while k * 2 < len(leaves): k *= 2
    return node(mth(leaves[:k]), mth(leaves[k:]))

proofs = json.load(sys.stdin)
out, chains = [], []
for p in proofs:
    commitments = {}
    for field, value in p["chain_data"].items():
        canonical = json.dumps(value, sort_keys=True, separators=(",", ":"))
        c = hashlib.sha256(field.encode() + b"\x00" + bytes.fromhex(p["nonces"][field]) + canonical.encode()).digest()
        commitments[field] = c
    chain = mth([leaf(commitments[f]) for f in sorted(commitments)])
    chains.append(chain)
    out.append({"commitments": {f: "sha256:" + c.hex() for f, c in commitments.items()}, "chain": "sha256:" + chain.hex()})
root = mth([leaf(c) for c in chains])
for o in out: o["root"] = "sha256:" + root.hex()
json.dump(out, sys.stdout)
`

// Trust Layer's batch size closes batches by itself; 10,000 proofs in 100
// batches take well under the few seconds a benchmark can spend.
func TestTenThousandProofs(t *testing.T) {
	if testing.Short() {
		t.Skip("issues 10,000 proofs")
	}
	tl, _ := newStandIn(t, trustlayer.Options{})
	cl := call(1, "did:key:z6MkParticipant")
	start := time.Now()
	ids := make([]trustlayer.ProofID, 0, 10000)
	for range 10000 {
		id, err := tl.Issue(cl)
		require.NoError(t, err)
		ids = append(ids, id)
	}
	elapsed := time.Since(start)
	t.Logf("10,000 proofs in 100 batches: %s", elapsed)
	assert.Zero(t, tl.Pending())
	assert.Less(t, elapsed, 30*time.Second)
	seen := map[trustlayer.ProofID]bool{}
	for _, id := range ids {
		assert.False(t, seen[id], "ids are unique: %s", id)
		seen[id] = true
	}
	tr := readTrust(t, tl, "tsa.test", "rekor.test")
	for _, i := range []int{0, 99, 100, 5555, 9999} {
		view := checkProof(t, tl, tr, ids[i], cl)
		assert.Equal(t, 100, view.BatchAnchor.TreeSize)
		assert.Equal(t, i%100, view.BatchAnchor.LeafIndex)
		assert.NotEqual(t, "", view.TransparencyLog.UUID)
	}
}

func BenchmarkIssue(b *testing.B) {
	tl, err := trustlayer.New(trustlayer.Options{})
	require.NoError(b, err)
	cl := call(1, "did:key:z6MkParticipant")
	b.ResetTimer()
	for range b.N {
		if _, err := tl.Issue(cl); err != nil {
			b.Fatal(err)
		}
	}
}

func b64url(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
