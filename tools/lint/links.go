package lint

import (
	"maps"
	"slices"
	"strconv"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// checkLinks checks that two resources naming each other agree: an entity
// lists the agréments and attestations that name it, an attestation the
// avenants that name it, and a public list's entry names the agrément's own
// entity and activity. A solver following links one way must reach what a
// solver following them the other way reaches.
func (l *linter) checkLinks() {
	for _, path := range slices.Sorted(maps.Keys(l.docs)) {
		doc := l.docs[path]
		collection, _, _ := corpus.SplitReference(path)
		switch collection {
		case "entites":
			l.checkListed(path, doc, "agrements", "entite")
			l.checkListed(path, doc, "attestations", "entite")
		case "agrements":
			l.checkListedBy(path, doc, "entite", "agrements")
		case "attestations":
			l.checkListedBy(path, doc, "entite", "attestations")
			l.checkListed(path, doc, "avenants", "attestation")
		case "avenants":
			l.checkListedBy(path, doc, "attestation", "avenants")
		case "listes/agrees":
			l.checkListEntries(path, doc)
		default:
			l.checkPurchasingLinks(path, collection, doc)
		}
	}
}

// checkListed checks that each resource path lists in listField names path
// back in ownerField.
func (l *linter) checkListed(path string, doc pyjson.Object, listField, ownerField string) {
	list, _ := doc.Get(listField)
	items, _ := list.(pyjson.Array)
	for i, item := range items {
		target, _ := item.(string)
		owner, ok := stringField(l.docs[target], ownerField)
		if ok && owner != path {
			l.report(l.files[path], child("/"+listField, i), RuleLinks, "%s names %s as its %s, not this resource", target, owner, ownerField)
		}
	}
}

// checkListedBy checks that the resource path names in ownerField lists path
// in listField.
func (l *linter) checkListedBy(path string, doc pyjson.Object, ownerField, listField string) {
	owner, ok := stringField(doc, ownerField)
	ownerDoc, found := l.docs[owner]
	if !ok || !found {
		return // an unresolved reference is the references rule's finding
	}
	list, _ := ownerDoc.Get(listField)
	items, _ := list.(pyjson.Array)
	if !slices.Contains(items, pyjson.Value(path)) {
		l.report(l.files[path], "/"+ownerField, RuleLinks, "%s does not list this resource in /%s", owner, listField)
	}
}

// checkListEntries checks that each entry of a public list names an agrément
// of the list's activity, and that agrément's own entity.
func (l *linter) checkListEntries(path string, doc pyjson.Object) {
	activity, _ := stringField(doc, "activite")
	list, _ := doc.Get("entrees")
	items, _ := list.(pyjson.Array)
	for i, item := range items {
		entry, _ := item.(pyjson.Object)
		licence, _ := stringField(entry, "agrement")
		entity, _ := stringField(entry, "entite")
		licenceDoc, ok := l.docs[licence]
		if !ok {
			continue
		}
		at := child("/entrees", i)
		if got, ok := stringField(licenceDoc, "activite"); ok && got != activity {
			l.report(l.files[path], child(at, "agrement"), RuleLinks, "%s is for activity %q, this list for %q", licence, got, activity)
		}
		if owner, ok := stringField(licenceDoc, "entite"); ok && owner != entity {
			l.report(l.files[path], child(at, "entite"), RuleLinks, "%q, but %s belongs to %s", entity, licence, owner)
		}
	}
}

// chain is a paged resource: its first page, the collection its pages stay
// in, and what each page must say of its owner.
type chain struct {
	first      string
	collection string
	origin     string // what points to the first page, for messages
	field      string // a field every page must hold with value want ("" for none)
	want       string
}

// checkPages walks every page chain from its first page, as named by
// /referentiel (public lists, restrictive measures) or by an entity (its
// beneficial owners): no page_suivante loops back, no page is reached
// twice, pages are numbered 1, 2, ... in chain order, and every page of
// a paged collection is reached.
func (l *linter) checkPages() {
	reachedFrom := map[string]string{}
	for _, c := range l.chains() {
		inChain := map[string]bool{}
		for page, n := c.first, 1; ; n++ {
			doc, ok := l.docs[page]
			if collection, _, _ := corpus.SplitReference(page); !ok || collection != c.collection {
				break // a wrong or unresolved reference is the references rule's finding
			}
			file := l.files[page]
			if other, seen := reachedFrom[page]; seen {
				l.report(file, "", RulePages, "reached twice: from %s and from %s", other, c.origin)
				break
			}
			reachedFrom[page] = c.origin
			inChain[page] = true
			if got, ok := stringField(doc, "page"); ok && got != strconv.Itoa(n) {
				l.report(file, "/page", RulePages, "page %q is page %d of the chain from %s", got, n, c.origin)
			}
			if got, ok := stringField(doc, c.field); ok && c.field != "" && got != c.want {
				l.report(file, "/"+c.field, RuleLinks, "%q, but the page is in the chain from %s, for %q", got, c.origin, c.want)
			}
			next, ok := stringField(doc, "page_suivante")
			if !ok {
				break
			}
			if inChain[next] {
				l.report(file, "/page_suivante", RulePages, "%q loops back to a page of the chain from %s", next, c.origin)
				break
			}
			page = next
		}
	}
	for _, path := range slices.Sorted(maps.Keys(l.docs)) {
		collection, _, _ := corpus.SplitReference(path)
		switch collection {
		case "listes/agrees", "beneficiaires", "mesures-restrictives", "catalogues":
			if _, ok := reachedFrom[path]; !ok {
				l.report(l.files[path], "", RulePages, "not reached from any first page through page_suivante")
			}
		}
	}
}

// chains lists the first pages the corpus names, in a fixed order.
func (l *linter) chains() []chain {
	chains := l.purchasingChains()
	if ref, ok := l.docs[corpus.Referentiel]; ok {
		lists, _ := ref.Get("listes_agrees")
		table, _ := lists.(pyjson.Object)
		for _, m := range table {
			if first, ok := m.Value.(string); ok {
				origin := corpus.Referentiel + " " + child("/listes_agrees", m.Key)
				chains = append(chains, chain{first: first, collection: "listes/agrees", origin: origin, field: "activite", want: m.Key})
			}
		}
		if first, ok := stringField(ref, "mesures_restrictives"); ok {
			chains = append(chains, chain{first: first, collection: "mesures-restrictives", origin: corpus.Referentiel + " /mesures_restrictives"})
		}
	}
	for _, path := range slices.Sorted(maps.Keys(l.docs)) {
		if collection, _, _ := corpus.SplitReference(path); collection != "entites" {
			continue
		}
		if first, ok := stringField(l.docs[path], "beneficiaires"); ok {
			chains = append(chains, chain{first: first, collection: "beneficiaires", origin: path, field: "entite", want: path})
		}
	}
	return chains
}

// taskChecks are each track's checks of its statements, by its rulebook.
var taskChecks = map[*season.Rules]func(*linter, *season.Tasks){
	season.Conformity: (*linter).checkConformityTasks,
	season.Purchasing: (*linter).checkPurchasingTasks,
}

// checkTasks checks the statements like the corpus, by their track's
// checks.
func (l *linter) checkTasks(tasks *season.Tasks) {
	taskChecks[season.RulesOf(l.opts.Track)](l, tasks)
}

// checkConformityTasks checks conformity statements: the entity and each
// cited reference resolve (to a file or an absent entry, which the server
// must answer), the examination date is a date, the activity is one of
// /referentiel's.
func (l *linter) checkConformityTasks(tasks *season.Tasks) {
	file := l.opts.TasksFile
	for i, task := range tasks.Tasks {
		at := child("/taches", i)
		l.checkReference(file, child(at, "entite"), task.Entity, "entites")
		if l.activities != nil && !l.activities[task.Activity] {
			l.report(file, child(at, "activite"), RuleVocabulary, "activite %q is not an activity of /referentiel", task.Activity)
		}
		l.checkDate(file, child(at, "date_examen"), "date_examen", task.ExaminationDate)
		l.checkPublishedBefore(file, child(at, "date_examen"), "date_examen", task.ExaminationDate)
		l.checkQuestionCites(file, at, task)
		for j, r := range task.References {
			collection, _, ok := corpus.SplitReference(r)
			if !ok {
				l.report(file, child(child(at, "references"), j), RuleReferences, "%q is not a canonical path /<collection>/<id>", r)
				continue
			}
			l.checkReference(file, child(child(at, "references"), j), r, collection)
		}
	}
}

// stringField returns the string member key of obj, if obj has one.
func stringField(obj pyjson.Object, key string) (string, bool) {
	v, _ := obj.Get(key)
	s, ok := v.(string)
	return s, ok
}
