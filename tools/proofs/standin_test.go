package proofs_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/harness/trustlayer"
	"github.com/arkforge/proveit-corpus/tools/proofs"
)

const standInDID = "did:key:z6MkStandInParticipant"

// issued is one proof the stand-in issued: its view, its batch's entry and
// the owner's disclosure.
type issued struct {
	view       *proofs.View
	entry      []byte
	disclosure proofs.Disclosure
}

// issueBatch has the stand-in issue n proofs of corpus calls by did (none
// when empty), closes their batch, and returns them with its trust material.
func issueBatch(t testing.TB, tl *trustlayer.TrustLayer, n int, did string) []issued {
	t.Helper()
	var ids []trustlayer.ProofID
	for i := range n {
		id, err := tl.Issue(trustlayer.Call{
			Target:        fmt.Sprintf("https://corpus.arkforge.tech/entites/ENT-%04d", i),
			APIKey:        "participant-key",
			AgentIdentity: did,
			StatusCode:    200,
			Body:          []byte(fmt.Sprintf(`{"id": "ENT-%04d", "statut": "active"}`, i)),
		})
		require.NoError(t, err)
		ids = append(ids, id)
	}
	_, err := tl.CloseBatch()
	require.NoError(t, err)
	out := make([]issued, n)
	for i, id := range ids {
		data, err := tl.View(id)
		require.NoError(t, err)
		out[i].view, err = proofs.ParseView(string(id), data)
		require.NoError(t, err)
		out[i].entry, err = tl.RekorEntry(out[i].view.Log.UUID)
		require.NoError(t, err)
		full, err := tl.Full(id)
		require.NoError(t, err)
		var f trustlayer.Full
		require.NoError(t, json.Unmarshal(full, &f))
		out[i].disclosure = proofs.Disclosure{
			RequestHash:  proofs.Opening{Nonce: f.CommitmentNonces["request_hash"], Value: f.ChainData["request_hash"].(string)},
			ResponseHash: proofs.Opening{Nonce: f.CommitmentNonces["response_hash"], Value: f.ChainData["response_hash"].(string)},
		}
	}
	return out
}

func standIn(t testing.TB, opts trustlayer.Options) (*trustlayer.TrustLayer, *proofs.Verifier) {
	t.Helper()
	tl, trust, window := standInTrust(t, opts)
	return tl, newVerifier(t, trust, window)
}

// standInTrust is a stand-in issuer, the trust material it pins and a
// window holding the tokens it issues within the hour.
func standInTrust(t testing.TB, opts trustlayer.Options) (*trustlayer.TrustLayer, *proofs.Trust, proofs.Window) {
	t.Helper()
	tl, err := trustlayer.New(opts)
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, tl.WriteTrust(dir))
	trust, err := proofs.ReadTrust(dir)
	require.NoError(t, err)
	now := time.Now()
	return tl, trust, proofs.Window{Opening: now.Add(-time.Hour), Closing: now.Add(time.Hour)}
}

