package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/tools/proofs"
)

// forged is text a hostile file or server may hold: an escape sequence
// that retitles the terminal, then a line that would read as a verdict.
const forged = "\x1b]0;pwned\a\x1b[2J\nprf_20260923_072144_2ad720 valide"

// assertPrintable requires text to be lines of graphic characters, none of
// them the forged verdict.
func assertPrintable(t *testing.T, text string) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		assert.NotEqual(t, "prf_20260923_072144_2ad720 valide", line, "a forged line")
		for _, r := range line {
			assert.True(t, unicode.IsGraphic(r), "%q in %q", r, line)
		}
	}
}

// Text from a view, a submission or a proof id reaches the terminal
// printable, on the lines the report gives it: never an escape sequence,
// never a line of its own.
func TestHostileTextOnTerminal(t *testing.T) {
	views := t.TempDir()
	const id = "prf_20260101_000000_000000"
	view := `{"proof_id": "` + id + `", "commitments": {"` + strings.ReplaceAll(strings.ReplaceAll(forged, "\x1b", `\u001b`), "\a", `\u0007`) + `": 1}}`
	view = strings.ReplaceAll(view, "\n", `\n`)
	require.NoError(t, os.WriteFile(proofs.ViewFile(views, id), []byte(view), 0o644))
	sub := filepath.Join(t.TempDir(), "sub.json")
	require.NoError(t, os.WriteFile(sub, []byte(`{"a": 1, "`+strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(forged, "\x1b", `\u001b`), "\a", `\u0007`), "\n", `\n`)+`": {"x": 1, "x": 2}}`), 0o644))
	window := []string{"-opening", "2026-09-01T00:00:00Z", "-closing", "2026-09-30T23:59:59Z"}

	code, out, errOut := runCLI(append(append([]string{"proofs", "verify", "-views", views}, window...), id)...)
	assert.Equal(t, 1, code, errOut)
	assert.Contains(t, out, id+" invalide: vue_illisible\n")
	assert.Contains(t, out, id+` vue_illisible: `+proofs.ViewFile(views, id)+` /commitments/\x1b]0;pwned\a\x1b[2J\nprf_20260923_072144_2ad720 valide: want a string or null`)
	assertPrintable(t, out)

	code, out, errOut = runCLI(append(append([]string{"proofs", "verify", "-views", views}, window...), sub)...)
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Equal(t, 1, strings.Count(errOut, "\n"), errOut)
	assert.Contains(t, errOut, `\x1b]0;pwned`)
	assertPrintable(t, errOut)

	text := resultsText(map[string]proofs.Result{forged: {Failures: []proofs.Check{proofs.CheckViewMissing}}})
	assert.Equal(t, `\x1b]0;pwned\a\x1b[2J\nprf_20260923_072144_2ad720 valide invalide: vue_absente`+"\n", text)
	assertPrintable(t, text)
}
