// Package solver is the reference solver of both tracks: a deterministic
// implementation of the conformity criteria R1..R6 and their precedence
// (stated in French at /referentiel; docs/authoring.md) and of the purchasing rules
// G1..G6 and the selection (at /regles-achat). What differs between the
// tracks besides their criteria is each track's rulebook, season.Rules.
// It answers a task statement the way an agent would, by fetching canonical
// paths one at a time and reading only what the server answers. It reports
// the verdict, the calls it made and the facts (resource, JSON pointer,
// value) the verdict rests on, and checks a season's answer key against the
// corpus.
package solver

import (
	"errors"
	"fmt"
	"slices"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// Verdict is the answer to a task.
type Verdict string

// The verdicts the criteria come to, as season declares them.
const (
	Compliant      Verdict = season.Compliant
	NonCompliant   Verdict = season.NonCompliant
	Indeterminable Verdict = season.Indeterminable
	NoValidOption  Verdict = season.NoValidOption
)

// Outcome is what a criterion came to.
type Outcome string

// Outcomes of a criterion. Precedence: any Failed gives non_conforme, else any
// Undetermined gives indeterminable, else conforme.
const (
	Met          Outcome = "met"          // established true
	Failed       Outcome = "failed"       // established false
	Undetermined Outcome = "undetermined" // a source answers existe: false, or two sources of the same rank disagree
	Skipped      Outcome = "skipped"      // not examined: an earlier criterion failed, or (Derive) the one it reads from
)

// Criterion is the outcome of one of R1..R6 (on the purchasing track, of
// one candidate), with a one-line reason and the facts that establish it.
type Criterion struct {
	Code    string
	Outcome Outcome
	Reason  string
	// Basis is what establishes the outcome: for a criterion established
	// false or undetermined, the facts of the case that decides it, a
	// member per case where several would each do; the zero Basis when the
	// outcome follows from another criterion's (no agrément retained, no
	// entity to read).
	Basis Basis
	// Against is, on the purchasing track, how the winner stands against a
	// candidate the statement supplies or the catalogue displays cheaper
	// than it: the rules that exclude the candidate, any one; or, valid
	// but dearer in total, the terms that show it dearer. Zero for any
	// other candidate. The control task is founded on any one of them.
	Against Basis
	// Compared marks the candidates a product verdict with a trap is
	// founded against (Founding): supplied, or displayed cheaper than the
	// winner and looking valid on the catalogue (en_stock, within the
	// budget). One the catalogue already shows excluded lures no one.
	Compared bool
}

// Fact is a (resource, JSON pointer, value) the verdict rests on, with the
// value exactly as the resource serves it.
type Fact struct {
	Resource string
	Field    string
	Value    pyjson.Value
}

func (f Fact) String() string {
	return fmt.Sprintf("%s %s = %s", f.Resource, f.Field, pyjson.Canonical(f.Value))
}

// Result is the solver's answer to one task.
type Result struct {
	Task     string
	Verdict  Verdict
	Criteria []Criterion
	Calls    []string // canonical paths fetched, in order, each once
	Facts    []Fact
}

// Solve answers a task statement, fetching every resource it reads through
// fetch. It walks R1..R6 in order, stops at the first criterion established
// false, and carries on past one that cannot be established, since a later
// failure takes precedence. An error means the corpus or the statement
// breaks the contract (a wrong type, an unknown activity, a page loop), not
// that the task is hard.
func Solve(task season.Task, fetch season.Fetcher) (*Result, error) {
	return solve(task, fetch, false)
}

// Derive answers a task as Solve does, but evaluates every criterion (on
// the purchasing track, every rule for every candidate) instead of
// stopping at the first established false: what decides the verdict is
// every criterion that would decide it alone, and Founding writes each as
// an alternative. Its calls are not an agent's: Solve's are.
func Derive(task season.Task, fetch season.Fetcher) (*Result, error) {
	return solve(task, fetch, true)
}

// solvers are each track's criteria, by its rulebook.
var solvers = map[*season.Rules]func(task season.Task, fetch season.Fetcher, full bool) (*Result, error){
	season.Conformity: solveConformity,
	season.Purchasing: solvePurchase,
}

func solve(task season.Task, fetch season.Fetcher, full bool) (*Result, error) {
	return solvers[task.Rules()](task, fetch, full)
}

// solveConformity answers a conformity task: R1..R6, in order.
func solveConformity(task season.Task, fetch season.Fetcher, full bool) (*Result, error) {
	s := &solver{walker: newWalker(task.ID, fetch, full), task: task}
	if !isDate(task.ExaminationDate) {
		return nil, fmt.Errorf("%s: date_examen %q is not a YYYY-MM-DD date", task.ID, task.ExaminationDate)
	}
	if err := s.readReferentiel(); err != nil {
		return nil, err
	}
	criteria := []struct {
		code  string
		check func() (Outcome, string, error)
	}{
		{"R1", s.entity},
		{"R2", s.licence},
		{"R3", s.publicList},
		{"R4", s.attestations},
		{"R5", s.declaration},
		{"R6", s.restrictiveMeasures},
	}
	failed := false
	for _, c := range criteria {
		if failed && !s.full {
			s.res.Criteria = append(s.res.Criteria, Criterion{Code: c.code, Outcome: Skipped, Reason: "an earlier criterion failed"})
			continue
		}
		s.basis = Basis{}
		outcome, reason, err := c.check()
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", task.ID, c.code, err)
		}
		s.res.Criteria = append(s.res.Criteria, Criterion{Code: c.code, Outcome: outcome, Reason: reason, Basis: s.basis})
		failed = failed || outcome == Failed
	}
	s.res.Verdict = verdictOf(s.res.Criteria)
	return s.res, nil
}

