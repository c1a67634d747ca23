// Package manifest reads, writes, builds and checks the corpus manifest: for
// every resource, fixed body and cited absent reference, the canonical path,
// the status served, the SHA-256 of the exact bytes served, and the
// request_hash and response_hash Trust Layer anchors for it. Its own SHA-256
// is the identity of the corpus for a season.
//
// The hashes are computed by parsing the served bytes (package pyjson), never
// by serialising a Go value.
package manifest

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/arkforge/proveit-corpus/corpus"
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
	Piste     string          `json:"piste"`
	Origin    string          `json:"origin"`
	Request   RequestTemplate `json:"request"`
	Resources []Entry         `json:"resources"`
}

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

// FileName is the name of a track's manifest file beside this package.
func FileName(track *corpus.Track) string {
	return track.Name + ".json"
}

// Decode reads a manifest and checks its shape. Unknown fields are allowed:
// later versions may add fields, never change the meaning of these.
func Decode(data []byte) (*Manifest, error) {
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("manifest: data after the JSON object")
	}
	if m.Format != Format {
		return nil, fmt.Errorf("manifest: format %q, want %q", m.Format, Format)
	}
	for i := 1; i < len(m.Resources); i++ {
		if m.Resources[i-1].Path >= m.Resources[i].Path {
			return nil, fmt.Errorf("manifest: resources not strictly sorted by path at %q", m.Resources[i].Path)
		}
	}
	// Without its fixed bodies a server would have nothing to answer a
	// refusal with: an empty body is never an answer.
	for _, path := range slices.Sorted(maps.Keys(corpus.SystemStatus)) {
		e, ok := m.Lookup(path)
		if !ok {
			return nil, fmt.Errorf("manifest: no entry for the fixed body %s", path)
		}
		if e.Kind != System || e.Status != corpus.SystemStatus[path] {
			return nil, fmt.Errorf("manifest: %s must be of kind %q with status %d", path, System, corpus.SystemStatus[path])
		}
	}
	return &m, nil
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
// field order, two-space indentation, a final newline.
func (m *Manifest) Encode() []byte {
	sorted := *m
	sorted.Resources = slices.Clone(m.Resources)
	slices.SortFunc(sorted.Resources, func(a, b Entry) int { return strings.Compare(a.Path, b.Path) })
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(sorted); err != nil {
		panic(err) // plain strings and ints: cannot fail
	}
	return buf.Bytes()
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
