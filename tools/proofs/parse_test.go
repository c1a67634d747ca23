package proofs_test

import (
	"strings"
	"testing"

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