// verdictOf applies the precedence: false, then undetermined, then conforme.
func verdictOf(criteria []Criterion) Verdict {
	outcomes := make([]Outcome, len(criteria))
	for i, c := range criteria {
		outcomes[i] = c.Outcome
	}
	switch {
	case slices.Contains(outcomes, Failed):
		return NonCompliant
	case slices.Contains(outcomes, Undetermined):
		return Indeterminable
	}
	return Compliant
}

// walker fetches a task's resources one canonical path at a time, as an
// agent would, and keeps the calls and the facts the verdict rests on.
// Both tracks' solvers walk with it.
type walker struct {
	fetch  season.Fetcher
	full   bool                     // Derive's walk: every criterion, past a failure
	bodies map[string]pyjson.Object // every body fetched, by path
	noted  map[[2]string]bool       // facts already in the result
	res    *Result
	basis  Basis // what the criterion being checked rests on
	// absentPage is the last page walkPages found answering existe: false.
	absentPage string
}

func newWalker(task string, fetch season.Fetcher, full bool) walker {
	return walker{
		fetch:  fetch,
		full:   full,
		bodies: map[string]pyjson.Object{},
		noted:  map[[2]string]bool{},
		res:    &Result{Task: task},
	}
}

// solver is the state of one conformity task's walk.
type solver struct {
	walker
	task season.Task

	// From /referentiel.
	required      []string // attestation types the activity requires
	listFirstPage string   // first page of the activity's public list
	measuresFirst string   // first page of the restrictive-measures list

	// From the walk so far.
	entityDoc    pyjson.Object // nil when the entity answers existe: false
	retained     string        // the agrément R2 retained, "" if none
	retainedLink Fact          // the entity's link to it
}

// get fetches a path, once per task as an agent would, and returns its body
// and whether it exists (a served body saying "existe": false does not).
func (s *walker) get(path string) (pyjson.Object, bool, error) {
	body, seen := s.bodies[path]
	if !seen {
		data, err := s.fetch(path)
		if err != nil {
			return nil, false, err
		}
		s.res.Calls = append(s.res.Calls, path)
		if body, err = anchor.CheckBody(data); err != nil {
			return nil, false, fmt.Errorf("%s: %w", path, err)
		}
		s.bodies[path] = body
	}
	exists, _ := body.Get("existe")
	return body, exists != false, nil
}

