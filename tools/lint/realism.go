package lint

import (
	"fmt"
	"maps"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// The realism rules: the corpus is fictional, and must read like the real
// thing without naming anything real (docs/contract.md, section 3; spec §2.5). What a machine can
// check of that is checked here; the names and prose are the authors'.

// fictionalAddress is the one shape of a siege: "<numéro> <voie>, 00NNN
// <commune>". No French postal code begins with 00, so whatever the street
// and the commune, the address is no one's, and a reader sees it is invented.
var fictionalAddress = regexp.MustCompile(`^[1-9][0-9]*( bis| ter)? [^,]+, 00[0-9]{3} [^,]+$`)

// legalForm is a legal form, recognised by the start of its French name, with
// the number of partners the law allows it (max 0: no upper bound).
type legalForm struct {
	prefix, short string
	min, max      int
	single        string // the form a single partner would make it, "" when allowed
}

// legalForms, longest prefix first: "Société par actions simplifiée
// unipersonnelle" before "Société par actions simplifiée".
var legalForms = []legalForm{
	{prefix: "Entreprise unipersonnelle à responsabilité limitée", short: "EURL", min: 1, max: 1},
	{prefix: "Société par actions simplifiée unipersonnelle", short: "SASU", min: 1, max: 1},
	{prefix: "Société à responsabilité limitée", short: "SARL", min: 2, max: 100, single: "EURL"},
	{prefix: "Société par actions simplifiée", short: "SAS", min: 2, single: "SASU"},
	{prefix: "Société anonyme", short: "SA", min: 2},
}

// ownershipThreshold: a beneficial owner holds more than 25 % of the capital
// or of the votes, or controls the entity by other means.
var ownershipThreshold = big.NewRat(25, 1)

var hundred = big.NewRat(100, 1)

// statedShare is the percentage a detention text opens with ("55 % du
// capital...").
var statedShare = regexp.MustCompile(`^([0-9]+(?:[.,][0-9]+)?) %`)

// checkRealism applies the realism rules: identifiers, legal forms,
// addresses, beneficial owners, products' kinds and the registers'
// numbering, some of which compare documents with each other.
func (l *linter) checkRealism() {
	identifiers := map[string]string{} // SIREN or SIRET → the resource that carries it
	decisions := map[string]string{}   // decision number → the agrément that carries it
	owned := map[string]*big.Rat{}     // entity → the share its declared owners hold so far
	for _, path := range slices.Sorted(maps.Keys(l.docs)) {
		doc, file := l.docs[path], l.files[path]
		collection, _, _ := corpus.SplitReference(path)
		switch collection {
		case "entites":
			l.checkIdentifier(file, path, doc, "siren", 9, identifiers)
			l.checkLegalForm(file, doc)
			l.checkAddress(file, doc)
		case "fournisseurs":
			l.checkIdentifier(file, path, doc, "siret", 14, identifiers)
			l.checkAddress(file, doc)
		case "beneficiaires":
			l.checkOwners(file, doc, owned)
		case "produits":
			l.checkProductKind(file, doc)
		case "agrements":
			l.checkDecisionNumber(file, path, doc, decisions)
		}
	}
	l.checkMeasureNumbers()
}

// decisionNumber is an agrément's decision number:
// <authority>-<activity initials>-<year>-<number>, ASAFR-CM-2022-0417.
var decisionNumber = regexp.MustCompile(`^[A-Z]+-([A-Z]+)-([0-9]{4})-[0-9]+$`)

// checkDecisionNumber checks that an agrément's numero_decision names its
// activity's initials and the year it starts, and is no other agrément's:
// a number that breaks the register's pattern singles its agrément out.
func (l *linter) checkDecisionNumber(file, path string, doc pyjson.Object, seen map[string]string) {
	number, ok := stringField(doc, "numero_decision")
	if !ok {
		return
	}
	activity, _ := stringField(doc, "activite")
	start, _ := stringField(doc, "date_debut")
	m := decisionNumber.FindStringSubmatch(number)
	switch {
	case m == nil:
		l.report(file, "/numero_decision", RuleNumbering, "numero_decision %q is not <autorité>-<initiales>-<année>-<numéro>", number)
	case m[1] != corpus.ActivityInitials(activity):
		l.report(file, "/numero_decision", RuleNumbering, "numero_decision %q names %s, the activity %q is %s", number, m[1], activity, corpus.ActivityInitials(activity))
	case calendarDate(start) && m[2] != start[:4]:
		l.report(file, "/numero_decision", RuleNumbering, "numero_decision %q names the year %s, date_debut is %s", number, m[2], start)
	case seen[number] != "":
		l.report(file, "/numero_decision", RuleNumbering, "numero_decision %q is also %s's", number, seen[number])
	default:
		seen[number] = path
	}
}

// checkMeasureNumbers checks that the restrictive-measures list numbers its
// entries <first page's id>-1, -2, ... in page order, whatever the padding.
func (l *linter) checkMeasureNumbers() {
	first, ok := stringField(l.docs[corpus.Referentiel], "mesures_restrictives")
	if !ok {
		return
	}
	_, prefix, _ := corpus.SplitReference(first)
	visited := map[string]bool{}
	n := 0
	for page := first; !visited[page]; {
		visited[page] = true
		doc, found := l.docs[page]
		if !found {
			return // an unresolved page is the references rule's finding
		}
		entries, _ := member[pyjson.Array](doc, "entrees")
		for i, e := range entries {
			n++
			entry, _ := e.(pyjson.Object)
			ref, ok := stringField(entry, "reference")
			if !ok {
				continue
			}
			number, cut := strings.CutPrefix(ref, prefix+"-")
			if k, err := strconv.Atoi(number); !cut || err != nil || k != n {
				l.report(l.files[page], child(child("/entrees", i), "reference"), RuleNumbering, "reference %q is entry %d of the list: want %s-%d (any zero padding)", ref, n, prefix, n)
			}
		}
		next, ok := stringField(doc, "page_suivante")
		if !ok {
			return
		}
		page = next
	}
}

// checkIdentifier checks a SIREN (9 digits) or SIRET (14 digits, the SIREN
// and a 5-digit establishment number): digits that fail the Luhn check,
// and, for a SIRET, a SIREN that fails it too, so that INSEE cannot have
// issued the number and no real company is named; no two resources share
// one.
func (l *linter) checkIdentifier(file, path string, doc pyjson.Object, name string, length int, seen map[string]string) {
	s, ok := stringField(doc, name)
	if !ok {
		return // missing or not a string: the schema's finding
	}
	at := "/" + name
	switch {
	case len(s) != length || strings.Trim(s, "0123456789") != "":
		l.report(file, at, RuleIdentifier, "%s %q is not %d digits", name, s, length)
	case luhnValid(s):
		l.report(file, at, RuleIdentifier, "%s %q passes the Luhn check: a number INSEE may have issued; a fictitious %s fails it", name, s, strings.ToUpper(name))
	case length == 14 && luhnValid(s[:9]):
		l.report(file, at, RuleIdentifier, "%s %q begins with a SIREN that passes the Luhn check: %s, a number INSEE may have issued; a fictitious SIREN fails it", name, s, s[:9])
	case seen[s] != "":
		l.report(file, at, RuleIdentifier, "%s %q is also %s's", name, s, seen[s])
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

// checkLegalForm checks that the entity's forme is a legal form and that
// its nombre_associes is one that form allows: an SARL with a single
// partner is an EURL.
func (l *linter) checkLegalForm(file string, doc pyjson.Object) {
	forme, ok := stringField(doc, "forme")
	if !ok {
		return
	}
	i := slices.IndexFunc(legalForms, func(f legalForm) bool { return strings.HasPrefix(forme, f.prefix) })
	if i < 0 {
		names := make([]string, len(legalForms))
		for k, f := range legalForms {
			names[k] = f.short
		}
		l.report(file, "/forme", RuleLegalForm, "forme %q is none of the legal forms %s", forme, strings.Join(names, ", "))
		return
	}
	form := legalForms[i]
	partners, ok := stringField(doc, "nombre_associes")
	n, err := strconv.Atoi(partners)
	if !ok || !corpus.IsCount(partners) || err != nil {
		return // the schema's or the decimal rule's finding
	}
	switch {
	case n < form.min && n == 1 && form.single != "":
		l.report(file, "/nombre_associes", RuleLegalForm, "a single partner makes this %s an %s, but forme is %q", form.short, form.single, forme)
	case n < form.min || (form.max > 0 && n > form.max):
		l.report(file, "/nombre_associes", RuleLegalForm, "the form %s allows %s, nombre_associes is %q", form.short, partnerRange(form), partners)
	}
}

func partnerRange(f legalForm) string {
	switch {
	case f.min == 1 && f.max == 1:
		return "a single partner"
	case f.max == 0:
		return fmt.Sprintf("at least %d partners", f.min)
	}
	return fmt.Sprintf("%d to %d partners", f.min, f.max)
}

// checkAddress checks that a siege is an obviously fictional address.
func (l *linter) checkAddress(file string, doc pyjson.Object) {
	siege, ok := stringField(doc, "siege")
	if ok && !fictionalAddress.MatchString(siege) {
		l.report(file, "/siege", RuleAddress, `siege %q is not a fictional address "<numéro> <voie>, 00NNN <commune>" (no real postal code begins with 00)`, siege)
	}
}

// checkOwners checks each beneficial owner of a declaration's page: more
// than 25 % held, or control declared; the detention text and the stated
// percentage agree; and, over the declaration's pages, no more than 100 %
// held in all (owned accumulates by entity), nor all of it by one owner of
// an entity with several partners.
func (l *linter) checkOwners(file string, doc pyjson.Object, owned map[string]*big.Rat) {
	entity, _ := stringField(doc, "entite")
	entries, _ := member[pyjson.Array](doc, "entrees")
	for i, e := range entries {
		entry, _ := e.(pyjson.Object)
		at := child("/entrees", i)
		control, isBool := member[bool](entry, "controle_declare")
		share, hasShare := stringField(entry, "pourcentage_detention")
		if !isBool {
			continue // the schema's finding
		}
		if v, present := entry.Get("pourcentage_detention"); present && v == nil && !control {
			l.report(file, at, RuleBeneficialOwner, "declares neither a holding (pourcentage_detention) nor control (controle_declare): not a beneficial owner")
			continue
		}
		if !hasShare {
			continue
		}
		r, err := corpus.ParseDecimal(share)
		if err != nil {
			continue // the decimal rule's finding
		}
		at = child(at, "pourcentage_detention")
		switch {
		case r.Sign() <= 0 || r.Cmp(hundred) > 0:
			l.report(file, at, RuleBeneficialOwner, "pourcentage_detention %q is not a share above 0 and up to 100", share)
			continue
		case r.Cmp(ownershipThreshold) <= 0 && !control:
			l.report(file, at, RuleBeneficialOwner, "%s %% is not more than 25 %% and control is not declared: not a beneficial owner", share)
		}
		if text, ok := stringField(entry, "detention"); ok {
			if m := statedShare.FindStringSubmatch(text); m != nil && strings.ReplaceAll(m[1], ",", ".") != share {
				l.report(file, at, RuleBeneficialOwner, "%q, but detention says %q", share, text)
			}
		}
		total := owned[entity]
		if total == nil {
			total = new(big.Rat)
			owned[entity] = total
		}
		wasWithin := total.Cmp(hundred) <= 0
		if total.Add(total, r); wasWithin && total.Cmp(hundred) > 0 {
			l.report(file, at, RuleBeneficialOwner, "the owners declared for %s hold %s %% in all, more than 100 %%", entity, total.FloatString(0))
		}
		if r.Cmp(hundred) == 0 {
			if partners, ok := stringField(l.docs[entity], "nombre_associes"); ok && partners != "1" {
				l.report(file, at, RuleLegalForm, "one owner holds 100 %%, but %s has nombre_associes %q", entity, partners)
			}
		}
	}
}

// productKind is one way a product's characteristics must agree with its
// kind: check returns the pointer and message of the disagreement, if any.
type productKind struct {
	category string // "" for every category
	check    func(p product) (pointer, message string)
}

// product is what the kind rules read of a product sheet.
type product struct {
	designation string
	chars       pyjson.Object
}

func (p product) char(name string) (string, bool) { return stringField(p.chars, name) }

func (p product) named(word string) bool {
	return strings.Contains(strings.ToLower(p.designation), word)
}

// wireless reports whether a connexion goes through the air.
func wireless(connexion string) bool {
	c := strings.ToLower(connexion)
	return strings.Contains(c, "bluetooth") || strings.Contains(c, "sans fil") || strings.Contains(c, "dect") || strings.Contains(c, "radio")
}

// yesNo are the characteristics that answer oui or non.
var yesNo = []string{"recto_verso", "couleur", "serrure", "ethernet", "poe", "bluetooth"}

// measured is a characteristic whose name ends in its unit: a decimal.
var measured = regexp.MustCompile(`_(go|kg|g|cm|pouces|heures|minutes|va|w|hz|ms|lumens|ans|feuilles|litres|ppm)$`)

var productKinds = []productKind{
	{"", func(p product) (string, string) {
		for _, m := range p.chars {
			s, _ := m.Value.(string)
			switch {
			case slices.Contains(yesNo, m.Key) && s != "oui" && s != "non":
				return child("/caracteristiques", m.Key), fmt.Sprintf("%s %q is neither oui nor non", m.Key, s)
			case measured.MatchString(m.Key) && !corpus.IsDecimal(s):
				return child("/caracteristiques", m.Key), fmt.Sprintf("%s is a measure, %q is not a decimal string", m.Key, s)
			}
		}
		return "", ""
	}},
	{"casques-audio", func(p product) (string, string) {
		connexion, _ := p.char("connexion")
		_, battery := p.char("autonomie_heures")
		switch {
		case !wireless(connexion) && battery:
			return "/caracteristiques/autonomie_heures", fmt.Sprintf("a wired headset (connexion %q) has no battery, so no autonomie_heures", connexion)
		case wireless(connexion) && !battery:
			return "/caracteristiques", fmt.Sprintf("a wireless headset (connexion %q) runs on a battery: autonomie_heures is missing", connexion)
		case p.named("filaire") && wireless(connexion):
			return "/designation", fmt.Sprintf("designation %q says wired, connexion %q is wireless", p.designation, connexion)
		case p.named("sans fil") && !wireless(connexion):
			return "/designation", fmt.Sprintf("designation %q says wireless, connexion %q is wired", p.designation, connexion)
		}
		return "", ""
	}},
	{"imprimantes", func(p product) (string, string) {
		if c, _ := p.char("couleur"); p.named("couleur") && c != "oui" {
			return "/caracteristiques/couleur", fmt.Sprintf("designation %q says colour, couleur is %q", p.designation, c)
		}
		if d, _ := p.char("recto_verso"); p.named("duplex") && d != "oui" {
			return "/caracteristiques/recto_verso", fmt.Sprintf("designation %q says duplex, recto_verso is %q", p.designation, d)
		}
		return "", ""
	}},
}

// checkProductKind checks that a product's characteristics agree with its
// kind: no battery on a wired headset, oui or non where the answer is one.
func (l *linter) checkProductKind(file string, doc pyjson.Object) {
	category, _ := stringField(doc, "categorie")
	chars, ok := member[pyjson.Object](doc, "caracteristiques")
	if !ok {
		return
	}
	designation, _ := stringField(doc, "designation")
	p := product{designation: designation, chars: chars}
	for _, k := range productKinds {
		if k.category != "" && k.category != category {
			continue
		}
		if at, message := k.check(p); message != "" {
			l.report(file, at, RuleProductKind, "%s", message)
		}
	}
}

// codeMention is a criterion or rule code named in a rules text: R2, G5.
var codeMention = regexp.MustCompile(`\b([RG][0-9]+)\b`)

// checkRulesText checks the numbered and dated references of a rules
// resource: its criteria (criteres or regles) are coded prefix1, prefix2...
// in order, and every code its texts name is one of them.
func (d document) checkRulesText(doc pyjson.Object, list, prefix string) {
	entries, _ := member[pyjson.Array](doc, list)
	codes := map[string]bool{}
	for i, e := range entries {
		entry, _ := e.(pyjson.Object)
		code, ok := stringField(entry, "code")
		if !ok {
			continue
		}
		codes[code] = true
		if want := fmt.Sprintf("%s%d", prefix, i+1); code != want {
			d.l.report(d.file, child(child("/"+list, i), "code"), RuleRulesText, "code %q is the criterion at position %d: want %q", code, i+1, want)
		}
	}
	eachText(doc, "", func(at, text string) {
		for _, m := range codeMention.FindAllStringSubmatch(text, -1) {
			if strings.HasPrefix(m[1], prefix) && !codes[m[1]] {
				d.l.report(d.file, at, RuleRulesText, "names %s, which is not a code of /%s", m[1], list)
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
			eachText(e, child(at, i), fn)
		}
	case pyjson.Object:
		for _, m := range v {
			eachText(m.Value, child(at, m.Key), fn)
		}
	}
}

// checkPublishedBefore checks that a statement's date falls on or after the
// date its rules were published: an agent is judged by rules that existed.
func (l *linter) checkPublishedBefore(file, at, name, date string) {
	published, ok := stringField(l.docs[l.opts.Track.Rules], "date_publication")
	if ok && dateShape(date) && dateShape(published) && date < published {
		l.report(file, at, RuleRulesText, "%s %s is before %s was published (%s)", name, date, l.opts.Track.Rules, published)
	}
}

// citedPath is a resource path a question names, up to the punctuation that
// ends its sentence.
var citedPath = regexp.MustCompile(`/[a-z-]+(?:/[a-z-]+)?/[A-Za-z0-9][A-Za-z0-9._-]*[A-Za-z0-9]`)

// checkQuestionCites checks that a statement's question names each
// reference the client supplied, and supplies every path it names besides
// the entity: the prose and the references field say the same thing.
func (l *linter) checkQuestionCites(file, at string, task season.Task) {
	named := map[string]bool{}
	for _, p := range citedPath.FindAllString(task.Question, -1) {
		named[p] = true
		if _, _, ok := corpus.SplitReference(p); ok && p != task.Entity && !slices.Contains(task.References, p) {
			l.report(file, child(at, "question"), RuleReferences, "the question names %s, which references does not list", p)
		}
	}
	for j, r := range task.References {
		if !named[r] {
			l.report(file, child(child(at, "references"), j), RuleReferences, "%s is not named in the question", r)
		}
	}
}
