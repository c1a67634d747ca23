package lint

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// The realism rules: the corpus is fictional, and must read like the real
// thing without naming anything real (docs/contract.md, section 3; spec §2.5). What a machine can
// check of that is checked here, for what every track shares, and by each
// track's Checks.Realism; the names and prose are the authors'.

// fictionalAddress is the one shape of a siege: "<numéro> <voie>, 00NNN
// <commune>". No French postal code begins with 00, so whatever the street
// and the commune, the address is no one's, and a reader sees it is invented.
var fictionalAddress = regexp.MustCompile(`^[1-9][0-9]*( bis| ter)? [^,]+, 00[0-9]{3} [^,]+$`)

// CheckIdentifier checks a SIREN (9 digits) or SIRET (14 digits, the SIREN
// and a 5-digit establishment number): digits that fail the Luhn check,
// and, for a SIRET, a SIREN that fails it too, so that INSEE cannot have
// issued the number and no real company is named; no two resources share
// one.
func (l *Linter) CheckIdentifier(file, path string, doc pyjson.Object, name string, length int, seen map[string]string) {
	s, ok := StringField(doc, name)
	if !ok {
		return // missing or not a string: the schema's finding
	}
	at := "/" + name
	switch {
	case len(s) != length || strings.Trim(s, "0123456789") != "":
		l.Report(file, at, RuleIdentifier, "%s %q is not %d digits", name, s, length)
	case luhnValid(s):
		l.Report(file, at, RuleIdentifier, "%s %q passes the Luhn check: a number INSEE may have issued; a fictitious %s fails it", name, s, strings.ToUpper(name))
	case length == 14 && luhnValid(s[:9]):
		l.Report(file, at, RuleIdentifier, "%s %q begins with a SIREN that passes the Luhn check: %s, a number INSEE may have issued; a fictitious SIREN fails it", name, s, s[:9])
	case seen[s] != "":
		l.Report(file, at, RuleIdentifier, "%s %q is also %s's", name, s, seen[s])
	default:
		seen[s] = path
	}
}

// luhnValid reports whether a string of digits passes the Luhn check, as
// every SIREN and SIRET INSEE issues does, and none of the corpus's may.
func luhnValid(digits string) bool {
	sum := 0
	for i := range len(digits) {
		d := int(digits[len(digits)-1-i] - '0')
		if i%2 == 1 {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}

// CheckAddress checks that a siege is an obviously fictional address.
func (l *Linter) CheckAddress(file string, doc pyjson.Object) {
	siege, ok := StringField(doc, "siege")
	if ok && !fictionalAddress.MatchString(siege) {
		l.Report(file, "/siege", RuleAddress, `siege %q is not a fictional address "<numéro> <voie>, 00NNN <commune>" (no real postal code begins with 00)`, siege)
	}
}

// codeMention is a criterion or rule code named in a rules text: R2, G5.
var codeMention = regexp.MustCompile(`\b([RG][0-9]+)\b`)

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
			d.Linter.Report(d.File, Child(Child("/"+list, i), "code"), RuleRulesText, "code %q is the criterion at position %d: want %q", code, i+1, want)
		}
	}
	eachText(doc, "", func(at, text string) {
		for _, m := range codeMention.FindAllStringSubmatch(text, -1) {
			if strings.HasPrefix(m[1], prefix) && !codes[m[1]] {
				d.Linter.Report(d.File, at, RuleRulesText, "names %s, which is not a code of /%s", m[1], list)
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

// CheckPublishedBefore checks that a statement's date falls on or after the
// date its rules were published: an agent is judged by rules that existed.
func (l *Linter) CheckPublishedBefore(file, at, name, date string) {
	published, ok := StringField(l.docs[l.opts.Track.Rules], "date_publication")
	if ok && dateShape(date) && dateShape(published) && date < published {
		l.Report(file, at, RuleRulesText, "%s %s is before %s was published (%s)", name, date, l.opts.Track.Rules, published)
	}
}

// citedPath is a resource path a question names, up to the punctuation that
// ends its sentence.
var citedPath = regexp.MustCompile(`/[a-z-]+(?:/[a-z-]+)?/[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9]`)

// CheckQuestionCites checks that a statement's question names each
// reference the client supplied, and cites every path it names (by its
// track's rules, as the conformity task's entity, or as a reference): the
// prose and the statement's members say the same thing.
func (l *Linter) CheckQuestionCites(file, at string, task season.Task) {
	named := map[string]bool{}
	for _, p := range citedPath.FindAllString(task.Question, -1) {
		named[p] = true
		if _, _, ok := corpus.SplitReference(p); ok && !slices.Contains(task.Cited(), p) {
			l.Report(file, Child(at, "question"), RuleReferences, "the question names %s, which references does not list", p)
		}
	}
	for j, r := range task.References {
		if !named[r] {
			l.Report(file, Child(Child(at, "references"), j), RuleReferences, "%s is not named in the question", r)
		}
	}
}