// fact reads a fact from a fetched body; the pointer must name a value the
// solver has just read.
func (s *walker) fact(path, pointer string) Fact {
	v, ok := pyjson.Lookup(s.bodies[path], pointer)
	if !ok {
		panic(fmt.Sprintf("solver: %s has no value at %s", path, pointer))
	}
	return Fact{Resource: path, Field: pointer, Value: v}
}

// rest records facts the verdict rests on, each once.
func (s *walker) rest(facts ...Fact) {
	for _, f := range facts {
		key := [2]string{f.Resource, f.Field}
		if !s.noted[key] {
			s.noted[key] = true
			s.res.Facts = append(s.res.Facts, f)
		}
	}
}

func (s *solver) readReferentiel() error {
	ref, _, err := s.get(corpus.Referentiel)
	if err != nil {
		return err
	}
	required, ok := pyjson.Lookup(ref, season.Pointer("attestations_requises", s.task.Activity))
	types, isArray := required.(pyjson.Array)
	if !ok || !isArray {
		return fmt.Errorf("%s: activity %q has no attestations_requises", corpus.Referentiel, s.task.Activity)
	}
	for _, t := range types {
		name, ok := t.(string)
		if !ok {
			return fmt.Errorf("%s: attestations_requises of %q holds a non-string", corpus.Referentiel, s.task.Activity)
		}
		s.required = append(s.required, name)
	}
	if s.listFirstPage, err = season.StringAt(ref, corpus.Referentiel, season.Pointer("listes_agrees", s.task.Activity)); err != nil {
		return err
	}
	s.measuresFirst, err = season.StringAt(ref, corpus.Referentiel, "/mesures_restrictives")
	return err
}

// R1: the entity exists and its statut is active.
func (s *solver) entity() (Outcome, string, error) {
	doc, exists, err := s.get(s.task.Entity)
	if err != nil {
		return "", "", err
	}
	if !exists {
		s.rest(s.fact(s.task.Entity, "/existe"))
		s.basis = factsBasis(s.fact(s.task.Entity, "/existe"))
		return Undetermined, "the entity answers existe: false", nil
	}
	s.entityDoc = doc
	status, err := season.StringAt(doc, s.task.Entity, "/statut")
	if err != nil {
		return "", "", err
	}
	s.rest(s.fact(s.task.Entity, "/statut"))
	s.basis = factsBasis(s.fact(s.task.Entity, "/statut"))
	if status != "active" {
		return Failed, fmt.Sprintf("statut is %q, not active", status), nil
	}
	return Met, "the entity is active", nil
}

// candidate is a resource a criterion may rest on: listed by its owner at
// link (a fact), or cited by the statement (no link).
type candidate struct {
	path string
	link *Fact
}

// candidates lists the resources of a collection the entity lists in field,
// then those the statement cites that it does not list: a cited one that
// answers existe: false leaves the criterion undetermined, a cited one that
// exists but is not listed does not count for the entity.
func (s *solver) candidates(field, collection string) ([]candidate, error) {
	listed, err := season.StringsAt(s.entityDoc, s.task.Entity, "/"+field)
	if err != nil {
		return nil, err
	}
	var out []candidate
	for i, path := range listed {
		link := s.fact(s.task.Entity, season.Pointer(field, fmt.Sprint(i)))
		out = append(out, candidate{path: path, link: &link})
	}
	for _, ref := range s.task.References {
		if c, _, ok := corpus.SplitReference(ref); ok && c == collection && !slices.Contains(listed, ref) {
			out = append(out, candidate{path: ref})
		}
	}
	return out, nil
}

// absent records that a candidate answers existe: false.
func (s *solver) absent(c candidate) []Fact {
	facts := []Fact{s.fact(c.path, "/existe")}
	if c.link != nil {
		facts = append([]Fact{*c.link}, facts...)
	}
	return facts
}

