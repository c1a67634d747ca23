package season

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/arkforge/proveit-corpus/manifest/pyjson"
)

// Formula is what a verdict rests on: exactly one of a fact, carried when
// a supported assertion claims it or one of its equivalent forms; every
// member (tous); or at least one member (un_de). It is a key's founding
// formula (docs/authoring.md, "The founding formula"), and, before the
// equivalent forms are written, what the reference solver finds each
// criterion rests on. The zero Formula rests on nothing.
type Formula struct {
	Fact *Fact
	All  []Formula // tous
	Any  []Formula // un_de
}

// FactOf is the formula of one fact.
func FactOf(f Fact) Formula { return Formula{Fact: &f} }

// AllFacts needs every fact.
func AllFacts(facts ...Fact) Formula {
	members := make([]Formula, len(facts))
	for i := range facts {
		members[i] = Formula{Fact: &facts[i]}
	}
	return AllOf(members...)
}

// AllOf needs every member; AnyOf, one. Members that rest on nothing are
// dropped, a single member stands for itself, and no member at all is the
// zero Formula: the formula says the same, written the shortest way. A
// key's file is read as it is written (UnmarshalJSON), not through these.
func AllOf(members ...Formula) Formula {
	return combine(members, func(m []Formula) Formula { return Formula{All: m} })
}
func AnyOf(members ...Formula) Formula {
	return combine(members, func(m []Formula) Formula { return Formula{Any: m} })
}

func combine(members []Formula, node func([]Formula) Formula) Formula {
	var kept []Formula
	for _, m := range members {
		if !m.IsZero() {
			kept = append(kept, m)
		}
	}
	switch len(kept) {
	case 0:
		return Formula{}
	case 1:
		return kept[0]
	}
	return node(kept)
}

// IsZero reports whether the formula is empty: no fact, no member. Such a
// formula founds nothing; the decoder never makes one.
func (f Formula) IsZero() bool { return f.Fact == nil && f.All == nil && f.Any == nil }

// errEmpty is the answer of an empty formula to what needs one.
var errEmpty = errors.New("an empty formula founds nothing")

// Members of a fact of the formula and of one of its forms, in the order
// the key writes them.
var (
	formulaFactMembers = Exactly("resource", "field", "value", "formes_equivalentes")
	formMembers        = Exactly("resource", "field", "value")
)

// decodeFormula reads a formula from its JSON, as strictly as a
// submission: no duplicate or unknown member, exact names, exactly one
// shape per node, non-empty lists, forms that are plain triples. Errors
// name the JSON pointer below at.
func decodeFormula(data []byte, at string) (Formula, error) {
	doc, err := pyjson.Parse(data)
	if err != nil {
		return Formula{}, fmt.Errorf("%s: %w", pyjson.ShowPointer(at), err)
	}
	return formulaOf(doc, at)
}

func formulaOf(v pyjson.Value, at string) (Formula, error) {
	obj, ok := v.(pyjson.Object)
	if !ok {
		return Formula{}, fmt.Errorf("%s: a formula is an object", pyjson.ShowPointer(at))
	}
	for _, shape := range []string{"tous", "un_de"} {
		list, ok := obj.Get(shape)
		if !ok {
			continue
		}
		if len(obj) != 1 {
			return Formula{}, fmt.Errorf("%s: a %q node has that member only (exactly one shape per node)", pyjson.ShowPointer(at), shape)
		}
		items, ok := list.(pyjson.Array)
		if !ok || len(items) == 0 {
			return Formula{}, fmt.Errorf("%s: want a non-empty array", pyjson.ShowPointer(at+"/"+shape))
		}
		members := make([]Formula, len(items))
		for i, item := range items {
			var err error
			if members[i], err = formulaOf(item, fmt.Sprintf("%s/%s/%d", at, shape, i)); err != nil {
				return Formula{}, err
			}
		}
		if shape == "tous" {
			return Formula{All: members}, nil
		}
		return Formula{Any: members}, nil
	}
	if _, ok := obj.Get("resource"); !ok {
		return Formula{}, fmt.Errorf("%s: a formula is a fact (resource, field, value, formes_equivalentes), a \"tous\" or an \"un_de\"", pyjson.ShowPointer(at))
	}
	fact, err := tripleOf(obj, at, formulaFactMembers)
	if err != nil {
		return Formula{}, err
	}
	forms, _ := obj.Get("formes_equivalentes")
	items, ok := forms.(pyjson.Array)
	if !ok {
		return Formula{}, fmt.Errorf("%s: want an array of facts", pyjson.ShowPointer(at+"/formes_equivalentes"))
	}
	fact.EquivalentForms = make([]Fact, len(items))
	for i, item := range items {
		formAt := fmt.Sprintf("%s/formes_equivalentes/%d", at, i)
		form, ok := item.(pyjson.Object)
		if !ok {
			return Formula{}, fmt.Errorf("%s: an equivalent form is an object", pyjson.ShowPointer(formAt))
		}
		if fact.EquivalentForms[i], err = tripleOf(form, formAt, formMembers); err != nil {
			return Formula{}, err
		}
	}
	return FactOf(fact), nil
}

