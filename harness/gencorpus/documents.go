package gencorpus

import (
	"fmt"
	"path"
	"slices"
	"strconv"

	"github.com/arkforge/proveit-corpus/corpus"
)

// The documents of each collection, their fields exactly the track's
// schema's (conformity.Schemas), in its order: put holds each type to it. A
// nil *string is written null; every slice is allocated, so that an empty
// one is written [].

type entityDoc struct {
	Resource         string   `json:"ressource"`
	Exists           bool     `json:"existe"`
	CompanyName      string   `json:"denomination"`
	Siren            string   `json:"siren"`
	LegalForm        string   `json:"forme"`
	PartnerCount     string   `json:"nombre_associes"`
	HeadOffice       string   `json:"siege"`
	RegistrationDate string   `json:"date_immatriculation"`
	Status           string   `json:"statut"`
	Licences         []string `json:"agrements"`
	Attestations     []string `json:"attestations"`
	BeneficialOwners *string  `json:"beneficiaires"`
}

type licenceDoc struct {
	Resource       string `json:"ressource"`
	Exists         bool   `json:"existe"`
	Entity         string `json:"entite"`
	Activity       string `json:"activite"`
	Authority      string `json:"autorite"`
	DecisionNumber string `json:"numero_decision"`
	Status         string `json:"statut"`
	StartDate      string `json:"date_debut"`
	ValidUntil     string `json:"date_fin_validite"`
}

type attestationDoc struct {
	Resource   string   `json:"ressource"`
	Exists     bool     `json:"existe"`
	Entity     string   `json:"entite"`
	Type       string   `json:"type"`
	Issuer     string   `json:"emetteur"`
	IssueDate  string   `json:"date_emission"`
	ValidUntil string   `json:"date_fin_validite"`
	Amendments []string `json:"avenants"`
}

type amendmentDoc struct {
	Resource         string  `json:"ressource"`
	Exists           bool    `json:"existe"`
	Attestation      string  `json:"attestation"`
	Purpose          string  `json:"objet"`
	EffectiveDate    string  `json:"date_effet"`
	NewEndDate       *string `json:"nouvelle_date_fin"`
	ExcludedActivity *string `json:"activite_exclue"`
	Description      string  `json:"description"`
}

type listPage struct {
	Resource    string      `json:"ressource"`
	Activity    string      `json:"activite"`
	Authority   string      `json:"autorite"`
	PublishedOn string      `json:"date_publication"`
	Page        string      `json:"page"`
	Entries     []listEntry `json:"entrees"`
	NextPage    *string     `json:"page_suivante"`
}

type listEntry struct {
	Licence     string `json:"agrement"`
	Entity      string `json:"entite"`
	CompanyName string `json:"denomination"`
	Status      string `json:"statut"`
}

type ownersPage struct {
	Resource          string  `json:"ressource"`
	Entity            string  `json:"entite"`
	DeclarationStatus string  `json:"statut_declaration"`
	DeclaredOn        string  `json:"date_declaration"`
	Page              string  `json:"page"`
	Entries           []owner `json:"entrees"`
	NextPage          *string `json:"page_suivante"`
}

type owner struct {
	LastName          string  `json:"nom"`
	FirstNames        string  `json:"prenoms"`
	BirthDate         string  `json:"date_naissance"`
	Nationality       string  `json:"nationalite"`
	Holding           string  `json:"detention"`
	HoldingPercentage *string `json:"pourcentage_detention"`
	DeclaredControl   bool    `json:"controle_declare"`
}

type measuresPage struct {
	Resource  string    `json:"ressource"`
	Title     string    `json:"intitule"`
	UpdatedOn string    `json:"date_mise_a_jour"`
	Page      string    `json:"page"`
	Entries   []measure `json:"entrees"`
	NextPage  *string   `json:"page_suivante"`
}

