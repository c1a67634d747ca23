// Package conformity is the conformity track, whole: its rulebook (the
// criteria R1..R6 stated in French at /referentiel; docs/authoring.md),
// its statements, the walk of a task's graph, the criteria the reference
// solver applies, and the linter's checks of its tree and statements. The
// frozen bytes are corpus.Conformity's; everything else that is the
// track's own is here, registered with season, solver and lint.
package conformity

import (
	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/tracks"
)

// The track's verdicts.
const (
	Compliant      = "conforme"
	NonCompliant   = "non_conforme"
	Indeterminable = "indeterminable"
)

// Statement is a conformity task's own members: the entity examined, for
// an activity, at a date.
type Statement struct {
	Entity          string `json:"entite"`
	Activity        string `json:"activite"`
	ExaminationDate string `json:"date_examen"`
}

// statementOf is a conformity task's own members.
func statementOf(task season.Task) *Statement { return task.Own.(*Statement) }

// Rules is the track's rulebook (docs/contract.md section 3;
// docs/authoring.md).
var Rules = &season.Rules{
	Track:    corpus.Conformity,
	Verdicts: []string{Compliant, NonCompliant, Indeterminable},
	Decisions: map[string]season.Decision{
		NonCompliant:   season.AnyFailed,
		Indeterminable: season.AnyUndetermined,
	},
	Composition: season.Composition{Exactly: map[string]int{Compliant: 3, NonCompliant: 4, Indeterminable: 3}, Traps: season.SpecTraps},
	Statement:   func() any { return new(Statement) },
	Cites:       func(t season.Task) []string { return []string{statementOf(t).Entity} },
	Probative: map[string][]string{
		"entites":              {"/existe", "/statut", "/agrements", "/agrements/<n>", "/attestations", "/attestations/<n>", "/beneficiaires"},
		"agrements":            {"/existe", "/entite", "/activite", "/statut", "/date_debut", "/date_fin_validite"},
		"attestations":         {"/existe", "/entite", "/type", "/date_emission", "/date_fin_validite", "/avenants", "/avenants/<n>"},
		"avenants":             {"/existe", "/attestation", "/objet", "/date_effet", "/nouvelle_date_fin", "/activite_exclue"},
		"listes/agrees":        {"/entrees/<n>/agrement", "/entrees/<n>/entite", "/entrees/<n>/statut"},
		"beneficiaires":        {"/statut_declaration", "/entrees/<n>/nom", "/entrees/<n>/prenoms", "/entrees/<n>/date_naissance", "/page_suivante"},
		"mesures-restrictives": {"/entrees/<n>/nom", "/entrees/<n>/prenoms", "/entrees/<n>/date_naissance"},
	},
	CommonLists: []string{"listes/agrees", "mesures-restrictives"},
	// R3: the list's entry and the agrément say the same statut.
	Agreements: []season.Agreement{{List: "listes/agrees", Member: "statut", Links: []string{"agrement"}, Field: "/statut"}},
	// R6: an owner and the list's entry of the same names.
	Namesakes: []season.Namesake{{List: "mesures-restrictives", Of: "beneficiaires", Key: []string{"nom", "prenoms"}}},
	Owner:     "the entity's",
	French:    season.FrenchWords{Owner: "de l'entité", Concerned: "son entité"},
	SubjectOf: func(t season.Task) string { return statementOf(t).Entity },
	Walk:      walk,
}

// The track, registered once: its rulebook, its criteria (solver.go) and
// its checks (lint.go).
func init() { tracks.Register(tracks.Track{Rules: Rules, Criteria: solve, Checks: checks}) }
