package pyjson

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

const hexDigits = "0123456789abcdef"

// Canonical returns v as json.dumps(v, sort_keys=True, separators=(",", ":"))
// writes it: keys sorted by code point, every character outside U+0020..U+007E
// escaped as \uXXXX (astral ones as a surrogate pair), numbers as Python prints
// the int or float it read.
func Canonical(v Value) []byte {
	return AppendCanonical(nil, v)
}

// AppendCanonical appends the canonical form of v to dst.
func AppendCanonical(dst []byte, v Value) []byte {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...)
	case bool:
		if v {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case string:
		return appendString(dst, v)
	case Number:
		return appendNumber(dst, string(v))
	case Array:
		dst = append(dst, '[')
		for i, e := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendCanonical(dst, e)
		}
		return append(dst, ']')
	case Object:
		// UTF-8 byte order is code point order, the order Python sorts str
		// keys in. Members already in order (keys are unique) are not copied.
		members := []Member(v)
		if !slices.IsSortedFunc(members, compareKeys) {
			members = slices.SortedFunc(slices.Values(v), compareKeys)
		}
		dst = append(dst, '{')
		for i, m := range members {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, m.Key)
			dst = append(dst, ':')
			dst = AppendCanonical(dst, m.Value)
		}
		return append(dst, '}')
	default:
		panic(fmt.Sprintf("pyjson: %T is not a Value", v))
	}
}

func compareKeys(a, b Member) int { return strings.Compare(a.Key, b.Key) }

// appendString writes s the way Python's ensure_ascii encoder does.
func appendString(dst []byte, s string) []byte {
	return appendText(dst, unsafe.Slice(unsafe.StringData(s), len(s)))
}

// appendText writes UTF-8 text as a JSON string the way Python's
// ensure_ascii encoder does. Invalid UTF-8, which only a Value built by
// hand can hold, is written as U+FFFD.
func appendText(dst []byte, s []byte) []byte {
	dst = append(dst, '"')
	// The printable ASCII prefix, which is most strings whole, is copied as
	// it is.
	plain := 0
	for plain < len(s) && s[plain] >= 0x20 && s[plain] <= 0x7E && s[plain] != '"' && s[plain] != '\\' {
		plain++
	}
	dst = append(dst, s[:plain]...)
	for i := plain; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(s[i:])
		}
		i += size
		switch {
		case r == '"':
			dst = append(dst, '\\', '"')
		case r == '\\':
			dst = append(dst, '\\', '\\')
		case r >= 0x20 && r <= 0x7E:
			dst = append(dst, byte(r))
		case r == '\n':
			dst = append(dst, '\\', 'n')
		case r == '\r':
			dst = append(dst, '\\', 'r')
		case r == '\t':
			dst = append(dst, '\\', 't')
		case r == '\b':
			dst = append(dst, '\\', 'b')
		case r == '\f':
			dst = append(dst, '\\', 'f')
		case r >= 0x10000:
			r -= 0x10000
			dst = appendU(dst, 0xD800+(r>>10))
			dst = appendU(dst, 0xDC00+(r&0x3FF))
		default:
			dst = appendU(dst, r)
		}
	}
	return append(dst, '"')
}

