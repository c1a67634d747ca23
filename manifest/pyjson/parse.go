package pyjson

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth bounds nesting, well below Python's own recursion limit.
const maxDepth = 512

// maxIntDigits is Python 3.11's default int_max_str_digits: json.loads raises
// ValueError on a longer integer literal.
const maxIntDigits = 4300

// SyntaxError says why a document is refused, and where: the byte offset and
// the JSON pointer of the value being read.
type SyntaxError struct {
	Offset  int
	Pointer string
	Reason  string
}

func (e *SyntaxError) Error() string {
	ptr := e.Pointer
	if ptr == "" {
		ptr = "(root)"
	}
	return fmt.Sprintf("at %s (byte %d): %s", ptr, e.Offset, e.Reason)
}

// Parse reads one JSON document as Python's json.loads reads bytes, and refuses
// what Python would read differently or not at all: invalid UTF-8, a byte order
// mark, a duplicate key, an escape of a lone surrogate, NaN or Infinity
// literals, an integer beyond Python's digit limit, anything after the value.
func Parse(data []byte) (Value, error) {
	p := parser{data: data}
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		return nil, p.fail("byte order mark before the document")
	}
	if !utf8.Valid(data) {
		off := 0
		for off < len(data) {
			r, size := utf8.DecodeRune(data[off:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			off += size
		}
		p.pos = off
		return nil, p.fail("invalid UTF-8")
	}
	p.skipSpace()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(data) {
		return nil, p.fail("data after the JSON value")
	}
	return v, nil
}

type parser struct {
	data []byte
	pos  int
	path []string // pointer tokens of the value being read
}

func (p *parser) fail(format string, args ...any) error {
	return &SyntaxError{Offset: p.pos, Pointer: FormatPointer(p.path), Reason: fmt.Sprintf(format, args...)}
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (Value, error) {
	if depth > maxDepth {
		return nil, p.fail("nesting deeper than %d", maxDepth)
	}
	if p.pos >= len(p.data) {
		return nil, p.fail("unexpected end of document")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return p.string()
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case p.literal("true"):
		return true, nil
	case p.literal("false"):
		return false, nil
	case p.literal("null"):
		return nil, nil
	default:
		return nil, p.fail("unexpected character %q", c)
	}
}

func (p *parser) literal(word string) bool {
	if strings.HasPrefix(string(p.data[p.pos:min(len(p.data), p.pos+len(word))]), word) {
		p.pos += len(word)
		return true
	}
	return false
}

func (p *parser) object(depth int) (Value, error) {
	p.pos++ // '{'
	obj := Object{}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return obj, nil
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.fail("expected a string key")
		}
		keyAt := p.pos
		key, err := p.string()
		if err != nil {
			return nil, err
		}
		if _, dup := obj.Get(key); dup {
			p.pos = keyAt
			p.path = append(p.path, key)
			return nil, p.fail("duplicate key %q (Python keeps only the last one)", key)
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.fail("expected ':' after key %q", key)
		}
		p.pos++
		p.skipSpace()
		p.path = append(p.path, key)
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		p.path = p.path[:len(p.path)-1]
		obj = append(obj, Member{Key: key, Value: v})
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.fail("unterminated object")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return obj, nil
		default:
			return nil, p.fail("expected ',' or '}' in object")
		}
	}
}

func (p *parser) array(depth int) (Value, error) {
	p.pos++ // '['
	arr := Array{}
	p.skipSpace()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return arr, nil
	}
	for {
		p.skipSpace()
		p.path = append(p.path, indexToken(len(arr)))
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		p.path = p.path[:len(p.path)-1]
		arr = append(arr, v)
		p.skipSpace()
		if p.pos >= len(p.data) {
			return nil, p.fail("unterminated array")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return arr, nil
		default:
			return nil, p.fail("expected ',' or ']' in array")
		}
	}
}

// smallIndexes are the pointer tokens of the first array indexes, kept so
// that parsing an array allocates no token for its error path.
var smallIndexes = func() []string {
	tokens := make([]string, 256)
	for i := range tokens {
		tokens[i] = strconv.Itoa(i)
	}
	return tokens
}()

func indexToken(i int) string {
	if i < len(smallIndexes) {
		return smallIndexes[i]
	}
	return strconv.Itoa(i)
}

func (p *parser) string() (string, error) {
	p.pos++ // opening quote
	start := p.pos
	// Fast path: no escapes.
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		if c == '"' {
			s := string(p.data[start:p.pos])
			p.pos++
			return s, nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return "", p.fail("control character %#02x in a string", c)
		}
		p.pos++
	}
	var b strings.Builder
	b.Write(p.data[start:p.pos])
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return b.String(), nil
		case c < 0x20:
			return "", p.fail("control character %#02x in a string", c)
		case c != '\\':
			b.WriteByte(c)
			p.pos++
			continue
		}
		if p.pos+1 >= len(p.data) {
			break
		}
		esc := p.data[p.pos+1]
		p.pos += 2
		switch esc {
		case '"', '\\', '/':
			b.WriteByte(esc)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, err := p.unicodeEscape()
			if err != nil {
				return "", err
			}
			b.WriteRune(r)
		default:
			p.pos -= 2
			return "", p.fail("invalid escape \\%c", esc)
		}
	}
	return "", p.fail("unterminated string")
}

// unicodeEscape reads the hex digits after \u (and a second escape for a
// surrogate pair). A lone surrogate is refused: Python would keep it as a
// code point no UTF-8 text can hold.
func (p *parser) unicodeEscape() (rune, error) {
	first, ok := p.hex4()
	if !ok {
		return 0, p.fail("invalid \\u escape")
	}
	if !utf16.IsSurrogate(first) {
		return first, nil
	}
	if first < 0xDC00 && p.pos+1 < len(p.data) && p.data[p.pos] == '\\' && p.data[p.pos+1] == 'u' {
		p.pos += 2
		second, ok := p.hex4()
		if !ok {
			return 0, p.fail("invalid \\u escape")
		}
		if r := utf16.DecodeRune(first, second); r != utf8.RuneError {
			return r, nil
		}
	}
	return 0, p.fail("lone surrogate escape \\u%04x", first)
}

func (p *parser) hex4() (rune, bool) {
	if p.pos+4 > len(p.data) {
		return 0, false
	}
	var r rune
	for _, c := range p.data[p.pos : p.pos+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c-'a') + 10
		case c >= 'A' && c <= 'F':
			r |= rune(c-'A') + 10
		default:
			return 0, false
		}
	}
	p.pos += 4
	return r, true
}

func (p *parser) number() (Value, error) {
	start := p.pos
	digits := func() int {
		n := 0
		for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	if p.data[p.pos] == '-' {
		p.pos++
	}
	if p.pos < len(p.data) && p.data[p.pos] == '0' {
		p.pos++
	} else if digits() == 0 {
		return nil, p.fail("invalid number")
	}
	intEnd := p.pos
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return nil, p.fail("invalid number: no digit after '.'")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return nil, p.fail("invalid number: no digit in exponent")
		}
	}
	lit := string(p.data[start:p.pos])
	if p.pos == intEnd && len(strings.TrimPrefix(lit, "-")) > maxIntDigits {
		return nil, p.fail("integer of more than %d digits", maxIntDigits)
	}
	return Number(lit), nil
}
