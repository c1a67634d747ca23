package lint

import (
	"bytes"

	"github.com/arkforge/proveit-corpus/manifest/pyjson"
)

// checkLayout reports whether data is byte for byte the layout Python gives
// the parsed Document, json.dumps(doc, ensure_ascii=False, indent=2) + "\n",
// and otherwise the first line that differs. One layout keeps every diff of
// the frozen corpus meaningful and its byte hashes reproducible by anyone.
func checkLayout(data []byte, doc pyjson.Value) (line int, ok bool) {
	want := append(pyjson.AppendIndented(nil, doc), '\n')
	if bytes.Equal(data, want) {
		return 0, true
	}
	n := 0
	for n < len(data) && n < len(want) && data[n] == want[n] {
		n++
	}
	return bytes.Count(data[:n], []byte("\n")) + 1, false
}