func appendU(dst []byte, r rune) []byte {
	return append(dst, '\\', 'u', hexDigits[r>>12&0xF], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
}

// appendNumber renders a JSON number literal as Python prints what json.loads
// made of it: an int as its digits, a float as repr(float).
func appendNumber(dst []byte, lit string) []byte {
	if !strings.ContainsAny(lit, ".eE") {
		digits := strings.TrimLeft(strings.TrimPrefix(lit, "-"), "0")
		if digits == "" {
			return append(dst, '0') // -0 is the int 0
		}
		if lit[0] == '-' {
			dst = append(dst, '-')
		}
		return append(dst, digits...)
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil && !math.IsInf(f, 0) {
		panic("pyjson: invalid number literal " + strconv.Quote(lit))
	}
	return AppendFloat(dst, f)
}

// AppendFloat appends repr(f) as Python 3 writes it in JSON: the shortest
// digits that round-trip, in positional form when the decimal exponent lies in
// [-4, 16), scientific otherwise ("1e+16", "1e-05"); an infinity as json.dumps
// writes it.
func AppendFloat(dst []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(dst, "Infinity"...)
	case math.IsInf(f, -1):
		return append(dst, "-Infinity"...)
	case math.IsNaN(f):
		return append(dst, "NaN"...)
	case f == 0:
		if math.Signbit(f) {
			return append(dst, "-0.0"...)
		}
		return append(dst, "0.0"...)
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	sci := strconv.FormatFloat(f, 'e', -1, 64) // d[.ddd]e±XX
	mantissa, expText, _ := strings.Cut(sci, "e")
	exp, _ := strconv.Atoi(expText)
	digits := strings.Replace(mantissa, ".", "", 1)
	point := exp + 1 // digits are 0.d1d2... × 10^point
	switch {
	case point <= -4 || point > 16:
		dst = append(dst, digits[0])
		if len(digits) > 1 {
			dst = append(dst, '.')
			dst = append(dst, digits[1:]...)
		}
		dst = append(dst, 'e')
		if exp < 0 {
			dst = append(dst, '-')
			exp = -exp
		} else {
			dst = append(dst, '+')
		}
		if exp < 10 {
			dst = append(dst, '0')
		}
		return strconv.AppendInt(dst, int64(exp), 10)
	case point <= 0:
		dst = append(dst, "0."...)
		dst = append(dst, strings.Repeat("0", -point)...)
		return append(dst, digits...)
	case point >= len(digits):
		dst = append(dst, digits...)
		dst = append(dst, strings.Repeat("0", point-len(digits))...)
		return append(dst, ".0"...)
	default:
		dst = append(dst, digits[:point]...)
		dst = append(dst, '.')
		return append(dst, digits[point:]...)
	}
}

// AppendCanonical appends the canonical form of the document read last, as
// the package's AppendCanonical writes its Value.
func (d *Document) AppendCanonical(dst []byte) []byte {
	dst, _ = d.appendCanonical(dst, 0)
	return dst
}

// appendCanonical appends the value at token i and returns the index of the
// token after it.
func (d *Document) appendCanonical(dst []byte, i int) ([]byte, int) {
	t := &d.tokens[i]
	switch t.kind {
	case kindNull:
		return append(dst, "null"...), i + 1
	case kindFalse:
		return append(dst, "false"...), i + 1
	case kindTrue:
		return append(dst, "true"...), i + 1
	case kindString:
		return d.appendString(dst, i), i + 1
	case kindNumber:
		text := d.text(i)
		return appendNumber(dst, unsafe.String(unsafe.SliceData(text), len(text))), i + 1
	case kindArray:
		dst = append(dst, '[')
		next := i + 1
		for k := range int(t.start) {
			if k > 0 {
				dst = append(dst, ',')
			}
			dst, next = d.appendCanonical(dst, next)
		}
		return append(dst, ']'), int(t.end)
	}
	// An object: its keys in code point order, which is UTF-8 byte order.
	from := len(d.order)
	for k, next := 0, i+1; k < int(t.start); k++ {
		d.order = append(d.order, int32(next))
		next = d.next(next + 1)
	}
	members := d.order[from:]
	d.sortKeys(members)
	dst = append(dst, '{')
	for k, key := range members {
		if k > 0 {
			dst = append(dst, ',')
		}
		dst = d.appendString(dst, int(key))
		dst = append(dst, ':')
		dst, _ = d.appendCanonical(dst, int(key)+1)
	}
	d.order = d.order[:from]
	return append(dst, '}'), int(t.end)
}

func (d *Document) appendString(dst []byte, i int) []byte {
	if d.tokens[i].flags&flagPlain != 0 {
		dst = append(dst, '"')
		dst = append(dst, d.text(i)...)
		return append(dst, '"')
	}
	return appendText(dst, d.text(i))
}

// sortKeys sorts key tokens by their text: by insertion, the fastest for
// the few members of most objects.
func (d *Document) sortKeys(keys []int32) {
	if len(keys) > 24 {
		slices.SortFunc(keys, func(a, b int32) int { return bytes.Compare(d.text(int(a)), d.text(int(b))) })
		return
	}
	for i := 1; i < len(keys); i++ {
		key, text := keys[i], d.text(int(keys[i]))
		j := i
		for ; j > 0 && bytes.Compare(d.text(int(keys[j-1])), text) > 0; j-- {
			keys[j] = keys[j-1]
		}
		keys[j] = key
	}
}
