// Package anchor computes the hashes Trust Layer anchors for a call to the
// corpus, as Trust Layer computes them (docs/contract.md, section 1): the
// request_hash of the request_data its POST /v1/proxy builds for a GET, and
// the response_hash of the parsed response body, each the SHA-256 of a
// canonical JSON form written by package pyjson, never of a Go value
// serialised.
//
// A scorer recomputes both from a manifest; the manifest records them (see
// package manifest), and this package is the one place they are computed.
package anchor

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"sync"

	"github.com/arkforge/proveit-corpus/manifest/pyjson"
)

// The constant part of every request_data Trust Layer builds for a corpus
// call: only the target varies.
const (
	Method   = "GET"
	Amount   = 0.0
	Currency = "eur"
)

// RequestData is the object Trust Layer hashes for a GET of target through
// POST /v1/proxy: {"target", "method", "payload": {}, "amount": 0.0, "currency"}.
func RequestData(target string) pyjson.Object {
	return pyjson.Object{
		{Key: "target", Value: target},
		{Key: "method", Value: Method},
		{Key: "payload", Value: pyjson.Object{}},
		{Key: "amount", Value: pyjson.Number(string(pyjson.AppendFloat(nil, Amount)))},
		{Key: "currency", Value: Currency},
	}
}

// requestPrefix is the canonical form of RequestData up to its target's
// value: "target" sorts last, so only the target's string and the closing
// brace follow it.
var requestPrefix = func() []byte {
	const tail = `"target":""}`
	whole := pyjson.Canonical(RequestData(""))
	if !bytes.HasSuffix(whole, []byte(tail)) {
		panic("anchor: the target is not the last key of request_data's canonical form")
	}
	return whole[:len(whole)-len(tail)+len(`"target":`)]
}()

// RequestHash is the request_hash Trust Layer anchors for a GET of target.
func RequestHash(target string) string {
	h := Pooled()
	defer h.Release()
	return HexSHA256(h.RequestSum(target))
}

// ResponseHash is the response_hash Trust Layer anchors for a response body:
// the SHA-256 of the canonical form of the parsed body, where a body parsing
// to a falsy value ({}, [], "", null, false, 0) stands as {"error": null}.
// A body that is not JSON is an error: Trust Layer would anchor a substitute
// that this project never serves.
func ResponseHash(body []byte) (string, error) {
	h := Pooled()
	defer h.Release()
	if err := h.doc.Read(body); err != nil {
		return "", err
	}
	return HexSHA256(h.ResponseSum()), nil
}

// Hasher reads bodies and hashes them, its buffers reused from one body to
// the next: on a large tree, allocating for each body would be most of the
// time spent. The zero value is ready; one Hasher serves one goroutine.
type Hasher struct {
	doc       pyjson.Document
	canonical []byte
}

var hashers = sync.Pool{New: func() any { return new(Hasher) }}

// Pooled returns a Hasher of a pool shared by the process, to hand back with
// Release.
func Pooled() *Hasher { return hashers.Get().(*Hasher) }

// Release hands h back to the pool; h is not used after.
func (h *Hasher) Release() {
	h.doc.Reset()
	hashers.Put(h)
}

// falsyBody is the canonical form Trust Layer hashes for a falsy body.
var falsyBody = pyjson.Canonical(pyjson.Object{{Key: "error", Value: nil}})

// ResponseSum is the SHA-256 behind the response_hash of the body h read
// last, by Check.
func (h *Hasher) ResponseSum() [sha256.Size]byte {
	if h.falsy() {
		return sha256.Sum256(falsyBody)
	}
	h.canonical = h.doc.AppendCanonical(h.canonical[:0])
	return sha256.Sum256(h.canonical)
}

// RequestSum is the SHA-256 behind the request_hash of a GET of target.
func (h *Hasher) RequestSum(target string) [sha256.Size]byte {
	h.canonical = append(pyjson.AppendCanonical(append(h.canonical[:0], requestPrefix...), target), '}')
	return sha256.Sum256(h.canonical)
}

// falsy reports whether the body h read last is falsy in Python; a
// container is told by its length, without building it.
func (h *Hasher) falsy() bool {
	if n, container := h.doc.Len(); container {
		return n == 0
	}
	return Falsy(h.doc.Value())
}

// Falsy is Python's truth test on a parsed value, the one by which Trust
// Layer anchors {"error": null} for a body: null, false, "", {}, [] and
// every number that reads as zero (an underflow such as 1e-400 included).
func Falsy(v pyjson.Value) bool {
	switch v := v.(type) {
	case nil:
		return true
	case bool:
		return !v
	case string:
		return v == ""
	case pyjson.Object:
		return len(v) == 0
	case pyjson.Array:
		return len(v) == 0
	case pyjson.Number:
		f, _ := strconv.ParseFloat(string(v), 64)
		return f == 0
	}
	return false
}

// SHA256 is the lowercase hex SHA-256 of b.
func SHA256(b []byte) string {
	return HexSHA256(sha256.Sum256(b))
}

// HexSHA256 writes a SHA-256 sum as SHA256 does.
func HexSHA256(sum [sha256.Size]byte) string {
	var text [2 * sha256.Size]byte
	return string(AppendHex(text[:0], sum))
}

// AppendHex appends a SHA-256 sum as SHA256 writes it.
func AppendHex(dst []byte, sum [sha256.Size]byte) []byte {
	return hex.AppendEncode(dst, sum[:])
}

// HasSHA256 reports whether b's SHA-256 is sum as SHA256 writes it, without
// writing it.
func HasSHA256(b []byte, sum string) bool {
	digest := sha256.Sum256(b)
	var text [2 * sha256.Size]byte
	hex.Encode(text[:], digest[:])
	return string(text[:]) == sum
}

// IsSHA256 reports whether s is a SHA-256 written as SHA256 writes it: 64
// lowercase hex digits.
func IsSHA256(s string) bool { return IsLowerHex(s, 2*sha256.Size) }

// IsLowerHex reports whether s is n lowercase hex digits, as
// encoding/hex writes n/2 bytes: the one form every hash, nonce and log id
// of the project is read in (Python's bytes.fromhex is laxer).
func IsLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// errNumber is the rule Check names when a body holds a number.
var errNumber = errors.New("numbers are not allowed in the corpus (strings, booleans and null only)")

// CheckBody parses a body the corpus serves and enforces what every such body
// must be for its response_hash to be the one anyone recomputes: a non-empty
// JSON object that Python reads exactly as written, with no number anywhere.
// The error names the JSON pointer and the rule.
func CheckBody(body []byte) (pyjson.Object, error) {
	h := Pooled()
	defer h.Release()
	if err := h.Check(body); err != nil {
		return nil, err
	}
	return h.doc.Value().(pyjson.Object), nil
}

// Check reads body as CheckBody does, for ResponseSum and Strings.
func (h *Hasher) Check(body []byte) error {
	if err := h.doc.Read(body); err != nil {
		return err
	}
	if n, _ := h.doc.Len(); !h.doc.IsObject() || n == 0 {
		return &pyjson.SyntaxError{Reason: "the document must be a non-empty JSON object"}
	}
	if ptr, found := h.doc.FirstNumber(); found {
		return &pyjson.SyntaxError{Pointer: ptr, Reason: errNumber.Error()}
	}
	return nil
}

// Strings calls fn with every string value of the body h read last, as a
// view valid for the call.
func (h *Hasher) Strings(fn func(text []byte)) {
	h.doc.StringValues(fn)
}
