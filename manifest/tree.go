package manifest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/arkforge/proveit-corpus/corpus"
)

// File is one file of a corpus tree.
type File struct {
	Name  string // slash-separated, relative to the tree's root
	Bytes []byte
}

// ReadTree reads every file of a track's tree, keyed by canonical path. A
// file whose name is not a canonical resource of the track (a stray file, a
// non-JSON file, an id outside the grammar, another track's resource) or that
// is not a regular file is an error naming it: nothing in the served tree
// goes unaccounted for.
func ReadTree(tree fs.FS, track *corpus.Track) (map[string]File, error) {
	var names, paths []string
	var errs []error
	err := fs.WalkDir(tree, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if !d.Type().IsRegular() {
			errs = append(errs, fmt.Errorf("%s: not a regular file", name))
			return nil
		}
		path, err := track.PathOf(name)
		if err != nil {
			errs = append(errs, err)
			return nil
		}
		names, paths = append(names, name), append(paths, path)
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Reading is most of the work on a large tree: spread it out.
	data := make([][]byte, len(names))
	readErrs := make([]error, len(names))
	parallel(len(names), func(i int) {
		data[i], readErrs[i] = readExact(tree, names[i])
	})
	contents := make(map[string]File, len(names))
	for i, name := range names {
		if readErrs[i] != nil {
			return nil, readErrs[i]
		}
		contents[paths[i]] = File{Name: name, Bytes: data[i]}
	}
	return contents, errors.Join(errs...)
}

// readExact reads a file into a slice of exactly its size: the bytes may be
// kept for the life of a server, and a reader that grows its buffer as it
// goes (as afero's does) would keep twice the corpus in memory.
func readExact(tree fs.FS, name string) ([]byte, error) {
	f, err := tree.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	data := make([]byte, info.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	// A file that grew since Stat is read again whole rather than cut.
	if n, _ := f.Read(make([]byte, 1)); n > 0 {
		return fs.ReadFile(tree, name)
	}
	return data, nil
}
