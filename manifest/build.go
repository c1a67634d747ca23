package manifest

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/manifest/internal/parallel"
	"github.com/arkforge/proveit-corpus/manifest/internal/treefile"
	"github.com/arkforge/proveit-corpus/manifest/tree"
)

// Build makes the manifest of the tree of the track named piste. Every file
// becomes a document or systeme entry; every reference cited by a file, or
// in citations (a task statement's entity and references), that has no file
// becomes an absent entry with the exact body the server answers. A file
// larger than treefile.MaxSize is refused. The result depends only on the
// tree's content, never on the order the file system lists it in.
func Build(fsys fs.FS, piste, origin string, citations []string) (*Manifest, error) {
	track, err := corpus.TrackNamed(piste)
	if err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	m := &Manifest{Format: Format, Track: piste, Origin: origin, Request: Request}
	// Each file is read, checked and hashed by one reader, which keeps what
	// may be references it cites, but its own path, and the files it
	// refuses.
	type refusal struct {
		path string
		err  error
	}
	hashers := make([]anchor.Hasher, tree.Readers(fsys))
	cited := make([][]string, len(hashers))
	refused := make([][]refusal, len(hashers))
	files, entries, err := tree.Scan(fsys, track.PathOf, treefile.MaxSize, func(r int, name, path string, body []byte) Entry {
		h := &hashers[r]
		if err := h.Check(body); err != nil {
			refused[r] = append(refused[r], refusal{path, fmt.Errorf("%s: %w", name, err)})
			return Entry{}
		}
		cited[r] = treefile.AppendCited(cited[r], h, path)
		return m.entryFor(h, path, name, body)
	})
	if err != nil {
		return nil, err
	}
	if err := errors.Join(files.Refused...); err != nil {
		return nil, err
	}
	if all := slices.Concat(refused...); len(all) > 0 {
		slices.SortFunc(all, func(a, b refusal) int { return strings.Compare(a.path, b.path) })
		errs := make([]error, len(all))
		for i, r := range all {
			errs[i] = r.err
		}
		return nil, errors.Join(errs...)
	}
	isFile := make(map[string]bool, len(files.Keys))
	for _, path := range files.Keys {
		isFile[path] = true
	}
	parallel.For(len(cited), func(r int) {
		cited[r] = slices.DeleteFunc(cited[r], func(ref string) bool { return isFile[ref] || !corpus.IsReference(ref) })
	})
	absent := map[string]bool{}
	for _, refs := range cited {
		for _, ref := range refs {
			absent[ref] = true
		}
	}
	for _, c := range citations {
		if corpus.IsReference(c) && !isFile[c] {
			absent[c] = true
		}
	}
	// A file's path is its track's (the listing checks it): only a path
	// with no file can be another track's.
	paths := slices.Sorted(maps.Keys(absent))
	var errs []error
	for _, path := range paths {
		if !track.Owns(path) {
			errs = append(errs, fmt.Errorf("%s: cited, but a resource of another track than %s: no path belongs to two manifests", path, track.Name))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	// The files come in the order of their names, close to that of their
	// paths; the absent entries, sorted, are merged in.
	if !slices.IsSortedFunc(entries, comparePaths) {
		slices.SortFunc(entries, comparePaths)
	}
	absentEntries := make([]Entry, len(paths))
	for i, path := range paths {
		absentEntries[i] = m.absentEntry(path)
	}
	m.Resources = mergeByPath(entries, absentEntries)
	return m, nil
}

// mergeByPath merges b into a, both sorted by path, in place at the end of
// a's array when it has room.
func mergeByPath(a, b []Entry) []Entry {
	merged := slices.Grow(a, len(b))[:len(a)+len(b)]
	i, j := len(a)-1, len(b)-1
	for k := len(merged) - 1; j >= 0; k-- {
		if i >= 0 && comparePaths(a[i], b[j]) > 0 {
			merged[k] = a[i]
			i--
		} else {
			merged[k] = b[j]
			j--
		}
	}
	return merged
}

// absentEntry is the entry of a reference with no file.
func (m *Manifest) absentEntry(path string) Entry {
	h := anchor.Pooled()
	defer h.Release()
	body := corpus.AbsentBody(path)
	if err := h.Check(body); err != nil {
		panic(fmt.Sprintf("manifest: the absent body of %s is not a corpus body: %v", path, err))
	}
	return m.entryFor(h, path, "", body)
}

// entryFor computes the manifest entry of a path served with body, which h
// has just checked (Hasher.Check). file is the file of the tree it comes
// from, empty for an absent reference.
func (m *Manifest) entryFor(h *anchor.Hasher, path, file string, body []byte) Entry {
	return m.EntryOf(h, path, file, treefile.SumsOf(h, body))
}

// EntryOf is entryFor of a body whose sums are known, h only hashing the
// request. The entry's strings share one allocation, and its optional ones
// another: on a large tree, allocating each is a good part of the time
// spent building.
func (m *Manifest) EntryOf(h *anchor.Hasher, path, file string, sums treefile.Sums) Entry {
	e := Entry{Path: path}
	switch {
	case file == "":
		e.Kind, e.Status = Absent, 200
	case corpus.IsSystem(path):
		e.Kind, e.Status = System, corpus.SystemStatus[path]
	default:
		e.Kind, e.Status = Document, 200
	}
	var buf [3 * 2 * sha256.Size]byte
	text := anchor.AppendHex(anchor.AppendHex(buf[:0], sums.Bytes), sums.Response)
	var target string
	if e.Kind != System {
		target = m.Target(path)
		text = anchor.AppendHex(text, h.RequestSum(target))
	}
	hashes := string(text)
	const size = 2 * sha256.Size
	e.BytesSHA256, e.ResponseHash = hashes[:size], hashes[size:2*size]
	optional := &struct{ file, target, requestHash string }{file: file}
	if file != "" {
		e.File = &optional.file
	}
	if e.Kind != System {
		optional.target, optional.requestHash = target, hashes[2*size:]
		e.Target, e.RequestHash = &optional.target, &optional.requestHash
	}
	return e
}
