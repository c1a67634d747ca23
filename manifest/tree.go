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
	"syscall"
	"unsafe"

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
	// The bytes may be kept for the life of a server: each file is copied
	// into a slice of exactly its length and capacity. The copies are cut
	// from large chunks, one filled at a time by each reader, rather than
	// allocated one by one, which would round each up to its size class.
	chunks := make([][]byte, readers(tree))
	files, data, err := scanTree(tree, track, func(reader int, _, _ string, b []byte) []byte {
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
	contents := make(map[string]File, len(files.names))
	for i, name := range files.names {
		contents[files.paths[i]] = File{Name: name, Bytes: data[i]}
	}
	return contents, errors.Join(files.refused...)
}

// bodyChunk is the size of the chunks ReadTree cuts files from; a file
// larger than an eighth of it gets an allocation of its own.
const bodyChunk = 1 << 20

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
	files, _, err := walkTree[struct{}](tree, track, nil).flatten()
	return files, err
}

// scanTree lists a track's tree and reads its files at once: the files of a
// folder are handed to the readers as soon as the folder is listed, while
// other folders still are, so that every CPU is busy from the first file to
// the last. For each file, fn is called with the index of the reader (below
// readers(tree); calls with the same index never overlap), the file's name,
// its path and its bytes, which are fn's only for the call; what fn returns
// is in items, in the order of files.names. The error is that of walking the
// tree, or else that of the first file, in walking order, that could not be
// read; fn is not called for such a file.
func scanTree[T any](tree fs.FS, track *corpus.Track, fn func(reader int, name, path string, data []byte) T) (files *treeFiles, items []T, err error) {
	batches := make(chan batch[T], 1024)
	var wg sync.WaitGroup
	for r := range readers(tree) {
		wg.Go(func() { readBatches(tree, r, batches, fn) })
	}
	root := walkTree(tree, track, batches)
	close(batches)
	wg.Wait()
	root.closeFolders()
	return root.flatten()
}

// readers is the count of goroutines that read a tree: on a folder, more
// than can run at once, since a goroutine waiting for the disk runs none of
// its work.
func readers(tree fs.FS) int {
	if _, onDisk := tree.(Dir); onDisk {
		return 2 * runtime.GOMAXPROCS(0)
	}
	return runtime.GOMAXPROCS(0)
}

// folder is one folder of a tree: its own files, and where its
// sub-folders stand among them.
type folder[T any] struct {
	treeFiles              // its own files and refused entries, in order
	prefix    int          // the length of the folder's name and slash, before its files' own names
	dir       *dirFD       // the folder opened, on disk
	items     []T          // what the readers made of each own file
	readErrs  []error      // the error reading each own file
	subs      []*folder[T] // its sub-folders, in order
	marks     []mark       // the count of own files and refusals before each sub-folder
	err       error        // the error listing it
}

type mark struct{ names, refused int }

// batch is some files of a folder, for a reader.
type batch[T any] struct {
	f        *folder[T]
	from, to int
}

// batchSize is the count of files a reader takes at once.
const batchSize = 256

// walkTree lists a track's tree as fs.WalkDir visits it, its folders
// listed concurrently, and hands each folder's files to the readers on
// batches, unless it is nil.
func walkTree[T any](tree fs.FS, track *corpus.Track, batches chan<- batch[T]) *folder[T] {
	info, err := fs.Stat(tree, ".")
	if err != nil {
		return &folder[T]{err: err}
	}
	if !info.IsDir() {
		// No file name is "." in a track: the root is refused, and there
		// is nothing to read.
		root := &folder[T]{}
		root.add(track, ".", info.Mode().Type())
		return root
	}
	// Folders are listed at most this many at once: each holds a file
	// descriptor while it is read.
	slots := make(chan struct{}, 2*runtime.GOMAXPROCS(0))
	return listFolder(tree, track, ".", slots, batches)
}

// listFolder lists the folder name, its sub-folders each in a goroutine of
// its own, and hands its files to the readers.
func listFolder[T any](tree fs.FS, track *corpus.Track, name string, slots chan struct{}, batches chan<- batch[T]) *folder[T] {
	slots <- struct{}{}
	entries, err := readFolder(tree, name)
	<-slots
	f := &folder[T]{err: err}
	if err != nil {
		return f
	}
	folders := 0
	for _, e := range entries {
		if e.isDir() {
			folders++
		}
	}
	f.subs, f.marks = make([]*folder[T], folders), make([]mark, folders)
	var wg sync.WaitGroup
	k := 0
	for _, e := range entries {
		if e.isDir() {
			sub := &f.subs[k]
			wg.Go(func() { *sub = listFolder(tree, track, e.name, slots, batches) })
			k++
		}
	}
	// Meanwhile, this folder's own files, noting where each sub-folder
	// stands among them.
	k = 0
	for _, e := range entries {
		if e.isDir() {
			f.marks[k] = mark{len(f.names), len(f.refused)}
			k++
		} else {
			f.add(track, e.name, e.typ)
		}
	}
	if len(f.names) > 0 && batches != nil {
		if name != "." {
			f.prefix = len(name) + 1
		}
		if d, onDisk := tree.(Dir); onDisk {
			dir := d.openFolder(name)
			f.dir = &dir
		}
		f.items, f.readErrs = make([]T, len(f.names)), make([]error, len(f.names))
		for from := 0; from < len(f.names); from += batchSize {
			batches <- batch[T]{f, from, min(from+batchSize, len(f.names))}
		}
	}
	wg.Wait()
	return f
}

