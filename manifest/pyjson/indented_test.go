package pyjson

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The layout printer writes what Python 3.11 writes for
// json.dumps(v, ensure_ascii=False, indent=2).
func TestAppendIndentedMatchesPython(t *testing.T) {
	doc := "{\"a\": \"Zo\u00e9 \\\"q\\\" \\\\ \\n\\t\\u0001\\u001f\\u007f\\u2028 \\ud83d\\ude00 / <>&\", \"b\": [], \"c\": {}, " +
		"\"d\": [true, null, {\"e\": []}], \"f\": \"\\b\\f\\r\"}"
	// Output of Python 3.11, with raw UTF-8 for every non-ASCII character.
	want := "{\n  \"a\": \"Zo\u00e9 \\\"q\\\" \\\\ \\n\\t\\u0001\\u001f\u007f\u2028 \U0001F600 / <>&\",\n  \"b\": [],\n  \"c\": {},\n" +
		"  \"d\": [\n    true,\n    null,\n    {\n      \"e\": []\n    }\n  ],\n  \"f\": \"\\b\\f\\r\"\n}"
	v, err := Parse([]byte(doc))
	require.NoError(t, err)
	assert.Equal(t, want, string(AppendIndented(nil, v)))

	// And what this machine's Python writes, the same.
	cmd := exec.Command("python3", "-c", "import json, sys; sys.stdout.write(json.dumps(json.loads(sys.stdin.buffer.read()), ensure_ascii=False, indent=2))")
	cmd.Stdin = strings.NewReader(doc)
	out, err := cmd.Output()
	require.NoError(t, err, "python3 is required: the layout is proven against it")
	assert.Equal(t, string(out), string(AppendIndented(nil, v)))
}
