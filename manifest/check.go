package manifest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/arkforge/proveit-corpus/corpus"
)

// Problem is one way a tree and its manifest disagree.
type Problem struct {
	Path string // canonical path, when known
	File string // file of the tree, when there is one
	What string
}

func (p Problem) String() string {
	switch {
	case p.File != "":
		return p.File + ": " + p.What
	case p.Path != "":
		return p.Path + ": " + p.What
	}
	return p.What
}

// MismatchError lists every problem found between a tree and its manifest.
type MismatchError struct {
	Problems []Problem
}

func (e *MismatchError) Error() string {
	const shown = 20
	lines := make([]string, 0, shown+1)
	for i, p := range e.Problems {
		if i == shown {
			lines = append(lines, fmt.Sprintf("... and %d more", len(e.Problems)-shown))
			break
		}
		lines = append(lines, p.String())
	}
	return fmt.Sprintf("corpus tree does not match its manifest (%d problems):\n  %s", len(e.Problems), strings.Join(lines, "\n  "))
}

// Depth says how much of each entry Check recomputes.
type Depth int

const (
	// Bytes checks what the contract requires of a server before it serves:
	// the tree holds exactly the manifest's files, each byte for byte (its
	// SHA-256), and every absent body is the one the manifest lists.
	Bytes Depth = iota
	// Full also parses every body as Python would and recomputes the kind,
	// status, target and both hashes of every entry, and checks that every
	// reference the corpus cites has an entry: what an auditor verifies.
	Full
)

// Check compares a tree with the manifest: every file changed, missing or
// extra and, at Full depth, every hash or status that is not the one
// recomputed from the bytes and every cited reference without an entry. On
// success it returns the bytes of every file by canonical path, ready to be
// served; otherwise a *MismatchError naming each problem.
func (m *Manifest) Check(tree fs.FS, depth Depth) (map[string][]byte, error) {
	track, err := corpus.TrackNamed(m.Piste)
	if err != nil {
		return nil, &MismatchError{Problems: append(m.headerProblems(), Problem{What: "piste: " + err.Error()})}
	}
	contents, err := ReadTree(tree, track)
	return m.check(track, contents, err, depth)
}

// check compares the files read from a track's tree (and the error reading
// it) with the manifest.
func (m *Manifest) check(track *corpus.Track, contents map[string]File, err error, depth Depth) (map[string][]byte, error) {
	problems := m.headerProblems()
	report := func(path, file, format string, args ...any) {
		problems = append(problems, Problem{Path: path, File: file, What: fmt.Sprintf(format, args...)})
	}

	if err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			report("", "", "extra or unreadable: %s", line)
		}
	}
	// Entries are checked in parallel, each into its own slot, then merged in
	// manifest order so that the report is the same on every run.
	checked := make([]checkedEntry, len(m.Resources))
	parallel(len(m.Resources), func(i int) {
		checked[i] = m.checkEntry(m.Resources[i], contents, depth)
		checked[i].checkOwner(track, m.Resources[i].Path, m.Resources[i].Kind)
	})
	bodies := make(map[string][]byte, len(contents))
	cited := map[string]bool{}
	listed := make(map[string]bool, len(m.Resources))
	for i, e := range m.Resources {
		listed[e.Path] = true
		problems = append(problems, checked[i].problems...)
		maps.Copy(cited, checked[i].cited)
		if checked[i].body != nil && e.Kind != Absent {
			bodies[e.Path] = checked[i].body
		}
	}
	for _, path := range sortedKeys(contents) {
		if !listed[path] {
			report(path, contents[path].Name, "extra: not in the manifest")
		}
	}
	for _, path := range sortedKeys(cited) {
		if _, isFile := contents[path]; !isFile && !listed[path] {
			report(path, "", "cited by the corpus but has neither a file nor an absent entry")
		}
	}
	if len(problems) > 0 {
		return nil, &MismatchError{Problems: problems}
	}
	return bodies, nil
}

// CheckHeader checks what the manifest says of every entry at once: the
// request template and the origin. It returns a *MismatchError, or nil.
func (m *Manifest) CheckHeader() error {
	if problems := m.headerProblems(); len(problems) > 0 {
		return &MismatchError{Problems: problems}
	}
	return nil
}

func (m *Manifest) headerProblems() []Problem {
	var problems []Problem
	if m.Request.Method != Request.Method || m.Request.Amount != Request.Amount || m.Request.Currency != Request.Currency {
		problems = append(problems, Problem{What: fmt.Sprintf("request template %+v differs from Trust Layer's %+v", m.Request, Request)})
	}
	if m.Origin == "" || strings.HasSuffix(m.Origin, "/") {
		problems = append(problems, Problem{What: fmt.Sprintf("origin %q must be a scheme and host with no trailing slash", m.Origin)})
	}
	return problems
}

