// Package atomicfile writes a file whole or not at all: the data goes to a
// temporary file beside its path, with its final permission, synced, and
// only then takes the path's name. A reader, or a crash, sees the old file
// or the new one, never half of one.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Replace writes data to path with permission perm, replacing any file
// there.
func Replace(path string, data []byte, perm os.FileMode) error {
	tmp, err := Temp(path, data, perm)
	if err != nil {
		return err
	}
	defer os.Remove(tmp) // after the rename, a no-op
	return os.Rename(tmp, path)
}

// Temp writes data with permission perm to a new temporary file beside
// path, synced and closed, and returns its name: the caller moves it into
// place (Replace renames it; a caller that must not replace a file links
// it) and removes it. Its name starts with a dot, so that a listing of the
// folder passes over it.
func Temp(path string, data []byte, perm os.FileMode) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return "", err
	}
	fail := func(err error) (string, error) {
		f.Close()
		os.Remove(f.Name())
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
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}
