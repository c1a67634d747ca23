package conformity

import (
	"errors"
	"fmt"
	"slices"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/solver"
)

// solve answers a conformity task by R1..R6 (docs/authoring.md), in order:
// Solve stops at the first criterion established false, Derive (full)
// evaluates every one.
func solve(task season.Task, fetch season.Fetcher, full bool) (*solver.Result, error) {
	s := &examination{Walker: solver.NewWalker(task.ID, fetch, full), task: task, st: statementOf(task)}
	if !corpus.IsDate(s.st.ExaminationDate) {
		return nil, fmt.Errorf("%s: date_examen %q is not a YYYY-MM-DD date", task.ID, s.st.ExaminationDate)
	}
	if err := s.readReferentiel(); err != nil {
		return nil, err
	}
	criteria := []struct {
		code  string
		check func() (solver.Outcome, string, error)
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
		if failed && !s.Full {
			s.Result.Criteria = append(s.Result.Criteria, solver.Criterion{Code: c.code, Outcome: solver.Skipped, Reason: "an earlier criterion failed"})
			continue
		}
		s.basis = season.Formula{}
		outcome, reason, err := c.check()
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", task.ID, c.code, err)
		}
		s.Result.Criteria = append(s.Result.Criteria, solver.Criterion{Code: c.code, Outcome: outcome, Reason: reason, Basis: s.basis})
		failed = failed || outcome == solver.Failed
	}
	s.Result.Verdict = verdictOf(s.Result.Criteria)
	return s.Result, nil
}

// verdictOf applies the precedence: false, then undetermined, then conforme.
func verdictOf(criteria []solver.Criterion) solver.Verdict {
	outcomes := make([]solver.Outcome, len(criteria))
	for i, c := range criteria {
		outcomes[i] = c.Outcome
	}
	switch {
	case slices.Contains(outcomes, solver.Failed):
		return NonCompliant
	case slices.Contains(outcomes, solver.Undetermined):
		return Indeterminable
	}
	return Compliant
}

// examination is the state of one conformity task's walk.
type examination struct {
	solver.Walker
	task  season.Task
	st    *Statement
	basis season.Formula // what the criterion being checked rests on

	// From /referentiel.
	required      []string // attestation types the activity requires
	listFirstPage string   // first page of the activity's public list
	measuresFirst string   // first page of the restrictive-measures list

	// From the walk so far.
	entityDoc    pyjson.Object // nil when the entity answers existe: false
	retained     string        // the agrément R2 retained, "" if none
	retainedLink season.Fact   // the entity's link to it
}

func (s *examination) readReferentiel() error {
	ref, _, err := s.Get(corpus.Referentiel)
	if err != nil {
		return err
	}
	required, ok := pyjson.Lookup(ref, season.Pointer("attestations_requises", s.st.Activity))
	types, isArray := required.(pyjson.Array)
	if !ok || !isArray {
		return fmt.Errorf("%s: activity %q has no attestations_requises", corpus.Referentiel, s.st.Activity)
	}
	for _, t := range types {
		name, ok := t.(string)
		if !ok {
			return fmt.Errorf("%s: attestations_requises of %q holds a non-string", corpus.Referentiel, s.st.Activity)
		}
		s.required = append(s.required, name)
	}
	if s.listFirstPage, err = season.StringAt(ref, corpus.Referentiel, season.Pointer("listes_agrees", s.st.Activity)); err != nil {
		return err
	}
	s.measuresFirst, err = season.StringAt(ref, corpus.Referentiel, "/mesures_restrictives")
	return err
}

// R1: the entity exists and its statut is active.
func (s *examination) entity() (solver.Outcome, string, error) {
	doc, exists, err := s.Get(s.st.Entity)
	if err != nil {
		return "", "", err
	}
	if !exists {
		s.Rest(s.Fact(s.st.Entity, "/existe"))
		s.basis = season.AllFacts(s.Fact(s.st.Entity, "/existe"))
		return solver.Undetermined, "the entity answers existe: false", nil
	}
	s.entityDoc = doc
	status, err := season.StringAt(doc, s.st.Entity, "/statut")
	if err != nil {
		return "", "", err
	}
	s.Rest(s.Fact(s.st.Entity, "/statut"))
	s.basis = season.AllFacts(s.Fact(s.st.Entity, "/statut"))
	if status != "active" {
		return solver.Failed, fmt.Sprintf("statut is %q, not active", status), nil
	}
	return solver.Met, "the entity is active", nil
}

