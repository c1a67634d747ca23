// Package tree reads a folder tree of many small files, such as a corpus
// tree, in the order fs.WalkDir visits it: its folders listed and its files
// read concurrently, every entry that is not a file the caller accepts
// refused by name, and no file read past the size the caller allows.
//
// A tree is any fs.FS; a folder on disk is a Dir, read through the portable
// os and io/fs packages on every platform.
package tree

import (
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"sync"
)

// Rule names a regular file of a tree, given its slash-separated name
// relative to the tree's root, with the key its caller knows it by (a
// corpus file's canonical path), or refuses it with an error naming it.
type Rule func(name string) (key string, err error)

// Files lists the files of a tree in the order fs.WalkDir visits them.
type Files struct {
	Names   []string // the files accepted, relative to the tree's root
	Keys    []string // the key the rule gave each
	Refused []error  // the entries refused, each error naming its entry
}

// ErrTooLarge is wrapped by the refusal of a file larger than a scan allows.
var ErrTooLarge = errors.New("larger than a file of the tree may be")

// Scan lists a tree and reads its files at once: the files of a folder are
// handed to the readers as soon as the folder is listed, while other
// folders still are, so that every CPU is busy from the first file to the
// last.
//
// An entry that is not a regular file, that rule refuses, or that holds
// more than maxSize bytes is in the Refused of the result; a file is never
// read past maxSize bytes. For each other file, fn is called with the index
// of the reader (below Readers(tree); calls with the same index never
// overlap), the file's name, its key and its bytes, which are fn's only for
// the call; what fn returns is in items, in the order of Files.Names. The
// error is that of listing the tree, or else that of the first file, in
// walking order, that could not be read.
func Scan[T any](tree fs.FS, rule Rule, maxSize int64, fn func(reader int, name, key string, data []byte) T) (files *Files, items []T, err error) {
	return scan(tree, sourceOf(tree), rule, maxSize, fn)
}

// scan is Scan, reading the tree from src.
func scan[T any](tree fs.FS, src source, rule Rule, maxSize int64, fn func(reader int, name, key string, data []byte) T) (*Files, []T, error) {
	batches := make(chan batch[T], 1024)
	var wg sync.WaitGroup
	for r := range Readers(tree) {
		wg.Go(func() { readBatches(r, maxSize, batches, fn) })
	}
	root := walk(tree, src, rule, batches)
	close(batches)
	wg.Wait()
	root.closeFolders()
	return root.flatten()
}

// Readers is the count of goroutines that read a tree: on a folder on
// disk, more than can run at once, since a goroutine waiting for the disk
// runs none of its work.
func Readers(tree fs.FS) int {
	if _, onDisk := tree.(Dir); onDisk {
		return 2 * runtime.GOMAXPROCS(0)
	}
	return runtime.GOMAXPROCS(0)
}

// folder is one folder of a tree: its own files, and where its
// sub-folders stand among them.
type folder[T any] struct {
	Files                 // its own files and refused entries, in order
	prefix   int          // the length of the folder's name and slash, before its files' own names
	reader   fileReader   // the folder opened for reading its files
	items    []T          // what fn made of each own file
	readErrs []error      // the error reading each own file
	subs     []*folder[T] // its sub-folders, in order
	marks    []mark       // the count of own files and refusals before each sub-folder
	err      error        // the error listing it
}

type mark struct{ names, refused int }

// batch is some files of a folder, for a reader.
type batch[T any] struct {
	f        *folder[T]
	from, to int
}

// batchSize is the count of files a reader takes at once.
const batchSize = 256

// walk lists a tree as fs.WalkDir visits it, its folders listed
// concurrently, and hands each folder's files to the readers on batches,
// unless it is nil.
func walk[T any](tree fs.FS, src source, rule Rule, batches chan<- batch[T]) *folder[T] {
	info, err := fs.Stat(tree, ".")
	if err != nil {
		return &folder[T]{err: err}
	}
	if !info.IsDir() {
		// The root is not a folder: fs.WalkDir visits it alone, and it has
		// no file name to read it by.
		root := &folder[T]{}
		root.add(rule, ".", info.Mode().Type())
		return root
	}
	// Folders are listed at most this many at once: each holds a file
	// descriptor while it is read.
	slots := make(chan struct{}, 2*runtime.GOMAXPROCS(0))
	return listFolder(src, rule, ".", slots, batches)
}