// tripleOf reads a fact's resource, field and value from an object with
// exactly the members named.
func tripleOf(obj pyjson.Object, at string, members Members) (Fact, error) {
	if err := members.Check(obj, at); err != nil {
		return Fact{}, err
	}
	resource, _ := obj.Get("resource")
	field, _ := obj.Get("field")
	value, _ := obj.Get("value")
	r, ok1 := resource.(string)
	f, ok2 := field.(string)
	if !ok1 || !ok2 {
		return Fact{}, fmt.Errorf("%s: resource and field are strings", pyjson.ShowPointer(at))
	}
	return Fact{Resource: r, Field: f, Value: pyjson.Canonical(value)}, nil
}

// MarshalJSON writes the formula in the key's shape; a fact always carries
// its formes_equivalentes, an empty list when it has none.
func (f Formula) MarshalJSON() ([]byte, error) {
	switch {
	case f.Fact != nil:
		type triple struct {
			Resource string          `json:"resource"`
			Field    string          `json:"field"`
			Value    json.RawMessage `json:"value"`
		}
		forms := make([]triple, len(f.Fact.EquivalentForms))
		for i, form := range f.Fact.EquivalentForms {
			forms[i] = triple{form.Resource, form.Field, readable(form.Value)}
		}
		return json.Marshal(struct {
			triple
			EquivalentForms []triple `json:"formes_equivalentes"`
		}{triple{f.Fact.Resource, f.Fact.Field, readable(f.Fact.Value)}, forms})
	case f.All != nil:
		return json.Marshal(struct {
			All []Formula `json:"tous"`
		}{f.All})
	case f.Any != nil:
		return json.Marshal(struct {
			Any []Formula `json:"un_de"`
		}{f.Any})
	}
	return nil, errEmpty
}

