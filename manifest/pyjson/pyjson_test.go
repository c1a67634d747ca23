package pyjson_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/manifest/pyjson/pyref"
)

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// The reference rows of the contract, computed with Python 3.11.
func TestCanonicalContractRows(t *testing.T) {
	tests := []struct {
		name, doc, canonical, sha256 string
	}{
		{
			name:      "absent body",
			doc:       `{"ressource": "/agrements/AGR-9999", "existe": false}`,
			canonical: `{"existe":false,"ressource":"/agrements/AGR-9999"}`,
			sha256:    "d845eab33296088d967dd9629a0d87b653dc2af864bae485e421f2c87ebfe407",
		},
		{
			name:      "accents, null, U+2028 and DEL",
			doc:       "{\"nom\": \"Lefèvre\", \"prénoms\": \"Zoé Anaïs\", \"actif\": true, \"note\": null, \"x\": \"\u2028\x7f\"}",
			canonical: `{"actif":true,"nom":"Lef\u00e8vre","note":null,"pr\u00e9noms":"Zo\u00e9 Ana\u00efs","x":"\u2028\u007f"}`,
			sha256:    "efc8940273c3a8d09aee6d9187832f1c54f710b1bbbe6c1a329b16aa293ca4b2",
		},
		{
			name:      "request_data with the float 0.0",
			doc:       `{"target": "https://corpus.arkforge.tech/agrements/AGR-4417", "method": "GET", "payload": {}, "amount": 0.0, "currency": "eur"}`,
			canonical: `{"amount":0.0,"currency":"eur","method":"GET","payload":{},"target":"https://corpus.arkforge.tech/agrements/AGR-4417"}`,
			sha256:    "1378d38cdb14483cdbea18463c2a908158202cc6dfba0195dbad8050d1bbaa9c",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := pyjson.Parse([]byte(tt.doc))
			require.NoError(t, err)
			got := pyjson.Canonical(v)
			assert.Equal(t, tt.canonical, string(got))
			assert.Equal(t, tt.sha256, sha(got))
		})
	}
}

func TestCanonicalScalars(t *testing.T) {
	tests := []struct{ doc, want string }{
		{`0`, `0`},
		{`-0`, `0`},
		{`123456789012345678901234567890`, `123456789012345678901234567890`},
		{`0.0`, `0.0`},
		{`-0.0`, `-0.0`},
		{`1e3`, `1000.0`},
		{`1E+3`, `1000.0`},
		{`2.50`, `2.5`},
		{`1e16`, `1e+16`},
		{`1e15`, `1000000000000000.0`},
		{`9999999999999998.0`, `9999999999999998.0`},
		{`1e-5`, `1e-05`},
		{`0.0001`, `0.0001`},
		{`1.5e-7`, `1.5e-07`},
		{`123456789012345678.0`, `1.2345678901234568e+17`},
		{`1e400`, `Infinity`},
		{`-1e400`, `-Infinity`},
		{`1e-400`, `0.0`},
		{`"/<>&"`, `"/<>&"`},
		{`"\u0000\u001f\b\f\n\r\t"`, `"\u0000\u001f\b\f\n\r\t"`},
		{`"\ud83d\ude00"`, `"\ud83d\ude00"`},
		{"\"\U0001F600\"", `"\ud83d\ude00"`},
		{`"\/"`, `"/"`},
		{`[]`, `[]`},
		{`{}`, `{}`},
		{`{"b":1,"a":[true,false,null],"é":{},"Z":"z"}`, `{"Z":"z","a":[true,false,null],"b":1,"\u00e9":{}}`},
	}
	for _, tt := range tests {
		t.Run(tt.doc, func(t *testing.T) {
			v, err := pyjson.Parse([]byte(tt.doc))
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(pyjson.Canonical(v)))
		})
	}
}

