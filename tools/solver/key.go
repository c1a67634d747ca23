package solver

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// Rules of the track an answer key is checked against, as problems name them.
const (
	ruleVerdict      = "verdict"      // the key's verdict is the solver's
	ruleCalls        = "calls"        // a task takes MinCalls..MaxCalls calls
	ruleComposition  = "composition"  // the season's balance of verdicts and trap families
	ruleBounds       = "bounds"       // a task's assertion bounds are the track's
	ruleServed       = "served"       // a fact's value is exactly what the corpus serves
	ruleProbative    = "probative"    // a fact's field is a probative pointer (docs/contract.md, section 3; spec §5.7)
	ruleGraph        = "graph"        // a fact's resource is in the task's graph (docs/contract.md, section 6; spec §5.2)
	ruleOwn          = "own-resource" // enough facts are on the entity's own resources
	ruleCommonList   = "common-list"  // a fact on a common list is on an entry concerning the entity
	ruleForms        = "forms"        // a fact lists every equivalent form of the task's graph
	ruleAlternatives = "alternatives" // the formula founds every case that decides the verdict
	ruleRoom         = "room"         // the smallest founding set leaves room under the ceiling
	ruleDerivation   = "derivation"   // the formula rests only on what the rules derive, as the design says
)

// Problem is one way a season's statements and key break the track's rules.
type Problem struct {
	Task    string // "" for the season as a whole
	Rule    string
	Message string
}

func (p Problem) String() string {
	where := p.Task
	if where == "" {
		where = "season"
	}
	return fmt.Sprintf("%s: %s (rule: %s)", where, p.Message, p.Rule)
}

// SolveSeason solves every task, in the statements' order.
func SolveSeason(tasks *season.Tasks, fetch season.Fetcher) ([]*Result, error) {
	results := make([]*Result, 0, len(tasks.Tasks))
	for _, task := range tasks.Tasks {
		res, err := Solve(task, fetch)
		if err != nil {
			return nil, err
		}
		results = append(results, res)
	}
	return results, nil
}

// CheckKey checks a sealed key against the statements, the corpus and the
// solver's results: each verdict is the solver's, each task takes 2 to 12
// calls, the season has its published composition, and each task's
// founding formula founds every case the rules derive as deciding the
// verdict (Derive, Decided) and nothing else, with every equivalent form,
// leaves room under the ceiling, and each of its facts and forms is exactly
// served, probative, in the task's graph, on a common list only where an
// entry concerns the task; its smallest founding set, filled up to the
// minimum, has enough assertions on the task's own resources.
func CheckKey(tasks *season.Tasks, key *season.Key, results []*Result, fetch season.Fetcher) ([]Problem, error) {
	var problems []Problem
	report := func(task, rule, format string, args ...any) {
		problems = append(problems, Problem{Task: task, Rule: rule, Message: fmt.Sprintf(format, args...)})
	}
	byID := map[string]season.KeyTask{}
	for _, k := range key.Tasks {
		if _, dup := byID[k.ID]; dup {
			report(k.ID, ruleComposition, "two keys for the task")
		}
		byID[k.ID] = k
	}
	solved := map[string]*Result{}
	for _, r := range results {
		solved[r.Task] = r
	}
	for _, task := range tasks.Tasks {
		k, ok := byID[task.ID]
		if !ok {
			report(task.ID, ruleComposition, "the key has no entry for the task")
			continue
		}
		delete(byID, task.ID)
		if res, ok := solved[task.ID]; !ok {
			report(task.ID, ruleVerdict, "the solver has no result for the task")
		} else {
			if Verdict(k.Verdict) != res.Verdict {
				report(task.ID, ruleVerdict, "the key says %s, the solver %s", k.Verdict, res.Verdict)
			}
			if n := len(res.Calls); n < season.MinCalls || n > season.MaxCalls {
				report(task.ID, ruleCalls, "answering takes %d calls, want %d to %d", n, season.MinCalls, season.MaxCalls)
			}
		}
		taskProblems, err := checkFormula(task, k, fetch)
		if err != nil {
			return nil, err
		}
		problems = append(problems, taskProblems...)
	}
	for _, id := range slices.Sorted(maps.Keys(byID)) {
		report(id, ruleComposition, "the key has a task the statements do not")
	}
	rules, err := season.RulesNamed(tasks.Track)
	if err != nil {
		return nil, err
	}
	return append(problems, checkComposition(rules, key)...), nil
}

