package lint

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/arkforge/proveit-corpus/manifest/pyjson"
)

// indent is the corpus files' indentation (docs/contract.md, section 3):
// two spaces a level.
const indent = "  "

// checkLayout reports whether data is byte for byte the layout Python gives
// the parsed document, json.dumps(doc, ensure_ascii=False, indent=2) + "\n",
// and otherwise the first line that differs. One layout keeps every diff of
// the frozen corpus meaningful and its byte hashes reproducible by anyone.
func checkLayout(data []byte, doc pyjson.Value) (line int, ok bool) {
	want := append(appendIndented(nil, doc, 0), '\n')
	if bytes.Equal(data, want) {
		return 0, true
	}
	n := 0
	for n < len(data) && n < len(want) && data[n] == want[n] {
		n++
	}
	return bytes.Count(data[:n], []byte("\n")) + 1, false
}

// appendIndented writes v as Python's json.dumps(v, ensure_ascii=False,
// indent=2) does: ", " and ": " separators reduced to ",\n" and ": ", empty
// containers as "[]" and "{}", members in source order.
func appendIndented(dst []byte, v pyjson.Value, depth int) []byte {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...)
	case bool:
		return fmt.Append(dst, v)
	case string:
		return appendPythonString(dst, v)
	case pyjson.Number:
		// Never reached on a corpus file: CheckBody refuses numbers first.
		return append(dst, v...)
	case pyjson.Array:
		if len(v) == 0 {
			return append(dst, "[]"...)
		}
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendNewline(dst, depth+1)
			dst = appendIndented(dst, e, depth+1)
		}
		return append(appendNewline(dst, depth), ']')
	case pyjson.Object:
		if len(v) == 0 {
			return append(dst, "{}"...)
		}
		dst = append(dst, '{')
		for i, m := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendNewline(dst, depth+1)
			dst = appendPythonString(dst, m.Key)
			dst = append(dst, ": "...)
			dst = appendIndented(dst, m.Value, depth+1)
		}
		return append(appendNewline(dst, depth), '}')
	}
	panic(fmt.Sprintf("lint: unexpected JSON value %T", v))
}

func appendNewline(dst []byte, depth int) []byte {
	dst = append(dst, '\n')
	return append(dst, strings.Repeat(indent, depth)...)
}

// appendPythonString writes s as Python's encoder does with ensure_ascii
// off: only '"', '\\' and the C0 controls are escaped, the usual five in
// their short form, the rest as \u00XX in lowercase hex; every other
// character, DEL and U+2028 included, is written as raw UTF-8.
func appendPythonString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, `\n`...)
		case '\r':
			dst = append(dst, `\r`...)
		case '\t':
			dst = append(dst, `\t`...)
		case '\b':
			dst = append(dst, `\b`...)
		case '\f':
			dst = append(dst, `\f`...)
		default:
			if c < 0x20 {
				dst = fmt.Appendf(dst, `\u%04x`, c)
			} else {
				dst = append(dst, c)
			}
		}
	}
	return append(dst, '"')
}