// candidate is a resource a criterion may rest on: listed by its owner at
// link (a fact), or cited by the statement (no link).
type candidate struct {
	path string
	link *season.Fact
}

// candidates lists the resources of a collection the entity lists in field,
// then those the statement cites that it does not list: a cited one that
// answers existe: false leaves the criterion undetermined, a cited one that
// exists but is not listed does not count for the entity.
func (s *examination) candidates(field, collection string) ([]candidate, error) {
	listed, err := season.StringsAt(s.entityDoc, s.st.Entity, "/"+field)
	if err != nil {
		return nil, err
	}
	var out []candidate
	for i, path := range listed {
		link := s.Fact(s.st.Entity, season.Pointer(field, fmt.Sprint(i)))
		out = append(out, candidate{path: path, link: &link})
	}
	for _, ref := range s.task.References {
		if corpus.CollectionOf(ref) == collection && !slices.Contains(listed, ref) {
			out = append(out, candidate{path: ref})
		}
	}
	return out, nil
}

// absent records that a candidate answers existe: false.
func (s *examination) absent(c candidate) []season.Fact {
	facts := []season.Fact{s.Fact(c.path, "/existe")}
	if c.link != nil {
		facts = append([]season.Fact{*c.link}, facts...)
	}
	return facts
}

// R2: among the agréments the entity lists, one is for the activity, actif,
// and date_debut <= date_examen <= date_fin_validite.
//
// Established false, it rests on each listed agrément's link and on any one
// of the reasons it is not valid; undetermined, on the link and existe of
// each that answers existe: false, and the others' reasons.
func (s *examination) licence() (solver.Outcome, string, error) {
	if s.entityDoc == nil {
		return solver.Undetermined, "the entity's agréments cannot be read", nil
	}
	candidates, err := s.candidates("agrements", "agrements")
	if err != nil {
		return "", "", err
	}
	var missing, against []season.Fact
	var missingBases, againstBases []season.Formula
	for _, c := range candidates {
		doc, exists, err := s.Get(c.path)
		if err != nil {
			return "", "", err
		}
		if !exists {
			missing = append(missing, s.absent(c)...)
			missingBases = append(missingBases, season.AllFacts(s.absent(c)...))
			continue
		}
		if c.link == nil {
			continue // cited, not listed: not the entity's
		}
		f, err := solver.ReadFields(doc, c.path, "activite", "statut", "date_debut", "date_fin_validite")
		if err != nil {
			return "", "", err
		}
		var reasons []season.Formula
		if f["activite"] != s.st.Activity {
			against = append(against, s.Fact(c.path, "/activite"))
			againstBases = append(againstBases, season.AllOf(season.AllFacts(*c.link), season.AllFacts(s.Fact(c.path, "/activite"))))
			continue
		}
		valid := f["statut"] == "actif" && f["date_debut"] <= s.st.ExaminationDate && s.st.ExaminationDate <= f["date_fin_validite"]
		if valid {
			s.retained, s.retainedLink = c.path, *c.link
			met := []season.Fact{*c.link, s.Fact(c.path, "/activite"), s.Fact(c.path, "/statut"),
				s.Fact(c.path, "/date_debut"), s.Fact(c.path, "/date_fin_validite")}
			s.Rest(met...)
			s.basis = season.AllFacts(met...)
			return solver.Met, c.path + " is valid for the activity at the date", nil
		}
		against = append(against, s.Fact(c.path, "/activite"), s.Fact(c.path, "/statut"))
		if f["statut"] != "actif" {
			reasons = append(reasons, season.AllFacts(s.Fact(c.path, "/statut")))
		}
		if f["date_debut"] > s.st.ExaminationDate {
			against = append(against, s.Fact(c.path, "/date_debut"))
			reasons = append(reasons, season.AllFacts(s.Fact(c.path, "/date_debut")))
		}
		if f["date_fin_validite"] < s.st.ExaminationDate {
			against = append(against, s.Fact(c.path, "/date_fin_validite"))
			reasons = append(reasons, season.AllFacts(s.Fact(c.path, "/date_fin_validite")))
		}
		againstBases = append(againstBases, season.AllOf(season.AllFacts(*c.link), season.AnyOf(reasons...)))
	}
	if len(missing) > 0 {
		s.Rest(missing...)
		s.basis = season.AllOf(append(missingBases, againstBases...)...)
		return solver.Undetermined, "an agrément answers existe: false and none is valid for the activity", nil
	}
	s.Rest(s.Fact(s.st.Entity, "/agrements"))
	s.Rest(against...)
	if len(againstBases) == 0 {
		s.basis = season.AllFacts(s.Fact(s.st.Entity, "/agrements")) // the entity lists none
	} else {
		s.basis = season.AllOf(againstBases...)
	}
	return solver.Failed, "no agrément the entity lists is for the activity, actif and in force at the date", nil
}

