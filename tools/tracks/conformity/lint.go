package conformity

import (
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/lint"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// The track's own rules, as its findings name them.
const (
	RuleLegalForm       = "legal-form"       // the legal form allows the number of partners (a single-partner SARL is an EURL)
	RuleBeneficialOwner = "beneficial-owner" // each declared owner holds more than 25 % or is declared for control
	RuleNumbering       = "numbering"        // decision numbers name their activity and year; list references run in page order
)

// checks are the track's rules of its tree and statements, for lint.
var checks = &lint.Checks{
	Schemas: Schemas,
	Vocabularies: map[string]lint.Vocabulary{
		"activity": {Table: "attestations_requises", Of: "an activity of /referentiel"},
	},
	RulesList:     "criteres",
	RulesPrefix:   "R",
	Document:      checkDocument,
	Links:         links,
	Chains:        chains,
	Paged:         []string{"listes/agrees", "beneficiaires", "mesures-restrictives"},
	NullableDates: []string{"nouvelle_date_fin"},
	Task:          checkTask,
	Realism:       realism,
}

// checkDocument checks the referentiel's tables and an avenant's objet.
func checkDocument(d lint.Document, doc pyjson.Object) {
	switch {
	case d.Path == corpus.Referentiel:
		checkReferentielTables(d, doc)
	case d.Collection == "avenants":
		checkAmendmentObject(d, doc)
	}
}

// Closed vocabularies of the conformity track (docs/contract.md, section 3).
var (
	entityStatus      = []string{"active", "radiee", "en_liquidation"}
	licenceStatus     = []string{"actif", "suspendu", "retire"}
	amendmentObjects  = []string{"prorogation", "exclusion"}
	declarationStatus = []string{"complete", "incomplete"}
)

// Schemas are the track's documents' shapes, keyed by collection, and the
// referentiel's by its path: the fields each must have, in the order the
// corpus writes them. The linter checks every document against them; the
// synthetic trees of harness/gencorpus are held to them member for member.
// Fields beyond these (descriptive French fields) are welcome.
var Schemas = map[string]lint.Schema{
	corpus.Referentiel: {
		{Name: "ressource", Type: lint.SelfPath},
		{Name: "titre", Type: lint.Text},
		{Name: "version", Type: lint.Text},
		{Name: "date_publication", Type: lint.Date},
		{Name: "criteres", Type: lint.Entries, Sub: lint.Schema{
			{Name: "code", Type: lint.Text},
			{Name: "intitule", Type: lint.Text},
			{Name: "regle", Type: lint.Text},
		}},
		{Name: "bornes_de_dates", Type: lint.Text},
		{Name: "application_des_avenants", Type: lint.Text},
		{Name: "correspondance_mesures_restrictives", Type: lint.Text},
		{Name: "precedence", Type: lint.Text},
		{Name: "attestations_requises", Type: lint.Table},
		{Name: "listes_agrees", Type: lint.Table},
		{Name: "mesures_restrictives", Type: lint.Ref, Into: "mesures-restrictives"},
	},
	"entites": {
		{Name: "ressource", Type: lint.SelfPath},
		{Name: "existe", Type: lint.True},
		{Name: "denomination", Type: lint.Text},
		{Name: "siren", Type: lint.Text},
		{Name: "forme", Type: lint.Text},
		{Name: "nombre_associes", Type: lint.Count},
		{Name: "siege", Type: lint.Text},
		{Name: "date_immatriculation", Type: lint.Date},
		{Name: "statut", Type: lint.Text, Vocab: entityStatus},
		{Name: "agrements", Type: lint.RefList, Into: "agrements"},
		{Name: "attestations", Type: lint.RefList, Into: "attestations"},
		{Name: "beneficiaires", Type: lint.Ref, Into: "beneficiaires", Nullable: true},
	},
	"agrements": {
		{Name: "ressource", Type: lint.SelfPath},
		{Name: "existe", Type: lint.True},
		{Name: "entite", Type: lint.Ref, Into: "entites"},
		{Name: "activite", Type: lint.Text, Word: true, Closed: "activity"},
		{Name: "autorite", Type: lint.Text},
		{Name: "numero_decision", Type: lint.Text},
		{Name: "statut", Type: lint.Text, Vocab: licenceStatus},
		{Name: "date_debut", Type: lint.Date},
		{Name: "date_fin_validite", Type: lint.Date},
	},
	"attestations": {
		{Name: "ressource", Type: lint.SelfPath},
		{Name: "existe", Type: lint.True},
		{Name: "entite", Type: lint.Ref, Into: "entites"},
		{Name: "type", Type: lint.Text, Word: true},
		{Name: "emetteur", Type: lint.Text},
		{Name: "date_emission", Type: lint.Date},
		{Name: "date_fin_validite", Type: lint.Date},
		{Name: "avenants", Type: lint.RefList, Into: "avenants"},
	},
	"avenants": {
		{Name: "ressource", Type: lint.SelfPath},
		{Name: "existe", Type: lint.True},
		{Name: "attestation", Type: lint.Ref, Into: "attestations"},
		{Name: "objet", Type: lint.Text, Vocab: amendmentObjects},
		{Name: "date_effet", Type: lint.Date},
		{Name: "nouvelle_date_fin", Type: lint.Date},
		{Name: "activite_exclue", Type: lint.Text, Nullable: true, Word: true, Closed: "activity"},
		{Name: "description", Type: lint.Text},
	},
	"listes/agrees": {
		{Name: "ressource", Type: lint.SelfPath},
		{Name: "activite", Type: lint.Text, Word: true, Closed: "activity"},
		{Name: "autorite", Type: lint.Text},
		{Name: "date_publication", Type: lint.Date},
		{Name: "page", Type: lint.Text},
		{Name: "entrees", Type: lint.Entries, Sub: lint.Schema{
			{Name: "agrement", Type: lint.Ref, Into: "agrements"},
			{Name: "entite", Type: lint.Ref, Into: "entites"},
			{Name: "denomination", Type: lint.Text},
			{Name: "statut", Type: lint.Text, Vocab: licenceStatus},
		}},
		{Name: "page_suivante", Type: lint.Ref, Into: lint.SameCollection, Nullable: true},
	},
	"beneficiaires": {
		{Name: "ressource", Type: lint.SelfPath},
		{Name: "entite", Type: lint.Ref, Into: "entites"},
		{Name: "statut_declaration", Type: lint.Text, Vocab: declarationStatus},
		{Name: "date_declaration", Type: lint.Date},
		{Name: "page", Type: lint.Text},
		{Name: "entrees", Type: lint.Entries, Sub: lint.Schema{
			{Name: "nom", Type: lint.Text},
			{Name: "prenoms", Type: lint.Text},
			{Name: "date_naissance", Type: lint.Date},
			{Name: "nationalite", Type: lint.Text},
			{Name: "detention", Type: lint.Text},
			{Name: "pourcentage_detention", Type: lint.Percent, Nullable: true},
			{Name: "controle_declare", Type: lint.Boolean},
		}},
		{Name: "page_suivante", Type: lint.Ref, Into: lint.SameCollection, Nullable: true},
	},
	"mesures-restrictives": {
		{Name: "ressource", Type: lint.SelfPath},
		{Name: "intitule", Type: lint.Text},
		{Name: "date_mise_a_jour", Type: lint.Date},
		{Name: "page", Type: lint.Text},
		{Name: "entrees", Type: lint.Entries, Sub: lint.Schema{
			{Name: "reference", Type: lint.Text},
			{Name: "nom", Type: lint.Text},
			{Name: "prenoms", Type: lint.Text},
			{Name: "date_naissance", Type: lint.Date},
			{Name: "motif", Type: lint.Text},
		}},
		{Name: "page_suivante", Type: lint.Ref, Into: lint.SameCollection, Nullable: true},
	},
}

// checkAmendmentObject applies the avenant rule: a prorogation sets
// nouvelle_date_fin and leaves activite_exclue null, an exclusion the reverse.
func checkAmendmentObject(d lint.Document, doc pyjson.Object) {
	objet, _ := doc.Get("objet")
	set, unset := "", ""
	switch objet {
	case "prorogation":
		set, unset = "nouvelle_date_fin", "activite_exclue"
	case "exclusion":
		set, unset = "activite_exclue", "nouvelle_date_fin"
	default:
		return // the vocabulary rule already said so
	}
	if v, ok := doc.Get(set); ok && v == nil {
		d.Linter.Report(d.File, "/"+set, lint.RuleVocabulary, "objet %q sets %s: it must not be null", objet, set)
	}
	if v, ok := doc.Get(unset); ok && v != nil {
		d.Linter.Report(d.File, "/"+unset, lint.RuleVocabulary, "objet %q leaves %s null, got %s", objet, unset, lint.Describe(v))
	}
}

// checkReferentielTables checks the referentiel's two tables: activity codes
// to the attestation types they require, and to the first page of their
// public list, for the same activities.
func checkReferentielTables(d lint.Document, doc pyjson.Object) {
	required, _ := doc.Get("attestations_requises")
	lists, _ := doc.Get("listes_agrees")
	requiredTable, okRequired := required.(pyjson.Object)
	listTable, okLists := lists.(pyjson.Object)
	if okRequired {
		for _, m := range requiredTable {
			at := lint.Child("/attestations_requises", m.Key)
			d.CheckWord(lint.Field{Word: true}, at, "activity code", m.Key)
			types, ok := m.Value.(pyjson.Array)
			if !ok || len(types) == 0 {
				d.Linter.Report(d.File, at, lint.RuleSchema, "want a non-empty array of attestation types, got %s", lint.Describe(m.Value))
				continue
			}
			for i, t := range types {
				if s, ok := t.(string); ok {
					d.CheckWord(lint.Field{Word: true}, lint.Child(at, i), "attestation type", s)
				} else {
					d.WrongType(lint.Child(at, i), "an attestation type string", t)
				}
			}
		}
	}
	if okLists {
		for _, m := range listTable {
			at := lint.Child("/listes_agrees", m.Key)
			d.CheckWord(lint.Field{Word: true}, at, "activity code", m.Key)
			if s, ok := m.Value.(string); ok {
				d.CheckReference(at, s, "listes/agrees")
			} else {
				d.WrongType(at, "a reference string", m.Value)
			}
		}
	}
	if okRequired && okLists {
		for _, m := range requiredTable {
			if _, ok := listTable.Get(m.Key); !ok {
				d.Linter.Report(d.File, "/listes_agrees", lint.RuleSchema, "activity %q requires attestations but has no public list", m.Key)
			}
		}
		for _, m := range listTable {
			if _, ok := requiredTable.Get(m.Key); !ok {
				d.Linter.Report(d.File, "/attestations_requises", lint.RuleSchema, "activity %q has a public list but no required attestations", m.Key)
			}
		}
	}
}

// links checks that two resources naming each other agree: an entity
// lists the agréments and attestations that name it, an attestation the
// avenants that name it, and a public list's entry names the agrément's own
// entity and activity.
func links(l *lint.Linter, path, collection string, doc pyjson.Object) {
	switch collection {
	case "entites":
		checkListed(l, path, doc, "agrements", "entite")
		checkListed(l, path, doc, "attestations", "entite")
	case "agrements":
		checkListedBy(l, path, doc, "entite", "agrements")
	case "attestations":
		checkListedBy(l, path, doc, "entite", "attestations")
		checkListed(l, path, doc, "avenants", "attestation")
	case "avenants":
		checkListedBy(l, path, doc, "attestation", "avenants")
	case "listes/agrees":
		checkListEntries(l, path, doc)
	}
}

// checkListed checks that each resource path lists in listField names path
// back in ownerField.
func checkListed(l *lint.Linter, path string, doc pyjson.Object, listField, ownerField string) {
	list, _ := doc.Get(listField)
	items, _ := list.(pyjson.Array)
	for i, item := range items {
		target, _ := item.(string)
		owner, ok := lint.StringField(l.Doc(target), ownerField)
		if ok && owner != path {
			l.Report(l.File(path), lint.Child("/"+listField, i), lint.RuleLinks, "%s names %s as its %s, not this resource", target, owner, ownerField)
		}
	}
}

// checkListedBy checks that the resource path names in ownerField lists path
// in listField.
func checkListedBy(l *lint.Linter, path string, doc pyjson.Object, ownerField, listField string) {
	owner, ok := lint.StringField(doc, ownerField)
	ownerDoc, found := l.Lookup(owner)
	if !ok || !found {
		return // an unresolved reference is the references rule's finding
	}
	list, _ := ownerDoc.Get(listField)
	items, _ := list.(pyjson.Array)
	if !slices.Contains(items, pyjson.Value(path)) {
		l.Report(l.File(path), "/"+ownerField, lint.RuleLinks, "%s does not list this resource in /%s", owner, listField)
	}
}

// checkListEntries checks that each entry of a public list names an agrément
// of the list's activity, and that agrément's own entity.
func checkListEntries(l *lint.Linter, path string, doc pyjson.Object) {
	activity, _ := lint.StringField(doc, "activite")
	list, _ := doc.Get("entrees")
	items, _ := list.(pyjson.Array)
	for i, item := range items {
		entry, _ := item.(pyjson.Object)
		licence, _ := lint.StringField(entry, "agrement")
		entity, _ := lint.StringField(entry, "entite")
		licenceDoc, ok := l.Lookup(licence)
		if !ok {
			continue
		}
		at := lint.Child("/entrees", i)
		if got, ok := lint.StringField(licenceDoc, "activite"); ok && got != activity {
			l.Report(l.File(path), lint.Child(at, "agrement"), lint.RuleLinks, "%s is for activity %q, this list for %q", licence, got, activity)
		}
		if owner, ok := lint.StringField(licenceDoc, "entite"); ok && owner != entity {
			l.Report(l.File(path), lint.Child(at, "entite"), lint.RuleLinks, "%q, but %s belongs to %s", entity, licence, owner)
		}
	}
}

// chains lists the page chains the tree names: each activity's public list
// and the restrictive-measures list, from /referentiel, then each entity's
// beneficial-owner declaration.
func chains(l *lint.Linter) []lint.Chain {
	var out []lint.Chain
	if ref := l.Doc(corpus.Referentiel); ref != nil {
		lists, _ := ref.Get("listes_agrees")
		table, _ := lists.(pyjson.Object)
		for _, m := range table {
			if first, ok := m.Value.(string); ok {
				origin := corpus.Referentiel + " " + lint.Child("/listes_agrees", m.Key)
				out = append(out, lint.Chain{First: first, Collection: "listes/agrees", Origin: origin, Field: "activite", Want: m.Key})
			}
		}
		if first, ok := lint.StringField(ref, "mesures_restrictives"); ok {
			out = append(out, lint.Chain{First: first, Collection: "mesures-restrictives", Origin: corpus.Referentiel + " /mesures_restrictives"})
		}
	}
	for _, path := range l.Paths() {
		if corpus.CollectionOf(path) != "entites" {
			continue
		}
		if first, ok := lint.StringField(l.Doc(path), "beneficiaires"); ok {
			out = append(out, lint.Chain{First: first, Collection: "beneficiaires", Origin: path, Field: "entite", Want: path})
		}
	}
	return out
}

// checkTask checks a conformity statement: the entity and each cited
// reference resolve (to a file or an absent entry, which the server must
// answer), the examination date is a date, the activity is one of
// /referentiel's.
func checkTask(l *lint.Linter, file, at string, task season.Task) {
	st := statementOf(task)
	l.CheckReference(file, lint.Child(at, "entite"), st.Entity, "entites")
	if !l.InVocabulary("activity", st.Activity) {
		l.Report(file, lint.Child(at, "activite"), lint.RuleVocabulary, "activite %q is not an activity of /referentiel", st.Activity)
	}
	l.CheckDate(file, lint.Child(at, "date_examen"), "date_examen", st.ExaminationDate)
	l.CheckPublishedBefore(file, lint.Child(at, "date_examen"), "date_examen", st.ExaminationDate)
	l.CheckQuestionCites(file, at, task)
	for j, r := range task.References {
		ref, ok := corpus.ParseReference(r)
		if !ok {
			l.Report(file, lint.Child(lint.Child(at, "references"), j), lint.RuleReferences, "%q is not a canonical path /<collection>/<id>", r)
			continue
		}
		l.CheckReference(file, lint.Child(lint.Child(at, "references"), j), r, ref.Collection())
	}
}

// legalForm is a legal form// legalForm is a legal form, recognised by the start of its French name, with
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
// realism applies the track's realism rules: identifiers, legal forms and
// addresses of the entities, beneficial owners, and the registers'
// numbering, some of which compare documents with each other.
func realism(l *lint.Linter) {
	identifiers := map[string]string{} // SIREN → the resource that carries it
	decisions := map[string]string{}   // decision number → the agrément that carries it
	owned := map[string]*big.Rat{}     // entity → the share its declared owners hold so far
	for _, path := range l.Paths() {
		doc, file := l.Doc(path), l.File(path)
		switch corpus.CollectionOf(path) {
		case "entites":
			l.CheckIdentifier(file, path, doc, "siren", 9, identifiers)
			checkLegalForm(l, file, doc)
			l.CheckAddress(file, doc)
		case "beneficiaires":
			checkOwners(l, file, doc, owned)
		case "agrements":
			checkDecisionNumber(l, file, path, doc, decisions)
		}
	}
	checkMeasureNumbers(l)
}

// decisionNumber is an agrément's decision number:
// <authority>-<activity initials>-<year>-<number>, ASAFR-CM-2022-0417.
var decisionNumber = regexp.MustCompile(`^[A-Z]+-([A-Z]+)-([0-9]{4})-[0-9]+$`)

// checkDecisionNumber checks that an agrément's numero_decision names its
// activity's initials and the year it starts, and is no other agrément's:
// a number that breaks the register's pattern singles its agrément out.
func checkDecisionNumber(l *lint.Linter, file, path string, doc pyjson.Object, seen map[string]string) {
	number, ok := lint.StringField(doc, "numero_decision")
	if !ok {
		return
	}
	activity, _ := lint.StringField(doc, "activite")
	start, _ := lint.StringField(doc, "date_debut")
	m := decisionNumber.FindStringSubmatch(number)
	switch {
	case m == nil:
		l.Report(file, "/numero_decision", RuleNumbering, "numero_decision %q is not <autorité>-<initiales>-<année>-<numéro>", number)
	case m[1] != corpus.ActivityInitials(activity):
		l.Report(file, "/numero_decision", RuleNumbering, "numero_decision %q names %s, the activity %q is %s", number, m[1], activity, corpus.ActivityInitials(activity))
	case corpus.IsDate(start) && m[2] != start[:4]:
		l.Report(file, "/numero_decision", RuleNumbering, "numero_decision %q names the year %s, date_debut is %s", number, m[2], start)
	case seen[number] != "":
		l.Report(file, "/numero_decision", RuleNumbering, "numero_decision %q is also %s's", number, seen[number])
	default:
		seen[number] = path
	}
}

// checkMeasureNumbers checks that the restrictive-measures list numbers its
// entries <first page's id>-1, -2, ... in page order, whatever the padding.
func checkMeasureNumbers(l *lint.Linter) {
	first, ok := lint.StringField(l.Doc(corpus.Referentiel), "mesures_restrictives")
	if !ok {
		return
	}
	measures, _ := corpus.ParseReference(first)
	prefix := measures.ID()
	visited := map[string]bool{}
	n := 0
	for page := first; !visited[page]; {
		visited[page] = true
		doc, found := l.Lookup(page)
		if !found {
			return // an unresolved page is the references rule's finding
		}
		entries, _ := lint.Member[pyjson.Array](doc, "entrees")
		for i, e := range entries {
			n++
			entry, _ := e.(pyjson.Object)
			ref, ok := lint.StringField(entry, "reference")
			if !ok {
				continue
			}
			number, cut := strings.CutPrefix(ref, prefix+"-")
			if k, err := strconv.Atoi(number); !cut || err != nil || k != n {
				l.Report(l.File(page), lint.Child(lint.Child("/entrees", i), "reference"), RuleNumbering, "reference %q is entry %d of the list: want %s-%d (any zero padding)", ref, n, prefix, n)
			}
		}
		next, ok := lint.StringField(doc, "page_suivante")
		if !ok {
			return
		}
		page = next
	}
}

// checkLegalForm checks that the entity's forme is a legal form and that
// its nombre_associes is one that form allows: an SARL with a single
// partner is an EURL.
func checkLegalForm(l *lint.Linter, file string, doc pyjson.Object) {
	forme, ok := lint.StringField(doc, "forme")
	if !ok {
		return
	}
	i := slices.IndexFunc(legalForms, func(f legalForm) bool { return strings.HasPrefix(forme, f.prefix) })
	if i < 0 {
		names := make([]string, len(legalForms))
		for k, f := range legalForms {
			names[k] = f.short
		}
		l.Report(file, "/forme", RuleLegalForm, "forme %q is none of the legal forms %s", forme, strings.Join(names, ", "))
		return
	}
	form := legalForms[i]
	partners, ok := lint.StringField(doc, "nombre_associes")
	n, err := strconv.Atoi(partners)
	if !ok || !corpus.IsCount(partners) || err != nil {
		return // the schema's or the decimal rule's finding
	}
	switch {
	case n < form.min && n == 1 && form.single != "":
		l.Report(file, "/nombre_associes", RuleLegalForm, "a single partner makes this %s an %s, but forme is %q", form.short, form.single, forme)
	case n < form.min || (form.max > 0 && n > form.max):
		l.Report(file, "/nombre_associes", RuleLegalForm, "the form %s allows %s, nombre_associes is %q", form.short, partnerRange(form), partners)
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

// checkOwners checks each beneficial owner of a declaration's page: more
// than 25 % held, or control declared; the detention text and the stated
// percentage agree; and, over the declaration's pages, no more than 100 %
// held in all (owned accumulates by entity), nor all of it by one owner of
// an entity with several partners.
func checkOwners(l *lint.Linter, file string, doc pyjson.Object, owned map[string]*big.Rat) {
	entity, _ := lint.StringField(doc, "entite")
	entries, _ := lint.Member[pyjson.Array](doc, "entrees")
	for i, e := range entries {
		entry, _ := e.(pyjson.Object)
		at := lint.Child("/entrees", i)
		control, isBool := lint.Member[bool](entry, "controle_declare")
		share, hasShare := lint.StringField(entry, "pourcentage_detention")
		if !isBool {
			continue // the schema's finding
		}
		if v, present := entry.Get("pourcentage_detention"); present && v == nil && !control {
			l.Report(file, at, RuleBeneficialOwner, "declares neither a holding (pourcentage_detention) nor control (controle_declare): not a beneficial owner")
			continue
		}
		if !hasShare {
			continue
		}
		r, err := corpus.ParseDecimal(share)
		if err != nil {
			continue // the decimal rule's finding
		}
		at = lint.Child(at, "pourcentage_detention")
		switch {
		case r.Sign() <= 0 || r.Cmp(hundred) > 0:
			l.Report(file, at, RuleBeneficialOwner, "pourcentage_detention %q is not a share above 0 and up to 100", share)
			continue
		case r.Cmp(ownershipThreshold) <= 0 && !control:
			l.Report(file, at, RuleBeneficialOwner, "%s %% is not more than 25 %% and control is not declared: not a beneficial owner", share)
		}
		if text, ok := lint.StringField(entry, "detention"); ok {
			if m := statedShare.FindStringSubmatch(text); m != nil && strings.ReplaceAll(m[1], ",", ".") != share {
				l.Report(file, at, RuleBeneficialOwner, "%q, but detention says %q", share, text)
			}
		}
		total := owned[entity]
		if total == nil {
			total = new(big.Rat)
			owned[entity] = total
		}
		wasWithin := total.Cmp(hundred) <= 0
		if total.Add(total, r); wasWithin && total.Cmp(hundred) > 0 {
			l.Report(file, at, RuleBeneficialOwner, "the owners declared for %s hold %s %% in all, more than 100 %%", entity, total.FloatString(0))
		}
		if r.Cmp(hundred) == 0 {
			if partners, ok := lint.StringField(l.Doc(entity), "nombre_associes"); ok && partners != "1" {
				l.Report(file, at, RuleLegalForm, "one owner holds 100 %%, but %s has nombre_associes %q", entity, partners)
			}
		}
	}
}
