package index

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/internal/printable"
	"github.com/arkforge/proveit-corpus/tools/proofs"
)

// A site is replaced whole or not at all: the build writes a new folder
// beside it, then puts it in the site's place in one step (siteswap_*.go),
// so that a build that fails or is killed leaves the previous Index as it
// was, and two builds on one folder each publish a whole season.

// The most a published file may hold, which the build never exceeds and
// the check never reads past. A page parses into a tree many times its
// size; a report's JSON carries the narratives whole.
var (
	pageLimit = proofs.Limit{What: "a published page", Bytes: 16 << 20}
	jsonLimit = proofs.Limit{What: "a published JSON file", Bytes: 64 << 20}
)

func limitOf(name string) proofs.Limit {
	if strings.HasSuffix(name, ".json") {
		return jsonLimit
	}
	return pageLimit
}

// siteFileName is a name the Index gives a file: a page or a JSON file at
// the site's root or in a track's folder.
var siteFileName = regexp.MustCompile(`^[a-z0-9-]{1,64}\.(html|json)$`)

// dirSink writes the site into a new folder, through os.Root.
type dirSink struct{ root *os.Root }

func (d dirSink) file(name string, data []byte) error {
	if limit := limitOf(name); int64(len(data)) > limit.Bytes {
		return fmt.Errorf("%s: %d bytes, over the %d %s may hold", name, len(data), limit.Bytes, limit.What)
	}
	if dir := path.Dir(name); dir != "." {
		if err := d.root.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	f, err := d.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Build writes the Index of the season into the folder site: a new
// folder, or one that holds a previous Index and nothing else, outside
// the season's folder. The site is replaced whole once every file is
// written, or left as it was.
func Build(o Options, site string) error {
	if err := checkSiteFolder(o.Season, site); err != nil {
		return badInput(err)
	}
	parent, base := filepath.Split(filepath.Clean(site))
	if parent == "" {
		parent = "."
	}
	building, err := os.MkdirTemp(parent, "."+base+".building-")
	if err != nil {
		return badInput(err)
	}
	defer os.RemoveAll(building) // after the swap, the previous Index
	root, err := os.OpenRoot(building)
	if err != nil {
		return badInput(err)
	}
	err = o.generate(dirSink{root})
	root.Close()
	if err != nil {
		return err
	}
	if err := os.Chmod(building, 0o755); err != nil {
		return err
	}
	return swapIn(building, site)
}

// checkSiteFolder refuses an output folder that is the season's, inside
// it or around it (a report named cle.json would overwrite the key), a
// link, or a folder holding anything but a previous Index (which the
// build replaces whole, and would otherwise delete).
func checkSiteFolder(seasonDir, site string) error {
	seasonAbs, err := filepath.Abs(seasonDir)
	if err != nil {
		return err
	}
	if real, err := filepath.EvalSymlinks(seasonAbs); err == nil {
		seasonAbs = real
	}
	siteAbs, err := filepath.Abs(site)
	if err != nil {
		return err
	}
	info, err := os.Lstat(siteAbs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// Its parent decides where it will be.
		if real, err := filepath.EvalSymlinks(filepath.Dir(siteAbs)); err == nil {
			siteAbs = filepath.Join(real, filepath.Base(siteAbs))
		}
	case err != nil:
		return err
	case info.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("-o %s: a link: name the folder itself, which the build replaces whole", printable.String(site))
	case !info.IsDir():
		return fmt.Errorf("-o %s: not a folder", printable.String(site))
	default:
		if real, err := filepath.EvalSymlinks(siteAbs); err == nil {
			siteAbs = real
		}
	}
	if within(siteAbs, seasonAbs) || within(seasonAbs, siteAbs) {
		return fmt.Errorf("-o %s: the site is written outside the season's folder %s, never in it or around it", printable.String(site), printable.String(seasonDir))
	}
	if err == nil {
		return checkPreviousIndex(site)
	}
	return nil
}

// within reports whether path is dir or inside it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// checkPreviousIndex refuses a folder that holds anything an Index does
// not: the build replaces the folder whole.
func checkPreviousIndex(site string) error {
	entries, err := os.ReadDir(site)
	if err != nil {
		return err
	}
	refuse := func(name, why string) error {
		return fmt.Errorf("-o %s: holds %s, %s: the build replaces the folder whole, so it must be new or hold a previous Index only", printable.String(site), printable.String(name), why)
	}
	for _, e := range entries {
		switch {
		case e.Type().IsRegular() && siteFileName.MatchString(e.Name()):
		case e.IsDir() && isTrack(e.Name()):
			files, err := os.ReadDir(filepath.Join(site, e.Name()))
			if err != nil {
				return err
			}
			for _, f := range files {
				if !f.Type().IsRegular() || !siteFileName.MatchString(f.Name()) {
					return refuse(e.Name()+"/"+f.Name(), "not a file of an Index")
				}
			}
		default:
			return refuse(e.Name(), "not a file of an Index")
		}
	}
	return nil
}

func isTrack(name string) bool {
	_, err := corpus.TrackNamed(name)
	return err == nil
}
