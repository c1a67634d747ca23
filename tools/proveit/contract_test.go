package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/manifest/anchor"
)

// contractSection returns the text of docs/contract.md from the heading
// that starts with heading to the next heading of the same level.
func contractSection(t *testing.T, heading string) string {
	t.Helper()
	data, err := os.ReadFile("docs/contract.md")
	require.NoError(t, err)
	doc := string(data)
	start := strings.Index(doc, "\n"+heading)
	require.GreaterOrEqual(t, start, 0, "docs/contract.md has no heading %q", heading)
	rest := doc[start+1:]
	level := rest[:strings.Index(rest, " ")+1]
	if end := strings.Index(rest[len(heading):], "\n"+level); end >= 0 {
		return rest[:len(heading)+end]
	}
	return rest
}

// jsonBlocks returns the ```json blocks of a Markdown text, in order.
func jsonBlocks(text string) []string {
	var blocks []string
	for _, m := range regexp.MustCompile("(?s)```json\n(.*?)```").FindAllStringSubmatch(text, -1) {
		blocks = append(blocks, m[1])
	}
	return blocks
}

// exampleTask is the part of a score report's task the example is checked on.
type exampleTask struct {
	TaskID       string `json:"task_id"`
	Status       string `json:"statut"`
	VerdictExact bool   `json:"verdict_exact"`
	VerdictFonde bool   `json:"verdict_fonde"`
	Assertions   []struct {
		ID     string `json:"id"`
		Status string `json:"statut"`
	} `json:"assertions"`
}

// The worked submission of docs/contract.md, with the verifier's input
// beside it, is scored as the page says: rendered, exact, founded, every
// assertion supported.
func TestContractExample(t *testing.T) {
	inRepoRoot(t)
	submissions := jsonBlocks(contractSection(t, "## 6. "))
	proofs := jsonBlocks(contractSection(t, "## 7. "))
	require.Len(t, submissions, 1, "section 6 holds one example submission")
	require.Len(t, proofs, 1, "section 7 holds one example of the verifier's input")

	dir := t.TempDir()
	subFile, proofsFile := filepath.Join(dir, "conf-01.json"), filepath.Join(dir, "verifier.json")
	require.NoError(t, os.WriteFile(subFile, []byte(submissions[0]), 0o600))
	require.NoError(t, os.WriteFile(proofsFile, []byte(proofs[0]), 0o600))

	// A dry run: the record's salt is the operator's, never in the
	// repository; the example is about the formats, which the dry run reads
	// as strictly as a scored run.
	code, stdout, stderr := runCLI("score", "-track", "conformite", "-dry-run", "-proofs", proofsFile, subFile)
	require.Equal(t, 0, code, stderr)
	var report struct {
		Anchoring string        `json:"ancrage"`
		Tasks     []exampleTask `json:"taches"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &report))
	assert.Equal(t, "essai_non_ancre", report.Anchoring)
	var task *exampleTask
	for i := range report.Tasks {
		if report.Tasks[i].TaskID == "conf-01" {
			task = &report.Tasks[i]
		}
	}
	require.NotNil(t, task, "the report has conf-01")
	assert.Equal(t, "rendue", task.Status)
	assert.True(t, task.VerdictExact)
	assert.True(t, task.VerdictFonde)
	require.Len(t, task.Assertions, 3)
	for _, a := range task.Assertions {
		assert.Equal(t, "etayee", a.Status, a.ID)
	}
}

// Each reference row of docs/contract.md section 1 holds: the canonical
// form is Python's json.dumps of the input, and the hash is its SHA-256, as
// package anchor computes it too.
func TestContractReferenceRows(t *testing.T) {
	inRepoRoot(t)
	python, err := exec.LookPath("python3")
	require.NoError(t, err, "the hashes are proven against Python 3's json module")
	rows := regexp.MustCompile("(?m)^\\| (?:`request_data` of `([^`]+)`|body `(\\{[^`]*\\})`) \\| `([^`]+)` \\| `([0-9a-f]{64})` \\|$").
		FindAllStringSubmatch(contractSection(t, "## 1. "), -1)
	require.Len(t, rows, 3, "section 1's table of reference rows")
	for _, row := range rows {
		target, body, canonical, hash := row[1], row[2], row[3], row[4]
		sum := sha256.Sum256([]byte(canonical))
		assert.Equal(t, hash, hex.EncodeToString(sum[:]), "the SHA-256 of %s", canonical)

		script := `import json, sys
v = json.loads(sys.argv[1])
print(json.dumps(v, sort_keys=True, separators=(",", ":")), end="")`
		input := body
		if target != "" {
			input = `{"target": "` + target + `", "method": "GET", "payload": {}, "amount": 0.0, "currency": "eur"}`
			assert.Equal(t, hash, anchor.RequestHash(target), target)
		} else {
			got, err := anchor.ResponseHash([]byte(body))
			require.NoError(t, err)
			assert.Equal(t, hash, got, body)
		}
		out, err := exec.Command(python, "-c", script, input).Output()
		require.NoError(t, err)
		assert.Equal(t, canonical, string(out), "Python's canonical form of %s", input)
	}
}