// checkFormula checks one task's founding formula.
func checkFormula(task season.Task, k season.KeyTask, fetch season.Fetcher) ([]Problem, error) {
	p := &taskProblems{task: task.ID}
	if task.AssertionsMin < season.MinAssertions || task.AssertionsMin > season.MaxAssertionsMin || task.AssertionsMax != 2*task.AssertionsMin {
		p.report(ruleBounds, "bounds %d..%d, want a minimum of %d to %d and a maximum twice it", task.AssertionsMin, task.AssertionsMax, season.MinAssertions, season.MaxAssertionsMin)
	}
	graph, err := season.TaskGraph(task, fetch)
	if err != nil {
		return nil, err
	}
	derived, err := Derive(task, fetch)
	if err != nil {
		return nil, err
	}
	checkFacts(p, task, k, graph, derived, fetch)
	if Verdict(k.Verdict) == derived.Verdict {
		alternativeProblems, err := checkAlternatives(k.Founding, derived, graph)
		if err != nil {
			return nil, err
		}
		for _, ap := range alternativeProblems {
			p.report(ap.Rule, "%s", ap.Message)
		}
	}
	if err := checkRoom(p, task, k, graph); err != nil {
		return nil, err
	}
	return p.list, nil
}

// taskProblems gathers the problems found in one task's key.
type taskProblems struct {
	task string
	list []Problem
}

func (p *taskProblems) report(rule, format string, args ...any) {
	p.list = append(p.list, Problem{Task: p.task, Rule: rule, Message: fmt.Sprintf(format, args...)})
}

// checkFacts checks every fact of the formula and each of its equivalent
// forms as an assertion of it would be checked (admissible, served as the
// key says), that each fact is one the derived verdict rests on, and that
// the key lists every equivalent form the graph has.
func checkFacts(p *taskProblems, task season.Task, k season.KeyTask, graph *season.Graph, derived *Result, fetch season.Fetcher) {
	subject := graph.Rules.Subject(task)
	check := func(label string, f season.Fact) {
		switch graph.Admits(f.Resource, f.Field) {
		case season.OutsideGraph:
			p.report(ruleGraph, "%s: not in the task's graph", label)
		case season.WholeDocument, season.NotProbative:
			p.report(ruleProbative, "%s: not a probative field of its collection", label)
		case season.OtherEntry:
			p.report(ruleCommonList, "%s: a common list's entry that does not concern %s", label, subject)
		}
		if msg := served(f, fetch); msg != "" {
			p.report(ruleServed, "%s: %s", label, msg)
		}
	}
	rests := restsOn(derived)
	for i, f := range k.Founding.Facts() {
		label := fmt.Sprintf("fact %d (%s %s)", i, f.Resource, f.Field)
		check(label, f)
		for j, form := range f.EquivalentForms {
			check(fmt.Sprintf("%s, equivalent form %d (%s %s)", label, j, form.Resource, form.Field), form)
		}
		value, err := pyjson.Parse(f.Value)
		if err != nil {
			continue // served reports it
		}
		if r, ok := rests[f.Place()]; !ok || !pyjson.Equal(mustParse(r.Value), value) {
			p.report(ruleDerivation, "%s: not a fact the %s verdict rests on", label, k.Verdict)
		}
		listed := season.Carried{}
		for _, form := range f.EquivalentForms {
			listed.AddFact(form)
		}
		for _, form := range forms(graph, season.Fact{Resource: f.Resource, Field: f.Field, Value: pyjson.Canonical(value)}) {
			if !listed.Has(form) {
				p.report(ruleForms, "%s: lacks the equivalent form %s", label, form)
			}
		}
	}
}

