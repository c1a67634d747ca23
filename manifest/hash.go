package manifest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"

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

// RequestHash is the request_hash Trust Layer anchors for a GET of target.
func RequestHash(target string) string {
	return SHA256(pyjson.Canonical(RequestData(target)))
}

// ResponseHash is the response_hash Trust Layer anchors for a response body:
// the SHA-256 of the canonical form of the parsed body, where a body parsing
// to a falsy value ({}, [], "", null, false, 0) stands as {"error": null}.
// A body that is not JSON is an error: Trust Layer would anchor a substitute
// that this project never serves.
func ResponseHash(body []byte) (string, error) {
	v, err := pyjson.Parse(body)
	if err != nil {
		return "", err
	}
	return responseHashOf(v), nil
}

// responseHashOf is ResponseHash of a body already parsed.
func responseHashOf(v pyjson.Value) string {
	if falsy(v) {
		v = pyjson.Object{{Key: "error", Value: nil}}
	}
	return SHA256(pyjson.Canonical(v))
}

func falsy(v pyjson.Value) bool {
	switch v := v.(type) {
	case nil:
		return true
	case bool:
		return !v
	case string:
		return v == ""
	case pyjson.Number:
		f, _ := strconv.ParseFloat(string(v), 64) // an underflow to 0 is falsy in Python too
		return f == 0
	case pyjson.Array:
		return len(v) == 0
	case pyjson.Object:
		return len(v) == 0
	}
	return false
}

// SHA256 is the lowercase hex SHA-256 of b.
func SHA256(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
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
	v, err := pyjson.Parse(body)
	if err != nil {
		return nil, err
	}
	obj, ok := v.(pyjson.Object)
	if !ok || len(obj) == 0 {
		return nil, &pyjson.SyntaxError{Reason: "the document must be a non-empty JSON object"}
	}
	if ptr, found := findNumber(obj, nil); found {
		return nil, &pyjson.SyntaxError{Pointer: ptr, Reason: ErrNumber.Error()}
	}
	return obj, nil
}

func findNumber(v pyjson.Value, path []string) (string, bool) {
	switch v := v.(type) {
	case pyjson.Number:
		return pyjson.FormatPointer(path), true
	case pyjson.Array:
		for i, e := range v {
			if ptr, found := findNumber(e, append(path, fmt.Sprint(i))); found {
				return ptr, true
			}
		}
	case pyjson.Object:
		for _, m := range v {
			if ptr, found := findNumber(m.Value, append(path, m.Key)); found {
				return ptr, true
			}
		}
	}
	return "", false
}
