package solver

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// Rules of the track an answer key is checked against, as problems name them.
const (
	RuleVerdict      = "verdict"      // the key's verdict is the solver's
	RuleCalls        = "calls"        // a task takes MinCalls..MaxCalls calls
	RuleComposition  = "composition"  // the season's balance of verdicts and trap families
	RuleBounds       = "bounds"       // a task's assertion bounds are the track's
	RuleServed       = "served"       // a fact's value is exactly what the corpus serves
	RuleProbative    = "probative"    // a fact's field is a probative pointer (specification 5.7)
	RuleGraph        = "graph"        // a fact's resource is in the task's graph (specification 5.2)
	RuleOwn          = "own-resource" // enough facts are on the entity's own resources
	RuleCommonList   = "common-list"  // a fact on a common list is on an entry concerning the entity
	RuleForms        = "forms"        // a fact lists every equivalent form of the task's graph
	RuleAlternatives = "alternatives" // the formula founds every case that decides the verdict
	RuleRoom         = "room"         // the smallest founding set leaves room under the ceiling
	RuleDerivation   = "derivation"   // the formula rests only on what the rules derive, as the design says
)

// Calls a task may take (specification 5.6).
const (
	MinCalls = 2
	MaxCalls = 12
)

// Assertion bounds a statement may publish (specification 5.5, and
// CONTRACT.md section 6): a minimum of 2 to 4, a maximum twice it.
const (
	MinAssertions    = 2
	MaxAssertionsMin = 4
)

// Composition of a season (specification 5.3 to 5.5, and 6 for the
// purchasing track).
var (
	// VerdictCounts is the published distribution of the conformity track's
	// expected verdicts.
	VerdictCounts = map[Verdict]int{Conforme: 3, NonConforme: 4, Indeterminable: 3}
	// MinNoValidOption is the number of purchasing tasks whose verdict must
	// be aucune_option_valide.
	MinNoValidOption = 3
	// Families are the trap families; each appears on some task.
	Families = []string{"P1", "P2", "P3", "P4", "P5"}
	// MinP5 is the number of tasks that must carry P5, the family guessing fails.
	MinP5 = 3
)

// probativeFields are the pointers an assertion may name, by collection of
// either track (specification 5.7; CONTRACT.md section 6 for the purchasing
// track); "<n>" is an array index, "<name>" any member name.
var probativeFields = map[string][]string{
	"entites":              {"/existe", "/statut", "/agrements", "/agrements/<n>", "/attestations", "/attestations/<n>", "/beneficiaires"},
	"agrements":            {"/existe", "/entite", "/activite", "/statut", "/date_debut", "/date_fin_validite"},
	"attestations":         {"/existe", "/entite", "/type", "/date_emission", "/date_fin_validite", "/avenants", "/avenants/<n>"},
	"avenants":             {"/existe", "/attestation", "/objet", "/date_effet", "/nouvelle_date_fin", "/activite_exclue"},
	"listes/agrees":        {"/entrees/<n>/agrement", "/entrees/<n>/entite", "/entrees/<n>/statut"},
	"beneficiaires":        {"/statut_declaration", "/entrees/<n>/nom", "/entrees/<n>/prenoms", "/entrees/<n>/date_naissance", "/page_suivante"},
	"mesures-restrictives": {"/entrees/<n>/nom", "/entrees/<n>/prenoms", "/entrees/<n>/date_naissance"},

	// A catalogue is a common list: its /page_suivante is not probative,
	// as the conformity track's lists' are not (specification 8).
	"catalogues":     {"/entrees/<n>/produit", "/entrees/<n>/prix_affiche_ttc", "/entrees/<n>/etat_affiche"},
	"produits":       {"/existe", "/categorie", "/fournisseur", "/caracteristiques/<name>", "/tarif", "/disponibilite"},
	"fournisseurs":   {"/existe", "/statut", "/conditions_livraison"},
	"tarifs":         {"/produit", "/prix_unitaire_ttc", "/date_debut", "/date_fin_validite"},
	"disponibilites": {"/produit", "/etat", "/quantite_disponible", "/date_releve"},
	"livraisons": {"/fournisseur", "/zones", "/zones/<n>", "/delai_jours", "/frais_ttc", "/annexe",
		"/zones_exclues", "/zones_exclues/<n>", "/quantite_minimum", "/quantite_maximum"},
}

