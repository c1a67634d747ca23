package pyjson

import (
	"fmt"
	"math"
	"strconv"
	"sync"
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
	return fmt.Sprintf("at %s (byte %d): %s", ShowPointer(e.Pointer), e.Offset, e.Reason)
}

// Parse reads one JSON document as Python's json.loads reads bytes, and refuses
// what Python would read differently or not at all (see Document.Read).
func Parse(data []byte) (Value, error) {
	d := documents.Get().(*Document)
	defer d.release()
	if err := d.Read(data); err != nil {
		return nil, err
	}
	return d.Value(), nil
}

// documents are reused by Parse, so that reading a document allocates only
// the values it returns.
var documents = sync.Pool{New: func() any { return new(Document) }}

// release hands d back to the pool.
func (d *Document) release() {
	d.Reset()
	documents.Put(d)
}

// Reset forgets the document read last, keeping the buffers for the next.
func (d *Document) Reset() {
	d.data, d.tokens = nil, d.tokens[:0]
}

// Document is one JSON document read as Python reads it, held as a flat list
// of tokens over the bytes read, so that a reader of many documents can write
// each one's canonical form with no allocation: its buffers are reused from
// one Read to the next. Parse builds the tree of Values from it.
type Document struct {
	data   []byte  // the document being read; string and number tokens point into it
	arena  []byte  // the decoded text of the strings that hold an escape
	tokens []token // the values in document order; a container precedes its elements
	pos    int     // reading offset in data
	path   []int32 // while reading: the pointer to the value being read (see pointerToken)
	keys   []int32 // while reading: the key tokens of the objects open, to refuse a duplicate
	order  []int32 // while writing: the members of the objects open, sorted by key
	number int     // index of the first number token, or -1
}

// token is one value of a document, or one key of an object (the token
// before its value).
type token struct {
	kind  kind
	flags uint8
	// start and end delimit a string's decoded text (in the arena if
	// escaped, else in data) or a number's literal. For a container, start
	// is the count of its elements and end the index of the token after its
	// last descendant.
	start, end uint32
}

type kind uint8

const (
	kindNull kind = iota
	kindFalse
	kindTrue
	kindString
	kindNumber
	kindArray
	kindObject
)

const (
	flagEscaped uint8 = 1 << iota // the text is in the arena
	flagPlain                     // printable ASCII but '"' and '\': written as it is
	flagKey                       // an object's key
)

// Read reads data as Python's json.loads reads bytes, and refuses what
// Python would read differently or not at all: invalid UTF-8, a byte order
// mark, a duplicate key, an escape of a lone surrogate, NaN or Infinity
// literals, an integer beyond Python's digit limit, anything after the
// value. The document keeps data, which must not change while it is used.
func (d *Document) Read(data []byte) error {
	d.data, d.pos, d.number = data, 0, -1
	d.arena, d.tokens, d.path, d.keys = d.arena[:0], d.tokens[:0], d.path[:0], d.keys[:0]
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		return d.fail("byte order mark before the document")
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
		d.pos = off
		return d.fail("invalid UTF-8")
	}
	if len(data) > math.MaxUint32 {
		return d.fail("document of more than 4 GiB")
	}
	d.skipSpace()
	if err := d.value(0); err != nil {
		return err
	}
	d.skipSpace()
	if d.pos != len(data) {
		return d.fail("data after the JSON value")
	}
	return nil
}

func (d *Document) fail(format string, args ...any) error {
	tokens := make([]string, len(d.path))
	for i, t := range d.path {
		tokens[i] = d.pointerToken(t)
	}
	return &SyntaxError{Offset: d.pos, Pointer: FormatPointer(tokens), Reason: fmt.Sprintf(format, args...)}
}

// pointerToken is the JSON pointer token of an entry of path: the index of
// a key's token, or ^i for the element i of an array.
func (d *Document) pointerToken(t int32) string {
	if t < 0 {
		return strconv.Itoa(int(^t))
	}
	return string(d.text(int(t)))
}

// space marks the bytes JSON allows between tokens.
var space = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

func (d *Document) skipSpace() {
	pos := d.pos
	for pos < len(d.data) && space[d.data[pos]] {
		pos++
	}
	d.pos = pos
}

func (d *Document) value(depth int) error {
	if depth > maxDepth {
		return d.fail("nesting deeper than %d", maxDepth)
	}
	if d.pos >= len(d.data) {
		return d.fail("unexpected end of document")
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		return d.object(depth)
	case c == '[':
		return d.array(depth)
	case c == '"':
		return d.string(0)
	case c == '-' || (c >= '0' && c <= '9'):
		return d.numberLiteral()
	case d.literal("true"):
		d.tokens = append(d.tokens, token{kind: kindTrue})
	case d.literal("false"):
		d.tokens = append(d.tokens, token{kind: kindFalse})
	case d.literal("null"):
		d.tokens = append(d.tokens, token{kind: kindNull})
	default:
		return d.fail("unexpected character %q", c)
	}
	return nil
}