// R3: the activity's public list carries, on some page, an entry for the
// retained agrément whose statut is actif; another statut contradicts it.
func (s *examination) publicList() (solver.Outcome, string, error) {
	if s.retained == "" {
		if s.Full && s.Result.Criteria[len(s.Result.Criteria)-1].Outcome == solver.Failed {
			return solver.Skipped, "R2 failed: no agrément to look up", nil
		}
		return solver.Undetermined, "no agrément was retained at R2", nil
	}
	found := solver.Undetermined
	reason := ""
	err := s.WalkPages(s.listFirstPage, func(page string, doc pyjson.Object) (bool, error) {
		entries, err := season.ObjectsAt(doc, page, "/entrees")
		if err != nil {
			return false, err
		}
		for n, e := range entries {
			at := season.Pointer("entrees", fmt.Sprint(n))
			f, err := solver.ReadFields(e, page+" "+at, "agrement", "statut")
			if err != nil {
				return false, err
			}
			licence, status := f["agrement"], f["statut"]
			if licence != s.retained {
				continue
			}
			entry := []season.Fact{s.Fact(page, at+"/agrement"), s.Fact(page, at+"/statut")}
			s.Rest(entry...)
			if status == "actif" {
				found, reason = solver.Met, fmt.Sprintf("%s lists %s as actif", page, licence)
				s.basis = season.AllFacts(entry...)
			} else {
				found, reason = solver.Undetermined, fmt.Sprintf("%s lists %s as %q while the agrément says actif: two sources of the same rank disagree", page, licence, status)
				// The two sources: the agrément the entity lists, and the entry.
				s.basis = season.AllFacts(append([]season.Fact{s.retainedLink, s.Fact(s.retained, "/statut")}, entry...)...)
			}
			return true, nil
		}
		return false, nil
	})
	switch {
	case errors.Is(err, solver.ErrAbsentPage):
		s.basis = season.AllFacts(s.Fact(s.AbsentPage, "/existe"))
		return solver.Undetermined, err.Error(), nil
	case err != nil:
		return "", "", err
	case reason == "":
		// No assertion states an absence: this outcome has no basis, and
		// the key's derivation (solver.DeriveKey) refuses a key built on it.
		return solver.Failed, fmt.Sprintf("no page of %s lists %s", s.listFirstPage, s.retained), nil
	}
	return found, reason, nil
}

// coverage is what one attestation establishes for a type, with the facts
// that establish it (facts, for the result) and the basis: for a cover
// that fails, any one of the reasons it does.
type coverage struct {
	outcome solver.Outcome
	facts   []season.Fact
	basis   season.Formula
}

