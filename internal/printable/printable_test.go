package printable_test

import (
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"

	"github.com/arkforge/proveit-corpus/internal/printable"
)

func TestString(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain text", "prf_20260923_072144_2ad720 /commitments/a~1b", "prf_20260923_072144_2ad720 /commitments/a~1b"},
		{"accents and quotes kept", `Lefèvre "Zoé" C:\views`, `Lefèvre "Zoé" C:\views`},
		{"a forged line", "x\nprf_20260923_072144_2ad720 valide", `x\nprf_20260923_072144_2ad720 valide`},
		{"a carriage return", "x\rvalide", `x\rvalide`},
		{"an escape sequence", "\x1b[2J\x1b]0;title\a", `\x1b[2J\x1b]0;title\a`},
		{"a backslash, once escaping", "a\\n\n", `a\\n\n`},
		{"a bidirectional override", "abc\u202edef", `abc\u202edef`},
		{"a C1 control", "a\u009bb", `a\u009bb`},
		{"invalid UTF-8", "a\xffb", `a\xffb`},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := printable.String(tt.in)
			assert.Equal(t, tt.want, got)
			for _, r := range got {
				assert.True(t, unicode.IsGraphic(r), "%q", r)
			}
		})
	}
}

func TestLines(t *testing.T) {
	assert.Equal(t, "refusing:\n  a\\x1b[2J\n  b", printable.Lines("refusing:\n  a\\x1b[2J\n  b"))
	assert.Equal(t, "refusing:\n  \\x1b[2J\n  b\\r", printable.Lines("refusing:\n  \x1b[2J\n  b\r"))
}
