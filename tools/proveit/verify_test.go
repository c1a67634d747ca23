package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestVerifyIsTheBuild: verify passes only a manifest that is, byte for
// byte, what proveit manifest writes for the tree and the statements,
// although it compares them rather than rebuilding.
func TestVerifyIsTheBuild(t *testing.T) {
	inRepoRoot(t)
	data, err := os.ReadFile("manifest/generique.json")
	require.NoError(t, err)
	var indented bytes.Buffer
	require.NoError(t, json.Indent(&indented, bytes.TrimSpace(data), "", "    "))
	reindented := filepath.Join(t.TempDir(), "generique.json")
	require.NoError(t, os.WriteFile(reindented, indented.Bytes(), 0o644))

	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"as checked in", nil, 0, "OK 248 entries of manifest/generique.json"},
		{"the same entries written otherwise", []string{"-manifest", reindented}, 1,
			"FAIL " + reindented + " is not byte for byte the manifest the tree builds to"},
		{"without the statements, whose citations it lists", []string{"-tasks", ""}, 1,
			"FAIL /produits/CSQ-0815: absent entry that neither the corpus nor a statement cites"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(append([]string{"verify", "-track", "generique"}, tt.args...)...)
			assert.Equal(t, tt.code, code, out+errOut)
			assert.Contains(t, out, tt.want)
		})
	}
}
