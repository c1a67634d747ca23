package proofs_test

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	// Many keys, where finding a duplicate was quadratic (testdata/fuzz
	// keeps a key that is an escape sequence and a forged line).
	var many strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&many, `"c%d": "x", `, i)
	}
	f.Add([]byte(`{"proof_id": "x", "commitments": {` + many.String() + `"c7": "x"}}`))
	f.Add([]byte(`{"proof_id": "x", "disclosed": {` + strings.ReplaceAll(many.String(), `"x"`, `{}`) + `"d": {}}}`))
	trust, err := proofs.PinnedTrust()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := proofs.ParseView("view.json", data)
		if err != nil {
			assert.Contains(t, err.Error(), "view.json")
			for _, r := range err.Error() {
				assert.True(t, unicode.IsGraphic(r), "printable: %q", err)
			}
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

// FuzzToken reads each input as the RFC 3161 response of the real spec 3.1
// view, written into the view's JSON as tsr_base64, parsed and verified
// as any view is: the public path, not the token reader alone.
// testdata/fuzz/FuzzToken holds each malformed token found.
func FuzzToken(f *testing.F) {
	gel := readFile(f, "proof_proveit_gel.json")
	real := gelToken(f)
	f.Add(real)
	f.Add(real[:40])
	f.Add([]byte{0x30, 0x84, 0xff, 0xff, 0xff, 0xff})
	vr := newVerifier(f, pinned(f), gelSeason)
	f.Fuzz(func(t *testing.T, tsr []byte) {
		data := withToken(t, gel, base64.StdEncoding.EncodeToString(tsr))
		v, err := proofs.ParseView("gel", data)
		if !assert.NoError(t, err) {
			return
		}
		r := vr.Verify(proofs.Input{View: v})
		assert.False(t, r.Valid, "the gel view has no Rekor entry here")
		assert.False(t, r.Pending, "the gel view's batch is anchored")
		for _, c := range r.Failures {
			assert.Contains(t, proofs.Checks, c)
		}
	})
}

// gelToken is the DER of the real spec 3.1 view's token.
func gelToken(tb testing.TB) []byte {
	tb.Helper()
	v, err := proofs.ParseView("gel", readFile(tb, "proof_proveit_gel.json"))
	require.NoError(tb, err)
	der, err := base64.StdEncoding.DecodeString(v.TSA.TSRBase64)
	require.NoError(tb, err)
	return der
}

// withToken is the view's JSON with tsr_base64 replaced by token.
func withToken(tb testing.TB, view []byte, token string) []byte {
	tb.Helper()
	require.True(tb, tsrMember.Match(view), "the view has a tsr_base64 member")
	return tsrMember.ReplaceAll(view, []byte(`"tsr_base64":"`+token+`"`))
}

var tsrMember = regexp.MustCompile(`"tsr_base64":"[^"]*"`)