// R4: for each type the activity requires, the entity lists an attestation
// of that type in force at the date, after its avenants. Established false
// or undetermined, it rests on any one type that is.
func (s *examination) attestations() (solver.Outcome, string, error) {
	if s.entityDoc == nil {
		return solver.Undetermined, "the entity's attestations cannot be read", nil
	}
	candidates, err := s.candidates("attestations", "attestations")
	if err != nil {
		return "", "", err
	}
	var undetermined, failedTypes []string
	var met, unknownBases, failedBases []season.Formula
	for _, typ := range s.required {
		outcome, basis, err := s.cover(typ, candidates)
		if err != nil {
			return "", "", err
		}
		switch outcome {
		case solver.Failed:
			failedTypes = append(failedTypes, typ)
			failedBases = append(failedBases, basis)
			if !s.Full {
				s.basis = basis
				return solver.Failed, fmt.Sprintf("no attestation of type %s covers the activity at the date", typ), nil
			}
		case solver.Undetermined:
			undetermined = append(undetermined, typ)
			unknownBases = append(unknownBases, basis)
		default:
			met = append(met, basis)
		}
	}
	switch {
	case len(failedTypes) > 0:
		s.basis = season.AnyOf(failedBases...)
		return solver.Failed, fmt.Sprintf("no attestation of type %v covers the activity at the date", failedTypes), nil
	case len(undetermined) > 0:
		s.basis = season.AnyOf(unknownBases...)
		return solver.Undetermined, fmt.Sprintf("the cover of %v cannot be established", undetermined), nil
	}
	s.basis = season.AllOf(met...)
	return solver.Met, fmt.Sprintf("every required type %v is covered", s.required), nil
}

