package tree

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Dir is a tree in a folder on disk: os.DirFS, with each folder of it
// opened once for reading its files, and each file read into a buffer
// reused from one file to the next, rather than opened by its full path
// into a new slice.
type Dir string

var (
	_ fs.ReadDirFS  = Dir("")
	_ fs.ReadFileFS = Dir("")
	_ fs.StatFS     = Dir("")
)

func (d Dir) fsys() fs.FS { return os.DirFS(string(d)) }

// Open opens a file of the tree, as os.DirFS does.
func (d Dir) Open(name string) (fs.File, error) { return d.fsys().Open(name) }

// ReadDir lists a folder of the tree, as os.DirFS does.
func (d Dir) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(d.fsys(), name) }

// Stat describes a file of the tree, as os.DirFS does.
func (d Dir) Stat(name string) (fs.FileInfo, error) { return fs.Stat(d.fsys(), name) }

// ReadFile reads a regular file of the tree into a slice of exactly its
// size, as Scan reads it.
func (d Dir) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	folder, base := ".", name
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		folder, base = name[:i], name[i+1:]
	}
	r := d.source().open(folder)
	defer r.close()
	var buf buffer
	data, err := r.read(&buf, base, name, math.MaxInt)
	if err != nil {
		return nil, err
	}
	return append(make([]byte, 0, len(data)), data...), nil
}

// source reads a Dir through the os and io/fs packages, on every
// platform. The Linux reader of raw system calls (getdents64, openat, read)
// that this replaced read a 100,000-file tree about 1.3 times as fast, and
// made start-up (Load) at most 1.47 and `proveit manifest` 1.1 times as
// fast: short of the 1.5 that would pay for a build-tagged twin. It is the
// yardstick of this package's tests and of docs/performance.md.
func (d Dir) source() source { return dirSource(d) }

// dirSource reads a Dir.
type dirSource Dir

func (d dirSource) list(name string) ([]entry, error) {
	return fsSource{Dir(d).fsys()}.list(name)
}

// open opens the folder as an os.Root: each file is then opened relative
// to it, by its own name, and never outside it, even through a symbolic
// link put in its place since the folder was listed.
func (d dirSource) open(name string) fileReader {
	root, err := os.OpenRoot(filepath.Join(string(d), filepath.FromSlash(name)))
	if err != nil {
		return failedFolder{unwrapPath(err)}
	}
	return rootFolder{root}
}

// rootFolder is a folder of a Dir opened for reading its files.
type rootFolder struct{ root *os.Root }

func (f rootFolder) read(buf *buffer, base, name string, maxSize int64) ([]byte, error) {
	// Not blocking: a FIFO put in the tree since it was listed must not
	// hang the open (a regular file ignores the flag).
	file, err := f.root.OpenFile(base, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: unwrapPath(err)}
	}
	defer file.Close()
	// Not stat'ed: the listing said it is a regular file, and what may
	// have taken its place since is read no further than maxSize bytes.
	data, err := buf.readFrom(file, name, maxSize, true)
	if errors.Is(err, syscall.EISDIR) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errNotRegular}
	}
	return data, err
}

func (f rootFolder) close() { f.root.Close() }

// failedFolder is a folder that could not be opened: opening each of its
// files fails with the error.
type failedFolder struct{ err error }

func (f failedFolder) read(_ *buffer, _, name string, _ int64) ([]byte, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: f.err}
}

func (failedFolder) close() {}
