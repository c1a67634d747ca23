package season

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
)

// Fetcher answers a canonical path with the body the server would send.
type Fetcher func(path string) ([]byte, error)

// Graph is a task's graph (docs/contract.md, section 6; spec §5.2 and 6.6): the resources an
// assertion on the task may name, split into its own resources and the
// common lists. Its track's rulebook walks it (Rules.Walk).
type Graph struct {
	// Rules is the rulebook of the task's track.
	Rules *Rules
	// Own holds the resources that are the task's own, whether or not they
	// exist: on the conformity track, the entity and what it lists; on the
	// purchasing track, every candidate's records.
	Own map[string]bool
	// Common holds the pages of the task's common lists.
	Common map[string]bool
	// Concerning says whether an entry of a common list's page, of the
	// given collection, concerns the task; the walk sets it. Nil: none
	// does.
	Concerning func(collection string, entry pyjson.Object) bool

	served *Bodies
	bodies map[string]pyjson.Object // the bodies the walk read
}

// TaskGraph walks a task's graph through fetch, by its track's rules. Its
// fetches are not the solver's calls: the graph holds what a task could be
// asserted on, not what answering it takes.
func TaskGraph(task Task, fetch Fetcher) (*Graph, error) {
	return NewBodies(fetch).TaskGraph(task)
}

// Bodies are the bodies a Fetcher serves, each parsed once (as
// anchor.CheckBody reads it) however many graphs walk it: what a replay
// walks every task of a season through. Not safe for concurrent use; the
// graphs it returns, once walked, are only read.
type Bodies struct {
	fetch  Fetcher
	parsed map[string]pyjson.Object
}

// NewBodies reads bodies through fetch.
func NewBodies(fetch Fetcher) *Bodies {
	return &Bodies{fetch: fetch, parsed: map[string]pyjson.Object{}}
}