// R2: among the agréments the entity lists, one is for the activity, actif,
// and date_debut <= date_examen <= date_fin_validite.
//
// Established false, it rests on each listed agrément's link and on any one
// of the reasons it is not valid; undetermined, on the link and existe of
// each that answers existe: false, and the others' reasons.
func (s *solver) licence() (Outcome, string, error) {
	if s.entityDoc == nil {
		return Undetermined, "the entity's agréments cannot be read", nil
	}
	candidates, err := s.candidates("agrements", "agrements")
	if err != nil {
		return "", "", err
	}
	var missing, against []Fact
	var missingBases, againstBases []Basis
	for _, c := range candidates {
		doc, exists, err := s.get(c.path)
		if err != nil {
			return "", "", err
		}
		if !exists {
			missing = append(missing, s.absent(c)...)
			missingBases = append(missingBases, factsBasis(s.absent(c)...))
			continue
		}
		if c.link == nil {
			continue // cited, not listed: not the entity's
		}
		f, err := readFields(doc, c.path, "activite", "statut", "date_debut", "date_fin_validite")
		if err != nil {
			return "", "", err
		}
		var reasons []Basis
		if f["activite"] != s.task.Activity {
			against = append(against, s.fact(c.path, "/activite"))
			againstBases = append(againstBases, allOf(factsBasis(*c.link), factsBasis(s.fact(c.path, "/activite"))))
			continue
		}
		valid := f["statut"] == "actif" && f["date_debut"] <= s.task.ExaminationDate && s.task.ExaminationDate <= f["date_fin_validite"]
		if valid {
			s.retained, s.retainedLink = c.path, *c.link
			met := []Fact{*c.link, s.fact(c.path, "/activite"), s.fact(c.path, "/statut"),
				s.fact(c.path, "/date_debut"), s.fact(c.path, "/date_fin_validite")}
			s.rest(met...)
			s.basis = factsBasis(met...)
			return Met, c.path + " is valid for the activity at the date", nil
		}
		against = append(against, s.fact(c.path, "/activite"), s.fact(c.path, "/statut"))
		if f["statut"] != "actif" {
			reasons = append(reasons, factsBasis(s.fact(c.path, "/statut")))
		}
		if f["date_debut"] > s.task.ExaminationDate {
			against = append(against, s.fact(c.path, "/date_debut"))
			reasons = append(reasons, factsBasis(s.fact(c.path, "/date_debut")))
		}
		if f["date_fin_validite"] < s.task.ExaminationDate {
			against = append(against, s.fact(c.path, "/date_fin_validite"))
			reasons = append(reasons, factsBasis(s.fact(c.path, "/date_fin_validite")))
		}
		againstBases = append(againstBases, allOf(factsBasis(*c.link), anyOf(reasons...)))
	}
	if len(missing) > 0 {
		s.rest(missing...)
		s.basis = allOf(append(missingBases, againstBases...)...)
		return Undetermined, "an agrément answers existe: false and none is valid for the activity", nil
	}
	s.rest(s.fact(s.task.Entity, "/agrements"))
	s.rest(against...)
	if len(againstBases) == 0 {
		s.basis = factsBasis(s.fact(s.task.Entity, "/agrements")) // the entity lists none
	} else {
		s.basis = allOf(againstBases...)
	}
	return Failed, "no agrément the entity lists is for the activity, actif and in force at the date", nil
}

