package manifest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"sync"

	"github.com/arkforge/proveit-corpus/manifest/pyjson"
)

// Request is the constant part of every request_data Trust Layer builds for a
// corpus call: only the target varies.
var Request = RequestTemplate{Method: "GET", Amount: 0, Currency: "eur"}

// RequestData is the object Trust Layer hashes for a GET of target through
// POST /v1/proxy: {"target", "method", "payload": {}, "amount": 0.0, "currency"}.
func RequestData(target string) pyjson.Object {
	return pyjson.Object{
		{Key: "target", Value: target},
		{Key: "method", Value: Request.Method},
		{Key: "payload", Value: pyjson.Object{}},
		{Key: "amount", Value: pyjson.Number(string(pyjson.AppendFloat(nil, float64(Request.Amount))))},
		{Key: "currency", Value: Request.Currency},
	}
}

// requestPrefix is the canonical form of RequestData up to its target's
// value: "target" sorts last, so only the target's string and the closing
// brace follow it.
var requestPrefix = func() []byte {
	const tail = `"target":""}`
	whole := pyjson.Canonical(RequestData(""))
	if !bytes.HasSuffix(whole, []byte(tail)) {
		panic("manifest: the target is not the last key of request_data's canonical form")
	}
	return whole[:len(whole)-len(tail)+len(`"target":`)]
}()

// RequestHash is the request_hash Trust Layer anchors for a GET of target.
func RequestHash(target string) string {
	h := hashers.Get().(*hasher)
	defer h.release()
	return HexSHA256(h.requestSum(target))
}

// ResponseHash is the response_hash Trust Layer anchors for a response body:
// the SHA-256 of the canonical form of the parsed body, where a body parsing
// to a falsy value ({}, [], "", null, false, 0) stands as {"error": null}.
// A body that is not JSON is an error: Trust Layer would anchor a substitute
// that this project never serves.
func ResponseHash(body []byte) (string, error) {
	h := hashers.Get().(*hasher)
	defer h.release()
	if err := h.doc.Read(body); err != nil {
		return "", err
	}
	return HexSHA256(h.responseSum()), nil
}

// hasher reads bodies and hashes them, its buffers reused from one body to
// the next: on a large tree, allocating for each body would be most of the
// time spent.
type hasher struct {
	doc       pyjson.Document
	canonical []byte
}

var hashers = sync.Pool{New: func() any { return new(hasher) }}

// release hands h back to the pool.
func (h *hasher) release() {
	h.doc.Reset()
	hashers.Put(h)
}

// falsyBody is the canonical form Trust Layer hashes for a falsy body.
var falsyBody = pyjson.Canonical(pyjson.Object{{Key: "error", Value: nil}})

// responseSum is the SHA-256 behind the response_hash of the body h read
// last.
func (h *hasher) responseSum() [sha256.Size]byte {
	if h.falsy() {
		return sha256.Sum256(falsyBody)
	}
	h.canonical = h.doc.AppendCanonical(h.canonical[:0])
	return sha256.Sum256(h.canonical)
}

// requestSum is the SHA-256 behind the request_hash of a GET of target.
func (h *hasher) requestSum(target string) [sha256.Size]byte {
	h.canonical = append(pyjson.AppendCanonical(append(h.canonical[:0], requestPrefix...), target), '}')
	return sha256.Sum256(h.canonical)
}

// falsy reports whether the body h read last is falsy in Python.
func (h *hasher) falsy() bool {
	if n, container := h.doc.Len(); container {
		return n == 0
	}
	switch v := h.doc.Value().(type) {
	case nil:
		return true
	case bool:
		return !v
	case string:
		return v == ""
	case pyjson.Number:
		f, _ := strconv.ParseFloat(string(v), 64) // an underflow to 0 is falsy in Python too
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
	return string(appendHex(text[:0], sum))
}

// appendHex appends a SHA-256 as SHA256 writes it.
func appendHex(dst []byte, sum [sha256.Size]byte) []byte {
	return hex.AppendEncode(dst, sum[:])
}

// IsSHA256 reports whether s is a SHA-256 written as SHA256 writes it: 64
// lowercase hex digits.
func IsSHA256(s string) bool {
	if len(s) != 2*sha256.Size {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// ErrNumber is wrapped by CheckBody when a body holds a number.
var ErrNumber = errors.New("numbers are not allowed in the corpus (strings, booleans and null only)")

// CheckBody parses a body the corpus serves and enforces what every such body
// must be: a non-empty JSON object that Python reads exactly as written, with
// no number anywhere. The error names the JSON pointer and the rule.
func CheckBody(body []byte) (pyjson.Object, error) {
	h := hashers.Get().(*hasher)
	defer h.release()
	if err := h.check(body); err != nil {
		return nil, err
	}
	return h.doc.Value().(pyjson.Object), nil
}

// check reads body as CheckBody does.
func (h *hasher) check(body []byte) error {
	if err := h.doc.Read(body); err != nil {
		return err
	}
	if n, _ := h.doc.Len(); !h.doc.IsObject() || n == 0 {
		return &pyjson.SyntaxError{Reason: "the document must be a non-empty JSON object"}
	}
	if ptr, found := h.doc.FirstNumber(); found {
		return &pyjson.SyntaxError{Pointer: ptr, Reason: ErrNumber.Error()}
	}
	return nil
}

// appendCandidates appends every string value of the body h read last
// that may be a reference into a collection, but self (the body's own
// path): a reference starts with a slash, and most strings do not, so only
// those are copied; corpus.IsReference decides.
func (h *hasher) appendCandidates(refs []string, self string) []string {
	h.doc.StringValues(func(text []byte) {
		if len(text) > 0 && text[0] == '/' && string(text) != self {
			refs = append(refs, string(text))
		}
	})
	return refs
}