// Read returns the body of path, parsed on its first read.
func (b *Bodies) Read(path string) (pyjson.Object, error) {
	if doc, ok := b.parsed[path]; ok {
		return doc, nil
	}
	data, err := b.fetch(path)
	if err != nil {
		return nil, err
	}
	doc, err := anchor.CheckBody(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	b.parsed[path] = doc
	return doc, nil
}

// TaskGraph walks a task's graph through the bodies, by its track's rules.
func (b *Bodies) TaskGraph(task Task) (*Graph, error) {
	rules := task.Rules()
	g := &Graph{
		Rules:  rules,
		Own:    map[string]bool{},
		Common: map[string]bool{},
		served: b,
		bodies: map[string]pyjson.Object{},
	}
	if err := rules.Walk(g, task); err != nil {
		return nil, err
	}
	return g, nil
}

// Stated returns the path at ptr in the resource that states the track's
// rules: the first page of a common list.
func (g *Graph) Stated(ptr string) (string, error) {
	doc, err := g.read(g.Rules.Track.Rules)
	if err != nil {
		return "", err
	}
	return StringAt(doc, g.Rules.Track.Rules, ptr)
}

// AddOwn adds path to the own resources and returns its body, nil when it
// answers existe: false.
func (g *Graph) AddOwn(path string) (pyjson.Object, error) {
	g.Own[path] = true
	doc, err := g.read(path)
	if err != nil {
		return nil, err
	}
	if exists, _ := doc.Get("existe"); exists == false {
		return nil, nil
	}
	return doc, nil
}

// AddPages adds every page of a chain to set (Own or Common), calling
// visit on each that exists.
func (g *Graph) AddPages(first string, set map[string]bool, visit func(pyjson.Object) error) error {
	for page := first; page != "" && !set[page]; {
		set[page] = true
		doc, err := g.read(page)
		if err != nil {
			return err
		}
		if exists, _ := doc.Get("existe"); exists == false {
			return nil
		}
		if visit != nil {
			if err := visit(doc); err != nil {
				return err
			}
		}
		next, _ := doc.Get("page_suivante")
		page, _ = next.(string)
	}
	return nil
}

func (g *Graph) read(path string) (pyjson.Object, error) {
	doc, err := g.served.Read(path)
	if err != nil {
		return nil, err
	}
	g.bodies[path] = doc
	return doc, nil
}

// Body returns the body of a resource of the graph, as served; nil for a
// resource the walk did not read.
func (g *Graph) Body(path string) pyjson.Object { return g.bodies[path] }

// Contains reports whether a resource is in the task's graph.
func (g *Graph) Contains(resource string) bool {
	return g.Own[resource] || g.Common[resource]
}

// Concerns reports whether an assertion on a common list is on an entry that
// concerns the task (docs/contract.md, section 6; spec §5.2 and 6.6), as
// its track's walk says (Concerning).
func (g *Graph) Concerns(resource, field string) bool {
	ref, _ := corpus.ParseReference(resource)
	return g.concerns(ref, Tokens(field))
}

// concerns is Concerns of a resource already parsed and a field already
// split (Tokens).
func (g *Graph) concerns(ref corpus.Reference, tokens []string) bool {
	if len(tokens) < 3 || tokens[1] != "entrees" || g.Concerning == nil {
		return false
	}
	v, _ := pyjson.Lookup(g.bodies[ref.Path()], "/entrees/"+tokens[2])
	entry, ok := v.(pyjson.Object)
	return ok && g.Concerning(ref.Collection(), entry)
}

// Agreeing returns the places of the task's
// graph that state the fact (resource, field, value) by one of the track's
// agreements: the record a common list's entry designates, or the entries
// that designate a record, where the two fields hold the same value; and
// the same key member of the entries that name the same person.
func (g *Graph) Agreeing(resource, field string, value pyjson.Value) []Place {
	if g.Rules == nil {
		return nil
	}
	var out []Place
	collection := corpus.CollectionOf(resource)
	index, member, isEntry := entryField(field)
	entry := g.entry(resource, index)
	for _, a := range g.Rules.Agreements {
		switch {
		case collection == a.List && isEntry && member == a.Member:
			if record, ok := g.follow(entry, a.Links); ok {
				if v, ok := pyjson.Lookup(g.bodies[record], a.Field); ok && pyjson.Equal(v, value) {
					out = append(out, Place{record, a.Field})
				}
			}
		case collection != a.List && field == a.Field:
			for _, page := range g.pagesOf(a.List) {
				for i, other := range g.entries(page) {
					if record, ok := g.follow(other, a.Links); !ok || record != resource {
						continue
					}
					if v, ok := other.(pyjson.Object).Get(a.Member); ok && pyjson.Equal(v, value) {
						out = append(out, Place{page, Pointer("entrees", strconv.Itoa(i), a.Member)})
					}
				}
			}
		}
	}
	if !isEntry {
		return out
	}
	for _, n := range g.Rules.Namesakes {
		other := map[string]string{n.List: n.Of, n.Of: n.List}[collection]
		if other == "" || !slices.Contains(n.Key, member) {
			continue
		}
		for _, page := range g.pagesOf(other) {
			for i, candidate := range g.entries(page) {
				if sameMembers(entry, candidate, n.Key) {
					out = append(out, Place{page, Pointer("entrees", strconv.Itoa(i), member)})
				}
			}
		}
	}
	return out
}

// entryField splits the pointer of one member of a list's entry,
// /entrees/<n>/<member>.
func entryField(field string) (index, member string, ok bool) {
	tokens := strings.Split(field, "/")
	if len(tokens) != 4 || tokens[0] != "" || tokens[1] != "entrees" || !IsIndex(tokens[2]) {
		return "", "", false
	}
	return tokens[2], tokens[3], true
}

// entry is the entry at index of a list page of the graph, nil if none.
func (g *Graph) entry(page, index string) pyjson.Value {
	if index == "" {
		return nil
	}
	v, _ := pyjson.Lookup(g.bodies[page], "/entrees/"+index)
	return v
}

// entries are a list page's entries, in order.
func (g *Graph) entries(page string) pyjson.Array {
	v, _ := pyjson.Lookup(g.bodies[page], "/entrees")
	list, _ := v.(pyjson.Array)
	return list
}

// pagesOf returns the graph's resources of a collection, in order.
func (g *Graph) pagesOf(collection string) []string {
	var out []string
	for _, set := range []map[string]bool{g.Own, g.Common} {
		for path := range set {
			if corpus.CollectionOf(path) == collection {
				out = append(out, path)
			}
		}
	}
	slices.Sort(out)
	return out
}

// sameMembers reports whether two objects hold equal values, each present,
// for every member named.
func sameMembers(a, b pyjson.Value, members []string) bool {
	x, ok1 := a.(pyjson.Object)
	y, ok2 := b.(pyjson.Object)
	if !ok1 || !ok2 {
		return false
	}
	for _, m := range members {
		u, ok1 := x.Get(m)
		v, ok2 := y.Get(m)
		if !ok1 || !ok2 || !pyjson.Equal(u, v) {
			return false
		}
	}
	return true
}

// follow reads links from an object, each member naming the next
// resource, and returns the last resource reached, when it is in the graph.
func (g *Graph) follow(from pyjson.Value, links []string) (string, bool) {
	var path string
	for _, link := range links {
		obj, ok := from.(pyjson.Object)
		if !ok {
			return "", false
		}
		v, _ := obj.Get(link)
		if path, ok = v.(string); !ok {
			return "", false
		}
		from = g.bodies[path]
	}
	return path, path != "" && g.Contains(path)
}
