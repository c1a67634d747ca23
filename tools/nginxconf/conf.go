package nginxconf

import (
	"fmt"
	"strings"
)

// quote writes s as one double-quoted nginx token. nginx reads back exactly
// s: it turns \" \' \\ \n \r \t into their characters and keeps any other
// backslash as written, so a backslash is doubled only where nginx would
// read it otherwise, and a pattern such as \. reads as in PCRE.
// It interpolates variables in some directives' arguments (return, root,
// try_files), never in geo values, map keys or location names; quote does not
// protect a '$', and the callers say where one may stand.
func quote(s string) string {
	return quoteToken(s, false)
}

// literal writes a body as a quoted token that keeps its line breaks, so
// that the configuration shows each body as its file does.
func literal(s string) string {
	return quoteToken(s, true)
}

func quoteToken(s string, rawNewlines bool) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			// Doubled before what nginx would read as an escape, including
			// the escapes this function writes for the next byte.
			if i+1 == len(s) || strings.IndexByte("\"'\\nrt\n\r\t", s[i+1]) >= 0 {
				b.WriteByte('\\')
			}
			b.WriteByte(c)
		case '\n':
			if rawNewlines {
				b.WriteByte(c)
			} else {
				b.WriteString(`\n`)
			}
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// directive is one statement of an nginx configuration: a name, its
// arguments as nginx reads them (quotes removed, escapes applied), and the
// statements of its block when it has one.
type directive struct {
	Name  string
	Args  []string
	Block []directive
	Line  int
}

// parseConf reads an nginx configuration the way nginx's ngx_conf_read_token
// does, enough to find the arguments of every directive: words split on
// whitespace, '#' comments, ';' '{' '}' as delimiters, quoted strings with
// nginx's escapes, and "${" inside a word, which opens no block.
func parseConf(text string) ([]directive, error) {
	p := confParser{text: text, line: 1}
	block, err := p.block(false)
	if err != nil {
		return nil, fmt.Errorf("nginx configuration, line %d: %w", p.line, err)
	}
	return block, nil
}

type confParser struct {
	text string
	pos  int
	line int
}

func (p *confParser) block(nested bool) ([]directive, error) {
	var statements []directive
	var words []string
	line := 0
	for {
		word, delim, err := p.token()
		if err != nil {
			return nil, err
		}
		if word != nil {
			if len(words) == 0 {
				line = p.line
			}
			words = append(words, *word)
			continue
		}
		switch delim {
		case ';':
			if len(words) == 0 {
				return nil, fmt.Errorf("unexpected ';'")
			}
			statements = append(statements, directive{Name: words[0], Args: words[1:], Line: line})
		case '{':
			if len(words) == 0 {
				return nil, fmt.Errorf("unexpected '{'")
			}
			inner, err := p.block(true)
			if err != nil {
				return nil, err
			}
			statements = append(statements, directive{Name: words[0], Args: words[1:], Block: inner, Line: line})
		case '}':
			if !nested || len(words) > 0 {
				return nil, fmt.Errorf("unexpected '}'")
			}
			return statements, nil
		case 0: // end of text
			if nested || len(words) > 0 {
				return nil, fmt.Errorf("unexpected end of file")
			}
			return statements, nil
		}
		words = nil
	}
}

// token returns the next word, or the delimiter that ends a statement (0 at
// the end of the text).
func (p *confParser) token() (*string, byte, error) {
	for p.pos < len(p.text) {
		c := p.text[p.pos]
		switch {
		case c == '\n':
			p.line++
			p.pos++
		case c == ' ' || c == '\t' || c == '\r':
			p.pos++
		case c == '#':
			for p.pos < len(p.text) && p.text[p.pos] != '\n' {
				p.pos++
			}
		case c == ';' || c == '{' || c == '}':
			p.pos++
			return nil, c, nil
		case c == '"' || c == '\'':
			word, err := p.quoted(c)
			return &word, 0, err
		default:
			word := p.bare()
			return &word, 0, nil
		}
	}
	return nil, 0, nil
}

func (p *confParser) quoted(q byte) (string, error) {
	p.pos++ // the opening quote
	var b strings.Builder
	for p.pos < len(p.text) {
		c := p.text[p.pos]
		switch {
		case c == q:
			p.pos++
			return b.String(), nil
		case c == '\\' && p.pos+1 < len(p.text):
			b.WriteString(unescape(p.text[p.pos+1]))
			p.pos += 2
			continue
		case c == '\n':
			p.line++
		}
		b.WriteByte(c)
		p.pos++
	}
	return "", fmt.Errorf("unterminated quoted string")
}

func (p *confParser) bare() string {
	var b strings.Builder
	for p.pos < len(p.text) {
		c := p.text[p.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ';':
			return b.String() // as in nginx, '}' does not end a bare word
		case c == '{' && !strings.HasSuffix(b.String(), "$"):
			return b.String()
		case c == '\\' && p.pos+1 < len(p.text):
			b.WriteString(unescape(p.text[p.pos+1]))
			p.pos += 2
			continue
		}
		b.WriteByte(c)
		p.pos++
	}
	return b.String()
}

// unescape is what nginx makes of a backslash followed by c.
func unescape(c byte) string {
	switch c {
	case '"', '\'', '\\':
		return string(c)
	case 'n':
		return "\n"
	case 'r':
		return "\r"
	case 't':
		return "\t"
	}
	return "\\" + string(c)
}