// cover decides whether some candidate attestation of type typ covers the
// activity at the date: one that does settles it; otherwise a candidate
// whose type or cover cannot be read leaves it undetermined; otherwise it
// fails. Not covered, it rests on every candidate of the type (or of no
// known type) that does not cover it; when the entity lists none of the
// type, on the list and each listed attestation's type.
func (s *examination) cover(typ string, candidates []candidate) (solver.Outcome, season.Formula, error) {
	var unknown, against, otherTypes []season.Fact
	var unknownBases, againstBases []season.Formula
	for _, c := range candidates {
		doc, exists, err := s.Get(c.path)
		if err != nil {
			return "", season.Formula{}, err
		}
		if !exists {
			unknown = append(unknown, s.absent(c)...) // of any type, this one included
			unknownBases = append(unknownBases, season.AllFacts(s.absent(c)...))
			continue
		}
		if c.link == nil {
			continue
		}
		t, err := season.StringAt(doc, c.path, "/type")
		if err != nil {
			return "", season.Formula{}, err
		}
		if t != typ {
			otherTypes = append(otherTypes, s.Fact(c.path, "/type"))
			continue
		}
		cov, err := s.coverOf(c, doc)
		if err != nil {
			return "", season.Formula{}, err
		}
		switch cov.outcome {
		case solver.Met:
			s.Rest(cov.facts...)
			return solver.Met, cov.basis, nil
		case solver.Undetermined:
			unknown = append(unknown, cov.facts...)
			unknownBases = append(unknownBases, cov.basis)
		default:
			against = append(against, cov.facts...)
			againstBases = append(againstBases, cov.basis)
		}
	}
	if len(unknown) > 0 {
		s.Rest(unknown...)
		return solver.Undetermined, season.AllOf(append(unknownBases, againstBases...)...), nil
	}
	s.Rest(s.Fact(s.st.Entity, "/attestations"))
	s.Rest(against...)
	if len(againstBases) == 0 {
		return solver.Failed, season.AllFacts(append([]season.Fact{s.Fact(s.st.Entity, "/attestations")}, otherTypes...)...), nil
	}
	return solver.Failed, season.AllOf(againstBases...), nil
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
func (s *examination) coverOf(c candidate, doc pyjson.Object) (coverage, error) {
	f, err := solver.ReadFields(doc, c.path, "date_emission", "date_fin_validite")
	if err != nil {
		return coverage{}, err
	}
	head := []season.Fact{*c.link, s.Fact(c.path, "/type")}
	var reasons []season.Formula
	if f["date_emission"] > s.st.ExaminationDate {
		late := append(head, s.Fact(c.path, "/date_emission"))
		if !s.Full {
			return coverage{solver.Failed, late, season.AllFacts(late...)}, nil
		}
		reasons = append(reasons, season.AllFacts(late...))
	}
	amendments, err := season.StringsAt(doc, c.path, "/avenants")
	if err != nil {
		return coverage{}, err
	}
	end, endFacts := f["date_fin_validite"], []season.Fact{s.Fact(c.path, "/date_fin_validite")}
	endBasis := append(slices.Clone(head), endFacts...)
	latest := ""
	var missing, exclusion []season.Fact
	var missingBases []season.Formula
	for k, avn := range amendments {
		link := s.Fact(c.path, season.Pointer("avenants", fmt.Sprint(k)))
		adoc, exists, err := s.Get(avn)
		if err != nil {
			return coverage{}, err
		}
		if !exists {
			missing = append(missing, link, s.Fact(avn, "/existe"))
			missingBases = append(missingBases, season.AllFacts(link, s.Fact(avn, "/existe")))
			continue
		}
		a, err := solver.ReadFields(adoc, avn, "objet", "date_effet")
		if err != nil {
			return coverage{}, err
		}
		if a["date_effet"] > s.st.ExaminationDate {
			continue // not yet in effect
		}
		switch a["objet"] {
		case "prorogation":
			p, err := solver.ReadDates(adoc, avn, "nouvelle_date_fin")
			if err != nil {
				return coverage{}, err
			}
			if a["date_effet"] >= latest {
				latest, end = a["date_effet"], p["nouvelle_date_fin"]
				endFacts = []season.Fact{link, s.Fact(avn, "/objet"), s.Fact(avn, "/date_effet"), s.Fact(avn, "/nouvelle_date_fin")}
				endBasis = endFacts
			}
		case "exclusion":
			excluded, err := season.StringAt(adoc, avn, "/activite_exclue")
			if err != nil {
				return coverage{}, err
			}
			if excluded == s.st.Activity {
				facts := []season.Fact{link, s.Fact(avn, "/objet"), s.Fact(avn, "/date_effet"), s.Fact(avn, "/activite_exclue")}
				reasons = append(reasons, season.AllFacts(facts...))
				if exclusion == nil {
					exclusion = facts
				}
			}
		default:
			return coverage{}, fmt.Errorf("%s: objet %q is neither prorogation nor exclusion", avn, a["objet"])
		}
	}
	expired := missing == nil && end < s.st.ExaminationDate
	if expired {
		reasons = append(reasons, season.AllFacts(endBasis...))
	}
	switch {
	case f["date_emission"] > s.st.ExaminationDate:
		return coverage{solver.Failed, append(head, s.Fact(c.path, "/date_emission")), season.AnyOf(reasons...)}, nil
	case exclusion != nil:
		return coverage{solver.Failed, append(head, exclusion...), season.AnyOf(reasons...)}, nil
	case missing != nil:
		return coverage{solver.Undetermined, append(head, missing...), season.AllOf(missingBases...)}, nil
	case expired:
		return coverage{solver.Failed, append(head, endFacts...), season.AnyOf(reasons...)}, nil
	}
	met := append(append(head, s.Fact(c.path, "/date_emission")), endFacts...)
	return coverage{solver.Met, met, season.AllFacts(met...)}, nil
}

// R5: the declaration's statut_declaration is complete.
func (s *examination) declaration() (solver.Outcome, string, error) {
	if s.entityDoc == nil {
		return solver.Undetermined, "the entity's declaration cannot be read", nil
	}
	first, _ := s.entityDoc.Get("beneficiaires")
	if first == nil {
		s.Rest(s.Fact(s.st.Entity, "/beneficiaires"))
		s.basis = season.AllFacts(s.Fact(s.st.Entity, "/beneficiaires"))
		return solver.Failed, "the entity has no beneficial-owner declaration", nil
	}
	path, ok := first.(string)
	if !ok {
		return "", "", fmt.Errorf("%s: beneficiaires is not a path", s.st.Entity)
	}
	doc, exists, err := s.Get(path)
	if err != nil {
		return "", "", err
	}
	link := s.Fact(s.st.Entity, "/beneficiaires")
	if !exists {
		s.Rest(link, s.Fact(path, "/existe"))
		s.basis = season.AllFacts(link, s.Fact(path, "/existe"))
		return solver.Undetermined, path + " answers existe: false", nil
	}
	status, err := season.StringAt(doc, path, "/statut_declaration")
	if err != nil {
		return "", "", err
	}
	s.Rest(link, s.Fact(path, "/statut_declaration"))
	s.basis = season.AllFacts(link, s.Fact(path, "/statut_declaration"))
	switch status {
	case "complete":
		return solver.Met, "the declaration is complete", nil
	case "incomplete":
		return solver.Failed, "the declaration is incomplete", nil
	}
	return "", "", fmt.Errorf("%s: statut_declaration %q is neither complete nor incomplete", path, status)
}

// person is a name and birth date on a page of a list, with the facts that
// state them.
type person struct {
	nom, prenoms, naissance string
	facts                   []season.Fact // nom, prenoms, date_naissance
	via                     []season.Fact // how the page is reached from the entity
}

// R6: no beneficial owner, on any page, matches an entry, on any page, of the
// restrictive-measures list: same nom, prenoms and date_naissance.
// Established false, it rests on any one match's six fields, the owner's
// and the entry's: the pages are the task's by its graph, so the links
// that reach them are not the case.
func (s *examination) restrictiveMeasures() (solver.Outcome, string, error) {
	first, _ := s.entityDoc.Get("beneficiaires") // a nil entity has none
	firstPage, ok := first.(string)
	if !ok {
		if s.entityDoc != nil && first == nil {
			return solver.Skipped, "no declaration: R5 failed", nil
		}
		return solver.Undetermined, "the beneficial owners cannot be read", nil
	}
	var owners []person
	via := []season.Fact{s.Fact(s.st.Entity, "/beneficiaires")}
	err := s.WalkPages(firstPage, func(page string, doc pyjson.Object) (bool, error) {
		people, err := s.people(page, doc, via)
		owners = append(owners, people...)
		if next, _ := doc.Get("page_suivante"); next != nil {
			via = []season.Fact{s.Fact(page, "/page_suivante")}
		}
		return false, err
	})
	if errors.Is(err, solver.ErrAbsentPage) {
		s.basis = season.AllFacts(s.Fact(s.AbsentPage, "/existe"))
		return solver.Undetermined, err.Error(), nil
	} else if err != nil {
		return "", "", err
	}
	var homonyms []season.Fact
	var match *[2]person
	var matches []season.Formula
	err = s.WalkPages(s.measuresFirst, func(page string, doc pyjson.Object) (bool, error) {
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
					matches = append(matches, season.AllFacts(append(slices.Clone(o.facts), e.facts...)...))
					if !s.Full {
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
	case errors.Is(err, solver.ErrAbsentPage) && match == nil:
		s.basis = season.AllFacts(s.Fact(s.AbsentPage, "/existe"))
		return solver.Undetermined, err.Error(), nil
	case err != nil && !errors.Is(err, solver.ErrAbsentPage):
		return "", "", err
	case match != nil:
		s.basis = season.AnyOf(matches...)
		s.Rest(match[0].via...)
		s.Rest(match[0].facts...)
		s.Rest(match[1].facts...)
		return solver.Failed, fmt.Sprintf("%s %s, born %s, is on the restrictive-measures list", match[0].prenoms, match[0].nom, match[0].naissance), nil
	}
	s.Rest(homonyms...)
	s.basis = season.AllFacts(homonyms...)
	return solver.Met, fmt.Sprintf("none of %d beneficial owners is on the restrictive-measures list", len(owners)), nil
}

// people reads the entries of a page of people.
func (s *examination) people(page string, doc pyjson.Object, via []season.Fact) ([]person, error) {
	entries, err := season.ObjectsAt(doc, page, "/entrees")
	if err != nil {
		return nil, err
	}
	out := make([]person, 0, len(entries))
	for n, e := range entries {
		at := season.Pointer("entrees", fmt.Sprint(n))
		f, err := solver.ReadFields(e, page+" "+at, "nom", "prenoms", "date_naissance")
		if err != nil {
			return nil, err
		}
		out = append(out, person{
			nom: f["nom"], prenoms: f["prenoms"], naissance: f["date_naissance"],
			facts: []season.Fact{s.Fact(page, at+"/nom"), s.Fact(page, at+"/prenoms"), s.Fact(page, at+"/date_naissance")},
			via:   via,
		})
	}
	return out, nil
}
