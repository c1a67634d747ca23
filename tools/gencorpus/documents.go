package gencorpus

import (
	"fmt"
	"path"
	"slices"
	"strconv"

	"github.com/arkforge/proveit-corpus/corpus"
)

// The documents of each collection, their fields in the order the real
// corpus writes them. A nil *string is written null; every slice is
// allocated, so that an empty one is written [].

type entityDoc struct {
	Ressource           string   `json:"ressource"`
	Existe              bool     `json:"existe"`
	Denomination        string   `json:"denomination"`
	Siren               string   `json:"siren"`
	Forme               string   `json:"forme"`
	NombreAssocies      string   `json:"nombre_associes"`
	Siege               string   `json:"siege"`
	DateImmatriculation string   `json:"date_immatriculation"`
	Statut              string   `json:"statut"`
	Agrements           []string `json:"agrements"`
	Attestations        []string `json:"attestations"`
	Beneficiaires       *string  `json:"beneficiaires"`
}

type licenceDoc struct {
	Ressource       string `json:"ressource"`
	Existe          bool   `json:"existe"`
	Entite          string `json:"entite"`
	Activite        string `json:"activite"`
	Autorite        string `json:"autorite"`
	NumeroDecision  string `json:"numero_decision"`
	Statut          string `json:"statut"`
	DateDebut       string `json:"date_debut"`
	DateFinValidite string `json:"date_fin_validite"`
}

type attestationDoc struct {
	Ressource       string   `json:"ressource"`
	Existe          bool     `json:"existe"`
	Entite          string   `json:"entite"`
	Type            string   `json:"type"`
	Emetteur        string   `json:"emetteur"`
	DateEmission    string   `json:"date_emission"`
	DateFinValidite string   `json:"date_fin_validite"`
	Avenants        []string `json:"avenants"`
}

type amendmentDoc struct {
	Ressource       string  `json:"ressource"`
	Existe          bool    `json:"existe"`
	Attestation     string  `json:"attestation"`
	Objet           string  `json:"objet"`
	DateEffet       string  `json:"date_effet"`
	NouvelleDateFin *string `json:"nouvelle_date_fin"`
	ActiviteExclue  *string `json:"activite_exclue"`
	Description     string  `json:"description"`
}

type listPage struct {
	Ressource       string      `json:"ressource"`
	Activite        string      `json:"activite"`
	Autorite        string      `json:"autorite"`
	DatePublication string      `json:"date_publication"`
	Page            string      `json:"page"`
	Entrees         []listEntry `json:"entrees"`
	PageSuivante    *string     `json:"page_suivante"`
}

type listEntry struct {
	Agrement     string `json:"agrement"`
	Entite       string `json:"entite"`
	Denomination string `json:"denomination"`
	Statut       string `json:"statut"`
}

type ownersPage struct {
	Ressource         string  `json:"ressource"`
	Entite            string  `json:"entite"`
	StatutDeclaration string  `json:"statut_declaration"`
	DateDeclaration   string  `json:"date_declaration"`
	Page              string  `json:"page"`
	Entrees           []owner `json:"entrees"`
	PageSuivante      *string `json:"page_suivante"`
}

type owner struct {
	Nom                  string  `json:"nom"`
	Prenoms              string  `json:"prenoms"`
	DateNaissance        string  `json:"date_naissance"`
	Nationalite          string  `json:"nationalite"`
	Detention            string  `json:"detention"`
	PourcentageDetention *string `json:"pourcentage_detention"`
	ControleDeclare      bool    `json:"controle_declare"`
}

type measuresPage struct {
	Ressource     string    `json:"ressource"`
	Intitule      string    `json:"intitule"`
	DateMiseAJour string    `json:"date_mise_a_jour"`
	Page          string    `json:"page"`
	Entrees       []measure `json:"entrees"`
	PageSuivante  *string   `json:"page_suivante"`
}

type measure struct {
	Reference     string `json:"reference"`
	Nom           string `json:"nom"`
	Prenoms       string `json:"prenoms"`
	DateNaissance string `json:"date_naissance"`
	Motif         string `json:"motif"`
}

// entityPlan is an entity and every document it brings, drawn but not yet
// written: cost is the number of files it adds, pages of lists included.
type entityPlan struct {
	cost   int
	docs   []planned
	listed []listing
}

type planned struct {
	path string
	doc  any
}

type listing struct {
	activity *activity
	entry    listEntry
}

func (p *entityPlan) add(path string, doc any) { p.docs = append(p.docs, planned{path, doc}) }

