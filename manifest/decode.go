package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
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

// window is the part of a document a streaming reader holds: it is
// refilled before each entry so that at least half of it is ahead. An
// entry longer than that half is not for the direct reader.
const window = 256 << 10

// reader is the direct reader: a position in the document, or in a window
// on it.
type reader struct {
	data []byte
	pos  int

	// src, when set, holds the rest of the document after data: the reader
	// streams it, one window at a time, never holding it whole. eof says
	// that nothing is left after data.
	src io.Reader
	eof bool

	// each, when set, takes every entry in turn instead of
	// Manifest.Resources, which stays nil. The entry is then lean: its
	// anchors (target, request_hash, response_hash) are read but not
	// kept, and its path, file and bytes_sha256 are left in lean, views
	// of the window valid until each returns.
	each func(e *Entry, lean *leanFields) error
	lean leanFields
}

// leanFields are the fields of a lean entry, as the document writes them;
// file is nil for null.
type leanFields struct {
	path, file, sha256 []byte
}

// fill moves what is left of the window to its start and reads the
// document on until the window is full, when less than half of it is
// ahead.
func (r *reader) fill() error {
	if r.eof || len(r.data)-r.pos >= window/2 {
		return nil
	}
	if cap(r.data) < window {
		r.data = append(make([]byte, 0, window), r.data[r.pos:]...)
	} else {
		r.data = r.data[:copy(r.data[:cap(r.data)], r.data[r.pos:])]
	}
	r.pos = 0
	for len(r.data) < cap(r.data) {
		n, err := r.src.Read(r.data[len(r.data):cap(r.data)])
		r.data = r.data[:len(r.data)+n]
		if err == io.EOF {
			r.eof = true
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
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

// raw reads a string of printable ASCII without escapes and returns its
// bytes in the document, valid while the window is.
func (r *reader) raw() ([]byte, error) {
	if !r.byte('"') {
		return nil, errNotDirect
	}
	n := bytes.IndexByte(r.data[r.pos:], '"')
	if n < 0 {
		return nil, errNotDirect
	}
	s := r.data[r.pos : r.pos+n]
	for _, c := range s {
		// Outside 0x20-0x7E, in one unsigned comparison, or an escape.
		if c-0x20 > 0x7E-0x20 || c == '\\' {
			return nil, errNotDirect
		}
	}
	r.pos += n + 1
	return s, nil
}

func (r *reader) string() (string, error) {
	s, err := r.raw()
	return string(s), err
}

// null consumes the literal null, after optional white space.
func (r *reader) null() bool {
	r.space()
	if bytes.HasPrefix(r.data[r.pos:], []byte("null")) {
		r.pos += len("null")
		return true
	}
	return false
}

// optionalString reads null or a string.
func (r *reader) optionalString() (*string, error) {
	if r.null() {
		return nil, nil
	}
	s, err := r.string()
	return &s, err
}

// skipOptionalString reads null or a string, and keeps neither.
func (r *reader) skipOptionalString() error {
	if r.null() {
		return nil
	}
	_, err := r.raw()
	return err
}

// number reads a JSON number: an integer when integer is set.
func (r *reader) number(integer bool) ([]byte, error) {
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
		return nil, errNotDirect
	}
	if !integer {
		if r.pos < len(r.data) && r.data[r.pos] == '.' {
			r.pos++
			if digits() == 0 {
				return nil, errNotDirect
			}
		}
		if r.pos < len(r.data) && (r.data[r.pos] == 'e' || r.data[r.pos] == 'E') {
			r.pos++
			if r.pos < len(r.data) && (r.data[r.pos] == '+' || r.data[r.pos] == '-') {
				r.pos++
			}
			if digits() == 0 {
				return nil, errNotDirect
			}
		}
	}
	return r.data[start:r.pos], nil
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
	var seen uint64 // fields has fewer than 64 names
	for {
		key, err := r.raw()
		if err != nil {
			return err
		}
		i := indexOf(fields, key)
		if i < 0 || seen&(1<<i) != 0 {
			return errNotDirect
		}
		seen |= 1 << i
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

func indexOf(fields []string, key []byte) int {
	for i, f := range fields {
		if f == string(key) {
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
	if r.src != nil {
		if err := r.fill(); err != nil {
			return err
		}
	}
	err := r.object(manifestFields, func(i int) (err error) {
		switch i {
		case 0:
			m.Format, err = r.string()
		case 1:
			m.Track, err = r.string()
		case 2:
			m.Origin, err = r.string()
		case 3:
			err = r.request(&m.Request)
		case 4:
			err = r.resources(m)
		}
		return err
	})
	if err != nil {
		return err
	}
	for {
		if r.space(); r.pos != len(r.data) {
			return errNotDirect
		}
		if r.src == nil || r.eof {
			return nil
		}
		r.pos = 0
		r.data = r.data[:0]
		if err := r.fill(); err != nil {
			return err
		}
	}
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
			var lit []byte
			if lit, err = r.number(false); err == nil {
				var f float64
				f, err = strconv.ParseFloat(string(lit), 64)
				t.Amount = PythonFloat(f)
			}
		case 3:
			t.Currency, err = r.string()
		}
		return err
	})
}

// resources reads the array of entries into m.Resources, or hands each to
// r.each.
func (r *reader) resources(m *Manifest) error {
	if !r.byte('[') {
		return errNotDirect
	}
	if r.each == nil {
		// One entry takes about 480 bytes as Encode writes it.
		m.Resources = make([]Entry, 0, (len(r.data)-r.pos)/480+1)
	}
	if r.byte(']') {
		return nil
	}
	var e Entry // one for every entry: each must not keep it
	for {
		if r.src != nil {
			if err := r.fill(); err != nil {
				return err
			}
		}
		e = Entry{}
		if err := r.entry(&e); err != nil {
			return err
		}
		if r.each != nil {
			if err := r.each(&e, &r.lean); err != nil {
				return err
			}
		} else {
			m.Resources = append(m.Resources, e)
		}
		if r.byte(']') {
			return nil
		}
		if !r.byte(',') {
			return errNotDirect
		}
	}
}

func (r *reader) entry(e *Entry) error {
	lean := r.each != nil
	r.lean = leanFields{}
	return r.object(entryFields, func(i int) (err error) {
		switch i {
		case 0:
			if lean {
				r.lean.path, err = r.raw()
				return err
			}
			e.Path, err = r.string()
		case 1:
			var kind []byte
			kind, err = r.raw()
			e.Kind = kindOf(kind)
		case 2:
			var lit []byte
			if lit, err = r.number(true); err == nil {
				var n int64
				n, err = strconv.ParseInt(string(lit), 10, 0)
				e.Status = int(n)
			}
		case 3:
			if lean {
				return r.skipOptionalString()
			}
			e.Target, err = r.optionalString()
		case 4:
			if !lean {
				e.File, err = r.optionalString()
			} else if !r.null() {
				r.lean.file, err = r.raw()
			}
		case 5:
			if lean {
				r.lean.sha256, err = r.raw()
				return err
			}
			e.BytesSHA256, err = r.string()
		case 6:
			if lean {
				return r.skipOptionalString()
			}
			e.RequestHash, err = r.optionalString()
		case 7:
			if lean {
				_, err = r.raw()
				return err
			}
			e.ResponseHash, err = r.string()
		}
		return err
	})
}

// kindOf is the kind a manifest writes, without a copy for a known one.
func kindOf(kind []byte) Kind {
	for _, k := range []Kind{Document, Absent, System} {
		if string(k) == string(kind) {
			return k
		}
	}
	return Kind(kind)
}

// LeanEntry is an entry as Stream hands it on: its kind and status, and its
// path, file and bytes_sha256 as the manifest writes them, views of the
// stream valid until the call returns (File nil for null). Its anchors
// (target, request_hash, response_hash) are read, not kept.
type LeanEntry struct {
	Kind                    Kind
	Status                  int
	Path, File, BytesSHA256 []byte
}

// Stream reads a manifest from src a window at a time, never holding it
// whole, and hands each entry in turn to each, leaving Resources nil: a
// large corpus's manifest is as large as its tree. It checks the shape as
// Decode does. A manifest the direct reader does not take (see decodeJSON)
// is an error, as is a shape Decode refuses and any error each returns:
// the caller then reads the manifest whole with Decode, whose results and
// errors are the rule.
func Stream(src io.Reader, each func(*LeanEntry) error) (*Manifest, error) {
	var m Manifest
	var sh shape
	var lean LeanEntry
	r := reader{src: src}
	r.each = func(e *Entry, fields *leanFields) error {
		addToShape(&sh, fields.path, e.Kind, e.Status)
		lean = LeanEntry{Kind: e.Kind, Status: e.Status, Path: fields.path, File: fields.file, BytesSHA256: fields.sha256}
		return each(&lean)
	}
	if err := r.manifest(&m); err != nil {
		return nil, err
	}
	if err := sh.finish(m.Format); err != nil {
		return nil, err
	}
	return &m, nil
}
