package lint

import (
	"regexp"
	"strings"

	"github.com/arkforge/proveit-corpus/manifest/pyjson"
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
		l.Report(file, at, ruleIdentifier, "%s %q is not %d digits", name, s, length)
	case luhnValid(s):
		l.Report(file, at, ruleIdentifier, "%s %q passes the Luhn check: a number INSEE may have issued; a fictitious %s fails it", name, s, strings.ToUpper(name))
	case length == 14 && luhnValid(s[:9]):
		l.Report(file, at, ruleIdentifier, "%s %q begins with a SIREN that passes the Luhn check: %s, a number INSEE may have issued; a fictitious SIREN fails it", name, s, s[:9])
	case seen[s] != "":
		l.Report(file, at, ruleIdentifier, "%s %q is also %s's", name, s, seen[s])
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
		l.Report(file, "/siege", ruleAddress, `siege %q is not a fictional address "<numéro> <voie>, 00NNN <commune>" (no real postal code begins with 00)`, siege)
	}
}
