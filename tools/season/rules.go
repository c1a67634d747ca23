package season

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/arkforge/proveit-corpus/corpus"
)

// Rules is one track's rulebook: everything that differs from one track to
// another, as one value. The solver, the scorer, the seal, the catalogue
// and the linter read it, and name no track themselves; a new track is a
// new value here and its corpus (corpus.Tracks), nothing else.
type Rules struct {
	// Track is the track's data in the corpus: its name, the resource
	// stating its rules, its collections.
	Track *corpus.Track

	// Verdicts are the track's named verdicts, in the order checks report
	// them.
	Verdicts []string
	// Choice, when set, is the collection whose canonical paths are
	// verdicts too: a purchasing task answers with a product.
	Choice string
	// Decisions says, for each verdict some criteria decide alone, how
	// they found it. A verdict it leaves out (conforme, a product) is
	// founded on the facts the task's design names.
	Decisions map[string]Decision
	// Composition is the season's balance of the track's verdicts.
	Composition Composition

	// Fields are the members of the track's statements besides
	// CommonFields, exactly.
	Fields []string
	// FileSuffix follows the base name of the track's season files
	// (taches, cle, conception, preenregistrement).
	FileSuffix string

	// Probative are the pointers an assertion may name, by collection of
	// the track (spec §5.7; docs/contract.md section 3): "<n>" is
	// an array index, "<name>" any member name.
	Probative map[string][]string
	// CommonLists are the collections whose pages are a task's common
	// lists: an entry there counts only where it concerns the task.
	CommonLists []string
	// Agreements are the fields of a common list's entry that a rule
	// requires to agree with a field of the record the entry designates:
	// where they do agree, each states the other's fact (both rules
	// documents say so under notation/meme_fait).
	Agreements []Agreement
	// Namesakes are the entries of two lists that name one person: where
	// they agree on every key member, each key member of one states the
	// other's (both rules documents say so under notation/meme_fait).
	Namesakes []Namesake
	// Owner names, in messages, whose own resources a task's are.
	Owner string

	// subject names, in messages, what the task's resources concern.
	subject func(Task) string
	// graph walks a task's graph.
	graph func(*Rules, Task, Fetcher) (*Graph, error)
}

// Agreement is one field of a common list's entry and the field of a
// record it must agree with, the record reached from the entry by following
// Links, each a member naming a canonical path: a catalogue entry's
// prix_affiche_ttc and, through produit then tarif, the tarif's
// /prix_unitaire_ttc.
type Agreement struct {
	List   string   // the common list's collection
	Member string   // the entry's member
	Links  []string // the members followed from the entry to the record
	Field  string   // the record's pointer
}

// Namesake pairs the entries of a list's pages with those of another
// collection's pages that carry the same Key members: the restrictive
// measures' entry and the beneficial owner of the same nom and prenoms.
type Namesake struct {
	List string   // the common list's collection
	Of   string   // the other pages' collection
	Key  []string // the members both entries must share
}

// Decision is how the criteria that decide a verdict alone found it.
type Decision int

const (
	// AnyFailed: any one criterion established false founds it, and each
	// must rest on facts an assertion can state (non_conforme).
	AnyFailed Decision = iota + 1
	// AnyUndetermined: any one criterion that cannot be established founds
	// it; one undetermined only because another is rests on nothing of its
	// own and is no case (indeterminable).
	AnyUndetermined
	// EveryExcluded: every candidate excluded, together, each by any one
	// of the rules that exclude it, founds it (aucune_option_valide).
	EveryExcluded
)

// Composition is the published balance of a track's expected verdicts
// (docs/contract.md, section 5; spec §5.3 to 5.5, and 6 for the purchasing track).
type Composition struct {
	// Exactly is the number of tasks that expect each of these verdicts.
	Exactly map[string]int
	// AtLeast is the least number of tasks that expect each of these.
	AtLeast map[string]int
}

// The verdicts, each declared once: the conformity track's three, and the
// purchasing track's answer when no candidate is a valid option (any other
// verdict of that track is a product's canonical path).
const (
	Compliant      = "conforme"
	NonCompliant   = "non_conforme"
	Indeterminable = "indeterminable"
	NoValidOption  = "aucune_option_valide"
)

// What every track shares (docs/contract.md, section 5; spec §5.3 to 5.6).
const (
	// MinCalls and MaxCalls bound the calls answering a task takes.
	MinCalls = 2
	MaxCalls = 12
	// A statement's assertions_min is MinAssertions to MaxAssertionsMin,
	// its assertions_max twice it (docs/contract.md, section 5; spec §5.5).
	MinAssertions    = 2
	MaxAssertionsMin = 4
	// MinP5 is the number of tasks that must carry P5, the family guessing
	// fails.
	MinP5 = 3
)

// Families are the trap families; each appears on some task of a track.
var Families = []string{"P1", "P2", "P3", "P4", "P5"}

// CommonFields are the members every statement has.
var CommonFields = []string{"id", "references", "assertions_min", "assertions_max", "question"}