func (d *Document) literal(word string) bool {
	if string(d.data[d.pos:min(len(d.data), d.pos+len(word))]) == word {
		d.pos += len(word)
		return true
	}
	return false
}

// open appends the token of a container that end closes, and reports
// whether the container is empty, then closed already; close records its
// extent once its elements are read.
func (d *Document) open(k kind, end byte) (at int, empty bool) {
	d.pos++
	d.tokens = append(d.tokens, token{kind: k})
	at = len(d.tokens) - 1
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == end {
		d.close(at, 0)
		return at, true
	}
	return at, false
}

func (d *Document) close(at, count int) {
	d.pos++
	d.tokens[at].start, d.tokens[at].end = uint32(count), uint32(len(d.tokens))
}

func (d *Document) object(depth int) error {
	at, empty := d.open(kindObject, '}')
	if empty {
		return nil
	}
	keys := len(d.keys)
	var seen map[string]struct{} // the keys of a large object (see duplicate)
	for count := 1; ; count++ {
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return d.fail("expected a string key")
		}
		keyAt, key := d.pos, len(d.tokens)
		if err := d.string(flagKey); err != nil {
			return err
		}
		if d.duplicate(key, d.keys[keys:], &seen) {
			d.pos = keyAt
			d.path = append(d.path, int32(key))
			return d.fail("duplicate key %q (Python keeps only the last one)", d.text(key))
		}
		d.keys = append(d.keys, int32(key))
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return d.fail("expected ':' after key %q", d.text(key))
		}
		d.pos++
		d.skipSpace()
		d.path = append(d.path, int32(key))
		if err := d.value(depth + 1); err != nil {
			return err
		}
		d.path = d.path[:len(d.path)-1]
		if more, err := d.separator('}', "object"); !more {
			if err == nil {
				d.close(at, count)
				d.keys = d.keys[:keys]
			}
			return err
		}
	}
}

// separator reads what follows an element of a container that end closes:
// a comma, and more elements follow, or end, which it leaves to be read.
func (d *Document) separator(end byte, container string) (more bool, err error) {
	d.skipSpace()
	if d.pos >= len(d.data) {
		return false, d.fail("unterminated %s", container)
	}
	switch d.data[d.pos] {
	case ',':
		d.pos++
		return true, nil
	case end:
		return false, nil
	}
	return false, d.fail("expected ',' or '%c' in %s", end, container)
}

// smallObject is the count of keys up to which a duplicate is looked for
// by scanning the keys before it, allocating nothing: most objects are
// that small. Past it, the object's keys are kept in a set, so that
// reading an object of n keys takes time linear in n, not quadratic.
const smallObject = 32

// duplicate reports whether the key token key has the text of one of the
// keys already read in its object, before; seen is the object's set of
// keys, built once the object grows past smallObject, and key is added.
func (d *Document) duplicate(key int, before []int32, seen *map[string]struct{}) bool {
	text := d.text(key)
	if len(before) < smallObject {
		for _, k := range before {
			if string(d.text(int(k))) == string(text) {
				return true
			}
		}
		return false
	}
	if *seen == nil {
		*seen = make(map[string]struct{}, 2*len(before))
		for _, k := range before {
			(*seen)[string(d.text(int(k)))] = struct{}{}
		}
	}
	if _, dup := (*seen)[string(text)]; dup {
		return true
	}
	(*seen)[string(text)] = struct{}{}
	return false
}

func (d *Document) array(depth int) error {
	at, empty := d.open(kindArray, ']')
	if empty {
		return nil
	}
	for i := 0; ; i++ {
		d.skipSpace()
		d.path = append(d.path, ^int32(i))
		if err := d.value(depth + 1); err != nil {
			return err
		}
		d.path = d.path[:len(d.path)-1]
		if more, err := d.separator(']', "array"); !more {
			if err == nil {
				d.close(at, i+1)
			}
			return err
		}
	}
}

// stringByte classes the bytes of a string: the end of the plain run, and
// whether a byte is printable ASCII.
var stringByte = func() (class [256]uint8) {
	for c := range class {
		switch {
		case c == '"' || c == '\\' || c < 0x20:
			class[c] = stop
		case c > 0x7E:
			class[c] = notPlain
		}
	}
	return class
}()

const (
	stop     = 1 // a quote, a backslash or a control character
	notPlain = 2 // a byte the canonical form escapes
)

