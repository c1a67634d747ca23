package index

import (
	"errors"
	"io/fs"
	"os"
)

// swapInTwoSteps puts the folder built in site's place by two renames:
// the previous Index to a name beside it, then the new one to site; built
// then names the previous Index, which the caller removes. Between the
// two, site is absent for an instant; a build killed there leaves the
// previous Index whole, under built's name.
func swapInTwoSteps(built, site string) error {
	if _, err := os.Lstat(site); errors.Is(err, fs.ErrNotExist) {
		return os.Rename(built, site)
	}
	aside := built + ".previous"
	if err := os.Rename(site, aside); err != nil {
		return err
	}
	if err := os.Rename(built, site); err != nil {
		return errors.Join(err, os.Rename(aside, site))
	}
	return os.Rename(aside, built)
}
