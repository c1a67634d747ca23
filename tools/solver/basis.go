package solver

import "strings"

// Basis is what an outcome rests on, as a formula over the solver's facts:
// a fact, every member (All) or any one member (Any). It is the founding
// formula of a key before the equivalent forms are written (founding).
type Basis struct {
	Fact *Fact
	All  []Basis
	Any  []Basis
}

// FactsBasis is every fact, all needed.
func FactsBasis(facts ...Fact) Basis {
	members := make([]Basis, len(facts))
	for i := range facts {
		members[i] = Basis{Fact: &facts[i]}
	}
	return AllOf(members...)
}

// AllOf needs every member; a single member stands for itself, and an
// empty list is the zero Basis, which rests on nothing.
func AllOf(members ...Basis) Basis {
	members = nonEmpty(members)
	if len(members) == 1 {
		return members[0]
	}
	return Basis{All: members}
}

// AnyOf needs one member.
func AnyOf(members ...Basis) Basis {
	members = nonEmpty(members)
	if len(members) == 1 {
		return members[0]
	}
	return Basis{Any: members}
}

func nonEmpty(members []Basis) []Basis {
	var out []Basis
	for _, m := range members {
		if !m.IsZero() {
			out = append(out, m)
		}
	}
	return out
}

// IsZero reports whether the basis rests on nothing.
func (b Basis) IsZero() bool { return b.Fact == nil && b.All == nil && b.Any == nil }

// String writes the basis as the key's words do: a fact, tous(...),
// un_de(...), or rien for the zero Basis.
func (b Basis) String() string {
	switch {
	case b.Fact != nil:
		return b.Fact.String()
	case b.All != nil:
		return "tous(" + joinBases(b.All) + ")"
	case b.Any != nil:
		return "un_de(" + joinBases(b.Any) + ")"
	}
	return "rien"
}

func joinBases(bs []Basis) string {
	parts := make([]string, len(bs))
	for i, b := range bs {
		parts[i] = b.String()
	}
	return strings.Join(parts, "; ")
}

// facts lists the basis's facts, depth first.
func (b Basis) facts() []Fact {
	if b.Fact != nil {
		return []Fact{*b.Fact}
	}
	var out []Fact
	for _, m := range append(append([]Basis(nil), b.All...), b.Any...) {
		out = append(out, m.facts()...)
	}
	return out
}
