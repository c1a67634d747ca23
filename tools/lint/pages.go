package lint

import (
	"maps"
	"slices"
	"strconv"

	"github.com/arkforge/proveit-corpus/corpus"
)

// checkPages walks every page chain from its first page, as the track
// names them (Checks.Chains): no page_suivante loops back, no page is
// reached twice, pages are numbered 1, 2, ... in chain order, and every
// page of a paged collection is reached.
func (l *Linter) checkPages() {
	reachedFrom := map[string]string{}
	for _, c := range l.chains() {
		inChain := map[string]bool{}
		for page, n := c.First, 1; ; n++ {
			doc, ok := l.docs[page]
			if !ok || corpus.CollectionOf(page) != c.Collection {
				break // a wrong or unresolved reference is the references rule's finding
			}
			file := l.files[page]
			if other, seen := reachedFrom[page]; seen {
				l.Report(file, "", rulePages, "reached twice: from %s and from %s", other, c.Origin)
				break
			}
			reachedFrom[page] = c.Origin
			inChain[page] = true
			if got, ok := StringField(doc, "page"); ok && got != strconv.Itoa(n) {
				l.Report(file, "/page", rulePages, "page %q is page %d of the chain from %s", got, n, c.Origin)
			}
			if got, ok := StringField(doc, c.Field); ok && c.Field != "" && got != c.Want {
				l.Report(file, "/"+c.Field, RuleLinks, "%q, but the page is in the chain from %s, for %q", got, c.Origin, c.Want)
			}
			next, ok := StringField(doc, "page_suivante")
			if !ok {
				break
			}
			if inChain[next] {
				l.Report(file, "/page_suivante", rulePages, "%q loops back to a page of the chain from %s", next, c.Origin)
				break
			}
			page = next
		}
	}
	for _, path := range slices.Sorted(maps.Keys(l.docs)) {
		if _, ok := reachedFrom[path]; !ok && slices.Contains(l.checks.Paged, corpus.CollectionOf(path)) {
			l.Report(l.files[path], "", rulePages, "not reached from any first page through page_suivante")
		}
	}
}

// chains lists the first pages the tree names, in a fixed order.
func (l *Linter) chains() []Chain {
	if l.checks.Chains == nil {
		return nil
	}
	return l.checks.Chains(l)
}
