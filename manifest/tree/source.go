package tree

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
)

// source is where the folders of a tree are listed and its files read.
type source interface {
	// list lists the folder name, sorted by name, as fs.ReadDir does.
	list(name string) ([]entry, error)
	// open opens the folder name for reading its files.
	open(name string) fileReader
}

// fileReader reads the files of one folder.
type fileReader interface {
	// read reads the folder's file base, the file name of the tree, into
	// buf, and returns its bytes, buf's until the next read. A file of
	// more than maxSize bytes is refused, read no further. Errors name
	// the file of the tree.
	read(buf *buffer, base, name string, maxSize int64) ([]byte, error)
	close()
}

// entry is one entry of a folder: its name in the tree and its type.
type entry struct {
	name string // slash-separated, relative to the tree's root
	base int    // where the entry's own name starts in name
	typ  fs.FileMode
}

func (e entry) isDir() bool { return e.typ.IsDir() }

// sourceOf is the source that reads tree.
func sourceOf(tree fs.FS) source {
	if d, onDisk := tree.(Dir); onDisk {
		return d.source()
	}
	return fsSource{tree}
}

// fsSource reads any fs.FS through io/fs.
type fsSource struct{ tree fs.FS }

func (s fsSource) list(name string) ([]entry, error) {
	dirEntries, err := fs.ReadDir(s.tree, name)
	if err != nil {
		return nil, err
	}
	entries := make([]entry, len(dirEntries))
	for i, e := range dirEntries {
		full := join(name, e.Name())
		entries[i] = entry{name: full, base: len(full) - len(e.Name()), typ: e.Type()}
	}
	return entries, nil
}

func (s fsSource) open(string) fileReader { return s }

func (s fsSource) read(buf *buffer, _, name string, maxSize int64) ([]byte, error) {
	f, err := s.tree.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readFile(f, buf, name, maxSize)
}

func (fsSource) close() {}

// readFile reads an open file of the tree, named name, as fileReader.read
// does: refused unread if it is not a regular file or says it holds more
// than maxSize bytes, and read no further than that if it does. A file of
// the os package is a file on disk, whose reads return fewer bytes than
// asked only at its end: the last read, which would return none, is saved.
func readFile(f fs.File, buf *buffer, name string, maxSize int64) ([]byte, error) {
	info, err := f.Stat()
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: unwrapPath(err)}
	}
	if !info.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errNotRegular}
	}
	if info.Size() > maxSize {
		return nil, tooLarge(name, maxSize)
	}
	_, onDisk := f.(*os.File)
	return buf.readFrom(f, name, maxSize, onDisk)
}

var errNotRegular = errors.New("not a regular file")

// tooLarge is the refusal of the file name, larger than maxSize bytes.
func tooLarge(name string, maxSize int64) error {
	return fmt.Errorf("%s: %w (%d bytes)", name, ErrTooLarge, maxSize)
}

// buffer is a reader's buffer, reused from one file to the next.
type buffer struct{ b []byte }

// smallFile is the size a buffer starts at, enough for any corpus file; a
// larger file grows it.
const smallFile = 64 << 10

// grow makes room in the buffer after its first n bytes for more of a file
// that may hold at most maxSize bytes: up to maxSize+1 bytes in all, so
// that one byte too many tells the file is too large.
func (b *buffer) grow(n int, maxSize int64) []byte {
	more := max(cap(b.b), smallFile)
	if rest := maxSize - int64(n); rest < int64(more) {
		more = int(rest) + 1
	}
	b.b = slices.Grow(b.b[:n], more)
	return b.b[:n+more]
}

// readFrom reads r to its end into the buffer, refusing it past maxSize
// bytes. When shortIsEnd, a read that returns fewer bytes than asked is
// the last.
func (b *buffer) readFrom(r io.Reader, name string, maxSize int64, shortIsEnd bool) ([]byte, error) {
	buf := b.grow(0, maxSize)
	n := 0
	for {
		if n == len(buf) {
			buf = b.grow(n, maxSize)
		}
		m, err := r.Read(buf[n:])
		n += m
		switch {
		case int64(n) > maxSize:
			return nil, tooLarge(name, maxSize)
		case err == io.EOF, err == nil && shortIsEnd && n < len(buf):
			return buf[:n], nil
		case err != nil:
			return nil, &fs.PathError{Op: "read", Path: name, Err: unwrapPath(err)}
		}
	}
}

// unwrapPath is the error under a *fs.PathError, which names the file
// otherwise than the tree does.
func unwrapPath(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err
	}
	return err
}
