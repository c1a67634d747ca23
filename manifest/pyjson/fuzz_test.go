package pyjson_test

import (
	"bytes"
	"testing"

	"github.com/arkforge/proveit-corpus/manifest/pyjson"
)

// FuzzParseCanonical checks that the canonical form of anything Parse accepts
// is pure ASCII, parses again, and is its own canonical form.
// Infinity, which json.dumps writes for a float that overflowed, is the one
// canonical output that is not JSON.
func FuzzParseCanonical(f *testing.F) {
	for _, seed := range []string{
		`{"nom": "Lefèvre", "x": "\u2028\u007f", "n": [1e16, 0.0, -0, 1E-5]}`,
		`"\ud83d\ude00"`, `{"a":{"b":[true,false,null]}}`, `{"a":1,"a":2}`, "\xef\xbb\xbf{}", `"\ud800"`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := pyjson.Parse(data)
		if err != nil {
			return
		}
		canonical := pyjson.Canonical(v)
		if bytes.Contains(canonical, []byte("Infinity")) {
			return // an overflowing float prints as Python prints it, which is not JSON
		}
		for _, c := range canonical {
			if c < 0x20 || c > 0x7e {
				t.Fatalf("canonical form of %q holds byte %#x", data, c)
			}
		}
		again, err := pyjson.Parse(canonical)
		if err != nil {
			t.Fatalf("canonical form %q does not parse: %v", canonical, err)
		}
		if !bytes.Equal(pyjson.Canonical(again), canonical) {
			t.Fatalf("canonical form of %q is not stable", data)
		}
	})
}