// R3: the activity's public list carries, on some page, an entry for the
// retained agrément whose statut is actif; another statut contradicts it.
func (s *solver) publicList() (Outcome, string, error) {
	if s.retained == "" {
		if s.full && s.res.Criteria[len(s.res.Criteria)-1].Outcome == Failed {
			return Skipped, "R2 failed: no agrément to look up", nil
		}
		return Undetermined, "no agrément was retained at R2", nil
	}
	found := Undetermined
	reason := ""
	err := s.walkPages(s.listFirstPage, func(page string, doc pyjson.Object) (bool, error) {
		entries, err := season.ObjectsAt(doc, page, "/entrees")
		if err != nil {
			return false, err
		}
		for n, e := range entries {
			at := season.Pointer("entrees", fmt.Sprint(n))
			f, err := readFields(e, page+" "+at, "agrement", "statut")
			if err != nil {
				return false, err
			}
			licence, status := f["agrement"], f["statut"]
			if licence != s.retained {
				continue
			}
			entry := []Fact{s.fact(page, at+"/agrement"), s.fact(page, at+"/statut")}
			s.rest(entry...)
			if status == "actif" {
				found, reason = Met, fmt.Sprintf("%s lists %s as actif", page, licence)
				s.basis = factsBasis(entry...)
			} else {
				found, reason = Undetermined, fmt.Sprintf("%s lists %s as %q while the agrément says actif: two sources of the same rank disagree", page, licence, status)
				// The two sources: the agrément the entity lists, and the entry.
				s.basis = factsBasis(append([]Fact{s.retainedLink, s.fact(s.retained, "/statut")}, entry...)...)
			}
			return true, nil
		}
		return false, nil
	})
	switch {
	case errors.Is(err, errAbsentPage):
		s.basis = factsBasis(s.fact(s.absentPage, "/existe"))
		return Undetermined, err.Error(), nil
	case err != nil:
		return "", "", err
	case reason == "":
		// No assertion states an absence: this outcome has no basis, and
		// Founding refuses a key built on it.
		return Failed, fmt.Sprintf("no page of %s lists %s", s.listFirstPage, s.retained), nil
	}
	return found, reason, nil
}

// coverage is what one attestation establishes for a type, with the facts
// that establish it (facts, for the result) and the basis: for a cover
// that fails, any one of the reasons it does.
type coverage struct {
	outcome Outcome
	facts   []Fact
	basis   Basis
}

// R4: for each type the activity requires, the entity lists an attestation
// of that type in force at the date, after its avenants. Established false
// or undetermined, it rests on any one type that is.
func (s *solver) attestations() (Outcome, string, error) {
	if s.entityDoc == nil {
		return Undetermined, "the entity's attestations cannot be read", nil
	}
	candidates, err := s.candidates("attestations", "attestations")
	if err != nil {
		return "", "", err
	}
	var undetermined, failedTypes []string
	var met, unknownBases, failedBases []Basis
	for _, typ := range s.required {
		outcome, basis, err := s.cover(typ, candidates)
		if err != nil {
			return "", "", err
		}
		switch outcome {
		case Failed:
			failedTypes = append(failedTypes, typ)
			failedBases = append(failedBases, basis)
			if !s.full {
				s.basis = basis
				return Failed, fmt.Sprintf("no attestation of type %s covers the activity at the date", typ), nil
			}
		case Undetermined:
			undetermined = append(undetermined, typ)
			unknownBases = append(unknownBases, basis)
		default:
			met = append(met, basis)
		}
	}
	switch {
	case len(failedTypes) > 0:
		s.basis = anyOf(failedBases...)
		return Failed, fmt.Sprintf("no attestation of type %v covers the activity at the date", failedTypes), nil
	case len(undetermined) > 0:
		s.basis = anyOf(unknownBases...)
		return Undetermined, fmt.Sprintf("the cover of %v cannot be established", undetermined), nil
	}
	s.basis = allOf(met...)
	return Met, fmt.Sprintf("every required type %v is covered", s.required), nil
}

