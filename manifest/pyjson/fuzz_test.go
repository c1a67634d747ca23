package pyjson_test

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/arkforge/proveit-corpus/manifest/pyjson"
)

// FuzzParseCanonical checks that the canonical form of anything Parse accepts
// is pure ASCII, parses again, and is its own canonical form; and that a
// Document writes the canonical form of its tree of Values, and lists its
// strings and its first number where the tree holds them.
// Infinity, which json.dumps writes for a float literal that overflowed, is
// the one canonical output that is not JSON: only a document holding such a
// number skips the reparse.
func FuzzParseCanonical(f *testing.F) {
	for _, seed := range []string{
		`{"nom": "Lefèvre", "x": "\u2028\u007f", "n": [1e16, 0.0, -0, 1E-5]}`,
		`"\ud83d\ude00"`, `{"a":{"b":[true,false,null]}}`, `{"z": {"y": ["/a", {"x": 1e3}], "w": "\u00e9\/"}, "b": [[], {}, "c"]}`, `{"a":1,"a":2}`, "\xef\xbb\xbf{}", `"\ud800"`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := pyjson.Parse(data)
		if err != nil {
			return
		}
		canonical := pyjson.Canonical(v)
		var doc pyjson.Document
		if err := doc.Read(data); err != nil {
			t.Fatalf("Parse reads %q, a Document does not: %v", data, err)
		}
		if got := doc.AppendCanonical([]byte("prefix")); string(got) != "prefix"+string(canonical) {
			t.Fatalf("canonical form of %q: %q from the Document, %q from the Value", data, got[len("prefix"):], canonical)
		}
		var fromDoc, fromTree []string
		doc.StringValues(func(text []byte) { fromDoc = append(fromDoc, string(text)) })
		stringValues(v, &fromTree)
		if !slices.Equal(fromDoc, fromTree) {
			t.Fatalf("strings of %q: %q from the Document, %q from the Value", data, fromDoc, fromTree)
		}
		gotPtr, gotFound := doc.FirstNumber()
		wantPtr, wantFound := firstNumber(v, nil)
		if gotPtr != wantPtr || gotFound != wantFound {
			t.Fatalf("first number of %q: %q %v from the Document, %q %v from the Value", data, gotPtr, gotFound, wantPtr, wantFound)
		}
		for _, c := range canonical {
			if c < 0x20 || c > 0x7e {
				t.Fatalf("canonical form of %q holds byte %#x", data, c)
			}
		}
		if overflows(v) {
			return // an overflowing float prints as Python prints it, Infinity, which is not JSON
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

// stringValues appends the strings of v that are values, not keys, in
// document order.
func stringValues(v pyjson.Value, into *[]string) {
	switch v := v.(type) {
	case string:
		*into = append(*into, v)
	case pyjson.Array:
		for _, e := range v {
			stringValues(e, into)
		}
	case pyjson.Object:
		for _, m := range v {
			stringValues(m.Value, into)
		}
	}
}

// firstNumber is the pointer of the first number of v, in document order.
func firstNumber(v pyjson.Value, path []string) (string, bool) {
	switch v := v.(type) {
	case pyjson.Number:
		return pyjson.FormatPointer(path), true
	case pyjson.Array:
		for i, e := range v {
			if ptr, found := firstNumber(e, append(path, strconv.Itoa(i))); found {
				return ptr, true
			}
		}
	case pyjson.Object:
		for _, m := range v {
			if ptr, found := firstNumber(m.Value, append(path, m.Key)); found {
				return ptr, true
			}
		}
	}
	return "", false
}

// overflows reports whether v holds a float literal beyond float64's range,
// which Python reads as inf. An integer literal never does: Python keeps
// every digit.
func overflows(v pyjson.Value) bool {
	switch v := v.(type) {
	case pyjson.Number:
		f, _ := strconv.ParseFloat(string(v), 64)
		return strings.ContainsAny(string(v), ".eE") && math.IsInf(f, 0)
	case pyjson.Array:
		return slices.ContainsFunc(v, overflows)
	case pyjson.Object:
		return slices.ContainsFunc(v, func(m pyjson.Member) bool { return overflows(m.Value) })
	}
	return false
}

func TestOverflows(t *testing.T) {
	for doc, want := range map[string]bool{
		`1e400`: true, `[-1.5e999]`: true, `{"a": {"b": 1E400}}`: true,
		`"Infinity"`: false, `{"Infinity": "1e400"}`: false, `1e300`: false,
		`1` + strings.Repeat("0", 400): false, `[0.0, -0]`: false,
	} {
		v, err := pyjson.Parse([]byte(doc))
		if err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		if got := overflows(v); got != want {
			t.Errorf("overflows(%s) = %v, want %v", doc, got, want)
		}
	}
}
