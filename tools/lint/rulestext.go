package lint

import (
	"fmt"
	"regexp"

	"github.com/arkforge/proveit-corpus/manifest/pyjson"
)

// checkRulesText checks the numbered and dated references of a rules
// resource: its criteria (criteres or regles) are coded prefix1, prefix2...
// in order, and every code its texts name is one of them.
func (d Document) checkRulesText(doc pyjson.Object, list, prefix string) {
	entries, _ := Member[pyjson.Array](doc, list)
	codes := map[string]bool{}
	for i, e := range entries {
		entry, _ := e.(pyjson.Object)
		code, ok := StringField(entry, "code")
		if !ok {
			continue
		}
		codes[code] = true
		if want := fmt.Sprintf("%s%d", prefix, i+1); code != want {
			d.Linter.Report(d.File, Child(Child("/"+list, i), "code"), ruleRulesText, "code %q is the criterion at position %d: want %q", code, i+1, want)
		}
	}
	// A code named in a text: R2, G5.
	codeMention := regexp.MustCompile(`\b(` + regexp.QuoteMeta(prefix) + `[0-9]+)\b`)
	eachText(doc, "", func(at, text string) {
		for _, m := range codeMention.FindAllStringSubmatch(text, -1) {
			if !codes[m[1]] {
				d.Linter.Report(d.File, at, ruleRulesText, "names %s, which is not a code of /%s", m[1], list)
			}
		}
	})
}

// eachText calls fn on every string of v, with its pointer.
func eachText(v pyjson.Value, at string, fn func(at, text string)) {
	switch v := v.(type) {
	case string:
		fn(at, v)
	case pyjson.Array:
		for i, e := range v {
			eachText(e, Child(at, i), fn)
		}
	case pyjson.Object:
		for _, m := range v {
			eachText(m.Value, Child(at, m.Key), fn)
		}
	}
}