// Probative reports whether an assertion may name field of resource: a
// pointer of the specification's table for the resource's collection.
// /referentiel and the fixed bodies have none.
func Probative(resource, field string) bool {
	collection, _, ok := corpus.SplitReference(resource)
	if !ok {
		return false
	}
	got := strings.Split(field, "/")
	for _, pattern := range probativeFields[collection] {
		want := strings.Split(pattern, "/")
		if len(want) == len(got) && slices.EqualFunc(want, got, tokenMatches) {
			return true
		}
	}
	return false
}

func tokenMatches(pattern, token string) bool {
	switch pattern {
	case "<name>":
		return token != ""
	case "<n>":
	default:
		return pattern == token
	}
	// An RFC 6901 array index: digits, no leading zero.
	if token == "" || len(token) > 1 && token[0] == '0' {
		return false
	}
	return strings.Trim(token, "0123456789") == ""
}

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
func SolveSeason(tasks *season.Tasks, fetch Fetcher) ([]*Result, error) {
	results := make([]*Result, 0, len(tasks.Taches))
	for _, task := range tasks.Taches {
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
func CheckKey(tasks *season.Tasks, key *season.Key, results []*Result, fetch Fetcher) ([]Problem, error) {
	var problems []Problem
	report := func(task, rule, format string, args ...any) {
		problems = append(problems, Problem{Task: task, Rule: rule, Message: fmt.Sprintf(format, args...)})
	}
	byID := map[string]season.KeyTask{}
	for _, k := range key.Taches {
		if _, dup := byID[k.ID]; dup {
			report(k.ID, RuleComposition, "two keys for the task")
		}
		byID[k.ID] = k
	}
	solved := map[string]*Result{}
	for _, r := range results {
		solved[r.Task] = r
	}
	for _, task := range tasks.Taches {
		k, ok := byID[task.ID]
		if !ok {
			report(task.ID, RuleComposition, "the key has no entry for the task")
			continue
		}
		delete(byID, task.ID)
		if res, ok := solved[task.ID]; !ok {
			report(task.ID, RuleVerdict, "the solver has no result for the task")
		} else {
			if Verdict(k.Verdict) != res.Verdict {
				report(task.ID, RuleVerdict, "the key says %s, the solver %s", k.Verdict, res.Verdict)
			}
			if n := len(res.Calls); n < MinCalls || n > MaxCalls {
				report(task.ID, RuleCalls, "answering takes %d calls, want %d to %d", n, MinCalls, MaxCalls)
			}
		}
		taskProblems, err := checkFormula(task, k, fetch)
		if err != nil {
			return nil, err
		}
		problems = append(problems, taskProblems...)
	}
	for _, id := range slices.Sorted(maps.Keys(byID)) {
		report(id, RuleComposition, "the key has a task the statements do not")
	}
	track, err := corpus.TrackNamed(tasks.Piste)
	if err != nil {
		return nil, err
	}
	return append(problems, checkComposition(track, key)...), nil
}

// checkFormula checks one task's founding formula.
func checkFormula(task season.Task, k season.KeyTask, fetch Fetcher) ([]Problem, error) {
	var problems []Problem
	report := func(rule, format string, args ...any) {
		problems = append(problems, Problem{Task: task.ID, Rule: rule, Message: fmt.Sprintf(format, args...)})
	}
	if task.AssertionsMin < MinAssertions || task.AssertionsMin > MaxAssertionsMin || task.AssertionsMax != 2*task.AssertionsMin {
		report(RuleBounds, "bounds %d..%d, want a minimum of %d to %d and a maximum twice it", task.AssertionsMin, task.AssertionsMax, MinAssertions, MaxAssertionsMin)
	}
	graph, err := TaskGraph(task, fetch)
	if err != nil {
		return nil, err
	}
	derived, err := Derive(task, fetch)
	if err != nil {
		return nil, err
	}
	subject, owner := task.Entite, "the entity's"
	if task.Track() != corpus.Conformite {
		subject, owner = "the task's candidates", "the candidates'"
	}
	// check applies to a fact, or to one of its equivalent forms, the rules
	// an assertion of it must meet.
	check := func(label string, f season.Fact) {
		if !Probative(f.Resource, f.Field) {
			report(RuleProbative, "%s: not a probative field of its collection", label)
		}
		if !graph.Own[f.Resource] {
			switch {
			case !graph.Common[f.Resource]:
				report(RuleGraph, "%s: not in the task's graph", label)
			case !graph.Concerns(f.Resource, f.Field):
				report(RuleCommonList, "%s: a common list's entry that does not concern %s", label, subject)
			}
		}
		if msg := served(f, fetch); msg != "" {
			report(RuleServed, "%s: %s", label, msg)
		}
	}
	rests := restsOn(derived)
	for i, f := range k.Fondement.Facts() {
		label := fmt.Sprintf("fact %d (%s %s)", i, f.Resource, f.Field)
		check(label, f)
		for j, form := range f.FormesEquivalentes {
			check(fmt.Sprintf("%s, equivalent form %d (%s %s)", label, j, form.Resource, form.Field), form)
		}
		value, err := pyjson.Parse(f.Value)
		if err != nil {
			continue // served reports it
		}
		if r, ok := rests[f.Resource+"\x00"+f.Field]; !ok || !pyjson.Equal(r.Value, value) {
			report(RuleDerivation, "%s: not a fact the %s verdict rests on", label, k.Verdict)
		}
		listed := season.Carried{}
		for _, form := range f.FormesEquivalentes {
			listed.AddFact(form)
		}
		for _, form := range graph.Forms(Fact{Resource: f.Resource, Field: f.Field, Value: value}) {
			if !listed.Has(seasonFact(form)) {
				report(RuleForms, "%s: lacks the equivalent form %s", label, form)
			}
		}
	}
	if Verdict(k.Verdict) == derived.Verdict {
		alternativeProblems, err := checkAlternatives(k.Fondement, derived, graph)
		if err != nil {
			return nil, err
		}
		for _, p := range alternativeProblems {
			report(p.Rule, "%s", p.Message)
		}
	}
	smallest, err := k.Fondement.Smallest()
	if err != nil {
		report(RuleRoom, "%v", err)
		return problems, nil
	}
	limit, why := task.AssertionsMax-2, fmt.Sprintf("assertions_max %d - 2", task.AssertionsMax)
	if k.Controle {
		limit, why = task.AssertionsMin, fmt.Sprintf("the control task's assertions_min %d", task.AssertionsMin)
	}
	if len(smallest) > limit {
		report(RuleRoom, "the smallest set of facts that founds the verdict has %d facts, want at most %d (%s)", len(smallest), limit, why)
	}
	own := 0
	for _, f := range smallest {
		if graph.Own[f.Resource] {
			own++
		}
	}
	// The agent fills the smallest set up to the minimum with assertions
	// of its choosing, which may all be on own resources.
	if want, filled := (task.AssertionsMin+1)/2, own+max(0, task.AssertionsMin-len(smallest)); filled < want {
		report(RuleOwn, "the smallest founding set, filled up to the minimum, has %d assertions on %s own resources, want at least %d (half the minimum %d, rounded up)", filled, owner, want, task.AssertionsMin)
	}
	return problems, nil
}

// checkAlternatives compares a key's formula with the cases the derivation
// says decide the verdict: each alternative of each case, proved alone
// (for aucune_option_valide, with one alternative of every other
// candidate), founds the verdict; and no alternative of the formula founds
// it on facts that prove no case.
func checkAlternatives(formula season.Formula, derived *Result, graph *Graph) ([]Problem, error) {
	cases, all, err := Decided(derived)
	if err != nil {
		return []Problem{{Rule: RuleDerivation, Message: err.Error()}}, nil
	}
	if len(cases) == 0 {
		return nil, nil // conforme or a product: the design's facts, checked one by one
	}
	var problems []Problem
	alternatives := make([][][]season.Fact, len(cases))
	var derivedMembers []season.Formula
	for i, c := range cases {
		f := formulaOf(c.Basis, graph)
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
				problems = append(problems, Problem{Rule: RuleAlternatives, Message: fmt.Sprintf("the formula lacks an alternative the rules allow: %s, by %s", what, describe(alt))})
			}
		}
	}
	derivedFormula := season.AnyOf(derivedMembers...)
	if all {
		derivedFormula = season.AllOf(derivedMembers...)
	}
	keyAlternatives, err := formula.Alternatives()
	if err != nil {
		return append(problems, Problem{Rule: RuleDerivation, Message: err.Error()}), nil
	}
	for _, alt := range keyAlternatives {
		carried := season.Carried{}
		for _, f := range alt {
			carried.AddFact(f)
		}
		if !derivedFormula.Holds(carried) {
			problems = append(problems, Problem{Rule: RuleDerivation, Message: fmt.Sprintf("the formula founds the verdict on %s, which proves no case that decides it", describe(alt))})
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
func served(f season.Fact, fetch Fetcher) string {
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

// checkComposition checks the season's balance: the track's verdicts (the
// published counts of conformity, or a product path or
// aucune_option_valide, at least MinNoValidOption of the latter), every
// family present, P5 on enough tasks, exactly one control task with no
// family, and a family on every other task.
func checkComposition(track *corpus.Track, key *season.Key) []Problem {
	var problems []Problem
	report := func(task, format string, args ...any) {
		problems = append(problems, Problem{Task: task, Rule: RuleComposition, Message: fmt.Sprintf(format, args...)})
	}
	verdicts := map[Verdict]int{}
	families := map[string]int{}
	var controls []string
	for _, k := range key.Taches {
		verdicts[Verdict(k.Verdict)]++
		for _, f := range k.Familles {
			if !slices.Contains(Families, f) {
				report(k.ID, "unknown trap family %q", f)
			}
			families[f]++
		}
		switch {
		case k.Controle && len(k.Familles) > 0:
			report(k.ID, "a control task carries the families %v", k.Familles)
		case !k.Controle && len(k.Familles) == 0:
			report(k.ID, "a task with no trap family that is not the control task")
		}
		if k.Controle {
			controls = append(controls, k.ID)
		}
	}
	if track == corpus.Conformite {
		for _, v := range []Verdict{Conforme, NonConforme, Indeterminable} {
			if verdicts[v] != VerdictCounts[v] {
				report("", "%d tasks expect %s, want %d", verdicts[v], v, VerdictCounts[v])
			}
			delete(verdicts, v)
		}
	} else {
		if verdicts[NoValidOption] < MinNoValidOption {
			report("", "%d tasks expect %s, want at least %d", verdicts[NoValidOption], NoValidOption, MinNoValidOption)
		}
		delete(verdicts, NoValidOption)
		for v := range verdicts {
			if IsProductPath(string(v)) {
				delete(verdicts, v)
			}
		}
	}
	for _, v := range slices.Sorted(maps.Keys(verdicts)) {
		report("", "%d tasks expect the unknown verdict %q", verdicts[v], v)
	}
	for _, f := range Families {
		if families[f] == 0 {
			report("", "no task carries the trap family %s", f)
		}
	}
	if families["P5"] < MinP5 {
		report("", "%d tasks carry P5, want at least %d", families["P5"], MinP5)
	}
	if len(controls) != 1 {
		report("", "%d control tasks %v, want exactly one", len(controls), controls)
	}
	return problems
}
