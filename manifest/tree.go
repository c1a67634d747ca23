package manifest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
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
	files, err := listTree(tree, track)
	if err != nil {
		return nil, err
	}
	// Each file is copied into a slice of exactly its size: the bytes may be
	// kept for the life of a server, and a slice with room to spare (as
	// afero's reader leaves) would keep up to twice the corpus in memory.
	data := make([][]byte, len(files.names))
	if err := files.read(tree, func(_, i int, b []byte) {
		data[i] = append(make([]byte, 0, len(b)), b...)
	}); err != nil {
		return nil, err
	}
	contents := make(map[string]File, len(files.names))
	for i, name := range files.names {
		contents[files.paths[i]] = File{Name: name, Bytes: data[i]}
	}
	return contents, errors.Join(files.refused...)
}

// treeFiles lists the files of a track's tree, in the order fs.WalkDir
// visits them.
type treeFiles struct {
	names   []string // file names, relative to the tree's root
	paths   []string // the canonical path of each
	refused []error  // the entries that are not a resource of the track
}

// listTree lists the files of a track's tree as fs.WalkDir visits them,
// its folders listed concurrently; only an error walking the tree is
// returned, an entry that is not a resource of the track is in refused.
func listTree(tree fs.FS, track *corpus.Track) (*treeFiles, error) {
	info, err := fs.Stat(tree, ".")
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		var l treeFiles
		l.add(track, ".", info.Mode().Type())
		return &l, nil
	}
	// Folders are listed at most this many at once: each holds a file
	// descriptor while it is read.
	slots := make(chan struct{}, 2*runtime.GOMAXPROCS(0))
	return listFolder(tree, track, ".", slots)
}

// listFolder lists the folder name, its sub-folders each in a goroutine of
// its own.
func listFolder(tree fs.FS, track *corpus.Track, name string, slots chan struct{}) (*treeFiles, error) {
	slots <- struct{}{}
	entries, err := readFolder(tree, name)
	<-slots
	if err != nil {
		return nil, err
	}
	subs := make([]*treeFiles, len(entries))
	subErrs := make([]error, len(entries))
	var wg sync.WaitGroup
	for i, e := range entries {
		if e.isDir() {
			wg.Go(func() { subs[i], subErrs[i] = listFolder(tree, track, e.name, slots) })
		}
	}
	// Meanwhile, this folder's own files, noting where each sub-folder's
	// stand among them.
	var own treeFiles
	type mark struct{ names, refused int }
	marks := make([]mark, len(entries))
	for i, e := range entries {
		if e.isDir() {
			marks[i] = mark{len(own.names), len(own.refused)}
		} else {
			own.add(track, e.name, e.typ)
		}
	}
	wg.Wait()
	var l treeFiles
	var from mark
	for i, e := range entries {
		if !e.isDir() {
			continue
		}
		if subErrs[i] != nil {
			return nil, subErrs[i]
		}
		l.names = append(append(l.names, own.names[from.names:marks[i].names]...), subs[i].names...)
		l.paths = append(append(l.paths, own.paths[from.names:marks[i].names]...), subs[i].paths...)
		l.refused = append(append(l.refused, own.refused[from.refused:marks[i].refused]...), subs[i].refused...)
		from = marks[i]
	}
	l.names = append(l.names, own.names[from.names:]...)
	l.paths = append(l.paths, own.paths[from.names:]...)
	l.refused = append(l.refused, own.refused[from.refused:]...)
	return &l, nil
}

// join is path.Join for a folder of the tree and the name of one of its
// entries, both clean already.
func join(folder, name string) string {
	if folder == "." {
		return name
	}
	return folder + "/" + name
}

// add lists the file name, of type typ, or the reason it is refused.
func (l *treeFiles) add(track *corpus.Track, name string, typ fs.FileMode) {
	if !typ.IsRegular() {
		l.refused = append(l.refused, fmt.Errorf("%s: not a regular file", name))
		return
	}
	path, err := track.PathOf(name)
	if err != nil {
		l.refused = append(l.refused, err)
		return
	}
	l.names, l.paths = append(l.names, name), append(l.paths, path)
}

// workers is the count of goroutines that read the tree: on a folder, more
// than can run at once, since a goroutine waiting for the disk runs none of
// its work.
func (l *treeFiles) workers(tree fs.FS) int {
	n := runtime.GOMAXPROCS(0)
	if _, onDisk := tree.(Dir); onDisk {
		n *= 2
	}
	return max(1, min(n, len(l.names)))
}

