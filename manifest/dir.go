package manifest

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"slices"
	"strings"
	"syscall"
)

// entry is one entry of a folder: its path in the tree and its type.
type entry struct {
	name string // slash-separated, relative to the tree's root
	base int    // where the entry's own name starts in name
	typ  fs.FileMode
}

func (e entry) isDir() bool { return e.typ.IsDir() }

// readFolder lists the folder name of a tree, sorted by name, as
// fs.ReadDir does.
func readFolder(tree fs.FS, name string) ([]entry, error) {
	if d, onDisk := tree.(Dir); onDisk {
		return d.readFolder(name)
	}
	dirEntries, err := fs.ReadDir(tree, name)
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

// readFolder lists a folder of the tree as os.DirFS's ReadDir does (the
// same entries, types and errors), straight from the kernel's records: on
// a folder of many files, making an fs.DirEntry of each and sorting them is
// most of the time spent listing it.
func (d Dir) readFolder(name string) ([]entry, error) {
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
			if e.typ, err = d.typeOf(typ, folder, e.name[e.base:]); err != nil {
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
func (d Dir) typeOf(dt uint8, folder, base string) (fs.FileMode, error) {
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
