package solver

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// forms returns every other triple that states the same fact in the task's
// graph, each probative: a link written as its element (/agrements/0) and
// as the whole array (/agrements), an array of one element and that
// element, a link its target states back (an agrément's /entite, an
// avenant's /attestation, a tarif's /produit), and two fields a rule
// requires to agree, where they do (season.Agreement). A whole array of several
// elements is a form of each element's link, not the other way round: it
// states them all.
func forms(g *season.Graph, f season.Fact) []season.Fact {
	var out []season.Fact
	seen := map[season.Claim]bool{}
	var queue []season.Fact
	add := func(resource, field string, value pyjson.Value) {
		claim := season.ClaimOf(resource, field, value)
		if !seen[claim] && g.Admits(resource, field) == season.Admissible {
			seen[claim] = true
			form := season.Fact{Resource: resource, Field: field, Value: pyjson.Canonical(value)}
			out = append(out, form)
			queue = append(queue, form)
		}
	}
	if value, err := pyjson.Parse(f.Value); err == nil {
		seen[season.ClaimOf(f.Resource, f.Field, value)] = true
		queue = append(queue, f)
	}
	for len(queue) > 0 {
		t := queue[0]
		queue = queue[1:]
		value, _ := pyjson.Parse(t.Value) // canonical: the fact's own was parsed above, the forms' are written so
		// An element and its whole array.
		if parent, index, ok := cutIndex(t.Field); ok {
			if whole, ok := pyjson.Lookup(g.Body(t.Resource), parent); ok {
				if _, isArray := whole.(pyjson.Array); isArray && index >= 0 {
					add(t.Resource, parent, whole)
				}
			}
		}
		// An array of one element and that element.
		if list, ok := value.(pyjson.Array); ok && len(list) == 1 {
			add(t.Resource, t.Field+"/0", list[0])
		}
		// Two fields a rule requires to agree, where they do.
		for _, at := range g.Agreeing(t.Resource, t.Field, value) {
			add(at.Resource, at.Field, value)
		}
		// A link and the link back.
		target, ok := value.(string)
		if !ok || !corpus.IsReference(target) {
			continue
		}
		for _, m := range g.Body(target) {
			switch v := m.Value.(type) {
			case string:
				if v == t.Resource {
					add(target, season.Pointer(m.Key), v)
				}
			case pyjson.Array:
				for i, e := range v {
					if e == t.Resource {
						add(target, season.Pointer(m.Key, strconv.Itoa(i)), e)
					}
				}
			}
		}
	}
	return out
}

// cutIndex splits a pointer whose last token is an array index.
func cutIndex(field string) (parent string, index int, ok bool) {
	i := strings.LastIndexByte(field, '/')
	if i < 0 || !season.IsIndex(field[i+1:]) {
		return "", 0, false
	}
	n, err := strconv.Atoi(field[i+1:])
	return field[:i], n, err == nil
}

// Deciding is what decides a derived verdict, as one labelled formula per
// case that would decide it alone: on the conformity track, per criterion
// established false (non_conforme) or undetermined (indeterminable); for
// aucune_option_valide, per candidate, each to be excluded. Verdicts that
// no case decides alone (conforme, a product) have none.
type Deciding struct {
	Label string // "R4", or a candidate's path
	Basis season.Formula
}

// Decided returns the cases that decide a derived result's verdict, in
// order, and combine, the way they make the formula, as the track's rules
// say (season.Decision): any one case (non_conforme, indeterminable) or
// every case (aucune_option_valide). An error names a case that rests on
// nothing an assertion can state.
func Decided(rules *season.Rules, res *Result) (cases []Deciding, all bool, err error) {
	switch decision := rules.Decisions[string(res.Verdict)]; decision {
	case season.AnyFailed, season.AnyUndetermined:
		want := Failed
		if decision == season.AnyUndetermined {
			want = Undetermined
		}
		for _, c := range res.Criteria {
			if c.Outcome != want {
				continue
			}
			if c.Basis.IsZero() {
				if want == Failed {
					return nil, false, fmt.Errorf("%s is established false (%s) on nothing an assertion can state", c.Code, c.Reason)
				}
				continue // undetermined because another criterion is
			}
			cases = append(cases, Deciding{Label: c.Code, Basis: c.Basis})
		}
		if len(cases) == 0 {
			return nil, false, fmt.Errorf("no criterion %s rests on facts an assertion can state", want)
		}
		return cases, false, nil
	case season.EveryExcluded:
		for _, c := range res.Criteria {
			if c.Basis.IsZero() {
				return nil, false, fmt.Errorf("the candidate %s is excluded (%s) on nothing an assertion can state", c.Code, c.Reason)
			}
			cases = append(cases, Deciding{Label: c.Code, Basis: c.Basis})
		}
		return cases, true, nil
	}
	return nil, false, nil // conforme, a product: no case decides it alone
}