type measure struct {
	Reference  string `json:"reference"`
	LastName   string `json:"nom"`
	FirstNames string `json:"prenoms"`
	BirthDate  string `json:"date_naissance"`
	Reason     string `json:"motif"`
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
		Resource:         self,
		Exists:           true,
		CompanyName:      g.pick(companyHeads) + " " + g.pick(surnames) + " " + g.pick(companyTails),
		Siren:            siren(g.next["ENT"]),
		LegalForm:        form.name,
		PartnerCount:     strconv.Itoa(partners),
		HeadOffice:       fmt.Sprintf("%d %s, %s", 1+g.rng.IntN(120), g.pick(streets), g.pick(towns)),
		RegistrationDate: date(g.day("1995-01-01", 365*29)),
		Status:           g.pickWeighted([]string{"active", "radiee", "en_liquidation"}, 0.90, 0.05),
		Licences:         []string{},
		Attestations:     []string{},
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
			Resource:       licence,
			Exists:         true,
			Entity:         self,
			Activity:       a.code,
			Authority:      authority,
			DecisionNumber: fmt.Sprintf("ASAFR-%s-%d-%04d", corpus.ActivityInitials(a.code), start.Year(), g.next["AGR"]%10000),
			Status:         status,
			StartDate:      date(start),
			ValidUntil:     date(start.AddDate(5, 0, -1)),
		})
		e.Licences = append(e.Licences, licence)
		listed := status
		if g.chance(0.03) { // the list contradicts the agrément: a trap of the real corpus
			listed = g.pick([]string{"actif", "suspendu", "retire"})
		}
		if n := len(a.entries) + pending[a]; n > 0 && n%listPageSize == 0 {
			p.cost++ // the entry opens a new page of the list
		}
		pending[a]++
		p.listed = append(p.listed, listing{a, listEntry{Licence: licence, Entity: self, CompanyName: e.CompanyName, Status: listed}})
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
	if e.Status != "radiee" {
		e.BeneficialOwners = ptr(g.drawOwners(p, id, self, form.unipersonal))
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
		Resource:   self,
		Exists:     true,
		Entity:     entity,
		Type:       t,
		Issuer:     g.pick(insurers),
		IssueDate:  date(emission),
		ValidUntil: date(end),
		Amendments: []string{},
	}
	if g.chance(0.12) {
		amendment := "/avenants/" + g.id("AVN")
		a := &amendmentDoc{
			Resource:      amendment,
			Exists:        true,
			Attestation:   self,
			EffectiveDate: date(emission.AddDate(0, 0, 30+g.rng.IntN(300))),
		}
		if g.chance(0.7) {
			a.Purpose, a.NewEndDate, a.Description = "prorogation", ptr(date(end.AddDate(0, 6, 0))), g.pick(extensions)
		} else {
			a.Purpose, a.ExcludedActivity, a.Description = "exclusion", ptr(activityCode), g.pick(exclusions)
		}
		p.add(amendment, a)
		doc.Amendments = append(doc.Amendments, amendment)
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
			Resource:          pagePath(first, n),
			Entity:            entity,
			DeclarationStatus: status,
			DeclaredOn:        declared,
			Page:              fmt.Sprint(n),
			Entries:           entries,
		}
		if n < pages {
			page.NextPage = ptr(pagePath(first, n+1))
		}
		p.add(page.Resource, page)
	}
	return first
}

// drawHoldings draws the owners of an entity: up to three holding more than
// 25 % each, within 100 % in all, and now and then one more declared for
// control.
func (g *generator) drawHoldings(unipersonal bool) []owner {
	person := func(detention string, share *string, control bool) owner {
		return owner{
			LastName:          g.pick(surnames),
			FirstNames:        g.givenNames(),
			BirthDate:         date(g.day("1945-01-01", 365*55)),
			Nationality:       g.pick(nationalities),
			Holding:           detention,
			HoldingPercentage: share,
			DeclaredControl:   control,
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
			Resource:    pagePath(a.firstPage, n),
			Activity:    a.code,
			Authority:   authority,
			PublishedOn: "2026-09-15",
			Page:        fmt.Sprint(n),
			Entries:     append([]listEntry{}, entries...),
		}
		if n < pages {
			page.NextPage = ptr(pagePath(a.firstPage, n+1))
		}
		g.put(page.Resource, page)
	}
}

// writeMeasures writes the restrictive-measures list on the given number of
// pages.
func (g *generator) writeMeasures(pages int) {
	prefix := path.Base(g.measures)
	k := 0
	for n := 1; n <= pages; n++ {
		page := &measuresPage{
			Resource:  pagePath(g.measures, n),
			Title:     measuresTitle,
			UpdatedOn: "2026-09-25",
			Page:      fmt.Sprint(n),
			Entries:   make([]measure, measuresPageSize),
		}
		for i := range page.Entries {
			k++
			page.Entries[i] = measure{
				Reference:  fmt.Sprintf("%s-%05d", prefix, k),
				LastName:   g.pick(surnames),
				FirstNames: g.givenNames(),
				BirthDate:  date(g.day("1945-01-01", 365*55)),
				Reason:     g.pick(grounds),
			}
		}
		if n < pages {
			page.NextPage = ptr(pagePath(g.measures, n+1))
		}
		g.put(page.Resource, page)
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
