// Package privatefile writes the files that hold a secret (the challenge
// secrets of the nginx gate, a season's salt): readable by their owner only,
// written whole or not at all, and never inside a git work tree, so that no
// commit can carry one.
package privatefile

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/arkforge/proveit-corpus/tools/atomicfile"
)

// Mode is the permission of every file this package writes.
const Mode os.FileMode = 0o600

// Replace writes data to path, replacing any file there, atomically: a
// reader sees the old file or the new one, never half of one.
func Replace(path string, data []byte) error {
	tmp, err := writeTemp(path, data)
	if err != nil {
		return err
	}
	defer os.Remove(tmp) // after the rename, a no-op
	return os.Rename(tmp, path)
}

// Create writes data to a new file at path and refuses a path that exists:
// a secret already written there may be the only copy of one still needed.
func Create(path string, data []byte) error {
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%s exists: a private file is never overwritten; choose another path", path)
	}
	tmp, err := writeTemp(path, data)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	// A hard link fails where a file appeared meanwhile, where a rename
	// would silently replace it.
	if err := os.Link(tmp, path); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// CheckOutsideWorkTrees refuses a path inside a git work tree.
func CheckOutsideWorkTrees(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	if repo, inside := workTreeOf(filepath.Dir(abs)); inside {
		return fmt.Errorf("%s: inside the git work tree %s; a secret must live outside every repository", path, repo)
	}
	return nil
}

// writeTemp writes data, mode 0600, to a new temporary file beside path and
// returns its name.
func writeTemp(path string, data []byte) (string, error) {
	if err := CheckOutsideWorkTrees(path); err != nil {
		return "", err
	}
	return atomicfile.Temp(path, data, Mode)
}

// workTreeOf reports the work tree holding dir, if any: a folder at or
// above it with a .git entry.
func workTreeOf(dir string) (string, bool) {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real // a link into a repository is inside it
	}
	for dir = filepath.Clean(dir); ; dir = filepath.Dir(dir) {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir, true
		}
		if filepath.Dir(dir) == dir {
			return "", false
		}
	}
}
