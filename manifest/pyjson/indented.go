package pyjson

import (
	"fmt"
	"strings"
)

// indent is the corpus files' indentation (docs/contract.md, section 3):
// two spaces a level.
const indent = "  "

// AppendIndented appends v as Python's json.dumps(v, ensure_ascii=False,
// indent=2) writes it: the layout of every file of the corpus trees.
func AppendIndented(dst []byte, v Value) []byte { return appendIndented(dst, v, 0) }

// appendIndented writes v, at depth levels, as Python's json.dumps(v, ensure_ascii=False,
// indent=2) does: ", " and ": " separators reduced to ",\n" and ": ", empty
// containers as "[]" and "{}", members in source order.
func appendIndented(dst []byte, v Value, depth int) []byte {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...)
	case bool:
		return fmt.Append(dst, v)
	case string:
		return appendPythonString(dst, v)
	case Number:
		// Never reached on a corpus file: CheckBody refuses numbers first.
		return append(dst, v...)
	case Array:
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
	case Object:
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
