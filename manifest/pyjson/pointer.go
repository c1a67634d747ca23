package pyjson

import (
	"strconv"
	"strings"

	"github.com/arkforge/proveit-corpus/internal/printable"
)

// Lookup returns the value at an RFC 6901 JSON pointer ("" is the whole
// document), and whether the pointer names a value.
func Lookup(doc Value, pointer string) (Value, bool) {
	if pointer == "" {
		return doc, true
	}
	if pointer[0] != '/' {
		return nil, false
	}
	cur := doc
	for _, token := range strings.Split(pointer[1:], "/") {
		token = strings.NewReplacer("~1", "/", "~0", "~").Replace(token)
		switch node := cur.(type) {
		case Object:
			v, ok := node.Get(token)
			if !ok {
				return nil, false
			}
			cur = v
		case Array:
			i, ok := arrayIndex(token)
			if !ok || i >= len(node) {
				return nil, false
			}
			cur = node[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// arrayIndex parses an RFC 6901 array index: digits, no leading zero.
func arrayIndex(token string) (int, bool) {
	if token == "" || (len(token) > 1 && token[0] == '0') {
		return 0, false
	}
	for _, c := range []byte(token) {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	i, err := strconv.Atoi(token)
	return i, err == nil
}

// FormatPointer joins reference tokens into an RFC 6901 JSON pointer.
func FormatPointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(t))
	}
	return b.String()
}

// Equal reports whether two values are equal as strict JSON equality sees
// them: same type, same value, objects compared regardless of member order.
func Equal(a, b Value) bool {
	return string(Canonical(a)) == string(Canonical(b))
}

// ShowPointer writes a JSON pointer for a message: the empty pointer, the
// whole document, as "(root)". Its keys come from the document, so it is
// shown printable (a control character escaped), never as read.
func ShowPointer(pointer string) string {
	if pointer == "" {
		return "(root)"
	}
	return printable.String(pointer)
}
