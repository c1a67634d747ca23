package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
)

// decodeJSON reads a manifest as encoding/json reads it into Manifest. A
// large manifest is read by a direct reader that takes only what it can
// read exactly as encoding/json would (the known fields, each once, strings
// of printable ASCII without escapes, plain numbers): any other document,
// valid or not, goes to encoding/json itself, whose reading and errors are
// the rule. The direct reader exists because decoding is half of a large
// corpus's start-up.
func decodeJSON(data []byte, m *Manifest) error {
	r := reader{data: data}
	if err := r.manifest(m); err == nil {
		return nil
	}
	*m = Manifest{}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(m); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("data after the JSON object")
	}
	return nil
}

// errNotDirect sends a document to encoding/json.
var errNotDirect = errors.New("not for the direct reader")

// reader is the direct reader: a position in the document.
type reader struct {
	data []byte
	pos  int
}

func (r *reader) space() {
	for r.pos < len(r.data) {
		switch r.data[r.pos] {
		case ' ', '\t', '\n', '\r':
			r.pos++
		default:
			return
		}
	}
}

// byte consumes c, after optional white space.
func (r *reader) byte(c byte) bool {
	r.space()
	if r.pos < len(r.data) && r.data[r.pos] == c {
		r.pos++
		return true
	}
	return false
}

func (r *reader) peek(c byte) bool {
	r.space()
	return r.pos < len(r.data) && r.data[r.pos] == c
}

// string reads a string of printable ASCII without escapes.
func (r *reader) string() (string, error) {
	if !r.byte('"') {
		return "", errNotDirect
	}
	start := r.pos
	for r.pos < len(r.data) {
		c := r.data[r.pos]
		if c == '"' {
			s := string(r.data[start:r.pos])
			r.pos++
			return s, nil
		}
		if c < 0x20 || c > 0x7E || c == '\\' {
			return "", errNotDirect
		}
		r.pos++
	}
	return "", errNotDirect
}

// optionalString reads null or a string.
func (r *reader) optionalString() (*string, error) {
	r.space()
	if bytes.HasPrefix(r.data[r.pos:], []byte("null")) {
		r.pos += len("null")
		return nil, nil
	}
	s, err := r.string()
	return &s, err
}

// number reads a JSON number: an integer when integer is set.
func (r *reader) number(integer bool) (string, error) {
	r.space()
	start := r.pos
	digits := func() int {
		n := 0
		for r.pos < len(r.data) && '0' <= r.data[r.pos] && r.data[r.pos] <= '9' {
			r.pos++
			n++
		}
		return n
	}
	if r.pos < len(r.data) && r.data[r.pos] == '-' {
		r.pos++
	}
	first := r.pos
	if n := digits(); n == 0 || (n > 1 && r.data[first] == '0') {
		return "", errNotDirect
	}
	if !integer {
		if r.pos < len(r.data) && r.data[r.pos] == '.' {
			r.pos++
			if digits() == 0 {
				return "", errNotDirect
			}
		}
		if r.pos < len(r.data) && (r.data[r.pos] == 'e' || r.data[r.pos] == 'E') {
			r.pos++
			if r.pos < len(r.data) && (r.data[r.pos] == '+' || r.data[r.pos] == '-') {
				r.pos++
			}
			if digits() == 0 {
				return "", errNotDirect
			}
		}
	}
	return string(r.data[start:r.pos]), nil
}

// object reads an object whose members are all among fields, each once;
// field reads a member's value.
func (r *reader) object(fields []string, field func(i int) error) error {
	if !r.byte('{') {
		return errNotDirect
	}
	if r.byte('}') {
		return nil
	}
	seen := make([]bool, len(fields))
	for {
		key, err := r.string()
		if err != nil {
			return err
		}
		i := indexOf(fields, key)
		if i < 0 || seen[i] {
			return errNotDirect
		}
		seen[i] = true
		if !r.byte(':') {
			return errNotDirect
		}
		if err := field(i); err != nil {
			return err
		}
		if r.byte('}') {
			return nil
		}
		if !r.byte(',') {
			return errNotDirect
		}
	}
}

func indexOf(fields []string, key string) int {
	for i, f := range fields {
		if f == key {
			return i
		}
	}
	return -1
}

var (
	manifestFields = []string{"format", "piste", "origin", "request", "resources"}
	requestFields  = []string{"method", "payload", "amount", "currency"}
	entryFields    = []string{"path", "kind", "status", "target", "file", "bytes_sha256", "request_hash", "response_hash"}
)

func (r *reader) manifest(m *Manifest) error {
	err := r.object(manifestFields, func(i int) (err error) {
		switch i {
		case 0:
			m.Format, err = r.string()
		case 1:
			m.Piste, err = r.string()
		case 2:
			m.Origin, err = r.string()
		case 3:
			err = r.request(&m.Request)
		case 4:
			m.Resources, err = r.resources()
		}
		return err
	})
	if err != nil {
		return err
	}
	if r.space(); r.pos != len(r.data) {
		return errNotDirect
	}
	return nil
}

func (r *reader) request(t *RequestTemplate) error {
	return r.object(requestFields, func(i int) (err error) {
		switch i {
		case 0:
			t.Method, err = r.string()
		case 1:
			if !r.byte('{') || !r.byte('}') {
				return errNotDirect
			}
		case 2:
			var lit string
			if lit, err = r.number(false); err == nil {
				var f float64
				f, err = strconv.ParseFloat(lit, 64)
				t.Amount = PythonFloat(f)
			}
		case 3:
			t.Currency, err = r.string()
		}
		return err
	})
}

func (r *reader) resources() ([]Entry, error) {
	if !r.byte('[') {
		return nil, errNotDirect
	}
	// One entry takes about 480 bytes as Encode writes it.
	entries := make([]Entry, 0, (len(r.data)-r.pos)/480+1)
	if r.byte(']') {
		return entries, nil
	}
	for {
		var e Entry
		if err := r.entry(&e); err != nil {
			return nil, err
		}
		entries = append(entries, e)
		if r.byte(']') {
			return entries, nil
		}
		if !r.byte(',') {
			return nil, errNotDirect
		}
	}
}

func (r *reader) entry(e *Entry) error {
	return r.object(entryFields, func(i int) (err error) {
		switch i {
		case 0:
			e.Path, err = r.string()
		case 1:
			var kind string
			kind, err = r.string()
			e.Kind = Kind(kind)
		case 2:
			var lit string
			if lit, err = r.number(true); err == nil {
				var n int64
				n, err = strconv.ParseInt(lit, 10, 0)
				e.Status = int(n)
			}
		case 3:
			e.Target, err = r.optionalString()
		case 4:
			e.File, err = r.optionalString()
		case 5:
			e.BytesSHA256, err = r.string()
		case 6:
			e.RequestHash, err = r.optionalString()
		case 7:
			e.ResponseHash, err = r.string()
		}
		return err
	})
}
