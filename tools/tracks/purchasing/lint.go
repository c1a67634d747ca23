package purchasing

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/lint"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// RuleProductKind is the track's own rule, as its findings name it: a
// product's characteristics agree with its kind.
const RuleProductKind = "product-kind"

// checks are the track's rules of its tree and statements, for lint.
var checks = &lint.Checks{
	Schemas: schemas,
	Variant: func(collection string, doc pyjson.Object) lint.Schema {
		if collection == "livraisons" && isAnnex(doc) {
			return annexSchema
		}
		return nil
	},
	Vocabularies: map[string]lint.Vocabulary{
		"category": {Table: "catalogues", Of: "a category of " + corpus.ReglesAchat},
	},
	RulesList:   "regles",
	RulesPrefix: "G",
	Document: func(d lint.Document, doc pyjson.Object) {
		if d.Path == corpus.ReglesAchat {
			checkCatalogueTable(d, doc)
		}
	},
	Links:   links,
	Chains:  chains,
	Paged:   []string{"catalogues"},
	Task:    checkTask,
	Realism: realism,
}

// realism applies the track's realism rules: the suppliers' identifiers
// and addresses, and products whose characteristics fit their kind.
func realism(l *lint.Linter) {
	identifiers := map[string]string{} // SIRET → the resource that carries it
	for _, path := range l.Paths() {
		doc, file := l.Doc(path), l.File(path)
		switch corpus.CollectionOf(path) {
		case "fournisseurs":
			l.CheckIdentifier(file, path, doc, "siret", 14, identifiers)
			l.CheckAddress(file, doc)
		case "produits":
			checkProductKind(l, file, doc)
		}
	}
}

// Closed vocabularies of the purchasing track (docs/contract.md section 3).
var (
	supplierStatus    = []string{"actif", "suspendu", "radie"}
	availabilityState = []string{"en_stock", "rupture", "sur_commande"}
)

// schemas are the track's, keyed by collection; the
// rules resource by its path. A delivery annex, in the livraisons
// collection, has annexSchema.
var schemas = map[string]lint.Schema{
	corpus.ReglesAchat: {
		{Name: "ressource", Type: lint.SelfPath},
		{Name: "titre", Type: lint.Text},
		{Name: "version", Type: lint.Text},
		{Name: "date_publication", Type: lint.Date},
		{Name: "regles", Type: lint.Entries, Sub: lint.Schema{
			{Name: "code", Type: lint.Text},
			{Name: "intitule", Type: lint.Text},
			{Name: "regle", Type: lint.Text},
		}},
		{Name: "option_valide", Type: lint.Text},
		{Name: "selection", Type: lint.Text},
		{Name: "bornes_de_dates", Type: lint.Text},
		{Name: "fraicheur_des_releves", Type: lint.Text},
		{Name: "application_des_annexes", Type: lint.Text},
		{Name: "catalogues", Type: lint.Table},
	},
	"catalogues": {
		{Name: "ressource", Type: lint.SelfPath},
		{Name: "categorie", Type: lint.Text, Word: true, Closed: "category"},
		{Name: "date_publication", Type: lint.Date},
		{Name: "page", Type: lint.Text},
		{Name: "entrees", Type: lint.Entries, Sub: lint.Schema{
			{Name: "produit", Type: lint.Ref, Into: "produits"},
			{Name: "prix_affiche_ttc", Type: lint.Amount},
			{Name: "etat_affiche", Type: lint.Text, Vocab: availabilityState},
		}},
		{Name: "page_suivante", Type: lint.Ref, Into: lint.SameCollection, Nullable: true},
	},
	"produits": {
		{Name: "ressource", Type: lint.SelfPath},
		{Name: "existe", Type: lint.True},
		{Name: "designation", Type: lint.Text},
		{Name: "categorie", Type: lint.Text, Word: true, Closed: "category"},
		{Name: "fournisseur", Type: lint.Ref, Into: "fournisseurs"},
		{Name: "caracteristiques", Type: lint.TextTable},
		{Name: "tarif", Type: lint.Ref, Into: "tarifs"},
		{Name: "disponibilite", Type: lint.Ref, Into: "disponibilites"},
	},
	"fournisseurs": {
		{Name: "ressource", Type: lint.SelfPath},
		{Name: "existe", Type: lint.True},
		{Name: "raison_sociale", Type: lint.Text},
		{Name: "siret", Type: lint.Text},
		{Name: "siege", Type: lint.Text},
		{Name: "statut", Type: lint.Text, Vocab: supplierStatus},
		{Name: "conditions_livraison", Type: lint.Ref, Into: "livraisons"},
	},
	"tarifs": {
		{Name: "ressource", Type: lint.SelfPath},
		{Name: "existe", Type: lint.True},
		{Name: "produit", Type: lint.Ref, Into: "produits"},
		{Name: "prix_unitaire_ttc", Type: lint.Amount},
		{Name: "date_debut", Type: lint.Date},
		{Name: "date_fin_validite", Type: lint.Date},
	},
	"disponibilites": {
		{Name: "ressource", Type: lint.SelfPath},
		{Name: "existe", Type: lint.True},
		{Name: "produit", Type: lint.Ref, Into: "produits"},
		{Name: "etat", Type: lint.Text, Vocab: availabilityState},
		{Name: "quantite_disponible", Type: lint.Count},
		{Name: "date_releve", Type: lint.Date},
	},
	"livraisons": {
		{Name: "ressource", Type: lint.SelfPath},
		{Name: "existe", Type: lint.True},
		{Name: "fournisseur", Type: lint.Ref, Into: "fournisseurs"},
		{Name: "zones", Type: lint.TextList, Word: true},
		{Name: "delai_jours", Type: lint.Count},
		{Name: "frais_ttc", Type: lint.Amount},
		{Name: "annexe", Type: lint.Ref, Into: "livraisons", Nullable: true},
	},
}

