// Package printable makes text that comes from outside the program (a
// file anyone may publish, a server's answer) safe to print on a terminal:
// no control character, escape sequence or line break of its own reaches
// it, so that such text can neither drive the terminal nor forge a line
// of a report. Every report and error that shows such text shows it
// through String.
package printable

import (
	"strconv"
	"strings"
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

// Lines is String for a message the program writes on several lines
// itself (a list of refusals): each line made printable, its line breaks
// kept. Text from outside the program in it must have been shown through
// String already, so that it brings no line break of its own.
func Lines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = String(l)
	}
	return strings.Join(lines, "\n")
}