// readable rewrites a JSON value with its characters as themselves rather
// than \u escapes, for a file people read; the value is the same.
func readable(v json.RawMessage) json.RawMessage {
	var decoded any
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	if err := dec.Decode(&decoded); err != nil {
		return v // not JSON: Marshal reports it
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(decoded); err != nil {
		return v
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// String writes the formula as the key's words do: a fact, tous(...),
// un_de(...), or rien for the zero Formula.
func (f Formula) String() string {
	join := func(members []Formula) string {
		parts := make([]string, len(members))
		for i, m := range members {
			parts[i] = m.String()
		}
		return strings.Join(parts, "; ")
	}
	switch {
	case f.Fact != nil:
		return f.Fact.String()
	case f.All != nil:
		return "tous(" + join(f.All) + ")"
	case f.Any != nil:
		return "un_de(" + join(f.Any) + ")"
	}
	return "rien"
}

// UnmarshalJSON reads a formula strictly; its errors name pointers from the
// formula's root.
func (f *Formula) UnmarshalJSON(data []byte) error {
	g, err := decodeFormula(data, "")
	*f = g
	return err
}

// Carried is the set of claims supported assertions make.
type Carried map[Claim]bool

// Add records a claim carried by a supported assertion.
func (c Carried) Add(resource, field string, value pyjson.Value) {
	c[ClaimOf(resource, field, value)] = true
}

// AddFact records a fact as carried; a value that is not JSON carries
// nothing.
func (c Carried) AddFact(f Fact) {
	if v, err := pyjson.Parse(f.Value); err == nil {
		c.Add(f.Resource, f.Field, v)
	}
}

// Has reports whether the fact itself (not one of its forms) is carried.
func (c Carried) Has(f Fact) bool {
	v, err := pyjson.Parse(f.Value)
	return err == nil && c[ClaimOf(f.Resource, f.Field, v)]
}

// carries reports whether the fact, or one of its equivalent forms, is
// carried.
func (c Carried) carries(f *Fact) bool {
	return c.Has(*f) || slices.ContainsFunc(f.EquivalentForms, c.Has)
}

// Holds reports whether the carried claims satisfy the formula.
func (f Formula) Holds(c Carried) bool {
	switch {
	case f.Fact != nil:
		return c.carries(f.Fact)
	case f.All != nil:
		for _, m := range f.All {
			if !m.Holds(c) {
				return false
			}
		}
		return true
	}
	return slices.ContainsFunc(f.Any, func(m Formula) bool { return m.Holds(c) })
}

// Facts lists the formula's facts, depth first, each with its forms.
func (f Formula) Facts() []Fact {
	if f.Fact != nil {
		return []Fact{*f.Fact}
	}
	var out []Fact
	for _, m := range append(slices.Clone(f.All), f.Any...) {
		out = append(out, m.Facts()...)
	}
	return out
}

// maxAlternatives bounds the alternatives a formula expands to: a key's
// formula is small, and one that expands past this is an authoring error.
const maxAlternatives = 4096

// Alternatives expands the formula into its alternatives: each a list of
// facts that, all carried, satisfy it; the formula holds exactly when one
// alternative is carried whole. An un_de contributes each member's
// alternatives in order, a tous the products of its members'.
func (f Formula) Alternatives() ([][]Fact, error) {
	switch {
	case f.IsZero():
		return nil, errEmpty
	case f.Fact != nil:
		return [][]Fact{{*f.Fact}}, nil
	case f.Any != nil:
		var out [][]Fact
		for _, m := range f.Any {
			alts, err := m.Alternatives()
			if err != nil {
				return nil, err
			}
			out = append(out, alts...)
			if len(out) > maxAlternatives {
				return nil, fmt.Errorf("the formula has more than %d alternatives", maxAlternatives)
			}
		}
		return out, nil
	}
	out := [][]Fact{nil}
	for _, m := range f.All {
		alts, err := m.Alternatives()
		if err != nil {
			return nil, err
		}
		if len(out)*len(alts) > maxAlternatives {
			return nil, fmt.Errorf("the formula has more than %d alternatives", maxAlternatives)
		}
		next := make([][]Fact, 0, len(out)*len(alts))
		for _, prefix := range out {
			for _, alt := range alts {
				next = append(next, append(slices.Clone(prefix), alt...))
			}
		}
		out = next
	}
	return out, nil
}

// Smallest returns a smallest set of claims that satisfies the formula,
// choosing among each fact's forms: one claim may carry several facts (a
// whole array carries every link it holds).
func (f Formula) Smallest() ([]Fact, error) {
	alts, err := f.Alternatives()
	if err != nil {
		return nil, err
	}
	var best []Fact
	for _, alt := range alts {
		if cover := smallestCover(alt, len(best)); cover != nil && (best == nil || len(cover) < len(best)) {
			best = cover
		}
	}
	return best, nil
}

// SmallestCover returns a smallest set of claims that carries every fact,
// choosing among each fact's forms.
func SmallestCover(facts []Fact) []Fact { return smallestCover(facts, 0) }

// smallestCover returns a smallest set of triples among the facts' own and
// forms that carries every fact, or nil if none is smaller than bound (0:
// no bound). A branch and bound on the first fact not yet carried.
func smallestCover(facts []Fact, bound int) []Fact {
	var best []Fact
	var walk func(chosen []Fact)
	walk = func(chosen []Fact) {
		if best != nil && len(chosen) >= len(best) || bound > 0 && len(chosen) >= bound {
			return
		}
		c := Carried{}
		for _, t := range chosen {
			c.AddFact(t)
		}
		i := slices.IndexFunc(facts, func(f Fact) bool { return !c.carries(&f) })
		if i < 0 {
			best = slices.Clone(chosen)
			return
		}
		for _, t := range triplesOf(facts[i]) {
			walk(append(chosen, t))
		}
	}
	walk(nil)
	return best
}

// triplesOf is a fact and its forms, as plain triples.
func triplesOf(f Fact) []Fact {
	out := []Fact{{Resource: f.Resource, Field: f.Field, Value: f.Value}}
	for _, form := range f.EquivalentForms {
		out = append(out, Fact{Resource: form.Resource, Field: form.Field, Value: form.Value})
	}
	return out
}

// Missing returns, for a formula the carried claims do not satisfy, the
// facts of the alternative that came closest (fewest facts missing, the
// first on a tie), each as the key writes it without its forms; nil when
// the formula holds.
func (f Formula) Missing(c Carried) ([]Fact, error) {
	if f.Holds(c) {
		return nil, nil
	}
	alts, err := f.Alternatives()
	if err != nil {
		return nil, err
	}
	var closest []Fact
	for i, alt := range alts {
		var missing []Fact
		for _, fact := range alt {
			if !c.carries(&fact) && !slices.ContainsFunc(missing, func(m Fact) bool { return sameTriple(m, fact) }) {
				missing = append(missing, Fact{Resource: fact.Resource, Field: fact.Field, Value: fact.Value})
			}
		}
		if i == 0 || len(missing) < len(closest) {
			closest = missing
		}
	}
	return closest, nil
}

func sameTriple(a, b Fact) bool {
	return a.Resource == b.Resource && a.Field == b.Field && bytes.Equal(a.Value, b.Value)
}