// checkRoom checks that the formula leaves an agent room within the task's
// bounds: its smallest founding set under the ceiling, each of the control
// task's alternatives within the minimum, and enough own resources.
func checkRoom(p *taskProblems, task season.Task, k season.KeyTask, graph *season.Graph) error {
	smallest, err := k.Founding.Smallest()
	if err != nil {
		p.report(ruleRoom, "%v", err)
		return nil
	}
	limit, why := task.AssertionsMax-2, fmt.Sprintf("assertions_max %d - 2", task.AssertionsMax)
	if k.Control {
		limit, why = task.AssertionsMin, fmt.Sprintf("the control task's assertions_min %d", task.AssertionsMin)
	}
	if len(smallest) > limit {
		p.report(ruleRoom, "the smallest set of facts that founds the verdict has %d facts, want at most %d (%s)", len(smallest), limit, why)
	}
	if k.Control {
		// Any one criterion proven whole founds the control task, each
		// within its minimum: none is a choice the agent must guess.
		alternatives, err := k.Founding.Alternatives()
		if err != nil {
			return err
		}
		for _, alt := range alternatives {
			if n := len(season.SmallestCover(alt)); n > task.AssertionsMin {
				p.report(ruleRoom, "the control task's alternative %s takes %d assertions, want at most its assertions_min %d", describe(alt), n, task.AssertionsMin)
			}
		}
	}
	own := 0
	for _, f := range smallest {
		if graph.Own[f.Resource] {
			own++
		}
	}
	// The agent fills the smallest set up to the minimum with assertions
	// of its choosing, which may all be on own resources.
	if want, filled := season.OwnMinimum(task.AssertionsMin), own+max(0, task.AssertionsMin-len(smallest)); filled < want {
		p.report(ruleOwn, "the smallest founding set, filled up to the minimum, has %d assertions on %s own resources, want at least %d (half the minimum %d, rounded up)", filled, graph.Rules.Owner, want, task.AssertionsMin)
	}
	return nil
}

// checkAlternatives compares a key's formula with the cases the derivation
// says decide the verdict: each alternative of each case, proved alone
// (for aucune_option_valide, with one alternative of every other
// candidate), founds the verdict; and no alternative of the formula founds
// it on facts that prove no case.
func checkAlternatives(formula season.Formula, derived *Result, graph *season.Graph) ([]Problem, error) {
	cases, all, err := Decided(graph.Rules, derived)
	if err != nil {
		return []Problem{{Rule: ruleDerivation, Message: err.Error()}}, nil
	}
	if len(cases) == 0 {
		return nil, nil // conforme or a product: the design's facts, checked one by one
	}
	var problems []Problem
	alternatives := make([][][]season.Fact, len(cases))
	var derivedMembers []season.Formula
	for i, c := range cases {
		f := withForms(c.Basis, graph)
		derivedMembers = append(derivedMembers, f)
		if alternatives[i], err = f.Alternatives(); err != nil {
			return nil, err
		}
	}
	for i, c := range cases {
		for _, alt := range alternatives[i] {
			carried := season.Carried{}
			proved := slices.Clone(alt)
			if all {
				for j := range cases {
					if j != i {
						proved = append(proved, alternatives[j][0]...)
					}
				}
			}
			for _, f := range proved {
				carried.AddFact(f)
			}
			if !formula.Holds(carried) {
				what := "the case " + c.Label
				if all {
					what = "the candidate " + c.Label + " excluded"
				}
				problems = append(problems, Problem{Rule: ruleAlternatives, Message: fmt.Sprintf("the formula lacks an alternative the rules allow: %s, by %s", what, describe(alt))})
			}
		}
	}
	derivedFormula := season.AnyOf(derivedMembers...)
	if all {
		derivedFormula = season.AllOf(derivedMembers...)
	}
	keyAlternatives, err := formula.Alternatives()
	if err != nil {
		return append(problems, Problem{Rule: ruleDerivation, Message: err.Error()}), nil
	}
	for _, alt := range keyAlternatives {
		carried := season.Carried{}
		for _, f := range alt {
			carried.AddFact(f)
		}
		if !derivedFormula.Holds(carried) {
			problems = append(problems, Problem{Rule: ruleDerivation, Message: fmt.Sprintf("the formula founds the verdict on %s, which proves no case that decides it", describe(alt))})
		}
	}
	return problems, nil
}

