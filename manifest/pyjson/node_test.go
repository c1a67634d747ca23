package pyjson_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/manifest/pyjson"
)

// A node read in place gives what the tree Parse builds gives.
func TestNodeReadsAsTheTree(t *testing.T) {
	for _, doc := range []string{
		`{"a":"x","b":null,"c":[1,"y",{"d":true}],"e\u00e9":{"f":-1.5e3},"g":{},"h":[]}`,
		`["\ud83d\ude00",false,0]`,
		`"alone"`,
		`12`,
		`null`,
	} {
		t.Run(doc, func(t *testing.T) {
			want, err := pyjson.Parse([]byte(doc))
			require.NoError(t, err)
			var d pyjson.Document
			require.NoError(t, d.Read([]byte(doc)))
			root := d.Root()
			assert.True(t, root.Exists())
			assert.Equal(t, want, root.Value())
			switch w := want.(type) {
			case pyjson.Object:
				require.True(t, root.IsObject())
				assert.Equal(t, len(w), root.Len())
				var got pyjson.Object
				for key, n := range root.Members() {
					got = append(got, pyjson.Member{Key: key, Value: n.Value()})
					assert.Equal(t, n.Value(), root.Get(key).Value(), key)
				}
				assert.Equal(t, w, got)
				assert.False(t, root.Get("absent").Exists())
				assert.Nil(t, root.Get("absent").Value())
			case pyjson.Array:
				require.True(t, root.IsArray())
				var got pyjson.Array
				for n := range root.Elements() {
					got = append(got, n.Value())
				}
				assert.Equal(t, w, got)
				assert.False(t, root.Get("a").Exists(), "an array has no members")
			case string:
				s, ok := root.Text()
				assert.True(t, ok)
				assert.Equal(t, w, s)
				_, isNumber := root.Number()
				assert.False(t, isNumber)
			case pyjson.Number:
				n, ok := root.Number()
				assert.True(t, ok)
				assert.Equal(t, w, n)
				_, isText := root.Text()
				assert.False(t, isText)
			case nil:
				assert.True(t, root.IsNull())
				assert.Equal(t, 0, root.Len())
			}
		})
	}
}

// A node's strings are copies: they outlive the document's next Read.
func TestNodeTextOutlivesTheDocument(t *testing.T) {
	var d pyjson.Document
	data := []byte(`{"k":"kept","o":{"v":"also"}}`)
	require.NoError(t, d.Read(data))
	s, _ := d.Root().Get("k").Text()
	v := d.Root().Get("o").Value()
	copy(data, `{"k":"XXXX","o":{"v":"XXXX"}}`)
	require.NoError(t, d.Read([]byte(`{"k":"other"}`)))
	assert.Equal(t, "kept", s)
	assert.Equal(t, pyjson.Object{{Key: "v", Value: "also"}}, v)
}