func (d *Document) string(flags uint8) error {
	data := d.data
	start := d.pos + 1 // after the opening quote
	pos := start
	plain := flagPlain
	// Fast path: no escape, the text is the bytes.
	for pos < len(data) {
		class := stringByte[data[pos]]
		if class == 0 {
			pos++
			continue
		}
		if class == notPlain {
			plain = 0
			pos++
			continue
		}
		c := data[pos]
		if c == '"' {
			d.tokens = append(d.tokens, token{kind: kindString, flags: flags | plain, start: uint32(start), end: uint32(pos)})
			d.pos = pos + 1
			return nil
		}
		if c == '\\' {
			break
		}
		d.pos = pos
		return d.fail("control character %#02x in a string", c)
	}
	d.pos = pos
	from := len(d.arena)
	d.arena = append(d.arena, data[start:pos]...)
	for d.pos < len(data) {
		c := data[d.pos]
		switch {
		case c == '"':
			d.pos++
			d.tokens = append(d.tokens, token{kind: kindString, flags: flags | flagEscaped, start: uint32(from), end: uint32(len(d.arena))})
			return nil
		case c < 0x20:
			return d.fail("control character %#02x in a string", c)
		case c != '\\':
			d.arena = append(d.arena, c)
			d.pos++
			continue
		}
		if d.pos+1 >= len(data) {
			break
		}
		esc := data[d.pos+1]
		d.pos += 2
		switch esc {
		case '"', '\\', '/':
			d.arena = append(d.arena, esc)
		case 'b':
			d.arena = append(d.arena, '\b')
		case 'f':
			d.arena = append(d.arena, '\f')
		case 'n':
			d.arena = append(d.arena, '\n')
		case 'r':
			d.arena = append(d.arena, '\r')
		case 't':
			d.arena = append(d.arena, '\t')
		case 'u':
			r, err := d.unicodeEscape()
			if err != nil {
				return err
			}
			d.arena = utf8.AppendRune(d.arena, r)
		default:
			d.pos -= 2
			return d.fail("invalid escape \\%c", esc)
		}
	}
	return d.fail("unterminated string")
}

// unicodeEscape reads the hex digits after \u (and a second escape for a
// surrogate pair). A lone surrogate is refused: Python would keep it as a
// code point no UTF-8 text can hold.
func (d *Document) unicodeEscape() (rune, error) {
	first, ok := d.hex4()
	if !ok {
		return 0, d.fail("invalid \\u escape")
	}
	if !utf16.IsSurrogate(first) {
		return first, nil
	}
	if first < 0xDC00 && d.pos+1 < len(d.data) && d.data[d.pos] == '\\' && d.data[d.pos+1] == 'u' {
		d.pos += 2
		second, ok := d.hex4()
		if !ok {
			return 0, d.fail("invalid \\u escape")
		}
		if r := utf16.DecodeRune(first, second); r != utf8.RuneError {
			return r, nil
		}
	}
	return 0, d.fail("lone surrogate escape \\u%04x", first)
}