// describe writes facts for a message.
func describe(facts []season.Fact) string {
	parts := make([]string, len(facts))
	for i, f := range facts {
		parts[i] = fmt.Sprintf("%s %s = %s", f.Resource, f.Field, f.Value)
	}
	return strings.Join(parts, ", ")
}

// served says how a fact differs from what the corpus serves, "" if it does
// not: the value at the pointer, parsed from the served bytes (the absent
// body included), must equal the key's value as strict JSON.
func served(f season.Fact, fetch season.Fetcher) string {
	want, err := pyjson.Parse(f.Value)
	if err != nil {
		return fmt.Sprintf("the key's value is not strict JSON: %v", err)
	}
	data, err := fetch(f.Resource)
	if err != nil {
		return err.Error()
	}
	body, err := anchor.CheckBody(data)
	if err != nil {
		return err.Error()
	}
	got, ok := pyjson.Lookup(body, f.Field)
	switch {
	case !ok:
		return "the resource serves no value at this pointer"
	case !pyjson.Equal(got, want):
		return fmt.Sprintf("the key says %s, the corpus serves %s", pyjson.Canonical(want), pyjson.Canonical(got))
	}
	return ""
}

// checkComposition checks the season's balance: the track's verdicts, as
// many as its composition says, any other one a path of its Choice
// collection; every family present, each on enough tasks, exactly one
// control task with no family, and a family on every other task.
func checkComposition(rules *season.Rules, key *season.Key) []Problem {
	var problems []Problem
	report := func(task, format string, args ...any) {
		problems = append(problems, Problem{Task: task, Rule: ruleComposition, Message: fmt.Sprintf(format, args...)})
	}
	verdicts := map[string]int{}
	families := map[string]int{}
	var controls []string
	for _, k := range key.Tasks {
		verdicts[k.Verdict]++
		for _, f := range k.Families {
			if !slices.Contains(rules.Composition.Traps.Families, f) {
				report(k.ID, "unknown trap family %q", f)
			}
			families[f]++
		}
		switch {
		case k.Control && len(k.Families) > 0:
			report(k.ID, "a control task carries the families %v", k.Families)
		case !k.Control && len(k.Families) == 0:
			report(k.ID, "a task with no trap family that is not the control task")
		}
		if k.Control {
			controls = append(controls, k.ID)
		}
	}
	for _, v := range rules.Verdicts {
		if want, ok := rules.Composition.Exactly[v]; ok && verdicts[v] != want {
			report("", "%d tasks expect %s, want %d", verdicts[v], v, want)
		}
		if want, ok := rules.Composition.AtLeast[v]; ok && verdicts[v] < want {
			report("", "%d tasks expect %s, want at least %d", verdicts[v], v, want)
		}
		delete(verdicts, v)
	}
	for v := range verdicts {
		if rules.IsChoice(v) {
			delete(verdicts, v)
		}
	}
	for _, v := range slices.Sorted(maps.Keys(verdicts)) {
		report("", "%d tasks expect the unknown verdict %q", verdicts[v], v)
	}
	traps := rules.Composition.Traps
	for _, f := range traps.Families {
		if families[f] == 0 {
			report("", "no task carries the trap family %s", f)
		}
	}
	for _, f := range slices.Sorted(maps.Keys(traps.AtLeast)) {
		if families[f] < traps.AtLeast[f] {
			report("", "%d tasks carry %s, want at least %d", families[f], f, traps.AtLeast[f])
		}
	}
	if len(controls) != 1 {
		report("", "%d control tasks %v, want exactly one", len(controls), controls)
	}
	return problems
}

// mustParse reads a value the solver wrote itself, in canonical form.
func mustParse(v []byte) pyjson.Value {
	parsed, err := pyjson.Parse(v)
	if err != nil {
		panic("solver: a value of its own is not JSON: " + err.Error())
	}
	return parsed
}
