// Package atomicfile writes a file whole or not at all: the data goes to a
// temporary file beside its path, with its final permission, synced, and
// only then takes the path's name. A reader, or a crash, sees the old file
// or the new one, never half of one.
package atomicfile

import (
	"crypto/rand"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Replace writes data to path with permission perm, replacing any file
// there.
func Replace(path string, data []byte, perm os.FileMode) error {
	root, err := os.OpenRoot(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer root.Close()
	return ReplaceIn(root, filepath.Base(path), data, perm)
}

// ReplaceIn writes data to name inside root with permission perm,
// replacing any file there. Both the temporary file and the final one stay
// inside root: a link on the way that leads out of it is an error, and a
// link at name itself is replaced, never written through.
func ReplaceIn(root *os.Root, name string, data []byte, perm os.FileMode) error {
	tmp, err := tempIn(root, name, data, perm)
	if err != nil {
		return err
	}
	defer root.Remove(tmp) // after the rename, a no-op
	return root.Rename(tmp, name)
}

// Temp writes data with permission perm to a new temporary file beside
// path, synced and closed, and returns its name: the caller moves it into
// place (Replace renames it; a caller that must not replace a file links
// it) and removes it. Its name starts with a dot, so that a listing of the
// folder passes over it.
func Temp(path string, data []byte, perm os.FileMode) (string, error) {
	dir := filepath.Dir(path)
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", err
	}
	defer root.Close()
	tmp, err := tempIn(root, filepath.Base(path), data, perm)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, tmp), nil
}

// tempIn writes data to a new temporary file beside name inside root and
// returns its name inside root.
func tempIn(root *os.Root, name string, data []byte, perm os.FileMode) (string, error) {
	var f *os.File
	var tmp string
	for range 10 {
		tmp = filepath.Join(filepath.Dir(name), "."+filepath.Base(name)+"-"+rand.Text()[:12])
		var err error
		f, err = root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	if f == nil {
		return "", &fs.PathError{Op: "create", Path: tmp, Err: fs.ErrExist}
	}
	fail := func(err error) (string, error) {
		f.Close()
		root.Remove(tmp)
		return "", err
	}
	if err := f.Chmod(perm); err != nil {
		return fail(err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		root.Remove(tmp)
		return "", err
	}
	return tmp, nil
}