// cover decides whether some candidate attestation of type typ covers the
// activity at the date: one that does settles it; otherwise a candidate
// whose type or cover cannot be read leaves it undetermined; otherwise it
// fails. Not covered, it rests on every candidate of the type (or of no
// known type) that does not cover it; when the entity lists none of the
// type, on the list and each listed attestation's type.
func (s *solver) cover(typ string, candidates []candidate) (Outcome, Basis, error) {
	var unknown, against, otherTypes []Fact
	var unknownBases, againstBases []Basis
	for _, c := range candidates {
		doc, exists, err := s.get(c.path)
		if err != nil {
			return "", Basis{}, err
		}
		if !exists {
			unknown = append(unknown, s.absent(c)...) // of any type, this one included
			unknownBases = append(unknownBases, factsBasis(s.absent(c)...))
			continue
		}
		if c.link == nil {
			continue
		}
		t, err := season.StringAt(doc, c.path, "/type")
		if err != nil {
			return "", Basis{}, err
		}
		if t != typ {
			otherTypes = append(otherTypes, s.fact(c.path, "/type"))
			continue
		}
		cov, err := s.coverOf(c, doc)
		if err != nil {
			return "", Basis{}, err
		}
		switch cov.outcome {
		case Met:
			s.rest(cov.facts...)
			return Met, cov.basis, nil
		case Undetermined:
			unknown = append(unknown, cov.facts...)
			unknownBases = append(unknownBases, cov.basis)
		default:
			against = append(against, cov.facts...)
			againstBases = append(againstBases, cov.basis)
		}
	}
	if len(unknown) > 0 {
		s.rest(unknown...)
		return Undetermined, allOf(append(unknownBases, againstBases...)...), nil
	}
	s.rest(s.fact(s.task.Entity, "/attestations"))
	s.rest(against...)
	if len(againstBases) == 0 {
		return Failed, factsBasis(append([]Fact{s.fact(s.task.Entity, "/attestations")}, otherTypes...)...), nil
	}
	return Failed, allOf(againstBases...), nil
}

// coverOf evaluates one attestation: date_emission <= date <= end, where end
// is the nouvelle_date_fin of the latest prorogation it lists in effect at
// the date (by date_effet; the later listed on a tie), else its
// date_fin_validite; an exclusion it lists in effect at the date, for the
// activity, removes the cover. An avenant that answers existe: false could be
// either, so the cover cannot be established, unless an established
// exclusion already removes it.
//
// Each reason rests on the document that decides it, reached by its link:
// an emission after the date or an end before it, on the entity's link, the
// attestation's type and the date; an exclusion or a prorogation, on the
// attestation's link to the avenant and the avenant's fields; an avenant
// that cannot be read, on that link and its existe.
func (s *solver) coverOf(c candidate, doc pyjson.Object) (coverage, error) {
	f, err := readFields(doc, c.path, "date_emission", "date_fin_validite")
	if err != nil {
		return coverage{}, err
	}
	head := []Fact{*c.link, s.fact(c.path, "/type")}
	var reasons []Basis
	if f["date_emission"] > s.task.ExaminationDate {
		late := append(head, s.fact(c.path, "/date_emission"))
		if !s.full {
			return coverage{Failed, late, factsBasis(late...)}, nil
		}
		reasons = append(reasons, factsBasis(late...))
	}
	amendments, err := season.StringsAt(doc, c.path, "/avenants")
	if err != nil {
		return coverage{}, err
	}
	end, endFacts := f["date_fin_validite"], []Fact{s.fact(c.path, "/date_fin_validite")}
	endBasis := append(slices.Clone(head), endFacts...)
	latest := ""
	var missing, exclusion []Fact
	var missingBases []Basis
	for k, avn := range amendments {
		link := s.fact(c.path, season.Pointer("avenants", fmt.Sprint(k)))
		adoc, exists, err := s.get(avn)
		if err != nil {
			return coverage{}, err
		}
		if !exists {
			missing = append(missing, link, s.fact(avn, "/existe"))
			missingBases = append(missingBases, factsBasis(link, s.fact(avn, "/existe")))
			continue
		}
		a, err := readFields(adoc, avn, "objet", "date_effet")
		if err != nil {
			return coverage{}, err
		}
		if a["date_effet"] > s.task.ExaminationDate {
			continue // not yet in effect
		}
		switch a["objet"] {
		case "prorogation":
			p, err := readFields(adoc, avn, "nouvelle_date_fin")
			if err != nil {
				return coverage{}, err
			}
			if a["date_effet"] >= latest {
				latest, end = a["date_effet"], p["nouvelle_date_fin"]
				endFacts = []Fact{link, s.fact(avn, "/objet"), s.fact(avn, "/date_effet"), s.fact(avn, "/nouvelle_date_fin")}
				endBasis = endFacts
			}
		case "exclusion":
			excluded, err := season.StringAt(adoc, avn, "/activite_exclue")
			if err != nil {
				return coverage{}, err
			}
			if excluded == s.task.Activity {
				facts := []Fact{link, s.fact(avn, "/objet"), s.fact(avn, "/date_effet"), s.fact(avn, "/activite_exclue")}
				reasons = append(reasons, factsBasis(facts...))
				if exclusion == nil {
					exclusion = facts
				}
			}
		default:
			return coverage{}, fmt.Errorf("%s: objet %q is neither prorogation nor exclusion", avn, a["objet"])
		}
	}
	expired := missing == nil && end < s.task.ExaminationDate
	if expired {
		reasons = append(reasons, factsBasis(endBasis...))
	}
	switch {
	case f["date_emission"] > s.task.ExaminationDate:
		return coverage{Failed, append(head, s.fact(c.path, "/date_emission")), anyOf(reasons...)}, nil
	case exclusion != nil:
		return coverage{Failed, append(head, exclusion...), anyOf(reasons...)}, nil
	case missing != nil:
		return coverage{Undetermined, append(head, missing...), allOf(missingBases...)}, nil
	case expired:
		return coverage{Failed, append(head, endFacts...), anyOf(reasons...)}, nil
	}
	met := append(append(head, s.fact(c.path, "/date_emission")), endFacts...)
	return coverage{Met, met, factsBasis(met...)}, nil
}