func TestParseRefusesWhatPythonReadsDifferently(t *testing.T) {
	tests := []struct {
		name, doc, reason, pointer string
	}{
		{"duplicate key", `{"a": 1, "b": {"c": 1, "c": 2}}`, "duplicate key", "/b/c"},
		{"byte order mark", "\xef\xbb\xbf{}", "byte order mark", ""},
		{"invalid UTF-8", "{\"a\": \"\xff\"}", "invalid UTF-8", ""},
		{"lone high surrogate", `{"a": ["\ud800"]}`, "lone surrogate", "/a/0"},
		{"lone low surrogate", `{"a": "\udc00x"}`, "lone surrogate", "/a"},
		{"high surrogate then non-surrogate", `"\ud800\u0041"`, "lone surrogate", ""},
		{"NaN", `{"a": NaN}`, "unexpected character", "/a"},
		{"Infinity", `[Infinity]`, "unexpected character", "/0"},
		{"trailing data", `{} {}`, "data after", ""},
		{"raw control character", "\"a\x01\"", "control character", ""},
		{"leading zero", `[01]`, "expected ','", ""},
		{"empty", ``, "unexpected end", ""},
		{"huge integer", strings.Repeat("9", 4301), "4300 digits", ""},
		{"single quotes", `{'a': 1}`, "expected a string key", ""},
		{"trailing comma", `[1,]`, "unexpected character", "/1"},
		{"bad escape", `"\x"`, "invalid escape", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := pyjson.Parse([]byte(tt.doc))
			require.Error(t, err)
			var se *pyjson.SyntaxError
			require.ErrorAs(t, err, &se)
			assert.Contains(t, se.Reason, tt.reason)
			assert.Equal(t, tt.pointer, se.Pointer)
		})
	}
}

func TestLookup(t *testing.T) {
	doc, err := pyjson.Parse([]byte(`{"a": [{"b": "x"}, "y"], "c/d": {"e~f": true}, "": null}`))
	require.NoError(t, err)
	tests := []struct {
		pointer string
		want    pyjson.Value
		found   bool
	}{
		{"/a/0/b", "x", true},
		{"/a/1", "y", true},
		{"/c~1d/e~0f", true, true},
		{"/", nil, true},
		{"/a/2", nil, false},
		{"/a/01", nil, false},
		{"/a/-", nil, false},
		{"/a/0/b/c", nil, false},
		{"a", nil, false},
		{"/missing", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.pointer, func(t *testing.T) {
			got, found := pyjson.Lookup(doc, tt.pointer)
			assert.Equal(t, tt.found, found)
			if tt.found {
				assert.True(t, pyjson.Equal(tt.want, got))
			}
		})
	}
}

// TestCanonicalAgainstPython proves the encoder against Python's json module
// on thousands of generated documents covering the whole Unicode range,
// escapes in every form, floats, big integers and nesting.
func TestCanonicalAgainstPython(t *testing.T) {
	if !pyref.Available() {
		t.Fatal("python3 is required: the Go hashing is proven against it")
	}
	rng := rand.New(rand.NewPCG(2026, 11))
	const n = 4000
	docs := make([][]byte, n)
	for i := range docs {
		docs[i] = []byte(GenerateDocument(rng, 4))
	}
	results, err := pyref.Canonicalize(docs)
	require.NoError(t, err)
	for i, doc := range docs {
		v, err := pyjson.Parse(doc)
		require.NoError(t, err, "doc %d: %q", i, doc)
		require.Empty(t, results[i].Error, "python refused doc %d: %q", i, doc)
		got := pyjson.Canonical(v)
		require.Equal(t, results[i].Canonical, string(got), "doc %d: %q", i, doc)
		require.Equal(t, results[i].SHA256, sha(got))
	}
}

// GenerateDocument writes a random JSON text, choosing at random among the
// ways JSON can spell the same character or number.
func GenerateDocument(rng *rand.Rand, depth int) string {
	var b strings.Builder
	writeValue(&b, rng, depth)
	return b.String()
}