// The tracks' rulebooks.
var (
	// Conformity is the conformity track's (docs/contract.md section 3;
	// docs/authoring.md): criteria R1..R6 stated at /referentiel.
	Conformity = &Rules{
		Track:    corpus.Conformity,
		Verdicts: []string{Compliant, NonCompliant, Indeterminable},
		Decisions: map[string]Decision{
			NonCompliant:   AnyFailed,
			Indeterminable: AnyUndetermined,
		},
		Composition: Composition{Exactly: map[string]int{Compliant: 3, NonCompliant: 4, Indeterminable: 3}},
		Fields:      []string{"entite", "activite", "date_examen"},
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
		Agreements: []Agreement{{List: "listes/agrees", Member: "statut", Links: []string{"agrement"}, Field: "/statut"}},
		// R6: an owner and the list's entry of the same names.
		Namesakes: []Namesake{{List: "mesures-restrictives", Of: "beneficiaires", Key: []string{"nom", "prenoms"}}},
		Owner:     "the entity's",
		subject:   func(t Task) string { return t.Entity },
		graph:     conformityGraph,
	}
	// Purchasing is the purchasing track's (docs/contract.md section 3;
	// docs/authoring.md): rules G1..G6 and the selection stated at /regles-achat.
	Purchasing = &Rules{
		Track:       corpus.Purchasing,
		Verdicts:    []string{NoValidOption},
		Choice:      "produits",
		Decisions:   map[string]Decision{NoValidOption: EveryExcluded},
		Composition: Composition{AtLeast: map[string]int{NoValidOption: 3}},
		Fields:      []string{"categorie", "contraintes", "quantite", "zone", "date_commande", "date_livraison_max", "budget_max_ttc"},
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
		Agreements: []Agreement{
			{List: "catalogues", Member: "prix_affiche_ttc", Links: []string{"produit", "tarif"}, Field: "/prix_unitaire_ttc"},
			{List: "catalogues", Member: "etat_affiche", Links: []string{"produit", "disponibilite"}, Field: "/etat"},
		},
		Owner:   "the candidates'",
		subject: func(Task) string { return "the task's candidates" },
		graph:   purchaseGraph,
	}
	// Tracks are the rulebooks of corpus.Tracks, in their order.
	Tracks = checkTracks(Conformity, Purchasing)
)

// checkTracks refuses, when the program starts, rulebooks that do not
// match the corpus's tracks one for one, or a probative table that is not
// exactly the track's collections.
func checkTracks(all ...*Rules) []*Rules {
	if len(all) != len(corpus.Tracks) {
		panic(fmt.Sprintf("season: %d rulebooks for %d tracks", len(all), len(corpus.Tracks)))
	}
	for i, r := range all {
		if r.Track != corpus.Tracks[i] {
			panic(fmt.Sprintf("season: rulebook %d is of the track %s, not %s", i, r.Track.Name, corpus.Tracks[i].Name))
		}
		if got := slices.Sorted(maps.Keys(r.Probative)); !slices.Equal(got, slices.Sorted(slices.Values(r.Track.Collections))) {
			panic(fmt.Sprintf("season: the probative table of %s has the collections %v, not the track's %v", r.Track.Name, got, r.Track.Collections))
		}
	}
	return all
}

// RulesOf returns a track's rulebook.
func RulesOf(track *corpus.Track) *Rules {
	for _, r := range Tracks {
		if r.Track == track {
			return r
		}
	}
	panic("season: no rulebook for the track " + track.Name) // checkTracks makes one for each
}

// RulesNamed returns the rulebook of the track whose name (a file's
// "piste") is name.
func RulesNamed(name string) (*Rules, error) {
	track, err := corpus.TrackNamed(name)
	if err != nil {
		return nil, err
	}
	return RulesOf(track), nil
}

// Name is the track's name, as files and submissions write it.
func (r *Rules) Name() string { return r.Track.Name }

// ValidVerdict reports whether a verdict is one of the track's: a named
// verdict, or a canonical path of its Choice collection.
func (r *Rules) ValidVerdict(verdict string) bool {
	return slices.Contains(r.Verdicts, verdict) || r.IsChoice(verdict)
}

// IsChoice reports whether a verdict names a resource of the track's Choice
// collection (a product).
func (r *Rules) IsChoice(verdict string) bool {
	c, _, ok := corpus.SplitReference(verdict)
	return ok && r.Choice != "" && c == r.Choice
}

// Subject names, in messages, what a task's resources concern: the
// entity, or the task's candidates.
func (r *Rules) Subject(task Task) string { return r.subject(task) }

// Probative reports whether an assertion may name field of resource: a
// pointer of the probative table of the track the resource's collection
// belongs to. The rules resources and the fixed bodies have none.
func Probative(resource, field string) bool {
	collection, _, ok := corpus.SplitReference(resource)
	track, owned := corpus.TrackOf(resource)
	if !ok || !owned {
		return false
	}
	got := strings.Split(field, "/")
	for _, pattern := range RulesOf(track).Probative[collection] {
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
		return IsIndex(token)
	}
	return pattern == token
}

// IsIndex reports whether a JSON pointer token is an RFC 6901 array index:
// digits, no leading zero.
func IsIndex(token string) bool {
	if token == "" || len(token) > 1 && token[0] == '0' {
		return false
	}
	return strings.Trim(token, "0123456789") == ""
}
