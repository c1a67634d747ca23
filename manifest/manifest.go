// Package manifest is the corpus manifest's format (docs/contract.md,
// section 4): for every resource, fixed body and cited absent reference,
// the canonical path, the status served, the SHA-256 of the exact bytes
// served, and the request_hash and response_hash Trust Layer anchors for
// it. Its own SHA-256 is the identity of the corpus for a season.
//
// It decodes and encodes a manifest, holds the rules of its shape, and
// builds one from a tree, its hashes computed by package anchor. Whether a
// tree matches a manifest is package verify's to say.
package manifest

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/manifest/internal/parallel"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
)

// Format identifies the manifest's shape.
const Format = "proveit-corpus-manifest/1"

// DefaultOrigin is the origin agents reach the corpus at, through Trust Layer.
const DefaultOrigin = "https://corpus.arkforge.tech"

// Kind says what an entry is.
type Kind string

const (
	// Document is a file of the tree served at its path with 200.
	Document Kind = "document"
	// Absent is a cited reference with no file, answered 200 with "existe": false.
	Absent Kind = "absent"
	// System is a fixed body of the HTTP contract, never served at its path.
	System Kind = "systeme"
)

// Manifest is the checked-in record of what the server answers.
type Manifest struct {
	Format    string          `json:"format"`
	Track     string          `json:"piste"` // the track's name: conformite, generique
	Origin    string          `json:"origin"`
	Request   RequestTemplate `json:"request"`
	Resources []Entry         `json:"resources"`
}

// Request is the template every manifest lists: the request_data Trust
// Layer builds for a corpus call, without its target.
var Request = RequestTemplate{Method: anchor.Method, Amount: anchor.Amount, Currency: anchor.Currency}

// RequestTemplate is request_data without its target.
type RequestTemplate struct {
	Method   string      `json:"method"`
	Payload  struct{}    `json:"payload"`
	Amount   PythonFloat `json:"amount"`
	Currency string      `json:"currency"`
}

// PythonFloat is a float written as Python's repr writes it (0.0, not 0).
type PythonFloat float64

// MarshalJSON writes f as Python would.
func (f PythonFloat) MarshalJSON() ([]byte, error) {
	return pyjson.AppendFloat(nil, float64(f)), nil
}

// Entry is one path the server answers with a known body.
type Entry struct {
	Path         string  `json:"path"`
	Kind         Kind    `json:"kind"`
	Status       int     `json:"status"`
	Target       *string `json:"target"`
	File         *string `json:"file"`
	BytesSHA256  string  `json:"bytes_sha256"`
	RequestHash  *string `json:"request_hash"`
	ResponseHash string  `json:"response_hash"`
}

//go:embed conformite.json generique.json
var embedded embed.FS

// Embedded returns the bytes of a track's manifest compiled into the binary:
// the one checked in beside this package as <track>.json, which matches the
// track's embedded tree.
func Embedded(track *corpus.Track) []byte {
	data, err := embedded.ReadFile(FileName(track))
	if err != nil {
		panic(err) // every track's manifest is compiled in: this cannot fail
	}
	return data
}

// EmbeddedName is the name messages give a track's compiled-in manifest.
func EmbeddedName(track *corpus.Track) string {
	return "manifest/" + FileName(track) + " (compiled in)"
}

// FileName is the name of a track's manifest file beside this package.
func FileName(track *corpus.Track) string {
	return track.Name + ".json"
}

// Decode reads a manifest and checks its shape. Unknown fields are allowed:
// later versions may add fields, never change the meaning of these.
func Decode(data []byte) (*Manifest, error) {
	var m Manifest
	if err := decodeJSON(data, &m); err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	if err := m.checkShape(); err != nil {
		return nil, err
	}
	return &m, nil
}

// checkShape returns the first rule of shape (below) the manifest breaks,
// or nil: what Decode requires besides the JSON, for a manifest already in
// memory, such as one just built.
func (m *Manifest) checkShape() error {
	var sh shape
	for _, e := range m.Resources {
		addToShape(&sh, e.Path, e.Kind, e.Status)
	}
	return sh.finish(m.Format)
}