func writeValue(b *strings.Builder, rng *rand.Rand, depth int) {
	switch k := rng.IntN(10); {
	case depth > 0 && k < 3:
		n := rng.IntN(6)
		seen := map[string]bool{}
		b.WriteString("{" + space(rng))
		for i := 0; i < n; i++ {
			key := randomString(rng)
			if seen[key] {
				continue
			}
			if len(seen) > 0 {
				b.WriteString("," + space(rng))
			}
			seen[key] = true
			writeString(b, rng, key)
			b.WriteString(space(rng) + ":" + space(rng))
			writeValue(b, rng, depth-1)
		}
		b.WriteString(space(rng) + "}")
	case depth > 0 && k < 5:
		n := rng.IntN(5)
		b.WriteString("[")
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString("," + space(rng))
			}
			writeValue(b, rng, depth-1)
		}
		b.WriteString("]")
	case k < 7:
		writeString(b, rng, randomString(rng))
	case k < 9:
		b.WriteString(randomNumber(rng))
	default:
		b.WriteString([]string{"true", "false", "null"}[rng.IntN(3)])
	}
}

func space(rng *rand.Rand) string {
	return []string{"", "", " ", "\n  ", "\t", "\r\n"}[rng.IntN(6)]
}

func randomString(rng *rand.Rand) string {
	var b strings.Builder
	n := rng.IntN(12)
	for i := 0; i < n; i++ {
		b.WriteRune(randomRune(rng))
	}
	return b.String()
}

func randomRune(rng *rand.Rand) rune {
	for {
		var r rune
		switch rng.IntN(8) {
		case 0:
			r = rune(rng.IntN(0x20)) // control characters
		case 1:
			r = rune(0x20 + rng.IntN(0x60)) // printable ASCII and DEL
		case 2:
			r = []rune{'"', '\\', '/', '<', '>', '&', 0x7f, 0x2028, 0x2029, 0xfeff, 0xfffd}[rng.IntN(11)]
		case 3:
			r = rune(0x80 + rng.IntN(0x780)) // Latin, Greek, Cyrillic...
		case 4:
			r = rune(0x800 + rng.IntN(0xF800)) // the rest of the BMP
		case 5, 6:
			r = rune(0x10000 + rng.IntN(0x100000)) // astral planes
		default:
			r = []rune("éèêàçùôïÉÈœæ«»–—’€")[rng.IntN(18)]
		}
		if utf8.ValidRune(r) {
			return r
		}
	}
}