func (d *Document) hex4() (rune, bool) {
	if d.pos+4 > len(d.data) {
		return 0, false
	}
	var r rune
	for _, c := range d.data[d.pos : d.pos+4] {
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
	d.pos += 4
	return r, true
}

func (d *Document) numberLiteral() error {
	start := d.pos
	digits := func() int {
		n := 0
		for d.pos < len(d.data) && d.data[d.pos] >= '0' && d.data[d.pos] <= '9' {
			d.pos++
			n++
		}
		return n
	}
	if d.data[d.pos] == '-' {
		d.pos++
	}
	if d.pos < len(d.data) && d.data[d.pos] == '0' {
		d.pos++
	} else if digits() == 0 {
		return d.fail("invalid number")
	}
	intEnd := d.pos
	if d.pos < len(d.data) && d.data[d.pos] == '.' {
		d.pos++
		if digits() == 0 {
			return d.fail("invalid number: no digit after '.'")
		}
	}
	if d.pos < len(d.data) && (d.data[d.pos] == 'e' || d.data[d.pos] == 'E') {
		d.pos++
		if d.pos < len(d.data) && (d.data[d.pos] == '+' || d.data[d.pos] == '-') {
			d.pos++
		}
		if digits() == 0 {
			return d.fail("invalid number: no digit in exponent")
		}
	}
	digitsStart := start
	if d.data[start] == '-' {
		digitsStart++
	}
	if d.pos == intEnd && d.pos-digitsStart > maxIntDigits {
		return d.fail("integer of more than %d digits", maxIntDigits)
	}
	if d.number < 0 {
		d.number = len(d.tokens)
	}
	d.tokens = append(d.tokens, token{kind: kindNumber, start: uint32(start), end: uint32(d.pos)})
	return nil
}

// text is the decoded text of a string token, or the literal of a number.
func (d *Document) text(i int) []byte {
	t := &d.tokens[i]
	if t.flags&flagEscaped != 0 {
		return d.arena[t.start:t.end]
	}
	return d.data[t.start:t.end]
}

// next is the index of the token after the value at i and its descendants.
func (d *Document) next(i int) int {
	if k := d.tokens[i].kind; k == kindArray || k == kindObject {
		return int(d.tokens[i].end)
	}
	return i + 1
}

// Value returns the document read as a tree of Values. Its strings and
// numbers share one copy of the document's text, and its objects and arrays
// one block of members and one of elements, so that building the tree
// allocates little more than a value each; a part of the tree kept keeps
// the whole document's text alive.
func (d *Document) Value() Value {
	v, _ := d.tree(0, true).valueAt(0)
	return v
}

// tree is a builder of the value at token i and its descendants, with
// blocks for their members and elements; shared gives its strings one copy
// of the whole document's text, else each string is copied alone.
func (d *Document) tree(i int, shared bool) *treeBuilder {
	b := &treeBuilder{d: d}
	if shared {
		b.shared, b.data, b.arena = true, string(d.data), string(d.arena)
	}
	var members, elements int
	for _, t := range d.tokens[i:d.next(i)] {
		switch t.kind {
		case kindObject:
			members += int(t.start)
		case kindArray:
			elements += int(t.start)
		}
	}
	b.members, b.elements = make(Object, members), make(Array, elements)
	return b
}

// treeBuilder builds the tree of a document's Values from its tokens,
// handing out the text and the blocks Value allocated once.
type treeBuilder struct {
	d           *Document
	shared      bool   // strings are parts of data and arena
	data, arena string // the document's bytes and its arena, as text
	members     Object // the members not yet given to an object
	elements    Array  // the elements not yet given to an array
}

// text is the text of the string or number token i: a part of the shared
// copy, or a copy of its own.
func (b *treeBuilder) text(i int) string {
	if !b.shared {
		return string(b.d.text(i))
	}
	t := &b.d.tokens[i]
	if t.flags&flagEscaped != 0 {
		return b.arena[t.start:t.end]
	}
	return b.data[t.start:t.end]
}

func (b *treeBuilder) valueAt(i int) (Value, int) {
	switch t := &b.d.tokens[i]; t.kind {
	case kindFalse:
		return false, i + 1
	case kindTrue:
		return true, i + 1
	case kindString:
		return b.text(i), i + 1
	case kindNumber:
		return Number(b.text(i)), i + 1
	case kindArray:
		n := int(t.start)
		// Capped at its length, so that appending to one array never
		// writes over the next.
		arr := b.elements[:n:n]
		b.elements = b.elements[n:]
		next := i + 1
		for k := range arr {
			arr[k], next = b.valueAt(next)
		}
		return arr, int(t.end)
	case kindObject:
		n := int(t.start)
		obj := b.members[:n:n]
		b.members = b.members[n:]
		next := i + 1
		for k := range obj {
			obj[k].Key = b.text(next)
			obj[k].Value, next = b.valueAt(next + 1)
		}
		return obj, int(t.end)
	}
	return nil, i + 1
}

// Len returns the count of elements or members of the document, when it is
// an array or an object.
func (d *Document) Len() (n int, container bool) {
	if k := d.tokens[0].kind; k == kindArray || k == kindObject {
		return int(d.tokens[0].start), true
	}
	return 0, false
}

// IsObject reports whether the document is an object.
func (d *Document) IsObject() bool { return d.tokens[0].kind == kindObject }

// FirstNumber returns the JSON pointer of the first number of the document
// in reading order, if it holds one.
func (d *Document) FirstNumber() (pointer string, found bool) {
	if d.number < 0 {
		return "", false
	}
	var tokens []string
	for i := 0; i != d.number; {
		// The number is among the descendants of the container at i: step
		// into the element that holds it.
		next, isObject := i+1, d.tokens[i].kind == kindObject
		for k := 0; ; k++ {
			value := next
			if isObject {
				value++
			}
			if end := d.next(value); d.number < end {
				if isObject {
					tokens = append(tokens, string(d.text(next)))
				} else {
					tokens = append(tokens, strconv.Itoa(k))
				}
				i = value
				break
			} else {
				next = end
			}
		}
	}
	return FormatPointer(tokens), true
}

// StringValues calls yield with the text of every string of the document
// that is a value, not a key, in reading order; the bytes are the
// document's, valid until its next Read.
func (d *Document) StringValues(yield func(text []byte)) {
	for i := range d.tokens {
		if t := &d.tokens[i]; t.kind == kindString && t.flags&flagKey == 0 {
			yield(d.text(i))
		}
	}
}