// read reads every listed file, spread over l.workers(tree) goroutines, and
// calls fn with the index of the goroutine, the index of the file and its
// bytes, which are fn's only for the call: a goroutine reads every file into
// the same buffer. Calls with the same worker index never overlap. Reading
// a file and working on its bytes in the same goroutine keeps every CPU busy
// from the first file to the last. The error is that of the first file, in
// listing order, that could not be read; fn is not called for it.
func (l *treeFiles) read(tree fs.FS, fn func(worker, i int, data []byte)) error {
	readErrs := make([]error, len(l.names))
	var next atomic.Int64
	var wg sync.WaitGroup
	if d, onDisk := tree.(Dir); onDisk {
		// Each folder is opened once, and its files opened relative to it:
		// the kernel resolves one name per file rather than a whole path.
		folders := d.openFolders(l.names)
		defer folders.close()
		for w := range l.workers(tree) {
			wg.Go(func() {
				buf := make([]byte, smallFile)
				var last folderCache
				for i := int(next.Add(1) - 1); i < len(l.names); i = int(next.Add(1) - 1) {
					buf, readErrs[i] = folders.read(l.names[i], buf, &last)
					if readErrs[i] == nil {
						fn(w, i, buf)
					}
				}
			})
		}
	} else {
		for w := range l.workers(tree) {
			wg.Go(func() {
				for i := int(next.Add(1) - 1); i < len(l.names); i = int(next.Add(1) - 1) {
					var data []byte
					if data, readErrs[i] = readExact(tree, l.names[i]); readErrs[i] == nil {
						fn(w, i, data)
					}
				}
			})
		}
	}
	wg.Wait()
	for _, err := range readErrs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Dir is a corpus tree in a folder on disk: os.DirFS, with files read in
// the fewest system calls (open, read to the end, close), which on a tree of
// many small files is most of the time spent reading it.
type Dir string

// Open opens a file of the tree, as os.DirFS does.
func (d Dir) Open(name string) (fs.File, error) { return os.DirFS(string(d)).Open(name) }

// ReadDir lists a folder of the tree, as os.DirFS does.
func (d Dir) ReadDir(name string) ([]fs.DirEntry, error) {
	return os.DirFS(string(d)).(fs.ReadDirFS).ReadDir(name)
}

// smallFile is the size of the buffer a file is first read into, enough
// for any corpus file; a larger one grows it.
const smallFile = 64 << 10

var readBuffers = sync.Pool{New: func() any {
	buf := make([]byte, smallFile)
	return &buf
}}

// ReadFile reads a file of the tree into a slice of exactly its size.
// Only regular files are for it: ReadTree refuses any other entry before
// reading.
func (d Dir) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	buf := readBuffers.Get().(*[]byte)
	defer readBuffers.Put(buf)
	var err error
	*buf, err = readFileAt(dirFD{fd: atCWD}, string(d)+"/"+name, name, *buf)
	if err != nil {
		return nil, err
	}
	return append(make([]byte, 0, len(*buf)), *buf...), nil
}

// atCWD is AT_FDCWD: a name relative to it is a path as open(2) takes it.
const atCWD = -0x64

// dirFD is a folder opened for reading its files, or the error opening it.
type dirFD struct {
	fd  int
	err error
}

// folders are the folders of a tree opened by openFolders, by name.
type folders map[string]dirFD

// openFolders opens the folders that hold the named files.
func (d Dir) openFolders(names []string) folders {
	open := folders{}
	last := ""
	for _, name := range names {
		if dir, _ := splitName(name); dir != last {
			last = dir
			if _, done := open[dir]; !done {
				fd, err := syscall.Open(string(d)+"/"+dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
				open[dir] = dirFD{fd: fd, err: err}
			}
		}
	}
	return open
}

func (f folders) close() {
	for _, dir := range f {
		if dir.err == nil {
			syscall.Close(dir.fd)
		}
	}
}

// splitName splits a file name of the tree into its folder ("." at the
// root) and its own name.
func splitName(name string) (dir, base string) {
	if slash := strings.LastIndexByte(name, '/'); slash >= 0 {
		return name[:slash], name[slash+1:]
	}
	return ".", name
}

// folderCache is the folder of the file a reader read last: files come
// folder after folder.
type folderCache struct {
	name string
	fd   dirFD
}

// read reads the named file of the tree into buf, grown as needed.
func (f folders) read(name string, buf []byte, last *folderCache) ([]byte, error) {
	dir, base := splitName(name)
	if dir != last.name {
		last.name, last.fd = dir, f[dir]
	}
	return readFileAt(last.fd, base, name, buf)
}

// readFileAt reads the file at path, relative to the folder dir, into buf
// (grown as needed) and returns it cut to the file's size. Errors name the
// file of the tree, name.
func readFileAt(dir dirFD, path, name string, buf []byte) ([]byte, error) {
	if dir.err != nil {
		return buf, &fs.PathError{Op: "open", Path: name, Err: dir.err}
	}
	// O_NONBLOCK: a FIFO put in the tree must not block the open; a
	// regular file ignores it.
	fd, err := openat(dir.fd, path)
	if err != nil {
		return buf, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer syscall.Close(fd)
	// A read of a regular file returns fewer bytes than asked only at its
	// end: a file smaller than the buffer is read whole by one read, and
	// only a file that fills it takes more.
	buf = buf[:cap(buf)]
	n := 0
	for {
		m, err := syscall.Read(fd, buf[n:])
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EISDIR:
			return buf[:0], &fs.PathError{Op: "read", Path: name, Err: errors.New("not a regular file")}
		case err != nil:
			return buf[:0], &fs.PathError{Op: "read", Path: name, Err: err}
		}
		n += m
		if n < len(buf) {
			return buf[:n], nil
		}
		buf = slices.Grow(buf, max(smallFile, len(buf)))
		buf = buf[:cap(buf)]
	}
}

func openat(dir int, path string) (int, error) {
	for {
		fd, err := syscall.Openat(dir, path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

// readExact reads a file into a slice of exactly its size.
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