// writeString spells s with a random mix of raw characters and escapes.
func writeString(b *strings.Builder, rng *rand.Rand, s string) {
	b.WriteByte('"')
	for _, r := range s {
		escape := rng.IntN(3) == 0
		switch {
		case r == '"' || r == '\\':
			b.WriteString(`\` + string(r))
		case r < 0x20:
			short := map[rune]string{'\b': `\b`, '\f': `\f`, '\n': `\n`, '\r': `\r`, '\t': `\t`}[r]
			if short != "" && rng.IntN(2) == 0 {
				b.WriteString(short)
			} else {
				fmt.Fprintf(b, `\u%04x`, r)
			}
		case r == '/' && escape:
			b.WriteString(`\/`)
		case escape && r >= 0x10000:
			r -= 0x10000
			fmt.Fprintf(b, `\u%04X\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		case escape:
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

func randomNumber(rng *rand.Rand) string {
	switch rng.IntN(9) {
	case 0:
		return strconv.Itoa(rng.IntN(2000) - 1000)
	case 1:
		return "-" + strings.Repeat("9", 1+rng.IntN(40)) // big integers
	case 2:
		return strconv.FormatFloat(rng.NormFloat64()*math.Pow(10, float64(rng.IntN(40)-20)), 'g', -1, 64)
	case 3:
		return strconv.FormatFloat(rng.Float64()*1e6, 'f', rng.IntN(6)+1, 64)
	case 4:
		return fmt.Sprintf("%de%d", rng.IntN(100), rng.IntN(40)-20)
	case 5:
		return fmt.Sprintf("%d.%dE+%d", rng.IntN(10), rng.IntN(1000), rng.IntN(30))
	case 6:
		return []string{"0.0", "-0.0", "-0", "1e16", "1e-5", "1e400", "5e-324", "1.7976931348623157e308", "0.1", "100.0"}[rng.IntN(10)]
	case 7:
		return strconv.FormatFloat(math.Float64frombits(rng.Uint64()&^(0x7FF<<52)|uint64(rng.IntN(2046)+1)<<52), 'g', -1, 64)
	default:
		return fmt.Sprintf("%d.%03d", rng.IntN(1e6), rng.IntN(1000))
	}
}

// A duplicate key is found wherever it is, in an object of any size, at
// the second occurrence; keys of distinct objects never clash. An object
// of a hundred thousand keys is read in linear time: quadratically it
// would not finish within the test's deadline.
func TestDuplicateKeysInLargeObjects(t *testing.T) {
	object := func(n int, extra ...string) string {
		members := make([]string, 0, n+len(extra))
		for i := range n {
			members = append(members, fmt.Sprintf(`"k%d": %d`, i, i))
		}
		return "{" + strings.Join(append(members, extra...), ", ") + "}"
	}
	tests := []struct {
		name, doc, pointer string
		second             string // the duplicate as spelled, its last occurrence in doc
	}{
		{"the first key again, in a small object", object(3, `"k0": 0`), "/k0", `"k0"`},
		{"the first key again, at the last key scanned", object(31, `"k0": 0`), "/k0", `"k0"`},
		{"the first key again, once the set is built", object(32, `"k0": 0`), "/k0", `"k0"`},
		{"the last key again, in a large object", object(1000, `"k999": 0`), "/k999", `"k999"`},
		{"an escaped spelling of a key, in a large object", object(1000, `"k\u0035": 0`), "/k5", `"k\u0035"`},
		{"in a large object nested in another", `{"a": ` + object(100, `"k50": 0`) + `}`, "/a/k50", `"k50"`},
		{"in a small object after a large one", `{"a": ` + object(100) + `, "b": {"x": 1, "x": 2}}`, "/b/x", `"x"`},
		{"in the outer object after a large inner one", `{"a": ` + object(100) + `, "a": 1}`, "/a", `"a"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := pyjson.Parse([]byte(tt.doc))
			var se *pyjson.SyntaxError
			require.ErrorAs(t, err, &se)
			assert.Contains(t, se.Reason, "duplicate key")
			assert.Equal(t, tt.pointer, se.Pointer)
			assert.Equal(t, strings.LastIndex(tt.doc, tt.second), se.Offset)
		})
	}
	_, err := pyjson.Parse([]byte(`{"a": ` + object(100) + `, "b": ` + object(100) + `, "k1": ` + object(40) + `}`))
	require.NoError(t, err, "the same keys in distinct objects")
	for _, n := range []int{1000, 100_000} {
		v, err := pyjson.Parse([]byte(object(n)))
		require.NoError(t, err)
		o := v.(pyjson.Object)
		require.Len(t, o, n)
		for i, m := range o {
			require.Equal(t, "k"+strconv.Itoa(i), m.Key, "members in source order")
		}
	}
}

// A pointer is shown printable: its keys are the document's, and a key
// may hold an escape sequence or a line break.
func TestShowPointerPrintable(t *testing.T) {
	_, err := pyjson.Parse([]byte(`{"a\u001b[2J\nb": {"x": 1, "x": 2}}`))
	require.Error(t, err)
	assert.Equal(t, `at /a\x1b[2J\nb/x (byte 27): duplicate key "x" (Python keeps only the last one)`, err.Error())
	assert.Equal(t, "(root)", pyjson.ShowPointer(""))
	assert.Equal(t, "/a~1b/0", pyjson.ShowPointer("/a~1b/0"))
}
