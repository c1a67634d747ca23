package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestGencorpus writes a corpus, verifies it with the same tool, then
// checks what the command refuses. The rows run in order.
func TestGencorpus(t *testing.T) {
	out := filepath.Join(t.TempDir(), "gen")
	tests := []struct {
		name           string
		args           []string
		code           int
		stdout, stderr string
	}{
		{"writes the tree and its manifest", []string{"gencorpus", "-n", "120", "-o", out}, 0, "wrote 120 files", ""},
		{"the tree matches the manifest", []string{"verify", "-track", "conformite", "-tree", filepath.Join(out, "conformite"),
			"-manifest", filepath.Join(out, "conformite.json"), "-tasks", ""}, 0, "OK ", ""},
		{"refuses to write over a tree", []string{"gencorpus", "-n", "120", "-o", out}, 2, "", "already exists"},
		{"too small", []string{"gencorpus", "-n", "5", "-o", filepath.Join(t.TempDir(), "x")}, 2, "", "at least"},
		{"no folder", []string{"gencorpus", "-n", "120"}, 2, "", "-o: want the folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(tt.args...)
			assert.Equal(t, tt.code, code, stdout+stderr)
			assert.Contains(t, stdout, tt.stdout)
			assert.Contains(t, stderr, tt.stderr)
		})
	}
}
