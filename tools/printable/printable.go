// Package printable makes text that comes from outside the program (a
// file anyone may publish, a server's answer) safe to print on a terminal:
// no control character, escape sequence or line break of its own reaches
// it, so that such text can neither drive the terminal nor forge a line
// of a report. Every report and error that shows such text shows it
// through String.
package printable

import (
	"strconv"
	"unicode"
)

// String returns s unchanged when every character of it is graphic
// (letters, marks, numbers, punctuation, symbols and spaces, but not a
// line break, a control or a format character such as a bidirectional
// override), and otherwise s escaped as a Go string literal is, without
// its quotes: "a\nb" is shown as a\nb, on one line, ESC as \x1b.
func String(s string) string {
	for _, r := range s {
		if !unicode.IsGraphic(r) || r == unicode.ReplacementChar {
			q := strconv.QuoteToGraphic(s)
			return q[1 : len(q)-1]
		}
	}
	return s
}
