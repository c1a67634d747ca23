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
