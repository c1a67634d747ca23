//go:build linux

package index

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// swapIn puts the folder built in site's place in one step: the kernel
// exchanges the two names (renameat2 RENAME_EXCHANGE), so that a reader
// sees the previous Index or the new one, never neither. built then holds
// the previous Index, which the caller removes.
func swapIn(built, site string) error {
	if _, err := os.Lstat(site); errors.Is(err, fs.ErrNotExist) {
		return os.Rename(built, site)
	}
	err := unix.Renameat2(unix.AT_FDCWD, built, unix.AT_FDCWD, site, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL) {
		return swapInTwoSteps(built, site) // a file system without the exchange
	}
	return err
}