// annexSchema is a delivery annex's: what it restricts, each field null
// when it restricts nothing.
var annexSchema = lint.Schema{
	{Name: "ressource", Type: lint.SelfPath},
	{Name: "existe", Type: lint.True},
	{Name: "fournisseur", Type: lint.Ref, Into: "fournisseurs"},
	{Name: "zones_exclues", Type: lint.TextList, Word: true, Nullable: true},
	{Name: "quantite_minimum", Type: lint.Count, Nullable: true},
	{Name: "quantite_maximum", Type: lint.Count, Nullable: true},
}

// isAnnex reports whether a lint.Document of the livraisons collection is an
// annex rather than a supplier's conditions.
func isAnnex(doc pyjson.Object) bool {
	_, ok := doc.Get("zones_exclues")
	return ok
}

// checkCatalogueTable checks /regles-achat's table of categories: each a
// word, each the path of its catalogue's first page.
func checkCatalogueTable(d lint.Document, doc pyjson.Object) {
	table, _ := lint.Member[pyjson.Object](doc, "catalogues")
	for _, m := range table {
		at := lint.Child("/catalogues", m.Key)
		d.CheckWord(lint.Field{Word: true}, at, "category code", m.Key)
		if s, ok := m.Value.(string); ok {
			d.CheckReference(at, s, "catalogues")
		} else {
			d.WrongType(at, "a reference string", m.Value)
		}
	}
}

// links checks that two resources of the purchasing track
// that name each other agree: a product and its tarif and availability
// record, a supplier and its delivery conditions, the conditions and their
// annex, and a catalogue page and the category of the products it lists.
func links(l *lint.Linter, path, collection string, doc pyjson.Object) {
	switch collection {
	case "produits":
		checkNamedBack(l, path, doc, "tarif", "produit")
		checkNamedBack(l, path, doc, "disponibilite", "produit")
	case "tarifs":
		checkNamedBack(l, path, doc, "produit", "tarif")
	case "disponibilites":
		checkNamedBack(l, path, doc, "produit", "disponibilite")
	case "fournisseurs":
		checkNamedBack(l, path, doc, "conditions_livraison", "fournisseur")
	case "livraisons":
		if isAnnex(doc) {
			checkAnnexOwner(l, path, doc)
			return
		}
		checkNamedBack(l, path, doc, "fournisseur", "conditions_livraison")
		if annex, ok := lint.StringField(doc, "annexe"); ok {
			if annexDoc, found := l.Lookup(annex); found && !isAnnex(annexDoc) {
				l.Report(l.File(path), "/annexe", lint.RuleLinks, "%s is a supplier's conditions, not an annex (an annex has zones_exclues)", annex)
			}
		}
	case "catalogues":
		category, _ := lint.StringField(doc, "categorie")
		entries, _ := lint.Member[pyjson.Array](doc, "entrees")
		for i, e := range entries {
			entry, _ := e.(pyjson.Object)
			product, _ := lint.StringField(entry, "produit")
			if got, ok := lint.StringField(l.Doc(product), "categorie"); ok && got != category {
				l.Report(l.File(path), lint.Child(lint.Child("/entrees", i), "produit"), lint.RuleLinks, "%s is in category %q, this catalogue is %q", product, got, category)
			}
		}
	}
}

// checkNamedBack checks that the resource path names in field names path
// back in backField.
func checkNamedBack(l *lint.Linter, path string, doc pyjson.Object, field, backField string) {
	target, ok := lint.StringField(doc, field)
	if !ok {
		return
	}
	if back, ok := lint.StringField(l.Doc(target), backField); ok && back != path {
		l.Report(l.File(path), "/"+field, lint.RuleLinks, "%s names %s as its %s, not this resource", target, back, backField)
	}
}

// checkAnnexOwner checks that an annex is the annex of its supplier's
// conditions: an annex nobody applies restricts nothing.
func checkAnnexOwner(l *lint.Linter, path string, doc pyjson.Object) {
	supplier, _ := lint.StringField(doc, "fournisseur")
	conditions, ok := lint.StringField(l.Doc(supplier), "conditions_livraison")
	conditionsDoc, found := l.Lookup(conditions)
	if !ok || !found {
		return // an unreadable or unresolved one is another rule's finding
	}
	if annex, _ := lint.StringField(conditionsDoc, "annexe"); annex != path {
		l.Report(l.File(path), "/fournisseur", lint.RuleLinks, "the conditions %s of %s do not name this annex", conditions, supplier)
	}
}

