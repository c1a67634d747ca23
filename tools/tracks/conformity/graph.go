package conformity

import (
	"fmt"
	"slices"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// walk walks a conformity task's graph: the entity, what it lists and what
// the statement cites are its own; the activity's public list and the
// restrictive-measures list its common lists. An entry of the public list
// concerns the task when its entite is the entity; one of the
// restrictive-measures list, when its nom and prenoms are those of one of
// the entity's beneficial owners.
func walk(g *season.Graph, task season.Task) error {
	st := statementOf(task)
	owners := map[[2]string]bool{} // nom and prenoms of every beneficial owner
	g.Concerning = func(collection string, entry pyjson.Object) bool {
		switch collection {
		case "listes/agrees":
			entity, _ := entry.Get("entite")
			return entity == st.Entity
		case "mesures-restrictives":
			return owners[names(entry)]
		}
		return false
	}
	entity, err := g.AddOwn(st.Entity)
	if err != nil {
		return err
	}
	for _, ref := range task.References {
		if r, ok := corpus.ParseReference(ref); ok && !slices.Contains(g.Rules.CommonLists, r.Collection()) {
			if _, err := g.AddOwn(ref); err != nil {
				return err
			}
		}
	}
	if entity != nil {
		if err := addListed(g, st.Entity, entity, owners); err != nil {
			return err
		}
	}
	for _, at := range []string{season.Pointer("listes_agrees", st.Activity), "/mesures_restrictives"} {
		first, err := g.Stated(at)
		if err != nil {
			return err
		}
		if err := g.AddPages(first, g.Common, nil); err != nil {
			return err
		}
	}
	return nil
}

// names are the nom and prenoms of a list's entry.
func names(entry pyjson.Object) [2]string {
	surname, _ := entry.Get("nom")
	givenNames, _ := entry.Get("prenoms")
	s, _ := surname.(string)
	g, _ := givenNames.(string)
	return [2]string{s, g}
}

// addListed adds what the entity lists: agréments, attestations and their
// avenants, and every page of its beneficial-owner declaration, whose
// owners it records.
func addListed(g *season.Graph, path string, entity pyjson.Object, owners map[[2]string]bool) error {
	for _, field := range []string{"agrements", "attestations"} {
		paths, err := season.StringsAt(entity, path, "/"+field)
		if err != nil {
			return err
		}
		for _, listed := range paths {
			doc, err := g.AddOwn(listed)
			if err != nil {
				return err
			}
			if field != "attestations" || doc == nil {
				continue
			}
			amendments, err := season.StringsAt(doc, listed, "/avenants")
			if err != nil {
				return err
			}
			for _, avn := range amendments {
				if _, err := g.AddOwn(avn); err != nil {
					return err
				}
			}
		}
	}
	first, ok := entity.Get("beneficiaires")
	if !ok || first == nil {
		return nil
	}
	declaration, ok := first.(string)
	if !ok {
		return fmt.Errorf("%s: beneficiaires is not a path", path)
	}
	return g.AddPages(declaration, g.Own, func(doc pyjson.Object) error {
		entries, err := season.ObjectsAt(doc, declaration, "/entrees")
		for _, e := range entries {
			owners[names(e)] = true
		}
		return err
	})
}