// readBatches reads the files of each batch, for the reader r.
func readBatches[T any](tree fs.FS, r int, batches <-chan batch[T], fn func(reader int, name, path string, data []byte) T) {
	_, onDisk := tree.(Dir)
	var fr fileReader
	for b := range batches {
		f := b.f
		for i := b.from; i < b.to; i++ {
			name := f.names[i]
			var data []byte
			var err error
			if onDisk {
				data, err = fr.read(*f.dir, name[f.prefix:], name)
			} else {
				data, err = readExact(tree, name)
			}
			if err != nil {
				f.readErrs[i] = err
				continue
			}
			f.items[i] = fn(r, name, f.paths[i], data)
		}
	}
}

// closeFolders closes the folders opened for reading.
func (f *folder[T]) closeFolders() {
	if f.dir != nil && f.dir.err == nil {
		syscall.Close(f.dir.fd)
	}
	for _, sub := range f.subs {
		sub.closeFolders()
	}
}

// flatten returns the files of the tree under f, and what the readers made
// of them, in the order fs.WalkDir visits them; the error is the first in
// that order: listing a folder, else reading a file.
func (f *folder[T]) flatten() (*treeFiles, []T, error) {
	names, refused := f.count()
	files := treeFiles{names: make([]string, 0, names), paths: make([]string, 0, names), refused: make([]error, 0, refused)}
	items := make([]T, 0, names)
	var readErr error
	if err := f.flattenInto(&files, &items, &readErr); err != nil {
		return nil, nil, err
	}
	if readErr != nil {
		return nil, nil, readErr
	}
	return &files, items, nil
}

// count returns the count of files and of refused entries under f.
func (f *folder[T]) count() (names, refused int) {
	names, refused = len(f.names), len(f.refused)
	for _, sub := range f.subs {
		n, r := sub.count()
		names, refused = names+n, refused+r
	}
	return names, refused
}

func (f *folder[T]) flattenInto(files *treeFiles, items *[]T, readErr *error) error {
	if f.err != nil {
		return f.err
	}
	own := func(from, to mark) {
		files.names = append(files.names, f.names[from.names:to.names]...)
		files.paths = append(files.paths, f.paths[from.names:to.names]...)
		files.refused = append(files.refused, f.refused[from.refused:to.refused]...)
		if f.items != nil {
			*items = append(*items, f.items[from.names:to.names]...)
			for _, err := range f.readErrs[from.names:to.names] {
				if *readErr == nil {
					*readErr = err
				}
			}
		}
	}
	var from mark
	for k, sub := range f.subs {
		own(from, f.marks[k])
		if err := sub.flattenInto(files, items, readErr); err != nil {
			return err
		}
		from = f.marks[k]
	}
	own(from, mark{len(f.names), len(f.refused)})
	return nil
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

var fileReaders = sync.Pool{New: func() any { return new(fileReader) }}

// ReadFile reads a file of the tree into a slice of exactly its size.
// Only regular files are for it: ReadTree refuses any other entry before
// reading.
func (d Dir) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	fr := fileReaders.Get().(*fileReader)
	defer fileReaders.Put(fr)
	data, err := fr.read(dirFD{fd: atCWD}, string(d)+"/"+name, name)
	if err != nil {
		return nil, err
	}
	return append(make([]byte, 0, len(data)), data...), nil
}

// atCWD is AT_FDCWD: a name relative to it is a path as open(2) takes it.
const atCWD = -0x64

// dirFD is a folder opened for reading its files, or the error opening it.
type dirFD struct {
	fd  int
	err error
}

// openFolder opens a folder of the tree, for reading its files.
func (d Dir) openFolder(name string) dirFD {
	fd, err := syscall.Open(string(d)+"/"+name, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	return dirFD{fd: fd, err: err}
}

// fileReader reads files into buffers it reuses from one file to the next.
type fileReader struct {
	buf   []byte
	cpath []byte // the path of the file being opened, NUL-terminated
}

// read reads the file at path, relative to the folder dir, and returns its
// bytes, the reader's until its next read. Errors name the file of the
// tree, name.
func (fr *fileReader) read(dir dirFD, path, name string) ([]byte, error) {
	if dir.err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: dir.err}
	}
	fd, err := fr.openat(dir.fd, path)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer syscall.Close(fd)
	if fr.buf == nil {
		fr.buf = make([]byte, smallFile)
	}
	// A read of a regular file returns fewer bytes than asked only at its
	// end: a file smaller than the buffer is read whole by one read, and
	// only a file that fills it takes more.
	buf := fr.buf[:cap(fr.buf)]
	n := 0
	for {
		m, err := syscall.Read(fd, buf[n:])
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EISDIR:
			return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("not a regular file")}
		case err != nil:
			return nil, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		n += m
		if n < len(buf) {
			fr.buf = buf
			return buf[:n], nil
		}
		buf = slices.Grow(buf, max(smallFile, len(buf)))
		buf = buf[:cap(buf)]
	}
}

// openat opens path relative to the folder dir, as syscall.Openat does but
// without allocating the NUL-terminated path for each file. O_NONBLOCK: a
// FIFO put in the tree must not block the open; a regular file ignores it.
func (fr *fileReader) openat(dir int, path string) (int, error) {
	if strings.IndexByte(path, 0) >= 0 {
		return -1, syscall.EINVAL
	}
	fr.cpath = append(append(fr.cpath[:0], path...), 0)
	for {
		fd, _, errno := syscall.Syscall6(syscall.SYS_OPENAT, uintptr(dir), uintptr(unsafe.Pointer(&fr.cpath[0])),
			syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0, 0, 0)
		switch errno {
		case 0:
			return int(fd), nil
		case syscall.EINTR:
			continue
		}
		return -1, errno
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
