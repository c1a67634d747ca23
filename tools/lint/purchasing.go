package lint

import (
	"maps"
	"slices"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// Closed vocabularies of the purchasing track (docs/contract.md section 3).
var (
	supplierStatus    = []string{"actif", "suspendu", "radie"}
	availabilityState = []string{"en_stock", "rupture", "sur_commande"}
)

// purchasingSchemas are the purchasing track's, keyed by collection; the
// rules resource by its path. A delivery annex, in the livraisons
// collection, has annexSchema.
var purchasingSchemas = map[string][]field{
	corpus.ReglesAchat: {
		{name: "ressource", typ: selfPath},
		{name: "titre", typ: text},
		{name: "version", typ: text},
		{name: "date_publication", typ: date},
		{name: "regles", typ: entries, sub: []field{
			{name: "code", typ: text},
			{name: "intitule", typ: text},
			{name: "regle", typ: text},
		}},
		{name: "option_valide", typ: text},
		{name: "selection", typ: text},
		{name: "bornes_de_dates", typ: text},
		{name: "fraicheur_des_releves", typ: text},
		{name: "application_des_annexes", typ: text},
		{name: "catalogues", typ: table},
	},
	"catalogues": {
		{name: "ressource", typ: selfPath},
		{name: "categorie", typ: text, word: true, category: true},
		{name: "date_publication", typ: date},
		{name: "page", typ: text},
		{name: "entrees", typ: entries, sub: []field{
			{name: "produit", typ: ref, into: "produits"},
			{name: "prix_affiche_ttc", typ: amount},
			{name: "etat_affiche", typ: text, vocab: availabilityState},
		}},
		{name: "page_suivante", typ: ref, into: sameCollection, nullable: true},
	},
	"produits": {
		{name: "ressource", typ: selfPath},
		{name: "existe", typ: isTrue},
		{name: "designation", typ: text},
		{name: "categorie", typ: text, word: true, category: true},
		{name: "fournisseur", typ: ref, into: "fournisseurs"},
		{name: "caracteristiques", typ: textTable},
		{name: "tarif", typ: ref, into: "tarifs"},
		{name: "disponibilite", typ: ref, into: "disponibilites"},
	},
	"fournisseurs": {
		{name: "ressource", typ: selfPath},
		{name: "existe", typ: isTrue},
		{name: "raison_sociale", typ: text},
		{name: "siret", typ: text},
		{name: "siege", typ: text},
		{name: "statut", typ: text, vocab: supplierStatus},
		{name: "conditions_livraison", typ: ref, into: "livraisons"},
	},
	"tarifs": {
		{name: "ressource", typ: selfPath},
		{name: "existe", typ: isTrue},
		{name: "produit", typ: ref, into: "produits"},
		{name: "prix_unitaire_ttc", typ: amount},
		{name: "date_debut", typ: date},
		{name: "date_fin_validite", typ: date},
	},
	"disponibilites": {
		{name: "ressource", typ: selfPath},
		{name: "existe", typ: isTrue},
		{name: "produit", typ: ref, into: "produits"},
		{name: "etat", typ: text, vocab: availabilityState},
		{name: "quantite_disponible", typ: count},
		{name: "date_releve", typ: date},
	},
	"livraisons": {
		{name: "ressource", typ: selfPath},
		{name: "existe", typ: isTrue},
		{name: "fournisseur", typ: ref, into: "fournisseurs"},
		{name: "zones", typ: textList, word: true},
		{name: "delai_jours", typ: count},
		{name: "frais_ttc", typ: amount},
		{name: "annexe", typ: ref, into: "livraisons", nullable: true},
	},
}

// annexSchema is a delivery annex's: what it restricts, each field null
// when it restricts nothing.
var annexSchema = []field{
	{name: "ressource", typ: selfPath},
	{name: "existe", typ: isTrue},
	{name: "fournisseur", typ: ref, into: "fournisseurs"},
	{name: "zones_exclues", typ: textList, word: true, nullable: true},
	{name: "quantite_minimum", typ: count, nullable: true},
	{name: "quantite_maximum", typ: count, nullable: true},
}

// isAnnex reports whether a document of the livraisons collection is an
// annex rather than a supplier's conditions.
func isAnnex(doc pyjson.Object) bool {
	_, ok := doc.Get("zones_exclues")
	return ok
}

// checkDecimal checks a decimal string of the given kind (amount, count or
// percent).
func (l *linter) checkDecimal(file, at string, kind fieldType, s string) {
	switch {
	case kind == amount && !corpus.IsAmount(s):
		l.report(file, at, RuleDecimal, "amount %q is not euros with two decimals, like \"1249.90\"", s)
	case kind == count && !corpus.IsCount(s):
		l.report(file, at, RuleDecimal, "quantity %q is not a whole number written in digits, like \"12\"", s)
	case kind == percent && !corpus.IsDecimal(s):
		l.report(file, at, RuleDecimal, "percentage %q is not a decimal string, like \"26\" or \"12.5\"", s)
	}
}

// readCategories takes the product categories from /regles-achat, so that
// every other file is checked against the same closed list.
func (l *linter) readCategories() {
	rules, ok := l.docs[corpus.ReglesAchat]
	if !ok {
		return
	}
	if table, ok := member[pyjson.Object](rules, "catalogues"); ok {
		l.categories = map[string]bool{}
		for _, m := range table {
			l.categories[m.Key] = true
		}
	}
}

// checkCatalogueTable checks /regles-achat's table of categories: each a
// word, each the path of its catalogue's first page.
func (d document) checkCatalogueTable(doc pyjson.Object) {
	table, _ := member[pyjson.Object](doc, "catalogues")
	for _, m := range table {
		at := child("/catalogues", m.Key)
		d.checkWord(field{word: true}, at, "category code", m.Key)
		if s, ok := m.Value.(string); ok {
			d.checkReference(at, s, "catalogues")
		} else {
			d.wrongType(at, "a reference string", m.Value)
		}
	}
}

// checkPurchasingLinks checks that two resources of the purchasing track
// that name each other agree: a product and its tarif and availability
// record, a supplier and its delivery conditions, the conditions and their
// annex, and a catalogue page and the category of the products it lists.
func (l *linter) checkPurchasingLinks(path, collection string, doc pyjson.Object) {
	switch collection {
	case "produits":
		l.checkNamedBack(path, doc, "tarif", "produit")
		l.checkNamedBack(path, doc, "disponibilite", "produit")
	case "tarifs":
		l.checkNamedBack(path, doc, "produit", "tarif")
	case "disponibilites":
		l.checkNamedBack(path, doc, "produit", "disponibilite")
	case "fournisseurs":
		l.checkNamedBack(path, doc, "conditions_livraison", "fournisseur")
	case "livraisons":
		if isAnnex(doc) {
			l.checkAnnexOwner(path, doc)
			return
		}
		l.checkNamedBack(path, doc, "fournisseur", "conditions_livraison")
		if annex, ok := stringField(doc, "annexe"); ok {
			if annexDoc, found := l.docs[annex]; found && !isAnnex(annexDoc) {
				l.report(l.files[path], "/annexe", RuleLinks, "%s is a supplier's conditions, not an annex (an annex has zones_exclues)", annex)
			}
		}
	case "catalogues":
		category, _ := stringField(doc, "categorie")
		entries, _ := member[pyjson.Array](doc, "entrees")
		for i, e := range entries {
			entry, _ := e.(pyjson.Object)
			product, _ := stringField(entry, "produit")
			if got, ok := stringField(l.docs[product], "categorie"); ok && got != category {
				l.report(l.files[path], child(child("/entrees", i), "produit"), RuleLinks, "%s is in category %q, this catalogue is %q", product, got, category)
			}
		}
	}
}

// checkNamedBack checks that the resource path names in field names path
// back in backField.
func (l *linter) checkNamedBack(path string, doc pyjson.Object, field, backField string) {
	target, ok := stringField(doc, field)
	if !ok {
		return
	}
	if back, ok := stringField(l.docs[target], backField); ok && back != path {
		l.report(l.files[path], "/"+field, RuleLinks, "%s names %s as its %s, not this resource", target, back, backField)
	}
}

// checkAnnexOwner checks that an annex is the annex of its supplier's
// conditions: an annex nobody applies restricts nothing.
func (l *linter) checkAnnexOwner(path string, doc pyjson.Object) {
	supplier, _ := stringField(doc, "fournisseur")
	conditions, ok := stringField(l.docs[supplier], "conditions_livraison")
	conditionsDoc, found := l.docs[conditions]
	if !ok || !found {
		return // an unreadable or unresolved one is another rule's finding
	}
	if annex, _ := stringField(conditionsDoc, "annexe"); annex != path {
		l.report(l.files[path], "/fournisseur", RuleLinks, "the conditions %s of %s do not name this annex", conditions, supplier)
	}
}

// purchasingChains lists the catalogues' first pages /regles-achat names.
func (l *linter) purchasingChains() []chain {
	var chains []chain
	table, _ := member[pyjson.Object](l.docs[corpus.ReglesAchat], "catalogues")
	for _, m := range table {
		if first, ok := m.Value.(string); ok {
			origin := corpus.ReglesAchat + " " + child("/catalogues", m.Key)
			chains = append(chains, chain{first: first, collection: "catalogues", origin: origin, field: "categorie", want: m.Key})
		}
	}
	return chains
}

// checkPurchasingTasks checks the purchasing statements like the corpus:
// a category of /regles-achat, constraints with a known operator and a
// decimal value where they compare numbers, a value every product of the
// category spells as a decimal, decimal quantity and budget, a zone word,
// real dates, and product references that resolve.
func (l *linter) checkPurchasingTasks(tasks *season.Tasks) {
	file := l.opts.TasksFile
	for i, task := range tasks.Tasks {
		at := child("/taches", i)
		if l.categories != nil && !l.categories[task.Category] {
			l.report(file, child(at, "categorie"), RuleVocabulary, "categorie %q is not a category of %s", task.Category, corpus.ReglesAchat)
		}
		for j, c := range task.Constraints {
			cat := child(child(at, "contraintes"), j)
			switch {
			case !slices.Contains(season.Operators, c.Operator):
				l.report(file, child(cat, "operateur"), RuleVocabulary, "operateur %q is not one of >=, <=, =", c.Operator)
			case c.Operator != "=" && !corpus.IsDecimal(c.Value):
				l.report(file, child(cat, "valeur"), RuleDecimal, "valeur %q is compared as a number but is not a decimal string", c.Value)
			case c.Operator != "=":
				l.checkNumericCharacteristic(file, child(cat, "caracteristique"), task.Category, c.Characteristic)
			}
		}
		l.checkDecimal(file, child(at, "quantite"), count, task.Quantity)
		l.checkDecimal(file, child(at, "budget_max_ttc"), amount, task.MaxBudgetInclTax)
		if !wordPattern.MatchString(task.Zone) {
			l.report(file, child(at, "zone"), RuleVocabulary, "zone %q is not lowercase ASCII words joined by '-'", task.Zone)
		}
		l.checkDate(file, child(at, "date_commande"), "date_commande", task.OrderDate)
		l.checkPublishedBefore(file, child(at, "date_commande"), "date_commande", task.OrderDate)
		l.checkQuestionCites(file, at, task)
		l.checkDate(file, child(at, "date_livraison_max"), "date_livraison_max", task.DeliveryDeadline)
		for j, r := range task.References {
			l.checkReference(file, child(child(at, "references"), j), r, "produits")
		}
	}
}

// checkNumericCharacteristic checks that every product of a category that
// has the characteristic spells it as a decimal, so that >= and <= on it
// compare numbers.
func (l *linter) checkNumericCharacteristic(file, at, category, name string) {
	for _, path := range slices.Sorted(maps.Keys(l.docs)) {
		doc := l.docs[path]
		if c, _, _ := corpus.SplitReference(path); c != "produits" {
			continue
		}
		if got, _ := stringField(doc, "categorie"); got != category {
			continue
		}
		chars, _ := member[pyjson.Object](doc, "caracteristiques")
		if v, ok := stringField(chars, name); ok && !corpus.IsDecimal(v) {
			l.report(file, at, RuleDecimal, "%s is compared as a number, but %s spells it %q", name, path, v)
		}
	}
}

// member returns obj's member key as a T, if it is one.
func member[T any](obj pyjson.Object, key string) (T, bool) {
	v, _ := obj.Get(key)
	t, ok := v.(T)
	return t, ok
}