// checkedEntry is what checking one entry found.
type checkedEntry struct {
	problems []Problem
	name     string          // the entry's file in the tree, when it has one
	body     []byte          // the bytes served, when they could be read
	cited    map[string]bool // references the body cites (Full depth)
}

func (c *checkedEntry) report(path, format string, args ...any) {
	c.problems = append(c.problems, Problem{Path: path, File: c.name, What: fmt.Sprintf(format, args...)})
}

// checkEntry compares one entry with the tree.
func (m *Manifest) checkEntry(e Entry, contents map[string]File, depth Depth) checkedEntry {
	var c checkedEntry
	if !c.read(e.Path, e.Kind, e.File != nil && *e.File == corpus.FileOf(e.Path), contents) {
		return c
	}
	report := func(format string, args ...any) { c.report(e.Path, format, args...) }
	if depth == Bytes {
		c.checkBytes(e.Path, e.Kind, e.BytesSHA256)
		return c
	}
	h := hashers.Get().(*hasher)
	defer h.release()
	if err := h.check(c.body); err != nil {
		report("%v", err)
		c.body = nil
		return c
	}
	if e.Kind != Absent {
		c.cited = map[string]bool{}
		for _, ref := range h.appendCandidates(nil, "") {
			if corpus.IsReference(ref) {
				c.cited[ref] = true
			}
		}
	}
	want := m.entry(h, e.Path, c.name, c.body)
	if e.BytesSHA256 != want.BytesSHA256 {
		report("bytes changed: sha256 %s, manifest says %s", want.BytesSHA256, e.BytesSHA256)
	}
	if e.ResponseHash != want.ResponseHash {
		report("response_hash %s, manifest says %s", want.ResponseHash, e.ResponseHash)
	}
	if e.Status != want.Status || e.Kind != want.Kind {
		report("kind %s status %d, manifest says %s %d", want.Kind, want.Status, e.Kind, e.Status)
	}
	if !equalPtr(e.Target, want.Target) || !equalPtr(e.RequestHash, want.RequestHash) {
		report("target or request_hash differs from the one recomputed at origin %s", m.Origin)
	}
	return c
}

// read finds the bytes an entry is answered with, or why it has none: a
// document or fixed body is its file of the tree, which fileField says the
// entry names; an absent entry has no file and is answered with its absent
// body. It reports whether there are bytes to check.
func (c *checkedEntry) read(path string, kind Kind, fileField bool, contents map[string]File) bool {
	file, isFile := contents[path]
	c.name = file.Name
	switch kind {
	case Document, System:
		if !fileField {
			c.report(path, "file field must be %q", corpus.FileOf(path))
		}
		if !isFile {
			c.name = corpus.FileOf(path)
			c.report(path, "missing from the tree")
			return false
		}
		c.body = file.Bytes
	case Absent:
		if isFile {
			c.report(path, "listed as absent but the file exists")
			return false
		}
		if !corpus.IsReference(path) {
			c.report(path, "absent entry outside the reference grammar")
			return false
		}
		c.body = corpus.AbsentBody(path)
	default:
		c.report(path, "unknown kind %q", kind)
		return false
	}
	return true
}

// checkBytes is the check at Bytes depth of the body read: its SHA-256 is
// the one the manifest lists, and a fixed body, which answers every
// refusal whatever the manifest says, is a non-empty JSON object.
func (c *checkedEntry) checkBytes(path string, kind Kind, bytesSHA256 string) {
	if !hasSHA256(c.body, bytesSHA256) {
		c.report(path, "bytes changed: sha256 %s, manifest says %s", SHA256(c.body), bytesSHA256)
	}
	if kind == System {
		if _, err := CheckBody(c.body); err != nil {
			c.report(path, "%v", err)
			c.body = nil
		}
	}
}

// checkOwner refuses an absent entry of another track's collections.
func (c *checkedEntry) checkOwner(track *corpus.Track, path string, kind Kind) {
	if kind == Absent && !track.Owns(path) {
		c.problems = append(c.problems, Problem{Path: path, What: "absent entry of another track than " + track.Name})
	}
}

// hasSHA256 reports whether body's SHA-256 is sum in lowercase hex, as
// SHA256 would write it, without writing it.
func hasSHA256(body []byte, sum string) bool {
	digest := sha256.Sum256(body)
	var text [2 * sha256.Size]byte
	hex.Encode(text[:], digest[:])
	return string(text[:]) == sum
}

func equalPtr(a, b *string) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
