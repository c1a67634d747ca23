// Package purchasing is the generic purchasing track, whole: its rulebook
// (the rules G1..G6 and the selection stated in French at /regles-achat;
// docs/authoring.md), its needs, the walk of a task's graph, the rules the
// reference solver applies, and the linter's checks of its tree and needs.
// The frozen bytes are corpus.Purchasing's; everything else that is the
// track's own is here, registered with season, solver and lint.
package purchasing

import (
	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/tracks"
)

// NoValidOption is the track's answer when no candidate is a valid option;
// any other verdict is a product's canonical path.
const NoValidOption = "aucune_option_valide"

// Need is a purchasing task's own members. Quantities and amounts are
// decimal strings.
type Need struct {
	Category         string       `json:"categorie"`
	Constraints      []Constraint `json:"contraintes"`
	Quantity         string       `json:"quantite"`
	Zone             string       `json:"zone"`
	OrderDate        string       `json:"date_commande"`
	DeliveryDeadline string       `json:"date_livraison_max"`
	MaxBudgetInclTax string       `json:"budget_max_ttc"`
}

// Constraint is a hard constraint of a purchasing need on one of a product's
// caracteristiques: ">=" and "<=" compare decimal strings as numbers, "="
// compares strings.
type Constraint struct {
	Characteristic string `json:"caracteristique"`
	Operator       string `json:"operateur"`
	Value          string `json:"valeur"`
}

// Operators a constraint may use.
var Operators = []string{">=", "<=", "="}

// needOf is a purchasing task's own members.
func needOf(task season.Task) *Need { return task.Own.(*Need) }

// Rules is the track's rulebook (docs/contract.md section 3;
// docs/authoring.md).
var Rules = &season.Rules{
	Track:       corpus.Purchasing,
	Verdicts:    []string{NoValidOption},
	Choice:      "produits",
	Decisions:   map[string]season.Decision{NoValidOption: season.EveryExcluded},
	Composition: season.Composition{AtLeast: map[string]int{NoValidOption: 3}, Traps: season.SpecTraps},
	Statement:   func() any { return new(Need) },
	FileSuffix:  "-" + corpus.Purchasing.Name,
	Probative: map[string][]string{
		// A catalogue is a common list: its /page_suivante is not
		// probative, as the conformity track's lists' are not
		// (docs/contract.md, section 3; spec §8).
		"catalogues":     {"/entrees/<n>/produit", "/entrees/<n>/prix_affiche_ttc", "/entrees/<n>/etat_affiche"},
		"produits":       {"/existe", "/categorie", "/fournisseur", "/caracteristiques/<name>", "/tarif", "/disponibilite"},
		"fournisseurs":   {"/existe", "/statut", "/conditions_livraison"},
		"tarifs":         {"/produit", "/prix_unitaire_ttc", "/date_debut", "/date_fin_validite"},
		"disponibilites": {"/produit", "/etat", "/quantite_disponible", "/date_releve"},
		"livraisons": {"/fournisseur", "/zones", "/zones/<n>", "/delai_jours", "/frais_ttc", "/annexe",
			"/zones_exclues", "/zones_exclues/<n>", "/quantite_minimum", "/quantite_maximum"},
	},
	CommonLists: []string{"catalogues"},
	// G3 and G4: the catalogue agrees with the tarif and the record.
	Agreements: []season.Agreement{
		{List: "catalogues", Member: "prix_affiche_ttc", Links: []string{"produit", "tarif"}, Field: "/prix_unitaire_ttc"},
		{List: "catalogues", Member: "etat_affiche", Links: []string{"produit", "disponibilite"}, Field: "/etat"},
	},
	Owner:     "the candidates'",
	French:    season.FrenchWords{Owner: "des candidats", Concerned: "un candidat"},
	SubjectOf: func(season.Task) string { return "the task's candidates" },
	Walk:      walk,
}

// The track, registered once: its rulebook, its criteria (solver.go) and
// its checks (lint.go).
func init() { tracks.Register(tracks.Track{Rules: Rules, Criteria: solve, Checks: checks}) }
