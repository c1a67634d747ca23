// Package verify compares a corpus tree with its manifest (docs/contract.md,
// sections 3 and 4): every file changed, missing or extra, each named. A
// server does it at Bytes depth before it serves, at start-up and at every
// reload (Load); the tools do it at Full depth, every hash recomputed
// (Tree). Both depths are the one comparison below.
package verify

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/manifest/internal/parallel"
	"github.com/arkforge/proveit-corpus/manifest/internal/treefile"
	"github.com/arkforge/proveit-corpus/manifest/tree"
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
	return treeOf(m, tree, depth, citations, true)
}

// Check is Tree for a caller that only asks whether the tree matches: no
// file's bytes are kept once compared, which on a large tree is most of
// the memory Tree takes.
func Check(m *manifest.Manifest, tree fs.FS, depth Depth, citations []string) error {
	_, err := treeOf(m, tree, depth, citations, false)
	return err
}

// treeOf is Tree of a manifest in memory, of its own track's tree, keeping
// the files' bytes when keep is set.
func treeOf(m *manifest.Manifest, tree fs.FS, depth Depth, citations []string, keep bool) (map[string][]byte, error) {
	track, err := corpus.TrackNamed(m.Track)
	if err != nil {
		return nil, &MismatchError{Problems: append(headerProblems(m), Problem{What: "piste: " + err.Error()})}
	}
	return byFile(track, tree, depth, citations, keep, func() (*manifest.Manifest, error) { return m, nil })
}

// ManifestFile is a manifest file as CheckFile read it.
type ManifestFile struct {
	Manifest *manifest.Manifest
	// SHA256 is that of the file's bytes, in lowercase hex: the identity
	// of the track's corpus (docs/contract.md, section 4).
	SHA256 string
	// Canonical says whether the bytes are those Encode writes of
	// Manifest: with a tree that matches, the file is then byte for byte
	// the manifest the tree builds to.
	Canonical bool
}

// CheckFile is what an auditor checks of a manifest file and its track's
// tree: the file decoded (manifest.Decode) while the tree is listed, then
// the tree checked against it at Full depth, as Check does, while the
// file is encoded again and hashed; on a large corpus each of these takes
// as long as listing the tree. An error of Decode is returned as is, the
// tree unread; otherwise the file is returned with nil or a
// *MismatchError naming each problem, a manifest of another track among
// them.
func CheckFile(data []byte, tree fs.FS, track *corpus.Track, citations []string) (*ManifestFile, error) {
	file := &ManifestFile{}
	var encoded sync.WaitGroup
	_, err := byFile(track, tree, Full, citations, false, func() (*manifest.Manifest, error) {
		m, err := manifest.Decode(data)
		if err == nil {
			file.Manifest = m
			encoded.Go(func() { file.SHA256, file.Canonical = anchor.SHA256(data), bytes.Equal(m.Encode(), data) })
		}
		return m, err
	})
	encoded.Wait()
	if file.Manifest == nil {
		return nil, err
	}
	return file, err
}

