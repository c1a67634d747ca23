package seal

import (
	"bytes"
	"fmt"
)

// SpecSection is a section of the specification as its page publishes and
// anchors it: from the line that starts with heading (such as "## 5. ")
// up to, not including, the next line that starts with "## ", with leading
// and trailing whitespace removed, then one "\n". A frozen scoring section
// is sealed as these bytes, so that a record's bareme_sha256 is the hash
// the page publishes.
func SpecSection(spec []byte, heading string) ([]byte, error) {
	if !bytes.HasPrefix([]byte(heading), []byte("## ")) {
		return nil, fmt.Errorf("section heading %q: want a second-level heading, \"## ...\"", heading)
	}
	var (
		section []byte
		inside  bool
	)
	for rest := spec; len(rest) > 0; {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i+1], rest[i+1:]
		} else {
			rest = nil
		}
		switch {
		case !inside && bytes.HasPrefix(line, []byte(heading)):
			inside = true
		case inside && bytes.HasPrefix(line, []byte("## ")):
			return append(bytes.TrimSpace(section), '\n'), nil
		}
		if inside {
			section = append(section, line...)
		}
	}
	if !inside {
		return nil, fmt.Errorf("no line starts with %q", heading)
	}
	return append(bytes.TrimSpace(section), '\n'), nil
}