// chains lists the catalogues' first pages /regles-achat names.
func chains(l *lint.Linter) []lint.Chain {
	var chains []lint.Chain
	table, _ := lint.Member[pyjson.Object](l.Doc(corpus.ReglesAchat), "catalogues")
	for _, m := range table {
		if first, ok := m.Value.(string); ok {
			origin := corpus.ReglesAchat + " " + lint.Child("/catalogues", m.Key)
			chains = append(chains, lint.Chain{First: first, Collection: "catalogues", Origin: origin, Field: "categorie", Want: m.Key})
		}
	}
	return chains
}

// checkTask checks a purchasing need like the corpus: a category of
// /regles-achat, constraints with a known operator and a decimal value
// where they compare numbers, a value every product of the category spells
// as a decimal, decimal quantity and budget, a zone word, real dates, and
// product references that resolve.
func checkTask(l *lint.Linter, file, at string, task season.Task) {
	need := needOf(task)
	if !l.InVocabulary("category", need.Category) {
		l.Report(file, lint.Child(at, "categorie"), lint.RuleVocabulary, "categorie %q is not a category of %s", need.Category, corpus.ReglesAchat)
	}
	for j, c := range need.Constraints {
		cat := lint.Child(lint.Child(at, "contraintes"), j)
		switch {
		case !slices.Contains(Operators, c.Operator):
			l.Report(file, lint.Child(cat, "operateur"), lint.RuleVocabulary, "operateur %q is not one of >=, <=, =", c.Operator)
		case c.Operator != "=" && !corpus.IsDecimal(c.Value):
			l.Report(file, lint.Child(cat, "valeur"), lint.RuleDecimal, "valeur %q is compared as a number but is not a decimal string", c.Value)
		case c.Operator != "=":
			checkNumericCharacteristic(l, file, lint.Child(cat, "caracteristique"), need.Category, c.Characteristic)
		}
	}
	l.CheckDecimal(file, lint.Child(at, "quantite"), lint.Count, need.Quantity)
	l.CheckDecimal(file, lint.Child(at, "budget_max_ttc"), lint.Amount, need.MaxBudgetInclTax)
	if !lint.WordPattern.MatchString(need.Zone) {
		l.Report(file, lint.Child(at, "zone"), lint.RuleVocabulary, "zone %q is not lowercase ASCII words joined by '-'", need.Zone)
	}
	l.CheckDate(file, lint.Child(at, "date_commande"), "date_commande", need.OrderDate)
	l.CheckPublishedBefore(file, lint.Child(at, "date_commande"), "date_commande", need.OrderDate)
	l.CheckQuestionCites(file, at, task)
	l.CheckDate(file, lint.Child(at, "date_livraison_max"), "date_livraison_max", need.DeliveryDeadline)
	for j, r := range task.References {
		l.CheckReference(file, lint.Child(lint.Child(at, "references"), j), r, "produits")
	}
}

// checkNumericCharacteristic checks that every product of a category that
// has the characteristic spells it as a decimal, so that >= and <= on it
// compare numbers.
func checkNumericCharacteristic(l *lint.Linter, file, at, category, name string) {
	for _, path := range l.Paths() {
		doc := l.Doc(path)
		if corpus.CollectionOf(path) != "produits" {
			continue
		}
		if got, _ := lint.StringField(doc, "categorie"); got != category {
			continue
		}
		chars, _ := lint.Member[pyjson.Object](doc, "caracteristiques")
		if v, ok := lint.StringField(chars, name); ok && !corpus.IsDecimal(v) {
			l.Report(file, at, lint.RuleDecimal, "%s is compared as a number, but %s spells it %q", name, path, v)
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

func (p product) char(name string) (string, bool) { return lint.StringField(p.chars, name) }

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
				return lint.Child("/caracteristiques", m.Key), fmt.Sprintf("%s %q is neither oui nor non", m.Key, s)
			case measured.MatchString(m.Key) && !corpus.IsDecimal(s):
				return lint.Child("/caracteristiques", m.Key), fmt.Sprintf("%s is a measure, %q is not a decimal string", m.Key, s)
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
func checkProductKind(l *lint.Linter, file string, doc pyjson.Object) {
	category, _ := lint.StringField(doc, "categorie")
	chars, ok := lint.Member[pyjson.Object](doc, "caracteristiques")
	if !ok {
		return
	}
	designation, _ := lint.StringField(doc, "designation")
	p := product{designation: designation, chars: chars}
	for _, k := range productKinds {
		if k.category != "" && k.category != category {
			continue
		}
		if at, message := k.check(p); message != "" {
			l.Report(file, at, RuleProductKind, "%s", message)
		}
	}
}
