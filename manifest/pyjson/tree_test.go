package pyjson_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/manifest/pyjson"
)

// The tree's containers share blocks: growing one must leave its
// neighbours as they were read.
func TestParseContainersGrowApart(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		grow      func(v pyjson.Value) pyjson.Value // grows the first container, returns the second
		want      pyjson.Value
	}{
		{"arrays", `[[1],[2]]`, func(v pyjson.Value) pyjson.Value {
			a := v.(pyjson.Array)
			_ = append(a[0].(pyjson.Array), pyjson.Number("9"))
			return a[1]
		}, pyjson.Array{pyjson.Number("2")}},
		{"objects", `[{"a":1},{"b":2}]`, func(v pyjson.Value) pyjson.Value {
			a := v.(pyjson.Array)
			_ = append(a[0].(pyjson.Object), pyjson.Member{Key: "z", Value: "9"})
			return a[1]
		}, pyjson.Object{{Key: "b", Value: pyjson.Number("2")}}},
		{"escaped and plain strings", `{"k\u00e9":"v","w":"x\ny"}`, func(v pyjson.Value) pyjson.Value {
			return v
		}, pyjson.Object{{Key: "ké", Value: "v"}, {Key: "w", Value: "x\ny"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := pyjson.Parse([]byte(tc.doc))
			require.NoError(t, err)
			assert.Equal(t, tc.want, tc.grow(v))
		})
	}
}
