package proofs_test

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/arkforge/proveit-corpus/tools/proofs"
)

// Views, Rekor entries and RFC 3161 tokens are untrusted input: whatever
// bytes they hold, parsing and verifying return a result or an error, never
// panic, and a view that parses verifies to named failures unless valid.

func FuzzParseView(f *testing.F) {
	for _, name := range []string{"proof_proveit_gel.json", "proof_rekor.json", "proof_2026_07.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", "trustlayer", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"proof_id": "x", "batch_anchor": {"status": "anchored", "leaf_index": -1, "tree_size": 0}}`))
	f.Add([]byte(`{"proof_id": "x", "commitments": {"a": "zz"}, "disclosed": {"agent_identity": {"nonce": "", "value": [}}}`))
	trust, err := proofs.PinnedTrust()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := proofs.ParseView("view.json", data)
		if err != nil {
			assert.Contains(t, err.Error(), "view.json")
			return
		}
		r := newVerifier(t, trust, gelSeason).Verify(proofs.Input{View: v, AgentDID: gelDID,
			Disclosure: &proofs.Disclosure{RequestHash: proofs.Opening{Nonce: hexOf(1), Value: hexOf(2)}, ResponseHash: proofs.Opening{Nonce: "", Value: "x"}}})
		assert.False(t, r.Valid && len(r.Failures) > 0)
		assert.False(t, r.Valid && r.Pending)
	})
}

func FuzzRekorEntry(f *testing.F) {
	for _, name := range []string{"rekor_entry.json", "rekor_unrelated.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", "trustlayer", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"` + hexOf(0) + hexOf(0)[:16] + `": {"body": "e30=", "verification": {"inclusionProof": {"checkpoint": "\n\n— x AAAA\n", "logIndex": -5, "treeSize": -1}}}}`))
	trust, err := proofs.PinnedTrust()
	if err != nil {
		f.Fatal(err)
	}
	viewData, err := os.ReadFile(filepath.Join("testdata", "trustlayer", "proof_rekor.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, entry []byte) {
		view, err := proofs.ParseView("proof_rekor.json", viewData)
		if err != nil {
			t.Fatal(err)
		}
		r := newVerifier(t, trust, gelSeason).Verify(proofs.Input{View: view, Entry: entry})
		assert.False(t, r.Valid, "a 2.0 proof is never valid")
		assert.Contains(t, r.Failures, proofs.CheckSpecVersion)
	})
}

func FuzzToken(f *testing.F) {
	gel, err := os.ReadFile(filepath.Join("testdata", "trustlayer", "proof_proveit_gel.json"))
	if err != nil {
		f.Fatal(err)
	}
	view, err := proofs.ParseView("gel", gel)
	if err != nil {
		f.Fatal(err)
	}
	token, err := base64.StdEncoding.DecodeString(view.TSA.TSRBase64)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(token)
	f.Add(token[:40])
	f.Add([]byte{0x30, 0x84, 0xff, 0xff, 0xff, 0xff})
	trust, err := proofs.PinnedTrust()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, tsr []byte) {
		v, _ := proofs.ParseView("gel", gel)
		v.TSA.TSRBase64 = base64.StdEncoding.EncodeToString(tsr)
		r := newVerifier(t, trust, gelSeason).Verify(proofs.Input{View: v})
		assert.False(t, r.Valid, "the gel view has no Rekor entry here")
		for _, c := range r.Failures {
			assert.Contains(t, proofs.Checks, c)
		}
	})
}