// shape checks, entry by entry in the manifest's order, what Decode
// requires of a manifest besides its JSON: its format, its resources
// strictly sorted by path, and every fixed body listed with kind systeme
// and its status. Without its fixed bodies a server would have nothing to
// answer a refusal with: an empty body is never an answer.
type shape struct {
	entries  int
	last     []byte
	disorder error
	system   map[string]bool // fixed bodies listed, and whether as the contract says
}

// addToShape takes the next entry into s; its path may be a view of a
// document, copied if kept.
func addToShape[P string | []byte](s *shape, path P, kind Kind, status int) {
	if s.entries > 0 && s.disorder == nil && string(s.last) >= string(path) {
		s.disorder = shapeError("resources not strictly sorted by path at %q", path)
	}
	s.entries++
	s.last = append(s.last[:0], path...)
	if want, isSystem := corpus.SystemStatus[string(path)]; isSystem {
		if s.system == nil {
			s.system = map[string]bool{}
		}
		s.system[string(path)] = kind == System && status == want
	}
}

// finish returns the first rule the manifest breaks, or nil.
func (s *shape) finish(format string) error {
	if format != Format {
		return shapeError("format %q, want %q", format, Format)
	}
	if s.disorder != nil {
		return s.disorder
	}
	for _, path := range slices.Sorted(maps.Keys(corpus.SystemStatus)) {
		ok, listed := s.system[path]
		if !listed {
			return shapeError("no entry for the fixed body %s", path)
		}
		if !ok {
			return shapeError("%s must be of kind %q with status %d", path, System, corpus.SystemStatus[path])
		}
	}
	return nil
}

// HeaderProblems lists what is wrong with what the manifest says of every
// entry at once: a request template other than Trust Layer's, an origin
// that is not a scheme and host. It is empty for a manifest Build wrote.
func (m *Manifest) HeaderProblems() []string {
	var problems []string
	if m.Request != Request {
		problems = append(problems, fmt.Sprintf("request template %+v differs from Trust Layer's %+v", m.Request, Request))
	}
	if m.Origin == "" || strings.HasSuffix(m.Origin, "/") {
		problems = append(problems, fmt.Sprintf("origin %q must be a scheme and host with no trailing slash", m.Origin))
	}
	return problems
}

// ShapeError is a rule of shape a manifest breaks (see checkShape): a
// manifest that is JSON of the right fields, but no server's to load.
type ShapeError struct{ Rule string }

func (e *ShapeError) Error() string { return "manifest: " + e.Rule }

func shapeError(format string, args ...any) error {
	return &ShapeError{Rule: fmt.Sprintf(format, args...)}
}

