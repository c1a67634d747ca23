package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// The checked-in catalogue is the one built; a changed one, and a statement
// that names a trap no statement names, fail the check.
func TestCatalogue(t *testing.T) {
	inRepoRoot(t)
	code, out, errOut := runCLI("catalogue", "-check")
	require.Equal(t, 0, code, out+errOut)
	assert.Contains(t, out, "OK docs/catalogue/conformite.md is up to date")
	assert.Contains(t, out, "OK docs/catalogue/conformite.json is up to date")

	dir := t.TempDir()
	code, out, _ = runCLI("catalogue", "-o", dir)
	require.Equal(t, 0, code, out)
	for _, ext := range []string{".md", ".json"} {
		built, err := os.ReadFile(filepath.Join(dir, "conformite"+ext))
		require.NoError(t, err)
		checkedIn, err := os.ReadFile("docs/catalogue/conformite" + ext)
		require.NoError(t, err)
		assert.Equal(t, string(checkedIn), string(built), "the tool writes what is checked in")
	}
	md := filepath.Join(dir, "conformite.md")
	require.NoError(t, os.WriteFile(md, []byte("# Catalogue\n"), 0o644))
	code, out, _ = runCLI("catalogue", "-check", "-o", dir)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "FAIL "+md+" is not the catalogue of manifest/conformite.json")

	statements, err := os.ReadFile(season.TasksFile(corpus.Conformity))
	require.NoError(t, err)
	leaky := filepath.Join(dir, "taches.json")
	require.NoError(t, os.WriteFile(leaky, []byte(strings.Replace(string(statements), "en étayant", "(voir /avenants/AVN-3412) en étayant", 1)), 0o644))
	code, out, _ = runCLI("catalogue", "-check", "-track", "conformite", "-tasks", leaky)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "FAIL "+leaky+": names the absent reference /avenants/AVN-3412, which no statement names (published at the opening)")
}
