package proofs_test

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/tools/proofs"
)

// A view that cannot be read is one error naming the file, the JSON
// pointer and the rule.
func TestParseViewErrors(t *testing.T) {
	gel := string(readFile(t, "proof_proveit_gel.json"))
	longPath := `"audit_path": [` + strings.TrimSuffix(strings.Repeat(`"`+hexOf(1)+`",`, 65), ",") + `]`
	tests := []struct {
		name, data, want string
	}{
		{"not JSON", `{"proof_id": `, `prf.json: not a public view: `},
		{"a duplicate key", strings.Replace(gel, `"spec_version":"3.1"`, `"spec_version":"3.1","spec_version":"3.0"`, 1), `prf.json: not a public view: at /spec_version (byte 78): duplicate key "spec_version"`},
		{"not an object", `[]`, `prf.json (root): want an object`},
		{"a leaf index as a string", strings.Replace(gel, `"leaf_index":0`, `"leaf_index":"0"`, 1), `prf.json /batch_anchor/leaf_index: want an integer or null`},
		{"a float tree size", strings.Replace(gel, `"tree_size":11`, `"tree_size":11.0`, 1), `prf.json /batch_anchor/tree_size: want an integer or null`},
		{"a commitment not a string", strings.Replace(gel, `"commitments":{`, `"commitments":{"zzz":1,`, 1), `prf.json /commitments/zzz: want a string or null`},
		{"a disclosure not an object", strings.Replace(gel, `"disclosed":{`, `"disclosed":{"x/y":[],`, 1), `prf.json /disclosed/x~1y: want an object`},
		{"a batch not an object", strings.Replace(gel, `"batch_anchor":{`, `"batch_anchor":"pending","x":{`, 1), `prf.json /batch_anchor: want an object or null`},
		{"an audit path too long", strings.Replace(gel, `"audit_path":[`, longPath[:len(longPath)-1]+`,`, 1), `prf.json /batch_anchor/audit_path: 69 hashes, over the 64 any tree needs`},
		{"no proof id", strings.Replace(gel, `"proof_id":"prf_20260923_072144_2ad720",`, ``, 1), `prf.json /proof_id: missing`},
		{"too large", `{"proof_id": "` + strings.Repeat("a", proofs.MaxViewSize) + `"}`, `prf.json: 1048592 bytes, over the 1048576 a public view may hold`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.True(t, tt.data != gel, "the alteration applies")
			_, err := proofs.ParseView("prf.json", []byte(tt.data))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestParseRekorEntryErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"not JSON", `{`, `not a Rekor entry`},
		{"two entries", `{"a": {}, "b": {}}`, `want one entry keyed by its uuid, found 2`},
		{"none", `{}`, `want one entry keyed by its uuid, found 0`},
		{"an inclusion proof too long", `{"u": {"verification": {"inclusionProof": {"hashes": [` + strings.TrimSuffix(strings.Repeat(`"x",`, 65), ",") + `]}}}}`, `/u/verification/inclusionProof/hashes: 65 hashes, over the 64 any tree needs`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := proofs.ParseRekorEntry([]byte(tt.data))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	uuid, err := proofs.ParseRekorEntry(readFile(t, "rekor_entry.json"))
	require.NoError(t, err)
	assert.True(t, proofs.ValidRekorUUID(uuid))
}

// A token that cannot be read fails jeton_tsa, its proof alone: never a
// panic, whatever the bytes (testdata/fuzz/FuzzToken keeps each one found
// to panic the BER reader of digitorus/pkcs7).
func TestUnreadableToken(t *testing.T) {
	real := gelToken(t)
	found := base64Bytes(t, "MAkwAwIBADACMIE=")
	nested := []byte{}
	for range 40 {
		nested = append([]byte{0x30, byte(len(nested))}, nested...)
	}
	tests := []struct {
		name  string
		token []byte
	}{
		{"a ContentInfo cut short (30 81)", found},
		{"a high tag number 1f01", append(found[:len(found)-2:len(found)-2], 0x1f, 0x01)},
		{"a high tag number 1f80", append(found[:len(found)-2:len(found)-2], 0x1f, 0x80)},
		{"an indefinite length", []byte{0x30, 0x80, 0x30, 0x03, 0x02, 0x01, 0x00, 0x00, 0x00}},
		{"a length not minimal", append([]byte{0x30, 0x82, 0x00, byte(len(found) - 2)}, found[2:]...)},
		{"the real token cut short", real[:len(real)-1]},
		{"the real token and a byte more", append(real[:len(real):len(real)], 0)},
		{"nested 40 deep", nested},
		{"empty", nil},
	}
	gel := readFile(t, "proof_proveit_gel.json")
	vr := newVerifier(t, pinned(t), gelSeason)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := proofs.ParseView("gel", withToken(t, gel, base64.StdEncoding.EncodeToString(tt.token)))
			require.NoError(t, err)
			var r proofs.Result
			require.NotPanics(t, func() { r = vr.Verify(proofs.Input{View: v}) })
			assert.Contains(t, r.Failures, proofs.CheckToken)
			assert.False(t, r.Valid)
		})
	}
	v, err := proofs.ParseView("gel", withToken(t, gel, base64.StdEncoding.EncodeToString(real)))
	require.NoError(t, err)
	assert.NotContains(t, vr.Verify(proofs.Input{View: v}).Failures, proofs.CheckToken, "the real token reads")
}

func base64Bytes(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	require.NoError(t, err)
	return b
}

// A view of the largest size allowed, holding as many small keys as fit
// under commitments or disclosed, is read and verified in time linear in
// its size: a fraction of a second, where comparing every key with each
// earlier one took half a minute. The test's deadline is the bound; the
// time is logged, never asserted.
func TestViewOfManyKeys(t *testing.T) {
	gel := string(readFile(t, "proof_proveit_gel.json"))
	fill := func(member, key, value string) string {
		var b strings.Builder
		room := proofs.MaxViewSize - len(gel) - 16
		for i := 0; b.Len()+len(key)+len(value)+12 < room; i++ {
			fmt.Fprintf(&b, `"%s%d":%s,`, key, i, value)
		}
		out := strings.Replace(gel, `"`+member+`":{`, `"`+member+`":{`+b.String(), 1)
		require.NotEqual(t, gel, out)
		require.LessOrEqual(t, len(out), proofs.MaxViewSize)
		return out
	}
	tests := []struct {
		name, data string
		want       proofs.Check
	}{
		{"commitments", fill("commitments", "c", `"x"`), proofs.CheckCommitments},
		{"disclosed", fill("disclosed", "d", `{}`), ""},
	}
	vr := newVerifier(t, pinned(t), gelSeason)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			v, err := proofs.ParseView("prf.json", []byte(tt.data))
			require.NoError(t, err)
			r := vr.Verify(proofs.Input{View: v, AgentDID: gelDID})
			t.Logf("%d bytes, %d commitments, %d disclosed: read and verified in %v", len(tt.data), len(v.Commitments), len(v.Disclosed), time.Since(start))
			assert.Greater(t, len(v.Commitments)+len(v.Disclosed), 70_000)
			assert.False(t, r.Valid)
			if tt.want != "" {
				assert.Contains(t, r.Failures, tt.want)
			}
		})
	}
}
