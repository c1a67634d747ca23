package manifest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"syscall"

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

// Dir is a corpus tree in a folder on disk: os.DirFS, with files read in
// the fewest system calls (open, one read, close), which on a tree of many
// small files is most of the time spent reading it.
type Dir string

// Open opens a file of the tree, as os.DirFS does.
func (d Dir) Open(name string) (fs.File, error) { return os.DirFS(string(d)).Open(name) }

// ReadDir lists a folder of the tree, as os.DirFS does.
func (d Dir) ReadDir(name string) ([]fs.DirEntry, error) {
	return os.DirFS(string(d)).(fs.ReadDirFS).ReadDir(name)
}

// smallFile bounds the files read in one read into a reused buffer; a
// larger one is sized with fstat first.
const smallFile = 64 << 10

var readBuffers = sync.Pool{New: func() any { return new([smallFile]byte) }}

// ReadFile reads a file of the tree into a slice of exactly its size.
// Only regular files are for it: ReadTree refuses any other entry before
// reading.
func (d Dir) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	path := string(d) + "/" + name
	// O_NONBLOCK: a FIFO put in the tree must not block the open; a
	// regular file ignores it.
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer syscall.Close(fd)
	// A read of a regular file returns less than asked only at its end:
	// a file that does not fill the buffer has been read whole.
	buf := readBuffers.Get().(*[smallFile]byte)
	defer readBuffers.Put(buf)
	n, err := readFull(fd, buf[:])
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	if n < smallFile {
		return append(make([]byte, 0, n), buf[:n]...), nil
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	// One byte more than the size: a read that fills it means the file
	// grew since fstat, and it is read again whole rather than cut.
	data := make([]byte, st.Size+1)
	copy(data, buf[:n])
	m, err := readFull(fd, data[n:])
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	if n+m > int(st.Size) {
		return os.ReadFile(path)
	}
	return data[: n+m : n+m], nil
}

// readFull reads until buf is full or the file ends.
func readFull(fd int, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := syscall.Read(fd, buf[n:])
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EISDIR:
			return n, errors.New("not a regular file")
		case err != nil:
			return n, err
		case m == 0:
			return n, nil
		}
		n += m
	}
	return n, nil
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