// byFile is Tree, of the manifest decode returns, keeping the bytes of the
// files when keep is set. The tree of track is listed while decode runs;
// then each file is compared with its entry by the reader that read it
// (at Full depth, parsed and hashed while the other readers wait on the
// disk), and once the tree is read, each entry no file answered is
// compared with the tree's absence of a file.
func byFile(track *corpus.Track, fsys fs.FS, depth Depth, citations []string, keep bool, decode func() (*manifest.Manifest, error)) (map[string][]byte, error) {
	readers := tree.Readers(fsys)
	var (
		m        *manifest.Manifest
		c        *comparison // nil until m is decoded, and if it cannot be
		ready    = make(chan struct{})
		err      error
		answered []bool   // by entry: the tree has a file at its path
		bodies   [][]byte // by entry, when keep is set
		next     []int    // by reader, where it looks first for its next file's entry
		mu       sync.Mutex
		extras   []Problem // the files no entry lists
	)
	go func() {
		defer close(ready)
		if m, err = decode(); err != nil {
			return
		}
		if m.Track != track.Name {
			err = &MismatchError{Problems: append(headerProblems(m), Problem{What: fmt.Sprintf("piste: the manifest is the track %q's, the tree %q's", m.Track, track.Name)})}
			return
		}
		n := len(m.Resources)
		c = newComparison(m, track, depth, citations, n, wholeEntries(m), wholePaths(m))
		answered, next = make([]bool, n), make([]int, readers)
		if keep {
			bodies = make([][]byte, n)
		}
	}()
	hashers := make([]anchor.Hasher, readers)
	copies := make([]copier, readers)
	files, _, readErr := tree.Scan(fsys, track.PathOf, treefile.MaxSize, func(reader int, name, path string, data []byte) struct{} {
		if <-ready; c == nil {
			return struct{}{}
		}
		// A reader's files come in the order of their names, that of the
		// entries' paths: it looks first just after its last file's entry.
		i := next[reader]
		listed := i < c.n && c.index.path(i) == path
		if !listed {
			i, listed = c.index.find(path)
		}
		next[reader] = i + 1
		if !listed {
			mu.Lock()
			extras = append(extras, Problem{Path: path, File: name, What: "extra: not in the manifest"})
			mu.Unlock()
			return struct{}{}
		}
		answered[i] = true
		f := treeFile{Name: name, Bytes: data}
		if depth == Full {
			f.parsed = parse(&hashers[reader], path, data)
		}
		if _, body := c.entry(i, f, true); body != nil && keep {
			bodies[i] = copies[reader].copy(body)
		}
		return struct{}{}
	})
	if <-ready; c == nil {
		return nil, err
	}
	if readErr == nil {
		readErr = errors.Join(files.Refused...)
	}
	parallel.For(c.n, func(i int) {
		if !answered[i] {
			c.entry(i, treeFile{}, false)
		}
	})
	slices.SortFunc(extras, func(a, b Problem) int { return strings.Compare(a.Path, b.Path) })
	if problems := c.problems(readErr, extras); len(problems) > 0 {
		return nil, &MismatchError{Problems: problems}
	}
	if !keep {
		return nil, nil
	}
	served := make(map[string][]byte, c.n)
	for i, body := range bodies {
		if body != nil {
			served[m.Resources[i].Path] = body
		}
	}
	return served, nil
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

// wholePaths reads the paths of the entries of a manifest in memory.
func wholePaths(m *manifest.Manifest) func(i int) string {
	return func(i int) string { return m.Resources[i].Path }
}

// wholeEntries reads the entries of a manifest in memory.
func wholeEntries(m *manifest.Manifest) func(i int) listed {
	return func(i int) listed {
		e := &m.Resources[i]
		return listed{path: e.Path, sha256: e.BytesSHA256, kind: e.Kind, status: e.Status,
			fileField: e.File != nil && corpus.IsFileOf(*e.File, e.Path), entry: e}
	}
}

// comparison is the comparison of a manifest's n entries with a track's
// tree: at(i) is the i-th entry in the manifest's order, path(i) its path.
// Each entry is compared once (entry), from any goroutine; problems then
// lists what was found, in one order on every run.
type comparison struct {
	header    *manifest.Manifest // its Resources are not read
	track     *corpus.Track
	depth     Depth
	citations []string
	n         int
	at        func(i int) listed
	index     *pathIndex

	mu        sync.Mutex
	failures  []failure     // the entries with problems, in no order
	unlisted  [][]string    // by entry, at Full depth: the references it cites that have no entry
	citedHere []atomic.Bool // by entry, at Full depth: whether the tree cites it
}

// failure is the problems of one entry.
type failure struct {
	entry    int
	problems []Problem
}

func newComparison(header *manifest.Manifest, track *corpus.Track, depth Depth, citations []string, n int, at func(i int) listed, path func(i int) string) *comparison {
	c := &comparison{header: header, track: track, depth: depth, citations: citations, n: n, at: at,
		index: newPathIndex(n, path)}
	if depth == Full {
		c.unlisted, c.citedHere = make([][]string, n), make([]atomic.Bool, n)
	}
	return c
}

// byEntry compares every entry with the file of contents at its path, in
// parallel, once the tree is read into contents: for a manifest read while
// the tree was (Load). keep is called, from any goroutine, with each entry
// that matches and the bytes it is answered with.
func (c *comparison) byEntry(contents map[string]treeFile, readErr error, keep func(i int, e listed, body []byte)) []Problem {
	var answered atomic.Int64 // entries with a file at their path
	parallel.For(c.n, func(i int) {
		f, isFile := contents[c.index.path(i)]
		if isFile {
			answered.Add(1)
		}
		if e, body := c.entry(i, f, isFile); body != nil {
			keep(i, e, body)
		}
	})
	// The paths are unique: with as many entries answered as files, the
	// tree holds no other file.
	var extras []Problem
	if answered.Load() != int64(len(contents)) {
		for _, path := range slices.Sorted(maps.Keys(contents)) {
			if _, listed := c.index.find(path); !listed {
				extras = append(extras, Problem{Path: path, File: contents[path].Name, What: "extra: not in the manifest"})
			}
		}
	}
	return c.problems(readErr, extras)
}

// entry compares the i-th entry with what the tree holds at its path: the
// file f when isFile, otherwise no file. It returns the entry and, when it
// matches, the bytes it is answered with.
func (c *comparison) entry(i int, f treeFile, isFile bool) (listed, []byte) {
	e := c.at(i)
	var r checkedEntry
	if r.read(e, f, isFile) {
		if c.depth == Bytes {
			r.checkBytes(e)
		} else {
			for _, ref := range r.checkFull(c.header, e) {
				if !c.cite(ref) {
					c.unlisted[i] = append(c.unlisted[i], ref)
				}
			}
		}
	}
	r.checkOwner(c.track, e)
	if len(r.problems) > 0 {
		c.mu.Lock()
		c.failures = append(c.failures, failure{i, r.problems})
		c.mu.Unlock()
		return e, nil
	}
	return e, r.body
}

// cite notes a reference cited, and returns whether it has an entry.
func (c *comparison) cite(ref string) bool {
	i, listed := c.index.find(ref)
	if listed {
		c.citedHere[i].Store(true)
	}
	return listed
}

// problems lists what the comparison found, given the error reading the
// tree and the problems of the files no entry lists, sorted by path: the
// header's, the tree's, each entry's in the manifest's order, the extra
// files', the citations'.
func (c *comparison) problems(readErr error, extras []Problem) []Problem {
	problems := headerProblems(c.header)
	if readErr != nil {
		for _, line := range strings.Split(readErr.Error(), "\n") {
			problems = append(problems, Problem{What: "extra or unreadable: " + line})
		}
	}
	slices.SortFunc(c.failures, func(a, b failure) int { return a.entry - b.entry })
	for _, f := range c.failures {
		problems = append(problems, f.problems...)
	}
	problems = append(problems, extras...)
	if c.depth != Full {
		return problems
	}
	// A reference with a file but no entry is an extra file, named above.
	extra := make(map[string]bool, len(extras))
	for _, p := range extras {
		extra[p.Path] = true
	}
	missing := slices.Concat(c.unlisted...)
	for _, ref := range c.citations {
		if corpus.IsReference(ref) && !c.cite(ref) {
			missing = append(missing, ref)
		}
	}
	slices.Sort(missing)
	for _, path := range slices.Compact(missing) {
		if !extra[path] {
			problems = append(problems, Problem{Path: path, What: "cited by the corpus but has neither a file nor an absent entry"})
		}
	}
	if c.citations != nil {
		for i := range c.n {
			if c.citedHere[i].Load() {
				continue
			}
			if e := c.at(i); e.kind == manifest.Absent {
				problems = append(problems, Problem{Path: e.path, What: "absent entry that neither the corpus nor a statement cites"})
			}
		}
	}
	return problems
}

// pathIndex finds an entry by its path.
type pathIndex struct {
	n      int
	path   func(i int) string // the path of the i-th entry
	sorted sync.Once          // paths is made, if need be, on the first find
	paths  map[string]int     // nil when the entries are sorted by path, as a manifest decoded is
}

func newPathIndex(n int, path func(i int) string) *pathIndex {
	return &pathIndex{n: n, path: path}
}

// find returns the index of the entry of path, if any.
func (x *pathIndex) find(path string) (int, bool) {
	x.sorted.Do(func() {
		for i := 1; i < x.n; i++ {
			if x.path(i-1) >= x.path(i) {
				x.paths = make(map[string]int, x.n)
				for i := range x.n {
					x.paths[x.path(i)] = i
				}
				return
			}
		}
	})
	if x.paths != nil {
		i, ok := x.paths[path]
		return i, ok
	}
	return sort.Find(x.n, func(i int) int { return strings.Compare(path, x.path(i)) })
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
	name     string     // the entry's file in the tree, when it has one
	body     []byte     // the bytes served, when they could be read
	parsed   parsedBody // at Full depth, the body parsed
}

func (c *checkedEntry) report(path, format string, args ...any) {
	c.problems = append(c.problems, Problem{Path: path, File: c.name, What: fmt.Sprintf(format, args...)})
}

// read finds the bytes an entry is answered with, or why it has none: a
// document or fixed body is its file of the tree, which its file field
// names; an absent entry has no file and is answered with its absent
// body. It reports whether there are bytes to check.
func (c *checkedEntry) read(e listed, file treeFile, isFile bool) bool {
	c.name = file.Name
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
		c.body, c.parsed = file.Bytes, file.parsed
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
	if e.kind == manifest.Absent {
		// Not read with the tree: the absent body of its path.
		c.parsed = parse(h, e.path, c.body)
	}
	if err := c.parsed.err; err != nil {
		report("%v", err)
		c.body = nil
		return nil
	}
	if e.kind != manifest.Absent {
		cited = c.parsed.cited
	}
	got, want := e.entry, m.EntryOf(h, e.path, c.name, c.parsed.sums)
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