// founding writes a task's founding formula from the derivation (Derive)
// and the authors' design. The verdict must be the derived one. For
// non_conforme and indeterminable, one alternative per deciding criterion;
// for aucune_option_valide, every candidate excluded, each by any one of
// the rules that exclude it. A verdict that needs every criterion true is
// founded on its trap: for conforme, the facts the design names; for a
// product, those and its standing against each compared candidate
// (Criterion.Against): the rules that exclude it or, valid but dearer in
// total, the terms that show it dearer. The control task, which has no
// trap, is founded on any one criterion proven whole: a group the design
// names, or the winner's standing against one supplied or cheaper
// candidate. Every fact carries every
// equivalent form of the task's graph. An error says where the corpus does
// not bear the design out.
func founding(design season.DesignTask, derived *Result, graph *season.Graph) (season.Formula, error) {
	if string(derived.Verdict) != design.Verdict {
		return season.Formula{}, fmt.Errorf("the design says %s, the rules applied to the corpus give %s", design.Verdict, derived.Verdict)
	}
	cases, all, err := Decided(graph.Rules, derived)
	if err != nil {
		return season.Formula{}, err
	}
	if len(cases) > 0 {
		if len(design.Facts) > 0 || len(design.Alternatives) > 0 {
			return season.Formula{}, fmt.Errorf("a %s verdict is founded on the criteria that decide it: the design names no faits or un_de", design.Verdict)
		}
		var members []season.Formula
		for _, c := range cases {
			members = append(members, c.Basis)
		}
		if all {
			return withForms(season.AllOf(members...), graph), nil
		}
		return withForms(season.AnyOf(members...), graph), nil
	}
	rests := restsOn(derived)
	trap, err := designBasis(design.Facts, rests, design.Verdict)
	if err != nil {
		return season.Formula{}, err
	}
	comparisons := comparedBases(derived, design.Control)
	if design.Control {
		if len(design.Facts) > 0 {
			return season.Formula{}, fmt.Errorf("the control task has no trap: its design names un_de, not faits")
		}
		alternatives := comparisons
		for _, group := range design.Alternatives {
			members, err := designBasis(group, rests, design.Verdict)
			if err != nil {
				return season.Formula{}, err
			}
			alternatives = append(alternatives, season.AllOf(members...))
		}
		if len(alternatives) == 0 {
			return season.Formula{}, fmt.Errorf("the control task is founded on any one criterion proven whole: the design names no un_de, and no candidate is compared")
		}
		return withForms(season.AnyOf(alternatives...), graph), nil
	}
	if len(design.Alternatives) > 0 {
		return season.Formula{}, fmt.Errorf("un_de is the control task's: a task with a trap is founded on the trap's faits")
	}
	members := append(trap, comparisons...)
	if len(members) == 0 {
		return season.Formula{}, fmt.Errorf("a %s verdict is founded on its trap: the design names no faits", design.Verdict)
	}
	return withForms(season.AllOf(members...), graph), nil
}

// designBasis looks up the facts a design names among those the derived
// verdict rests on.
func designBasis(named []season.Place, rests map[season.Place]season.Fact, verdict string) ([]season.Formula, error) {
	var out []season.Formula
	for _, df := range named {
		f, ok := rests[df]
		if !ok {
			return nil, fmt.Errorf("%s %s is not a fact the %s verdict rests on", df.Resource, df.Field, verdict)
		}
		out = append(out, season.FactOf(f))
	}
	return out, nil
}