// R5: the declaration's statut_declaration is complete.
func (s *solver) declaration() (Outcome, string, error) {
	if s.entityDoc == nil {
		return Undetermined, "the entity's declaration cannot be read", nil
	}
	first, _ := s.entityDoc.Get("beneficiaires")
	if first == nil {
		s.rest(s.fact(s.task.Entity, "/beneficiaires"))
		s.basis = factsBasis(s.fact(s.task.Entity, "/beneficiaires"))
		return Failed, "the entity has no beneficial-owner declaration", nil
	}
	path, ok := first.(string)
	if !ok {
		return "", "", fmt.Errorf("%s: beneficiaires is not a path", s.task.Entity)
	}
	doc, exists, err := s.get(path)
	if err != nil {
		return "", "", err
	}
	link := s.fact(s.task.Entity, "/beneficiaires")
	if !exists {
		s.rest(link, s.fact(path, "/existe"))
		s.basis = factsBasis(link, s.fact(path, "/existe"))
		return Undetermined, path + " answers existe: false", nil
	}
	status, err := season.StringAt(doc, path, "/statut_declaration")
	if err != nil {
		return "", "", err
	}
	s.rest(link, s.fact(path, "/statut_declaration"))
	s.basis = factsBasis(link, s.fact(path, "/statut_declaration"))
	switch status {
	case "complete":
		return Met, "the declaration is complete", nil
	case "incomplete":
		return Failed, "the declaration is incomplete", nil
	}
	return "", "", fmt.Errorf("%s: statut_declaration %q is neither complete nor incomplete", path, status)
}

// person is a name and birth date on a page of a list, with the facts that
// state them.
type person struct {
	nom, prenoms, naissance string
	facts                   []Fact // nom, prenoms, date_naissance
	via                     []Fact // how the page is reached from the entity
}