// drawEntity draws an entity: one or two agréments, the attestations their
// activities require (a few with an avenant), a declaration of beneficial
// owners on one or two pages unless the entity is struck off, and now and
// then an attestation cited that has no file.
func (g *generator) drawEntity() *entityPlan {
	p := &entityPlan{}
	id := g.id("ENT")
	self := "/entites/" + id
	form := legalForms[g.rng.IntN(len(legalForms))]
	partners := 1
	if !form.unipersonal {
		partners = 2 + g.rng.IntN(6)
	}
	e := &entityDoc{
		Ressource:           self,
		Existe:              true,
		Denomination:        g.pick(companyHeads) + " " + g.pick(surnames) + " " + g.pick(companyTails),
		Siren:               siren(g.next["ENT"]),
		Forme:               form.name,
		NombreAssocies:      strconv.Itoa(partners),
		Siege:               fmt.Sprintf("%d %s, %s", 1+g.rng.IntN(120), g.pick(streets), g.pick(towns)),
		DateImmatriculation: date(g.day("1995-01-01", 365*29)),
		Statut:              g.pickWeighted([]string{"active", "radiee", "en_liquidation"}, 0.90, 0.05),
		Agrements:           []string{},
		Attestations:        []string{},
	}
	activities := 1
	if g.chance(0.25) {
		activities = 2
	}
	var types []string
	coveredBy := map[string]string{} // attestation type → an activity that requires it
	pending := map[*activity]int{}
	for _, i := range g.rng.Perm(len(g.activities))[:activities] {
		a := g.activities[i]
		licence := "/agrements/" + g.id("AGR")
		start := g.day("2018-01-01", 365*8)
		status := g.pickWeighted([]string{"actif", "suspendu", "retire"}, 0.85, 0.10)
		p.add(licence, &licenceDoc{
			Ressource:       licence,
			Existe:          true,
			Entite:          self,
			Activite:        a.code,
			Autorite:        authority,
			NumeroDecision:  fmt.Sprintf("ASAFR-%s-%d-%04d", corpus.ActivityInitials(a.code), start.Year(), g.next["AGR"]%10000),
			Statut:          status,
			DateDebut:       date(start),
			DateFinValidite: date(start.AddDate(5, 0, -1)),
		})
		e.Agrements = append(e.Agrements, licence)
		listed := status
		if g.chance(0.03) { // the list contradicts the agrément: a trap of the real corpus
			listed = g.pick([]string{"actif", "suspendu", "retire"})
		}
		if n := len(a.entries) + pending[a]; n > 0 && n%listPageSize == 0 {
			p.cost++ // the entry opens a new page of the list
		}
		pending[a]++
		p.listed = append(p.listed, listing{a, listEntry{Agrement: licence, Entite: self, Denomination: e.Denomination, Statut: listed}})
		for _, t := range a.required {
			if !slices.Contains(types, t) {
				types = append(types, t)
				coveredBy[t] = a.code
			}
		}
	}
	for _, t := range types {
		e.Attestations = append(e.Attestations, g.drawAttestation(p, self, t, coveredBy[t]))
	}
	if g.chance(0.02) {
		// Cited but never written: the manifest lists it as absent.
		e.Attestations = append(e.Attestations, "/attestations/"+g.id("ATT"))
	}
	if e.Statut != "radiee" {
		e.Beneficiaires = ptr(g.drawOwners(p, id, self, form.unipersonal))
	}
	p.add(self, e)
	p.cost += len(p.docs)
	return p
}

// drawAttestation adds an attestation of type t held by entity, and now and
// then an avenant to it; it returns the attestation's path.
func (g *generator) drawAttestation(p *entityPlan, entity, t, activityCode string) string {
	self := "/attestations/" + g.id("ATT")
	emission := g.day("2025-01-01", 540)
	end := emission.AddDate(1, 0, -1)
	doc := &attestationDoc{
		Ressource:       self,
		Existe:          true,
		Entite:          entity,
		Type:            t,
		Emetteur:        g.pick(insurers),
		DateEmission:    date(emission),
		DateFinValidite: date(end),
		Avenants:        []string{},
	}
	if g.chance(0.12) {
		amendment := "/avenants/" + g.id("AVN")
		a := &amendmentDoc{
			Ressource:   amendment,
			Existe:      true,
			Attestation: self,
			DateEffet:   date(emission.AddDate(0, 0, 30+g.rng.IntN(300))),
		}
		if g.chance(0.7) {
			a.Objet, a.NouvelleDateFin, a.Description = "prorogation", ptr(date(end.AddDate(0, 6, 0))), g.pick(extensions)
		} else {
			a.Objet, a.ActiviteExclue, a.Description = "exclusion", ptr(activityCode), g.pick(exclusions)
		}
		p.add(amendment, a)
		doc.Avenants = append(doc.Avenants, amendment)
	}
	p.add(self, doc)
	return self
}

// drawOwners adds the declaration of an entity's beneficial owners, on one
// or two pages, and returns the path of its first page. Each owner holds
// more than 25 % or is declared for control, and together they hold no more
// than the whole; a single-partner entity's one owner holds it all.
func (g *generator) drawOwners(p *entityPlan, id, entity string, unipersonal bool) string {
	first := "/beneficiaires/" + id
	owners := g.drawHoldings(unipersonal)
	pages := 1
	if len(owners) > 1 && g.chance(0.15) {
		pages = 2
	}
	status := g.pickWeighted([]string{"complete", "incomplete"}, 0.9)
	declared := date(g.day("2025-01-01", 600))
	// The second page, if any, holds the last owner: often one declared for
	// control, as the real corpus's second pages do.
	split := len(owners)
	if pages == 2 {
		split = len(owners) - 1
	}
	for n := 1; n <= pages; n++ {
		entries := owners[:split]
		if n == 2 {
			entries = owners[split:]
		}
		page := &ownersPage{
			Ressource:         pagePath(first, n),
			Entite:            entity,
			StatutDeclaration: status,
			DateDeclaration:   declared,
			Page:              fmt.Sprint(n),
			Entrees:           entries,
		}
		if n < pages {
			page.PageSuivante = ptr(pagePath(first, n+1))
		}
		p.add(page.Ressource, page)
	}
	return first
}

