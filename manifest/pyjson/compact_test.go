package pyjson

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The one-line form is what Python 3 writes for json.dumps(v,
// ensure_ascii=False): accents as UTF-8, never \u escapes.
func TestAppendCompactMatchesPython(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"a name with accents", `"H\u00e9l\u00e8ne"`, `"Hélène"`},
		{"raw UTF-8 stays raw", `"Zoé Anaïs"`, `"Zoé Anaïs"`},
		{"escapes Python keeps", `"a\"b\\c\nd\u0001\u007f\u2028"`, "\"a\\\"b\\\\c\\nd\\u0001\u007f\u2028\""},
		{"an astral character", `"\ud83d\ude00"`, "\"\U0001F600\""},
		{"scalars", `[true, false, null, "x"]`, `[true, false, null, "x"]`},
		{"nested, members in source order", `{"z": [], "a": {"b": ["Lef\u00e8vre", {}]}}`, `{"z": [], "a": {"b": ["Lefèvre", {}]}}`},
		{"empty containers", `[[], {}]`, `[[], {}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Parse([]byte(tt.doc))
			require.NoError(t, err)
			got := string(AppendCompact(nil, v))
			assert.Equal(t, tt.want, got)

			cmd := exec.Command("python3", "-c", "import json, sys; sys.stdout.write(json.dumps(json.loads(sys.stdin.buffer.read()), ensure_ascii=False))")
			cmd.Stdin = strings.NewReader(tt.doc)
			out, err := cmd.Output()
			require.NoError(t, err, "python3 is required: the form is proven against it")
			assert.Equal(t, string(out), got)
		})
	}
}
