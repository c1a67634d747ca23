// Package pyref runs the reference the Go hashing is proven against: Python
// 3's json module, as a subprocess. It exists for tests and benchmarks.
package pyref

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
)

// script reads a JSON array of base64 documents on stdin and prints, for each,
// the canonical form and its SHA-256 as Trust Layer computes them, or the
// error json.loads raised.
const script = `
import base64, hashlib, json, sys
out = []
for doc in json.load(sys.stdin):
    raw = base64.b64decode(doc)
    try:
        value = json.loads(raw)
    except Exception as e:
        out.append({"error": type(e).__name__})
        continue
    canonical = json.dumps(value, sort_keys=True, separators=(",", ":"))
    out.append({"canonical": canonical, "sha256": hashlib.sha256(canonical.encode()).hexdigest()})
json.dump(out, sys.stdout)
`

// Result is Python's reading of one document.
type Result struct {
	Canonical string `json:"canonical"`
	SHA256    string `json:"sha256"`
	Error     string `json:"error"`
}

// Canonicalize asks python3 for the canonical form and hash of each document.
func Canonicalize(docs [][]byte) ([]Result, error) {
	in, err := json.Marshal(docs) // []byte marshals as base64
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("python3", "-c", script)
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("python3: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	var results []Result
	if err := json.Unmarshal(stdout.Bytes(), &results); err != nil {
		return nil, fmt.Errorf("python3 output: %w", err)
	}
	if len(results) != len(docs) {
		return nil, fmt.Errorf("python3 answered %d results for %d documents", len(results), len(docs))
	}
	return results, nil
}

// Available reports whether python3 can be run.
func Available() bool {
	_, err := exec.LookPath("python3")
	return err == nil
}
