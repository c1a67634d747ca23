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

// Whatever Parse reads, the Document's nodes read the same, member by
// member and element by element.
func FuzzNodeReadsAsTheTree(f *testing.F) {
	for _, seed := range []string{`{"a":{"b":[true,false,null]},"c":"\u00e9"}`, `[[],{},"x",-0.5]`, `{"a":1,"a":2}`, `"s"`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, err := pyjson.Parse(data)
		if err != nil {
			return
		}
		var d pyjson.Document
		require.NoError(t, d.Read(data))
		assertNode(t, want, d.Root())
	})
}

// assertNode asserts that n reads as want, and so does each of its members
// and elements.
func assertNode(t *testing.T, want pyjson.Value, n pyjson.Node) {
	t.Helper()
	require.Equal(t, want, n.Value())
	switch w := want.(type) {
	case pyjson.Object:
		require.Equal(t, len(w), n.Len())
		i := 0
		for key, m := range n.Members() {
			require.Equal(t, w[i].Key, key)
			assertNode(t, w[i].Value, m)
			require.Equal(t, w[i].Value, n.Get(key).Value())
			i++
		}
		require.Equal(t, len(w), i)
	case pyjson.Array:
		require.Equal(t, len(w), n.Len())
		i := 0
		for e := range n.Elements() {
			assertNode(t, w[i], e)
			i++
		}
		require.Equal(t, len(w), i)
	case string:
		s, ok := n.Text()
		require.True(t, ok)
		require.Equal(t, w, s)
	case pyjson.Number:
		s, ok := n.Number()
		require.True(t, ok)
		require.Equal(t, w, s)
	case nil:
		require.True(t, n.IsNull())
	}
}