// drawHoldings draws the owners of an entity: up to three holding more than
// 25 % each, within 100 % in all, and now and then one more declared for
// control.
func (g *generator) drawHoldings(unipersonal bool) []owner {
	person := func(detention string, share *string, control bool) owner {
		return owner{
			Nom:                  g.pick(surnames),
			Prenoms:              g.givenNames(),
			DateNaissance:        date(g.day("1945-01-01", 365*55)),
			Nationalite:          g.pick(nationalities),
			Detention:            detention,
			PourcentageDetention: share,
			ControleDeclare:      control,
		}
	}
	if unipersonal {
		return []owner{person("100 % du capital (associé unique)", ptr("100"), false)}
	}
	var shares []int
	switch holders := 1 + g.rng.IntN(3); holders {
	case 1:
		shares = []int{26 + g.rng.IntN(74)} // 26..99: the rest is held by partners below the threshold
	case 2:
		a := 26 + g.rng.IntN(49) // 26..74
		shares = []int{a, 26 + g.rng.IntN(100-a-25)}
	default:
		a, b := 26+g.rng.IntN(8), 26+g.rng.IntN(8) // 26..33 each
		shares = []int{a, b, 26 + g.rng.IntN(100-a-b-25)}
	}
	var owners []owner
	left := 100
	for _, s := range shares {
		owners = append(owners, person(fmt.Sprintf("%d %% %s", s, g.pick(directHoldings)), ptr(strconv.Itoa(s)), false))
		left -= s
	}
	switch {
	case left > 0 && g.chance(0.2):
		s := 1 + g.rng.IntN(left)
		owners = append(owners, person(fmt.Sprintf("%d %% du capital, contrôle conjoint au titre d'un pacte d'associés", s), ptr(strconv.Itoa(s)), true))
	case g.chance(0.15):
		owners = append(owners, person("contrôle par d'autres moyens ("+g.pick(controlMeans)+")", nil, true))
	}
	return owners
}

// commit writes an entity's documents and adds its agréments to the lists.
func (g *generator) commit(p *entityPlan) {
	for _, d := range p.docs {
		g.put(d.path, d.doc)
	}
	for _, l := range p.listed {
		l.activity.entries = append(l.activity.entries, l.entry)
	}
}

// writeList writes the public list of an activity, listPageSize entries a
// page; an activity with no agrément still has its (empty) first page.
func (g *generator) writeList(a *activity) {
	pages := max(1, (len(a.entries)+listPageSize-1)/listPageSize)
	for n := 1; n <= pages; n++ {
		entries := a.entries[min((n-1)*listPageSize, len(a.entries)):min(n*listPageSize, len(a.entries))]
		page := &listPage{
			Ressource:       pagePath(a.firstPage, n),
			Activite:        a.code,
			Autorite:        authority,
			DatePublication: "2026-09-15",
			Page:            fmt.Sprint(n),
			Entrees:         append([]listEntry{}, entries...),
		}
		if n < pages {
			page.PageSuivante = ptr(pagePath(a.firstPage, n+1))
		}
		g.put(page.Ressource, page)
	}
}

// writeMeasures writes the restrictive-measures list on the given number of
// pages.
func (g *generator) writeMeasures(pages int) {
	prefix := path.Base(g.measures)
	k := 0
	for n := 1; n <= pages; n++ {
		page := &measuresPage{
			Ressource:     pagePath(g.measures, n),
			Intitule:      measuresTitle,
			DateMiseAJour: "2026-09-25",
			Page:          fmt.Sprint(n),
			Entrees:       make([]measure, measuresPageSize),
		}
		for i := range page.Entrees {
			k++
			page.Entrees[i] = measure{
				Reference:     fmt.Sprintf("%s-%05d", prefix, k),
				Nom:           g.pick(surnames),
				Prenoms:       g.givenNames(),
				DateNaissance: date(g.day("1945-01-01", 365*55)),
				Motif:         g.pick(grounds),
			}
		}
		if n < pages {
			page.PageSuivante = ptr(pagePath(g.measures, n+1))
		}
		g.put(page.Ressource, page)
	}
}

// givenNames draws one or two given names.
func (g *generator) givenNames() string {
	if g.chance(0.3) {
		return g.pick(givenNames) + " " + g.pick(givenNames)
	}
	return g.pick(givenNames)
}

// pickWeighted draws words[i] with probability weights[i]; the last word
// takes what the weights leave.
func (g *generator) pickWeighted(words []string, weights ...float64) string {
	r := g.rng.Float64()
	for i, w := range weights {
		if r < w {
			return words[i]
		}
		r -= w
	}
	return words[len(words)-1]
}