// TestStandInProofs holds the checks that need an issuer: the pairs, the
// identity as the issuer commits it, the batch sizes, the key history and
// an entry of another batch.
func TestStandInProofs(t *testing.T) {
	tl, vr := standIn(t, trustlayer.Options{})
	batch := issueBatch(t, tl, 5, standInDID)
	alone := issueBatch(t, tl, 1, standInDID)[0]
	anonymous := issueBatch(t, tl, 1, "")[0]
	tests := []struct {
		name    string
		proof   issued
		edit    func(in *proofs.Input)
		want    []proofs.Check
		outcome func(p issued) proofs.Outcome
	}{
		{name: "valid, with the owner's disclosure", proof: batch[3]},
		{name: "a batch of one: an empty path", proof: alone},
		{name: "the view alone", proof: batch[0], edit: func(in *proofs.Input) { in.Disclosure = nil; in.AgentDID = "" },
			outcome: func(issued) proofs.Outcome { return proofs.Outcome{Valid: true, AgentDID: standInDID} }},
		{name: "a request nonce that opens nothing", proof: batch[1], edit: func(in *proofs.Input) {
			in.Disclosure.RequestHash.Nonce = batch[2].disclosure.RequestHash.Nonce
		}, want: []proofs.Check{proofs.CheckRequestPair}},
		{name: "a response value of another call", proof: batch[1], edit: func(in *proofs.Input) {
			in.Disclosure.ResponseHash.Value = batch[2].disclosure.ResponseHash.Value
		}, want: []proofs.Check{proofs.CheckResponsePair}},
		{name: "a pair of another proof", proof: batch[1], edit: func(in *proofs.Input) { *in.Disclosure = batch[2].disclosure },
			want: []proofs.Check{proofs.CheckRequestPair, proofs.CheckResponsePair}},
		{name: "a nonce not hex", proof: batch[1], edit: func(in *proofs.Input) { in.Disclosure.RequestHash.Nonce = "zz" },
			want: []proofs.Check{proofs.CheckRequestPair}},
		{name: "an identity not bound", proof: anonymous, edit: func(in *proofs.Input) { in.AgentDID = standInDID },
			want: []proofs.Check{proofs.CheckIdentityUnbound}},
		{name: "an identity opened to another DID", proof: batch[4], edit: func(in *proofs.Input) { in.AgentDID = "did:key:z6MkSomeoneElse" },
			want: []proofs.Check{proofs.CheckIdentityOtherDID}},
		{name: "the Rekor entry of another batch", proof: batch[0], edit: func(in *proofs.Input) { in.Entry = alone.entry },
			want: []proofs.Check{proofs.CheckRekorImprint, proofs.CheckRekorSigner, proofs.CheckRekorCoordinates}},
		{name: "a changed flat hash", proof: batch[2], edit: func(in *proofs.Input) {
			in.View.Hashes.Response = "sha256:" + hexOf(0x33)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			view := *tt.proof.view
			d := tt.proof.disclosure
			in := proofs.Input{View: &view, Entry: tt.proof.entry, Disclosure: &d, AgentDID: standInDID}
			if tt.edit != nil {
				tt.edit(&in)
			}
			r := vr.Verify(in)
			if tt.want == nil {
				tt.want = []proofs.Check{}
			}
			assert.Equal(t, tt.want, r.Failures)
			want := proofs.Outcome{Valid: len(tt.want) == 0, AgentDID: standInDID,
				RequestHash: tt.proof.disclosure.RequestHash.Value, ResponseHash: tt.proof.disclosure.ResponseHash.Value}
			switch {
			case tt.outcome != nil:
				want = tt.outcome(tt.proof)
			case tt.proof.view == anonymous.view:
				want.AgentDID = ""
			}
			for _, c := range tt.want {
				switch c {
				case proofs.CheckRequestPair:
					want.RequestHash = ""
				case proofs.CheckResponsePair:
					want.ResponseHash = ""
				}
			}
			assert.Equal(t, want, r.Outcome)
		})
	}
	// The flat field is an incident, and changes nothing else.
	view := *batch[2].view
	view.Hashes.Response = "sha256:" + hexOf(0x33)
	d := batch[2].disclosure
	r := vr.Verify(proofs.Input{View: &view, Entry: batch[2].entry, Disclosure: &d, AgentDID: standInDID})
	assert.Equal(t, []string{"/hashes/response"}, r.Incidents)
}

// A key retired before the token's time signs nothing; one retired after
// it still does, and a key outside the pinned history never does.
func TestStandInKeyHistory(t *testing.T) {
	past := time.Now().Add(-time.Hour)
	future := time.Now().Add(time.Hour)
	tests := []struct {
		name    string
		retired *time.Time
		want    []proofs.Check
	}{
		{"retired before the token", &past, []proofs.Check{proofs.CheckKeyRetired}},
		{"retired after the token", &future, []proofs.Check{}},
		{"never retired", nil, []proofs.Check{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl, vr := standIn(t, trustlayer.Options{
				Keys:       []trustlayer.KeySpec{{Kid: "key-1", ValidFrom: past.Add(-time.Hour), RetiredAt: tt.retired}},
				SigningKid: "key-1",
			})
			p := issueBatch(t, tl, 3, standInDID)[1]
			r := vr.Verify(proofs.Input{View: p.view, Entry: p.entry, Disclosure: &p.disclosure, AgentDID: standInDID})
			assert.Equal(t, tt.want, r.Failures)
		})
	}
	tl, _ := standIn(t, trustlayer.Options{})
	_, other := standIn(t, trustlayer.Options{})
	p := issueBatch(t, tl, 1, standInDID)[0]
	r := other.Verify(proofs.Input{View: p.view, Entry: p.entry, Disclosure: &p.disclosure, AgentDID: standInDID})
	assert.Equal(t, []proofs.Check{proofs.CheckKeyUnknown, proofs.CheckTokenSigner, proofs.CheckRekorSigner, proofs.CheckRekorSET, proofs.CheckRekorCheckpoint}, r.Failures,
		"another issuer's keys, TSA and log are not the pinned ones")
}

// Every batch size walks to its root with a path of exactly the length RFC
// 6962 gives, from every leaf.
func TestStandInBatchSizes(t *testing.T) {
	tl, vr := standIn(t, trustlayer.Options{})
	for _, n := range []int{1, 2, 3, 7, 8, 11, 100} {
		for i, p := range issueBatch(t, tl, n, standInDID) {
			r := vr.Verify(proofs.Input{View: p.view, Entry: p.entry, Disclosure: &p.disclosure, AgentDID: standInDID})
			require.True(t, r.Valid, "leaf %d of %d: %v", i, n, r.Failures)
		}
	}
}
