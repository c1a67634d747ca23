package tree

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/arkforge/proveit-corpus/corpus"
)

// syscallSource reads a Dir with Linux's own system calls: folders listed
// straight from the kernel's records, files opened relative to their
// folder and read in the fewest system calls (open, read to the end,
// close). It is the reader Dir had before it was made portable, kept here
// as the yardstick of Dir's: the tests require the same files, bytes and
// errors of both, and BenchmarkReaders times both on the same tree.
type syscallSource Dir

func init() {
	diskSources["syscalls"] = func(d Dir) source { return syscallSource(d) }
}

// BenchmarkReaders scans a tree on disk with Dir's reader and with the
// system-call yardstick, in turn: the folder PROVEIT_BENCH_TREE names (make
// bench gives it its generated corpus of 100,000 files), else the season's
// tree. Each file's bytes are only counted: the time is the readers'.
func BenchmarkReaders(b *testing.B) {
	root := os.Getenv("PROVEIT_BENCH_TREE")
	if root == "" {
		root = b.TempDir()
		if err := os.CopyFS(root, corpus.Conformity.Embedded()); err != nil {
			b.Fatal(err)
		}
	}
	for _, reader := range []string{"portable", "syscalls"} {
		b.Run(reader, func(b *testing.B) {
			src := diskSources[reader](Dir(root))
			for b.Loop() {
				files, _, err := scan(Dir(root), src, rule, 1<<20, func(_ int, _, _ string, data []byte) int { return len(data) })
				if err != nil || len(files.Refused) > 0 {
					b.Fatalf("%v %v", err, files.Refused)
				}
			}
		})
	}
}

// list lists a folder of the tree as os.DirFS's ReadDir does (the same
// entries, types and errors), straight from the kernel's records: on a
// folder of many files, making an fs.DirEntry of each and sorting them is
// most of the time spent listing it.
func (d syscallSource) list(name string) ([]entry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	folder := string(d) + "/" + name
	fd, err := syscall.Open(folder, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer syscall.Close(fd)
	prefix := name + "/"
	if name == "." {
		prefix = ""
	}
	var entries []entry
	buf := make([]byte, 64<<10)
	for {
		n, err := syscall.ReadDirent(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "readdirent", Path: name, Err: err}
		}
		if n <= 0 {
			break
		}
		// Each record is a linux_dirent64: inode (8 bytes), offset (8),
		// record length (2), type (1), then the name and a NUL.
		for rec := buf[:n]; len(rec) >= 19; {
			size := int(binary.NativeEndian.Uint16(rec[16:]))
			if size < 19 || size > len(rec) {
				return nil, &fs.PathError{Op: "readdirent", Path: name, Err: syscall.EINVAL}
			}
			typ, base := rec[18], rec[19:size]
			rec = rec[size:]
			if i := slices.Index(base, 0); i >= 0 {
				base = base[:i]
			}
			if string(base) == "." || string(base) == ".." {
				continue
			}
			e := entry{name: prefix + string(base), base: len(prefix)}
			if e.typ, err = typeOf(typ, folder, e.name[e.base:]); err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					continue // removed since listed, as os.ReadDir
				}
				return nil, &fs.PathError{Op: "lstat", Path: e.name, Err: err}
			}
			entries = append(entries, e)
		}
	}
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.name[a.base:], b.name[b.base:]) })
	return entries, nil
}

// typeOf is the type of a folder's entry from its record's type, or from
// lstat when the file system leaves it unknown.
func typeOf(dt uint8, folder, base string) (fs.FileMode, error) {
	if dt == syscall.DT_UNKNOWN {
		var st syscall.Stat_t
		if err := syscall.Lstat(folder+"/"+base, &st); err != nil {
			return 0, err
		}
		dt = uint8(st.Mode & syscall.S_IFMT >> 12) // a record's type is the mode's type bits
	}
	switch dt {
	case syscall.DT_REG:
		return 0, nil
	case syscall.DT_DIR:
		return fs.ModeDir, nil
	case syscall.DT_LNK:
		return fs.ModeSymlink, nil
	case syscall.DT_FIFO:
		return fs.ModeNamedPipe, nil
	case syscall.DT_SOCK:
		return fs.ModeSocket, nil
	case syscall.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice, nil
	case syscall.DT_BLK:
		return fs.ModeDevice, nil
	}
	return fs.ModeIrregular, nil
}

// open opens a folder of the tree, for reading its files.
func (d syscallSource) open(name string) fileReader {
	fd, err := syscall.Open(string(d)+"/"+name, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return failedFolder{err}
	}
	return folderFD(fd)
}

// folderFD is a folder opened for reading its files.
type folderFD int

func (dir folderFD) close() { syscall.Close(int(dir)) }

// read reads the file base of the folder. A read of a regular file returns
// fewer bytes than asked only at its end: a file smaller than the buffer
// is read whole by one read, and only a file that fills it takes more.
func (dir folderFD) read(buf *buffer, base, name string, maxSize int64) ([]byte, error) {
	// O_NONBLOCK: a FIFO put in the tree must not block the open; a
	// regular file ignores it.
	fd, err := syscall.Openat(int(dir), base, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer syscall.Close(fd)
	b := buf.grow(0, maxSize)
	n := 0
	for {
		m, err := syscall.Read(fd, b[n:])
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EISDIR:
			return nil, &fs.PathError{Op: "read", Path: name, Err: errNotRegular}
		case err != nil:
			return nil, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		n += m
		switch {
		case int64(n) > maxSize:
			return nil, tooLarge(name, maxSize)
		case n < len(b):
			return b[:n], nil
		}
		b = buf.grow(n, maxSize)
	}
}
