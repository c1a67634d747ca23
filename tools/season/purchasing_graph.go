package season

import (
	"fmt"

	"github.com/arkforge/proveit-corpus/manifest/pyjson"
)

// purchaseGraph walks a purchasing task's graph (docs/contract.md section 3):
// the category's catalogue pages are its common list; each candidate (a
// product on one of those pages, or a reference the statement supplies)
// brings its own resources: its product sheet, supplier, tarif,
// availability record, delivery conditions and annex, whether or not they
// exist.
func purchaseGraph(rules *Rules, task Task, fetch Fetcher) (*Graph, error) {
	g := newGraph(rules, "")
	first, err := g.stated(Pointer("catalogues", task.Category), fetch)
	if err != nil {
		return nil, err
	}
	var candidates []string
	err = g.pages(first, fetch, g.Common, func(doc pyjson.Object) error {
		entries, err := ObjectsAt(doc, first, "/entrees")
		for _, e := range entries {
			if product, ok := e.Get("produit"); ok {
				if path, ok := product.(string); ok {
					candidates = append(candidates, path)
				}
			}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, product := range append(candidates, task.References...) {
		g.candidates[product] = true
		doc, err := g.own(product, fetch)
		if err != nil {
			return nil, err
		}
		if doc == nil {
			continue // answers existe: false: it links to nothing
		}
		if err := g.ownLinks(product, doc, fetch, "fournisseur", "tarif", "disponibilite"); err != nil {
			return nil, err
		}
		supplier, _ := doc.Get("fournisseur")
		path, _ := supplier.(string)
		if err := g.ownChain(path, fetch, "conditions_livraison", "annexe"); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// ownLinks adds the resources doc names in fields to the own resources.
func (g *Graph) ownLinks(path string, doc pyjson.Object, fetch Fetcher, fields ...string) error {
	for _, field := range fields {
		v, _ := doc.Get(field)
		if v == nil {
			continue
		}
		link, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s: %s is neither a path nor null", path, field)
		}
		if _, err := g.own(link, fetch); err != nil {
			return err
		}
	}
	return nil
}

// ownChain follows, from an own resource that exists, one link after
// another (a supplier's conditions, then their annex), adding each.
func (g *Graph) ownChain(from string, fetch Fetcher, fields ...string) error {
	for _, field := range fields {
		doc := g.bodies[from]
		if exists, _ := doc.Get("existe"); doc == nil || exists == false {
			return nil
		}
		v, _ := doc.Get(field)
		next, ok := v.(string)
		if v == nil {
			return nil
		}
		if !ok {
			return fmt.Errorf("%s: %s is neither a path nor null", from, field)
		}
		if _, err := g.own(next, fetch); err != nil {
			return err
		}
		from = next
	}
	return nil
}
