// Package verify compares a corpus tree with its manifest (docs/contract.md,
// sections 3 and 4): every file changed, missing or extra, each named. A
// server does it at Bytes depth before it serves, at start-up and at every
// reload (Load); the tools do it at Full depth, every hash recomputed
// (Tree). Both depths are the one comparison below.
package verify

import (
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/manifest/internal/parallel"
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

// Depth says how much of each entry the comparison recomputes.
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

// Tree compares a tree with the manifest: every file changed, missing or
// extra and, at Full depth, every hash or status that is not the one
// recomputed from the bytes and every cited reference without an entry.
//
// citations are the references cited from outside the tree (a track's
// task statements), read at Full depth: each must have an entry too and,
// when citations is not nil, every absent entry must be cited by the tree
// or by them, as Build writes the manifest.
//
// On success it returns the bytes of every file by canonical path, ready to
// be served; otherwise a *MismatchError naming each problem. The paths of
// the manifest are taken to be unique, as Decode and Build make them.
func Tree(m *manifest.Manifest, tree fs.FS, depth Depth, citations []string) (map[string][]byte, error) {
	track, err := corpus.TrackNamed(m.Piste)
	if err != nil {
		return nil, &MismatchError{Problems: append(headerProblems(m), Problem{What: "piste: " + err.Error()})}
	}
	contents, err := ReadTree(tree, track)
	c := comparison{header: m, track: track, contents: contents, readErr: err, depth: depth, citations: citations}
	bodies := make([][]byte, len(m.Resources))
	problems := c.compare(len(m.Resources), wholeEntries(m), func(i int, e listed, body []byte) {
		if e.kind != manifest.Absent {
			bodies[i] = body
		}
	})
	if len(problems) > 0 {
		return nil, &MismatchError{Problems: problems}
	}
	files := make(map[string][]byte, len(contents))
	for i, body := range bodies {
		if body != nil {
			files[m.Resources[i].Path] = body
		}
	}
	return files, nil
}

// listed is what the comparison reads of an entry: its whole entry at
// Full depth, the rest at both.
type listed struct {
	path, sha256 string
	kind         manifest.Kind
	status       int
	fileField    bool            // the file field names the path's file
	entry        *manifest.Entry // nil when the entry was streamed
}

// wholeEntries reads the entries of a manifest in memory.
func wholeEntries(m *manifest.Manifest) func(i int) listed {
	return func(i int) listed {
		e := &m.Resources[i]
		return listed{path: e.Path, sha256: e.BytesSHA256, kind: e.Kind, status: e.Status,
			fileField: e.File != nil && corpus.IsFileOf(*e.File, e.Path), entry: e}
	}
}

// comparison is a manifest's header and a track's tree read, to compare
// the manifest's entries with.
type comparison struct {
	header    *manifest.Manifest // its Resources are not read
	track     *corpus.Track
	contents  map[string]File
	readErr   error // reading the tree
	depth     Depth
	citations []string
}

// compare is the comparison of n entries, at(i) the i-th in the manifest's
// order, with the tree, in parallel. keep is called, from any goroutine,
// with each entry that matches and the bytes it is answered with. The
// problems come in one order on every run: the header's, the tree's, each
// entry's in the manifest's order, the extra files', the citations'.
func (c *comparison) compare(n int, at func(i int) listed, keep func(i int, e listed, body []byte)) []Problem {
	problems := headerProblems(c.header)
	if c.readErr != nil {
		for _, line := range strings.Split(c.readErr.Error(), "\n") {
			problems = append(problems, Problem{What: "extra or unreadable: " + line})
		}
	}
	type failure struct {
		index    int
		problems []Problem
	}
	var (
		mu       sync.Mutex
		failures []failure
		files    atomic.Int64 // entries whose path has a file in the tree
		cited    [][]string   // by entry, at Full depth
	)
	if c.depth == Full {
		cited = make([][]string, n)
	}
	parallel.For(n, func(i int) {
		e := at(i)
		var r checkedEntry
		if r.read(e, c.contents) {
			if c.depth == Bytes {
				r.checkBytes(e)
			} else {
				cited[i] = r.checkFull(c.header, e)
			}
		}
		r.checkOwner(c.track, e)
		if r.isFile {
			files.Add(1)
		}
		if len(r.problems) > 0 {
			mu.Lock()
			failures = append(failures, failure{i, r.problems})
			mu.Unlock()
			return
		}
		keep(i, e, r.body)
	})
	slices.SortFunc(failures, func(a, b failure) int { return a.index - b.index })
	for _, f := range failures {
		problems = append(problems, f.problems...)
	}
	// The paths are unique: with as many entries as files found, the tree
	// holds no other file. Only otherwise, or to place a citation, are the
	// paths indexed.
	var paths map[string]bool
	indexPaths := func() {
		paths = make(map[string]bool, n)
		for i := range n {
			paths[at(i).path] = true
		}
	}
	if files.Load() != int64(len(c.contents)) {
		indexPaths()
		for _, path := range slices.Sorted(maps.Keys(c.contents)) {
			if !paths[path] {
				problems = append(problems, Problem{Path: path, File: c.contents[path].Name, What: "extra: not in the manifest"})
			}
		}
	}
	if c.depth == Full {
		refs := map[string]bool{}
		for _, list := range cited {
			for _, ref := range list {
				refs[ref] = true
			}
		}
		for _, ref := range c.citations {
			if corpus.IsReference(ref) {
				refs[ref] = true
			}
		}
		if paths == nil {
			indexPaths()
		}
		for _, path := range slices.Sorted(maps.Keys(refs)) {
			if _, isFile := c.contents[path]; !isFile && !paths[path] {
				problems = append(problems, Problem{Path: path, What: "cited by the corpus but has neither a file nor an absent entry"})
			}
		}
		if c.citations != nil {
			for i := range n {
				if e := at(i); e.kind == manifest.Absent && !refs[e.path] {
					problems = append(problems, Problem{Path: e.path, What: "absent entry that neither the corpus nor a statement cites"})
				}
			}
		}
	}
	return problems
}

// headerProblems are the manifest's header's problems.
func headerProblems(m *manifest.Manifest) []Problem {
	var problems []Problem
	for _, what := range m.HeaderProblems() {
		problems = append(problems, Problem{What: what})
	}
	return problems
}

// checkedEntry is what checking one entry found.
type checkedEntry struct {
	problems []Problem
	name     string // the entry's file in the tree, when it has one
	isFile   bool   // the tree has a file at the entry's path
	body     []byte // the bytes served, when they could be read
}

func (c *checkedEntry) report(path, format string, args ...any) {
	c.problems = append(c.problems, Problem{Path: path, File: c.name, What: fmt.Sprintf(format, args...)})
}

// read finds the bytes an entry is answered with, or why it has none: a
// document or fixed body is its file of the tree, which its file field
// names; an absent entry has no file and is answered with its absent
// body. It reports whether there are bytes to check.
func (c *checkedEntry) read(e listed, contents map[string]File) bool {
	file, isFile := contents[e.path]
	c.name, c.isFile = file.Name, isFile
	switch e.kind {
	case manifest.Document, manifest.System:
		if !e.fileField {
			c.report(e.path, "file field must be %q", corpus.FileOf(e.path))
		}
		if !isFile {
			c.name = corpus.FileOf(e.path)
			c.report(e.path, "missing from the tree")
			return false
		}
		c.body = file.Bytes
	case manifest.Absent:
		if isFile {
			c.report(e.path, "listed as absent but the file exists")
			return false
		}
		if !corpus.IsReference(e.path) {
			c.report(e.path, "absent entry outside the reference grammar")
			return false
		}
		c.body = corpus.AbsentBody(e.path)
	default:
		c.report(e.path, "unknown kind %q", e.kind)
		return false
	}
	return true
}

// checkBytes is the check at Bytes depth of the body read: its SHA-256 is
// the one the manifest lists, and a fixed body, which answers every
// refusal whatever the manifest says, is a non-empty JSON object.
func (c *checkedEntry) checkBytes(e listed) {
	if !anchor.HasSHA256(c.body, e.sha256) {
		c.report(e.path, "bytes changed: sha256 %s, manifest says %s", anchor.SHA256(c.body), e.sha256)
	}
	if e.kind == manifest.System {
		if _, err := anchor.CheckBody(c.body); err != nil {
			c.report(e.path, "%v", err)
			c.body = nil
		}
	}
}

// checkFull is the check at Full depth of the body read: the entry is the
// one recomputed from it at the manifest's origin. It returns the
// references a file's body cites.
func (c *checkedEntry) checkFull(m *manifest.Manifest, e listed) (cited []string) {
	report := func(format string, args ...any) { c.report(e.path, format, args...) }
	h := anchor.Pooled()
	defer h.Release()
	if err := h.Check(c.body); err != nil {
		report("%v", err)
		c.body = nil
		return nil
	}
	if e.kind != manifest.Absent {
		cited = slices.DeleteFunc(manifest.AppendCited(nil, h, ""), func(ref string) bool { return !corpus.IsReference(ref) })
	}
	got, want := e.entry, m.EntryFor(h, e.path, c.name, c.body)
	if got.Kind == manifest.Absent && got.File != nil {
		report("an absent entry names no file")
	}
	if got.BytesSHA256 != want.BytesSHA256 {
		report("bytes changed: sha256 %s, manifest says %s", want.BytesSHA256, got.BytesSHA256)
	}
	if got.ResponseHash != want.ResponseHash {
		report("response_hash %s, manifest says %s", want.ResponseHash, got.ResponseHash)
	}
	if got.Status != want.Status || got.Kind != want.Kind {
		report("kind %s status %d, manifest says %s %d", want.Kind, want.Status, got.Kind, got.Status)
	}
	if !equalPtr(got.Target, want.Target) || !equalPtr(got.RequestHash, want.RequestHash) {
		report("target or request_hash differs from the one recomputed at origin %s", m.Origin)
	}
	return cited
}

// checkOwner refuses an absent entry of another track's collections.
func (c *checkedEntry) checkOwner(track *corpus.Track, e listed) {
	if e.kind == manifest.Absent && !track.Owns(e.path) {
		c.problems = append(c.problems, Problem{Path: e.path, What: "absent entry of another track than " + track.Name})
	}
}

func equalPtr(a, b *string) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}
