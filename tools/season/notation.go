package season

import (
	"fmt"
	"strings"

	"github.com/arkforge/proveit-corpus/manifest/pyjson"
)

// Notation is the notation member of a track's rules document: what is
// scored, as the participant reads it at the opening, which the catalogue
// repeats word for word and the linter holds to the rulebook.
type Notation struct {
	Source       string         `json:"source"` // the rules document's canonical path
	Graph        string         `json:"graphe_de_la_tache"`
	OwnResources string         `json:"ressources_propres"`
	Probative    []ProbativeRow `json:"champs_probants"`
	NotProbative string         `json:"champs_non_probants"`
	SameFact     string         `json:"meme_fait"`
	Fictitious   string         `json:"avertissement"`
}

// ProbativeRow is one collection's probative pointers, in the document's
// order.
type ProbativeRow struct {
	Collection string   `json:"collection"`
	Pointers   []string `json:"champs"`
}

// notationMembers are the notation member's, exactly.
var notationMembers = []string{"graphe_de_la_tache", "ressources_propres", "champs_probants", "champs_non_probants", "meme_fait", "avertissement"}

// ReadNotation reads the notation member of a rules document's bytes;
// source names the document in errors.
func ReadNotation(source string, data []byte) (Notation, error) {
	doc, err := pyjson.Parse(data)
	if err != nil {
		return Notation{Source: source}, fmt.Errorf("%s: %w", source, err)
	}
	root, _ := doc.(pyjson.Object)
	return NotationOf(source, root)
}

// NotationOf reads the notation member of a rules document already parsed.
func NotationOf(source string, root pyjson.Object) (Notation, error) {
	sc := Notation{Source: source}
	v, _ := root.Get("notation")
	notation, ok := v.(pyjson.Object)
	if !ok {
		return sc, fmt.Errorf("%s /notation: want the object that publishes the scoring rules", source)
	}
	text := map[string]*string{"graphe_de_la_tache": &sc.Graph, "ressources_propres": &sc.OwnResources,
		"champs_non_probants": &sc.NotProbative, "meme_fait": &sc.SameFact, "avertissement": &sc.Fictitious}
	for _, name := range notationMembers {
		v, ok := notation.Get(name)
		at := "/notation/" + name
		if !ok {
			return sc, fmt.Errorf("%s %s: missing", source, at)
		}
		if into, isText := text[name]; isText {
			if *into, ok = v.(string); !ok {
				return sc, fmt.Errorf("%s %s: want a string", source, at)
			}
			continue
		}
		table, ok := v.(pyjson.Object)
		if !ok {
			return sc, fmt.Errorf("%s %s: want an object of collection: pointers", source, at)
		}
		for _, m := range table {
			list, _ := m.Value.(pyjson.Array)
			row := ProbativeRow{Collection: m.Key}
			for _, p := range list {
				pointer, ok := p.(string)
				if !ok {
					return sc, fmt.Errorf("%s %s: want arrays of pointers", source, at+"/"+m.Key)
				}
				row.Pointers = append(row.Pointers, pointer)
			}
			sc.Probative = append(sc.Probative, row)
		}
	}
	return sc, nil
}

// PublishedProbative is the rulebook's probative table as the rules
// document publishes it: keyed by "/<collection>/<id>", "<name>" written
// "<nom>".
func (r *Rules) PublishedProbative() map[string][]string {
	out := map[string][]string{}
	for collection, pointers := range r.Probative {
		key := "/" + collection + "/<id>"
		out[key] = []string{}
		for _, p := range pointers {
			out[key] = append(out[key], strings.ReplaceAll(p, "<name>", "<nom>"))
		}
	}
	return out
}

// Table is the published probative table, keyed by collection.
func (n Notation) Table() map[string][]string {
	out := map[string][]string{}
	for _, row := range n.Probative {
		out[row.Collection] = row.Pointers
	}
	return out
}
