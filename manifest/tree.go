package manifest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

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

// Dir is a corpus tree in a folder on disk: os.DirFS, with files read in
// the fewest system calls (open, fstat, one read, close), which on a tree
// of many small files is most of the time spent reading it.
type Dir string

// Open opens a file of the tree, as os.DirFS does.
func (d Dir) Open(name string) (fs.File, error) { return os.DirFS(string(d)).Open(name) }

// ReadDir lists a folder of the tree, as os.DirFS does.
func (d Dir) ReadDir(name string) ([]fs.DirEntry, error) {
	return os.DirFS(string(d)).(fs.ReadDirFS).ReadDir(name)
}

// ReadFile reads a file of the tree into a slice of exactly its size.
func (d Dir) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	path := string(d) + "/" + name
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("not a regular file")}
	}
	// One byte more than the size: a read that fills it means the file
	// grew since fstat, and it is read again whole rather than cut. A read
	// of a regular file returns less than asked only at its end.
	data := make([]byte, st.Size+1)
	n := 0
	for n < len(data) {
		m, err := syscall.Read(fd, data[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		if m == 0 {
			break
		}
		n += m
	}
	if n > int(st.Size) {
		return os.ReadFile(path)
	}
	return data[:n:n], nil
}

// readExact reads a file into a slice of exactly its size: the bytes may be
// kept for the life of a server, and a reader that grows its buffer as it
// goes (as afero's does) would keep twice the corpus in memory.
func readExact(tree fs.FS, name string) ([]byte, error) {
	if d, ok := tree.(Dir); ok {
		return d.ReadFile(name)
	}
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
