package verify

import (
	"errors"
	"io/fs"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/tree"
)

// File is one file of a corpus tree.
type File struct {
	Name  string // slash-separated, relative to the tree's root
	Bytes []byte
}

// ReadTree reads every file of a track's tree, keyed by canonical path. A
// file whose name is not a canonical resource of the track (a stray file, a
// non-JSON file, an id outside the grammar, another track's resource), that
// is not a regular file or that is larger than manifest.MaxFileSize (read no
// further) is an error naming it: nothing in the served tree goes
// unaccounted for.
func ReadTree(fsys fs.FS, track *corpus.Track) (map[string]File, error) {
	// The bytes may be kept for the life of a server: each file is copied
	// into a slice of exactly its length and capacity. The copies are cut
	// from large chunks, one filled at a time by each reader, rather than
	// allocated one by one, which would round each up to its size class.
	chunks := make([][]byte, tree.Readers(fsys))
	files, data, err := tree.Scan(fsys, track.PathOf, manifest.MaxFileSize, func(reader int, _, _ string, b []byte) []byte {
		if len(b) > bodyChunk/8 {
			return append(make([]byte, 0, len(b)), b...)
		}
		chunk := chunks[reader]
		if cap(chunk)-len(chunk) < len(b) {
			chunk = make([]byte, 0, bodyChunk)
		}
		start := len(chunk)
		chunk = append(chunk, b...)
		chunks[reader] = chunk
		return chunk[start:len(chunk):len(chunk)]
	})
	if err != nil {
		return nil, err
	}
	contents := make(map[string]File, len(files.Names))
	for i, name := range files.Names {
		contents[files.Keys[i]] = File{Name: name, Bytes: data[i]}
	}
	return contents, errors.Join(files.Refused...)
}

// bodyChunk is the size of the chunks ReadTree cuts files from; a file
// larger than an eighth of it gets an allocation of its own.
const bodyChunk = 1 << 20
