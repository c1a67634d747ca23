package season

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// DecodeStrict reads as a submission is read: names exact to the letter,
// no duplicate key, no trailing data, and says where.
func TestDecodeStrict(t *testing.T) {
	type inner struct {
		Value string `json:"value"`
	}
	type doc struct {
		Name  string           `json:"name"`
		Items []inner          `json:"items"`
		ByID  map[string]inner `json:"by_id"`
		Flag  bool             `json:"flag"`
		Note  *inner           `json:"note"`
	}
	tests := []struct {
		name, data, err string
	}{
		{"exact", `{"name": "a", "items": [{"value": "x"}], "by_id": {"K": {"value": "y"}}, "flag": true, "note": null}`, ""},
		{"a name in another case", `{"Name": "a"}`, `f.json /Name: unknown member (want by_id, flag, items, name, note)`},
		{"a nested name in another case", `{"items": [{"value": "x"}, {"VALUE": "y"}]}`, `f.json /items/1/VALUE: unknown member (want value)`},
		{"in a map's value", `{"by_id": {"K": {"Value": "y"}}}`, `f.json /by_id/K/Value: unknown member (want value)`},
		{"an unknown name", `{"name": "a", "other": 1}`, `f.json /other: unknown member (want by_id, flag, items, name, note)`},
		{"a duplicate key", `{"name": "a", "name": "b"}`, `f.json /name: not JSON as Python reads it: duplicate key "name"`},
		{"a duplicate key in a map", `{"by_id": {"K": {}, "K": {}}}`, `duplicate key "K"`},
		{"trailing data", `{"name": "a"} {}`, `f.json`},
		{"a wrong type", `{"items": [{"value": 1}]}`, `f.json /items/0/value: want a string, not a number`},
		{"null for a string", `{"name": null}`, `f.json /name: want a string, not null`},
		{"null for a list", `{"items": null}`, `f.json /items: want an array, not null`},
		{"a pointer's member in another case", `{"note": {"Value": "x"}}`, `f.json /note/Value: unknown member (want value)`},
		{"not an object", `[]`, `f.json (root): want an object, not an array`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d doc
			err := DecodeStrict("f.json", []byte(tt.data), &d)
			if tt.err == "" {
				require.NoError(t, err)
				assert.Equal(t, doc{Name: "a", Items: []inner{{"x"}}, ByID: map[string]inner{"K": {"y"}}, Flag: true}, d)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.err)
		})
	}
}

// A member that decodes itself (json.RawMessage, a type with UnmarshalJSON)
// is left to its own decoder; duplicates in it are still refused.
func TestDecodeStrictLeavesSelfDecodingMembers(t *testing.T) {
	var d struct {
		Raw json.RawMessage `json:"raw"`
	}
	require.NoError(t, DecodeStrict("f.json", []byte(`{"raw": {"Any": 1}}`), &d))
	assert.JSONEq(t, `{"Any": 1}`, string(d.Raw))
	err := DecodeStrict("f.json", []byte(`{"raw": {"a": 1, "a": 2}}`), &d)
	assert.ErrorContains(t, err, `f.json /raw/a: not JSON as Python reads it: duplicate key "a"`)
}
