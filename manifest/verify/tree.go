package verify

import (
	"errors"
	"io/fs"
	"slices"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/manifest/internal/treefile"
	"github.com/arkforge/proveit-corpus/manifest/tree"
)

// treeFile is one file of a corpus tree.
type treeFile struct {
	Name  string // slash-separated, relative to the tree's root
	Bytes []byte
	// parsed is what the comparison at Full depth reads of Bytes, found
	// by the reader of the file as it read it.
	parsed parsedBody
}

// parsedBody is a body parsed as Python would, and hashed.
type parsedBody struct {
	err   error         // why the body is not a corpus body; if so, nothing else is set
	sums  treefile.Sums // its entry's hashes
	cited []string      // the references it cites (corpus.IsReference), but its own path
}

// parse parses and hashes body, served at path, with h.
func parse(h *anchor.Hasher, path string, body []byte) parsedBody {
	if err := h.Check(body); err != nil {
		return parsedBody{err: err}
	}
	cited := slices.DeleteFunc(treefile.AppendCited(nil, h, path), func(ref string) bool { return !corpus.IsReference(ref) })
	return parsedBody{sums: treefile.SumsOf(h, body), cited: cited}
}

// readTree reads every file of a track's tree, keyed by canonical path. A
// file whose name is not a canonical resource of the track (a stray file, a
// non-JSON file, an id outside the grammar, another track's resource), that
// is not a regular file or that is larger than treefile.MaxSize (read no
// further) is an error naming it: nothing in the served tree goes
// unaccounted for.
func readTree(fsys fs.FS, track *corpus.Track) (map[string]treeFile, error) {
	copies := make([]copier, tree.Readers(fsys))
	files, data, err := tree.Scan(fsys, track.PathOf, treefile.MaxSize, func(reader int, _, _ string, b []byte) []byte {
		return copies[reader].copy(b)
	})
	if err != nil {
		return nil, err
	}
	contents := make(map[string]treeFile, len(files.Names))
	for i, name := range files.Names {
		contents[files.Keys[i]] = treeFile{Name: name, Bytes: data[i]}
	}
	return contents, errors.Join(files.Refused...)
}

// copier copies the bytes of files that may be kept for the life of a
// server: each into a slice of exactly its length and capacity, cut from
// large chunks filled one at a time, rather than allocated one by one,
// which would round each up to its size class. One copier serves one
// reader.
type copier struct{ chunk []byte }

// bodyChunk is the size of a copier's chunks; a file larger than an eighth
// of it gets an allocation of its own.
const bodyChunk = 1 << 20

func (c *copier) copy(b []byte) []byte {
	if len(b) > bodyChunk/8 {
		return append(make([]byte, 0, len(b)), b...)
	}
	if cap(c.chunk)-len(c.chunk) < len(b) {
		c.chunk = make([]byte, 0, bodyChunk)
	}
	start := len(c.chunk)
	c.chunk = append(c.chunk, b...)
	return c.chunk[start:len(c.chunk):len(c.chunk)]
}