// ReadFile reads and decodes a manifest file. It returns the file's bytes
// too: their SHA-256 is the identity of the corpus.
func ReadFile(path string) (*Manifest, []byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	m, err := Decode(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, data, nil
}

// Encode writes the manifest deterministically: entries sorted by path, one
// field order, two-space indentation, a final newline. The bytes are those
// encoding/json writes for Manifest with that indentation and HTML left
// unescaped, written directly, the entries in parallel: on a large corpus
// reflection would be a good part of the time `proveit manifest` takes.
func (m *Manifest) Encode() []byte {
	w := make([]byte, 0, 1024+len(m.Resources)*entrySize)
	m.encode(func(part []byte) error { //nolint:errcheck // appending never fails
		w = append(w, part...)
		return nil
	})
	return w
}

// WriteTo writes to w the bytes Encode returns, a few chunks of entries at
// a time rather than all in one buffer.
func (m *Manifest) WriteTo(w io.Writer) (int64, error) {
	var n int64
	err := m.encode(func(part []byte) error {
		written, err := w.Write(part)
		n += int64(written)
		return err
	})
	return n, err
}

// encode hands the bytes of Encode to emit, part after part: the header,
// chunks of entries written in parallel a round at a time, and the end.
func (m *Manifest) encode(emit func(part []byte) error) error {
	resources := m.Resources
	if !slices.IsSortedFunc(resources, comparePaths) {
		resources = slices.SortedFunc(slices.Values(resources), comparePaths)
	}
	w := append([]byte(nil), "{\n  \"format\": "...)
	w = appendJSONString(w, m.Format)
	w = append(w, ",\n  \"piste\": "...)
	w = appendJSONString(w, m.Track)
	w = append(w, ",\n  \"origin\": "...)
	w = appendJSONString(w, m.Origin)
	w = append(w, ",\n  \"request\": {\n    \"method\": "...)
	w = appendJSONString(w, m.Request.Method)
	w = append(w, ",\n    \"payload\": {},\n    \"amount\": "...)
	w = pyjson.AppendFloat(w, float64(m.Request.Amount))
	w = append(w, ",\n    \"currency\": "...)
	w = appendJSONString(w, m.Request.Currency)
	w = append(w, "\n  },\n  \"resources\": "...)
	switch {
	case resources == nil:
		return emit(append(w, "null\n}\n"...))
	case len(resources) == 0:
		return emit(append(w, "[]\n}\n"...))
	}
	if err := emit(append(w, '[')); err != nil {
		return err
	}
	const perChunk = 2048
	chunks := (len(resources) + perChunk - 1) / perChunk
	round := make([][]byte, 2*runtime.GOMAXPROCS(0))
	for first := 0; first < chunks; first += len(round) {
		n := min(len(round), chunks-first)
		parallel.For(n, func(k int) {
			c := first + k
			entries := resources[c*perChunk : min(len(resources), (c+1)*perChunk)]
			buf := slices.Grow(round[k][:0], len(entries)*entrySize)
			for i, e := range entries {
				if c > 0 || i > 0 {
					buf = append(buf, ',')
				}
				buf = appendEntry(buf, e)
			}
			round[k] = buf
		})
		for _, chunk := range round[:n] {
			if err := emit(chunk); err != nil {
				return err
			}
		}
	}
	return emit([]byte("\n  ]\n}\n"))
}

// entrySize is about the size of an entry as Encode writes it, at the
// default origin.
const entrySize = 512

func comparePaths(a, b Entry) int { return strings.Compare(a.Path, b.Path) }

// appendEntry writes one entry of the resources array.
func appendEntry(w []byte, e Entry) []byte {
	w = append(w, "\n    {\n      \"path\": "...)
	w = appendJSONString(w, e.Path)
	w = append(w, ",\n      \"kind\": "...)
	w = appendJSONString(w, string(e.Kind))
	w = append(w, ",\n      \"status\": "...)
	w = strconv.AppendInt(w, int64(e.Status), 10)
	w = append(w, ",\n      \"target\": "...)
	w = appendJSONStringPtr(w, e.Target)
	w = append(w, ",\n      \"file\": "...)
	w = appendJSONStringPtr(w, e.File)
	w = append(w, ",\n      \"bytes_sha256\": "...)
	w = appendJSONString(w, e.BytesSHA256)
	w = append(w, ",\n      \"request_hash\": "...)
	w = appendJSONStringPtr(w, e.RequestHash)
	w = append(w, ",\n      \"response_hash\": "...)
	w = appendJSONString(w, e.ResponseHash)
	return append(w, "\n    }"...)
}

// appendJSONString writes s as encoding/json does with HTML left
// unescaped. Printable ASCII without a quote or backslash, every string of
// a manifest in practice, is copied as it is; anything else is left to
// encoding/json itself.
func appendJSONString(w []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7E || c == '"' || c == '\\' {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(s); err != nil {
				panic(err) // a string always encodes
			}
			return append(w, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
		}
	}
	return append(append(append(w, '"'), s...), '"')
}

func appendJSONStringPtr(w []byte, s *string) []byte {
	if s == nil {
		return append(w, "null"...)
	}
	return appendJSONString(w, *s)
}

// Lookup returns the entry for a canonical path.
func (m *Manifest) Lookup(path string) (Entry, bool) {
	i, found := slices.BinarySearchFunc(m.Resources, path, func(e Entry, p string) int { return strings.Compare(e.Path, p) })
	if !found {
		return Entry{}, false
	}
	return m.Resources[i], true
}

// Target is the full URL of a canonical path at this manifest's origin.
func (m *Manifest) Target(path string) string {
	return m.Origin + path
}