// listFolder lists the folder name, its sub-folders each in a goroutine of
// its own, and hands its files to the readers.
func listFolder[T any](src source, rule Rule, name string, slots chan struct{}, batches chan<- batch[T]) *folder[T] {
	slots <- struct{}{}
	entries, err := src.list(name)
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
			wg.Go(func() { *sub = listFolder(src, rule, e.name, slots, batches) })
			k++
		}
	}
	// Meanwhile, this folder's own files, noting where each sub-folder
	// stands among them.
	k = 0
	for _, e := range entries {
		if e.isDir() {
			f.marks[k] = mark{len(f.Names), len(f.Refused)}
			k++
		} else {
			f.add(rule, e.name, e.typ)
		}
	}
	if len(f.Names) > 0 && batches != nil {
		if name != "." {
			f.prefix = len(name) + 1
		}
		f.reader = src.open(name)
		f.items, f.readErrs = make([]T, len(f.Names)), make([]error, len(f.Names))
		for from := 0; from < len(f.Names); from += batchSize {
			batches <- batch[T]{f, from, min(from+batchSize, len(f.Names))}
		}
	}
	wg.Wait()
	return f
}

// add lists the file name, of type typ, or the reason it is refused.
func (l *Files) add(rule Rule, name string, typ fs.FileMode) {
	if !typ.IsRegular() {
		l.Refused = append(l.Refused, fmt.Errorf("%s: not a regular file", name))
		return
	}
	key, err := rule(name)
	if err != nil {
		l.Refused = append(l.Refused, err)
		return
	}
	l.Names, l.Keys = append(l.Names, name), append(l.Keys, key)
}

// readBatches reads the files of each batch, for the reader r.
func readBatches[T any](r int, maxSize int64, batches <-chan batch[T], fn func(reader int, name, key string, data []byte) T) {
	var buf buffer
	for b := range batches {
		f := b.f
		for i := b.from; i < b.to; i++ {
			name := f.Names[i]
			data, err := f.reader.read(&buf, name[f.prefix:], name, maxSize)
			if err != nil {
				f.readErrs[i] = err
				continue
			}
			f.items[i] = fn(r, name, f.Keys[i], data)
		}
	}
}

// closeFolders closes the folders opened for reading.
func (f *folder[T]) closeFolders() {
	if f.reader != nil {
		f.reader.close()
	}
	for _, sub := range f.subs {
		sub.closeFolders()
	}
}

// flatten returns the files of the tree under f, and what the readers made
// of them, in the order fs.WalkDir visits them; the error is the first in
// that order: listing a folder, else reading a file.
func (f *folder[T]) flatten() (*Files, []T, error) {
	names, refused := f.count()
	files := Files{Names: make([]string, 0, names), Keys: make([]string, 0, names), Refused: make([]error, 0, refused)}
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
	names, refused = len(f.Names), len(f.Refused)
	for _, sub := range f.subs {
		n, r := sub.count()
		names, refused = names+n, refused+r
	}
	return names, refused
}

func (f *folder[T]) flattenInto(files *Files, items *[]T, readErr *error) error {
	if f.err != nil {
		return f.err
	}
	own := func(from, to mark) {
		files.Refused = append(files.Refused, f.Refused[from.refused:to.refused]...)
		if f.items == nil {
			files.Names = append(files.Names, f.Names[from.names:to.names]...)
			files.Keys = append(files.Keys, f.Keys[from.names:to.names]...)
			return
		}
		// A file too large is refused after the folder's other refusals
		// of the same stretch.
		for i := from.names; i < to.names; i++ {
			switch err := f.readErrs[i]; {
			case errors.Is(err, ErrTooLarge):
				files.Refused = append(files.Refused, err)
			case err != nil:
				if *readErr == nil {
					*readErr = err
				}
			default:
				files.Names, files.Keys = append(files.Names, f.Names[i]), append(files.Keys, f.Keys[i])
				*items = append(*items, f.items[i])
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
	own(from, mark{len(f.Names), len(f.Refused)})
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
