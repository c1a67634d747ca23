package manifest

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/arkforge/proveit-corpus/corpus"
)

// File is one file of a corpus tree.
type File struct {
	Name  string // slash-separated, relative to the tree's root
	Bytes []byte
}

// ReadTree reads every file of a corpus tree, keyed by canonical path. A file
// whose name is not a canonical resource (a stray file, a non-JSON file, an id
// outside the grammar) or that is not a regular file is an error naming it:
// nothing in the served tree goes unaccounted for.
func ReadTree(tree fs.FS) (map[string]File, error) {
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
		path, err := corpus.PathOf(name)
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
		data[i], readErrs[i] = fs.ReadFile(tree, names[i])
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
