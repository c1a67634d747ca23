package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/tools/index"
	"github.com/arkforge/proveit-corpus/tools/index/indextest"
	"github.com/arkforge/proveit-corpus/tools/score"
)

// proveit index builds the Index from a season's folder, each row the
// figures proveit score gives the enrollment alone, and -check passes on
// it untouched, then names an edited cell with exit status 1.
func TestIndexCommand(t *testing.T) {
	inRepoRoot(t)
	dir := t.TempDir()
	alice := indextest.Enroll("alice", "Alice", 1, indextest.Careful)
	s := indextest.New(t, dir)
	s.Track(t, corpus.Conformity, []indextest.Enrollment{
		alice,
		indextest.Enroll("carol", "Carol", 2, indextest.Guesser),
		indextest.SameKeyAs(indextest.Enroll("dave", "Dave", 3, indextest.Careful), alice),
	})
	s.CloseBatch(t)
	s.WriteViews(t)
	site := filepath.Join(t.TempDir(), "site")

	code, out, errOut := runCLI("index", "-season", dir, "-o", site, "-trust", s.Trust)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, site+"/index.html\n", out)

	data, err := os.ReadFile(filepath.Join(site, "conformite", "index.json"))
	require.NoError(t, err)
	var idx index.Index
	require.NoError(t, json.Unmarshal(data, &idx))
	require.Len(t, idx.Tables.Community, 2)
	track := filepath.Join(dir, "conformite")
	for _, row := range idx.Tables.Community {
		files, err := filepath.Glob(filepath.Join(track, "soumissions", row.ID, "*.json"))
		require.NoError(t, err)
		alone := replay(t, append([]string{"score", "-track", "conformite", "-record", filepath.Join(track, "preenregistrement.json"),
			"-salt", filepath.Join(track, "sel"), "-key", filepath.Join(track, "cle.json"), "-views", filepath.Join(dir, "views"), "-trust", s.Trust}, files...))
		assert.Equal(t, alone.Overclaim.Unsupported, row.Overclaim.Unsupported, row.ID)
		assert.Equal(t, alone.Overclaim.Rendered, row.Overclaim.Rendered, row.ID)
		assert.Equal(t, alone.Overclaim.Rate, row.Overclaim.Rate, row.ID)
		assert.Equal(t, *alone.Success.Founded, row.Success.Founded, row.ID)
		assert.Equal(t, alone.Constant.Success, idx.Constant.Success)

		var published struct {
			Replay score.Report `json:"rapport"`
		}
		data, err := os.ReadFile(filepath.Join(site, "conformite", row.ID+".json"))
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(data, &published))
		assert.Equal(t, *alone, published.Replay, "%s: the report is the replay's", row.ID)
	}

	code, out, errOut = runCLI("index", "-check", site, "-season", dir, "-trust", s.Trust)
	require.Equal(t, 0, code, out+errOut)
	assert.Contains(t, out, "OK "+site)

	page := filepath.Join(site, "conformite", "index.html")
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(page, []byte(strings.Replace(string(html), ">Carol</a>", ">Caroline</a>", 1)), 0o644))
	code, out, errOut = runCLI("index", "-check", site, "-season", dir, "-trust", s.Trust)
	assert.Equal(t, 1, code, out+errOut)
	assert.Contains(t, out, `DIFFERS conformite conformite/index.html: table communaute, participant carol, column agent: published "Caroline <carol.html>", replayed "Carol <carol.html>"`)
	assert.Contains(t, errOut, "1 cells differ from the replay")

	// Against the pinned material, which knows none of the stand-in's
	// keys, the three commands say in one line that the keys failed, not
	// the participants, and render nothing.
	files, err := filepath.Glob(filepath.Join(track, "soumissions", "alice", "*.json"))
	require.NoError(t, err)
	pinned := "verifies against the pinned trust material"
	code, out, errOut = runCLI(append([]string{"score", "-track", "conformite", "-record", filepath.Join(track, "preenregistrement.json"),
		"-salt", filepath.Join(track, "sel"), "-key", filepath.Join(track, "cle.json"), "-views", filepath.Join(dir, "views")}, files...)...)
	assert.Equal(t, 2, code, out+errOut)
	assert.Empty(t, out, "no report")
	assert.Contains(t, errOut, pinned)
	assert.Equal(t, 1, strings.Count(errOut, "\n"), errOut)
	code, _, errOut = runCLI(append([]string{"proofs", "verify", "-views", filepath.Join(dir, "views"), "-track", "conformite",
		"-record", filepath.Join(track, "preenregistrement.json")}, files...)...)
	assert.Equal(t, 1, code, errOut)
	assert.Contains(t, errOut, pinned)
	code, _, errOut = runCLI("index", "-season", dir, "-o", filepath.Join(t.TempDir(), "site"))
	assert.Equal(t, 2, code, errOut)
	assert.Contains(t, errOut, pinned)
	assert.Equal(t, 1, strings.Count(errOut, "\n"), errOut)
}

// Bad usage and bad input: exit status 2, one line.
func TestIndexCommandLine(t *testing.T) {
	inRepoRoot(t)
	empty := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no season", []string{"index", "-o", empty}, "-season is required"},
		{"neither -o nor -check", []string{"index", "-season", empty}, "say where: -o SITE to build, or -check SITE to re-derive"},
		{"both -o and -check", []string{"index", "-season", empty, "-o", empty, "-check", empty}, "-o builds and -check re-derives: give one"},
		{"a season that is not a folder", []string{"index", "-season", filepath.Join(empty, "none"), "-o", empty}, "no such folder"},
		{"a season with no track", []string{"index", "-season", empty, "-o", filepath.Join(t.TempDir(), "site")}, "no track's folder"},
		{"a site inside the season", []string{"index", "-season", empty, "-o", filepath.Join(empty, "site")}, "outside the season's folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertOneLine(t, tt.args, 2, tt.want)
		})
	}
	code, out, _ := runCLI("index", "-h")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "usage: proveit index -season DIR -o SITE [-dry-run] [-trust DIR]")
	assertNamesExitStatuses(t, out)
}

// docs/contract.md's example of index.json has the members the Index
// writes, in its order.
func TestContractIndexExample(t *testing.T) {
	inRepoRoot(t)
	blocks := jsonBlocks(contractSection(t, "## 10. Publishing the Index"))
	require.Len(t, blocks, 1)
	var example index.Index
	require.NoError(t, json.Unmarshal([]byte(blocks[0]), &example))
	written, err := json.MarshalIndent(example, "", "  ")
	require.NoError(t, err)
	members := func(doc string) []string {
		var out []string
		for _, line := range strings.Split(doc, "\n") {
			if name, _, ok := strings.Cut(strings.TrimSpace(line), ":"); ok && strings.HasPrefix(name, `"`) {
				out = append(out, name)
			}
		}
		return out
	}
	var compact strings.Builder
	for _, part := range strings.Split(strings.NewReplacer("{", "{\n", ",", ",\n").Replace(blocks[0]), "\n") {
		compact.WriteString(part + "\n")
	}
	assert.Equal(t, members(string(written)), members(compact.String()))
}