// comparedBases founds a product verdict against the other candidates
// (Criterion.Against): for a task with a trap, each compared one; for the
// control task, any one it stands against.
func comparedBases(derived *Result, control bool) []season.Formula {
	var out []season.Formula
	for _, c := range derived.Criteria {
		if c.Compared || control && !c.Against.IsZero() {
			out = append(out, c.Against)
		}
	}
	return out
}

// restsOn indexes, by resource and pointer, every fact a derived result
// rests on: the walk's facts and every criterion's basis.
func restsOn(res *Result) map[season.Place]season.Fact {
	out := map[season.Place]season.Fact{}
	facts := slices.Clone(res.Facts)
	for _, c := range res.Criteria {
		facts = append(facts, c.Basis.Facts()...)
	}
	for _, f := range facts {
		out[f.Place()] = f
	}
	return out
}

// withForms writes what a verdict rests on as a key's formula: each fact
// with every equivalent form of the task's graph.
func withForms(f season.Formula, g *season.Graph) season.Formula {
	switch {
	case f.Fact != nil:
		fact := *f.Fact
		fact.EquivalentForms = forms(g, fact)
		return season.FactOf(fact)
	case f.All != nil:
		return season.Formula{All: allWithForms(f.All, g)}
	}
	return season.Formula{Any: allWithForms(f.Any, g)}
}

func allWithForms(members []season.Formula, g *season.Graph) []season.Formula {
	out := make([]season.Formula, len(members))
	for i, m := range members {
		out[i] = withForms(m, g)
	}
	return out
}

// DeriveKey writes a track's key from its design: for each task of the
// statements, the design's verdict, families and control flag, and the
// founding formula founding derives. Problems name each task whose design
// the corpus does not bear out; the key then holds only the others.
func DeriveKey(tasks *season.Tasks, design *season.Design, fetch season.Fetcher) (*season.Key, []Problem, error) {
	var problems []Problem
	key := &season.Key{}
	for _, task := range tasks.Tasks {
		d, ok := design.Task(task.ID)
		if !ok {
			problems = append(problems, Problem{Task: task.ID, Rule: ruleDerivation, Message: "the design has no entry for the task"})
			continue
		}
		derived, err := Derive(task, fetch)
		if err != nil {
			return nil, nil, err
		}
		graph, err := season.TaskGraph(task, fetch)
		if err != nil {
			return nil, nil, err
		}
		formula, err := founding(d, derived, graph)
		if err != nil {
			problems = append(problems, Problem{Task: task.ID, Rule: ruleDerivation, Message: err.Error()})
			continue
		}
		families := d.Families
		if families == nil {
			families = []string{}
		}
		key.Tasks = append(key.Tasks, season.KeyTask{ID: task.ID, Verdict: d.Verdict, Families: families, Control: d.Control, Founding: formula})
	}
	seen := map[string]bool{}
	for _, d := range design.Tasks {
		if _, ok := tasks.Task(d.ID); !ok {
			problems = append(problems, Problem{Task: d.ID, Rule: ruleDerivation, Message: "the design has a task the statements do not"})
		}
		if seen[d.ID] {
			problems = append(problems, Problem{Task: d.ID, Rule: ruleDerivation, Message: "the design has two entries for the task"})
		}
		seen[d.ID] = true
	}
	return key, problems, nil
}

// FoundingClaims are the claims a careful agent makes on a task whose key
// is k: the smallest set of facts that founds the formula, filled up to
// the task's minimum with other facts the verdict rests on, on the task's
// own resources and in no alternative of the formula. Each value is the
// one fetch serves.
func FoundingClaims(task season.Task, k season.KeyTask, fetch season.Fetcher) ([]season.Fact, error) {
	claims, err := k.Founding.Smallest()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", task.ID, err)
	}
	derived, err := Derive(task, fetch)
	if err != nil {
		return nil, err
	}
	graph, err := season.TaskGraph(task, fetch)
	if err != nil {
		return nil, err
	}
	taken := season.Carried{}
	for _, f := range k.Founding.Facts() {
		taken.AddFact(f)
		for _, form := range f.EquivalentForms {
			taken.AddFact(form)
		}
	}
	for _, f := range derived.Facts {
		if len(claims) >= task.AssertionsMin {
			break
		}
		if graph.Own[f.Resource] && !taken.Has(f) {
			taken.AddFact(f)
			claims = append(claims, f)
		}
	}
	return claims, nil
}
