package purchasing

import (
	"fmt"

	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// walk walks a purchasing task's graph (docs/contract.md section 3): the
// category's catalogue pages are its common list; each candidate (a
// product on one of those pages, or a reference the statement supplies)
// brings its own resources: its product sheet, supplier, tarif,
// availability record, delivery conditions and annex, whether or not they
// exist. A catalogue's entry concerns the task when it lists a candidate.
func walk(g *season.Graph, task season.Task) error {
	candidates := map[string]bool{}
	g.Concerning = func(collection string, entry pyjson.Object) bool {
		product, _ := entry.Get("produit")
		path, _ := product.(string)
		return collection == "catalogues" && candidates[path]
	}
	first, err := g.Stated(season.Pointer("catalogues", needOf(task).Category))
	if err != nil {
		return err
	}
	var listed []string
	err = g.AddPages(first, g.Common, func(doc pyjson.Object) error {
		entries, err := season.ObjectsAt(doc, first, "/entrees")
		for _, e := range entries {
			if product, ok := e.Get("produit"); ok {
				if path, ok := product.(string); ok {
					listed = append(listed, path)
				}
			}
		}
		return err
	})
	if err != nil {
		return err
	}
	for _, product := range append(listed, task.References...) {
		candidates[product] = true
		doc, err := g.AddOwn(product)
		if err != nil {
			return err
		}
		if doc == nil {
			continue // answers existe: false: it links to nothing
		}
		if err := addLinks(g, product, doc, "fournisseur", "tarif", "disponibilite"); err != nil {
			return err
		}
		supplier, _ := doc.Get("fournisseur")
		path, _ := supplier.(string)
		if err := addChain(g, path, "conditions_livraison", "annexe"); err != nil {
			return err
		}
	}
	return nil
}

// addLinks adds the resources doc names in fields to the own resources.
func addLinks(g *season.Graph, path string, doc pyjson.Object, fields ...string) error {
	for _, field := range fields {
		v, _ := doc.Get(field)
		if v == nil {
			continue
		}
		link, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s: %s is neither a path nor null", path, field)
		}
		if _, err := g.AddOwn(link); err != nil {
			return err
		}
	}
	return nil
}

// addChain follows, from an own resource that exists, one link after
// another (a supplier's conditions, then their annex), adding each.
func addChain(g *season.Graph, from string, fields ...string) error {
	for _, field := range fields {
		doc := g.Body(from)
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
		if _, err := g.AddOwn(next); err != nil {
			return err
		}
		from = next
	}
	return nil
}
