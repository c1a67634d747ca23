package main

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadmeLayoutNamesEveryPackage: the README's layout table says what
// every folder of Go code is, by its path, or by its name in the row of
// the folder above it, and names no folder the tree lacks.
func TestReadmeLayoutNamesEveryPackage(t *testing.T) {
	inRepoRoot(t)
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	start := strings.Index(string(readme), "## Layout\n")
	require.GreaterOrEqual(t, start, 0, "README.md has a Layout section")
	layout := string(readme)[start:]
	layout = layout[:strings.Index(layout, "\n## ")]
	rows := map[string]string{} // folder of a row ("tools/") to the row
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+)` \\|(.*)$").FindAllStringSubmatch(layout, -1) {
		rows[m[1]] = m[2]
	}

	var packages []string
	require.NoError(t, filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if name := d.Name(); p != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "bin") {
			return filepath.SkipDir
		}
		if matches, _ := filepath.Glob(filepath.Join(p, "*.go")); len(matches) > 0 && p != "." {
			packages = append(packages, filepath.ToSlash(p))
		}
		return nil
	}))
	require.Contains(t, packages, "manifest/verify")
	for _, pkg := range packages {
		named := strings.Contains(layout, "`"+pkg+"`") || strings.Contains(layout, "`"+pkg+"/`")
		for parent := path.Dir(pkg); !named && parent != "."; parent = path.Dir(parent) {
			row, ok := rows[parent+"/"]
			named = ok && strings.Contains(row, "`"+path.Base(pkg)+"`")
		}
		assert.True(t, named, "README.md's layout names %s", pkg)
	}

	// And every folder it names exists.
	for _, m := range regexp.MustCompile("`((?:caddy-module|corpus|manifest|tools|deploy|docs)(?:/[a-z0-9-]+)*)/?`").FindAllStringSubmatch(layout, -1) {
		_, err := os.Stat(m[1])
		assert.NoError(t, err, "README.md's layout names %s", m[1])
	}
}

// TestDocLinksResolve: every relative link of the README and of docs/
// names a file or folder of the repository, from the folder of the page
// that holds it.
func TestDocLinksResolve(t *testing.T) {
	inRepoRoot(t)
	pages, err := filepath.Glob("docs/*.md")
	require.NoError(t, err)
	pages = append(pages, "README.md")
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	checked := 0
	for _, page := range pages {
		text, err := os.ReadFile(page)
		require.NoError(t, err)
		for _, m := range link.FindAllStringSubmatch(string(text), -1) {
			target, _, _ := strings.Cut(m[1], "#")
			if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			checked++
			_, err := os.Stat(filepath.Join(filepath.Dir(page), filepath.FromSlash(target)))
			assert.NoError(t, err, "%s links %s", page, m[1])
		}
	}
	require.Positive(t, checked)
}