// R6: no beneficial owner, on any page, matches an entry, on any page, of the
// restrictive-measures list: same nom, prenoms and date_naissance.
// Established false, it rests on any one match's six fields, the owner's
// and the entry's: the pages are the task's by its graph, so the links
// that reach them are not the case.
func (s *solver) restrictiveMeasures() (Outcome, string, error) {
	first, _ := s.entityDoc.Get("beneficiaires") // a nil entity has none
	firstPage, ok := first.(string)
	if !ok {
		if s.entityDoc != nil && first == nil {
			return Skipped, "no declaration: R5 failed", nil
		}
		return Undetermined, "the beneficial owners cannot be read", nil
	}
	var owners []person
	via := []Fact{s.fact(s.task.Entity, "/beneficiaires")}
	err := s.walkPages(firstPage, func(page string, doc pyjson.Object) (bool, error) {
		people, err := s.people(page, doc, via)
		owners = append(owners, people...)
		if next, _ := doc.Get("page_suivante"); next != nil {
			via = []Fact{s.fact(page, "/page_suivante")}
		}
		return false, err
	})
	if errors.Is(err, errAbsentPage) {
		s.basis = factsBasis(s.fact(s.absentPage, "/existe"))
		return Undetermined, err.Error(), nil
	} else if err != nil {
		return "", "", err
	}
	var homonyms []Fact
	var match *[2]person
	var matches []Basis
	err = s.walkPages(s.measuresFirst, func(page string, doc pyjson.Object) (bool, error) {
		entries, err := s.people(page, doc, nil)
		if err != nil {
			return false, err
		}
		for _, e := range entries {
			for _, o := range owners {
				switch {
				case o.nom != e.nom || o.prenoms != e.prenoms:
				case o.naissance == e.naissance:
					if match == nil {
						match = &[2]person{o, e}
					}
					matches = append(matches, factsBasis(append(slices.Clone(o.facts), e.facts...)...))
					if !s.full {
						return true, nil
					}
				default:
					// A homonym born on another date is no match, but the
					// comparison that says so is what the verdict rests on.
					homonyms = append(homonyms, o.via...)
					homonyms = append(homonyms, o.facts...)
					homonyms = append(homonyms, e.facts...)
				}
			}
		}
		return false, nil
	})
	switch {
	case errors.Is(err, errAbsentPage) && match == nil:
		s.basis = factsBasis(s.fact(s.absentPage, "/existe"))
		return Undetermined, err.Error(), nil
	case err != nil && !errors.Is(err, errAbsentPage):
		return "", "", err
	case match != nil:
		s.basis = anyOf(matches...)
		s.rest(match[0].via...)
		s.rest(match[0].facts...)
		s.rest(match[1].facts...)
		return Failed, fmt.Sprintf("%s %s, born %s, is on the restrictive-measures list", match[0].prenoms, match[0].nom, match[0].naissance), nil
	}
	s.rest(homonyms...)
	s.basis = factsBasis(homonyms...)
	return Met, fmt.Sprintf("none of %d beneficial owners is on the restrictive-measures list", len(owners)), nil
}

// people reads the entries of a page of people.
func (s *solver) people(page string, doc pyjson.Object, via []Fact) ([]person, error) {
	entries, err := season.ObjectsAt(doc, page, "/entrees")
	if err != nil {
		return nil, err
	}
	out := make([]person, 0, len(entries))
	for n, e := range entries {
		at := season.Pointer("entrees", fmt.Sprint(n))
		f, err := readFields(e, page+" "+at, "nom", "prenoms", "date_naissance")
		if err != nil {
			return nil, err
		}
		out = append(out, person{
			nom: f["nom"], prenoms: f["prenoms"], naissance: f["date_naissance"],
			facts: []Fact{s.fact(page, at+"/nom"), s.fact(page, at+"/prenoms"), s.fact(page, at+"/date_naissance")},
			via:   via,
		})
	}
	return out, nil
}

// errAbsentPage stops a page walk at a page that answers existe: false.
var errAbsentPage = errors.New("a page answers existe: false")

// walkPages fetches a paged resource page after page, from its first page,
// until visit says stop or page_suivante is null. A page chain that loops is
// an error of the corpus.
func (s *walker) walkPages(first string, visit func(page string, doc pyjson.Object) (stop bool, err error)) error {
	seen := map[string]bool{}
	for page := first; ; {
		if seen[page] {
			return fmt.Errorf("%s: page_suivante loops back to %s", first, page)
		}
		seen[page] = true
		doc, exists, err := s.get(page)
		if err != nil {
			return err
		}
		if !exists {
			s.rest(s.fact(page, "/existe"))
			s.absentPage = page
			return fmt.Errorf("%w: %s", errAbsentPage, page)
		}
		if stop, err := visit(page, doc); stop || err != nil {
			return err
		}
		next, _ := doc.Get("page_suivante")
		if next == nil {
			return nil
		}
		path, ok := next.(string)
		if !ok {
			return fmt.Errorf("%s: page_suivante is neither a path nor null", page)
		}
		page = path
	}
}
