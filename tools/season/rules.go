package season

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/arkforge/proveit-corpus/corpus"
)

// Rules is one track's rulebook: everything that differs from one track to
// another in the season's files, its graph and its scoring, as one value.
// The solver, the scorer, the seal, the catalogue and the linter read it,
// and name no track themselves. Each track's package (tools/tracks/...)
// declares its rulebook and registers it, with its criteria for the solver
// and its checks for the linter.
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
	// Composition is the season's balance of the track's verdicts and
	// trap families.
	Composition Composition

	// Statement returns a new value to decode a statement's own members
	// into (Task.Own): a pointer to a struct whose members are exactly those
	// of the track's statements besides commonFields.
	Statement func() any
	// Fields are those members, in the order Statement declares them;
	// Register sets them.
	Fields []string
	// Cites returns the corpus paths a statement cites besides its
	// references: the conformity task's entity. Nil when there are none.
	Cites func(Task) []string
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
	// French names the same in the scorer's reports, which are written in
	// French (FrenchOwners).
	French FrenchWords

	// SubjectOf names, in messages, what the task's resources concern.
	SubjectOf func(Task) string
	// Walk adds a task's resources to its graph, from what the statement
	// names, reading each through the graph (Graph.AddOwn, AddPages,
	// Stated), and says which entries of a common list concern the task
	// (Graph.Concerning).
	Walk func(g *Graph, task Task) error
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

// Composition is the published balance of a track's expected verdicts and
// trap families (docs/contract.md, section 5; spec §5.3 to 5.5, and 6 for
// the purchasing track).
type Composition struct {
	// Exactly is the number of tasks that expect each of these verdicts.
	Exactly map[string]int
	// AtLeast is the least number of tasks that expect each of these.
	AtLeast map[string]int
	// Traps are the trap families the track's tasks carry.
	Traps Traps
}

// Traps are a track's trap families: each one carried by some task, some
// by at least so many; exactly one task, the control, carries none.
type Traps struct {
	Families []string
	AtLeast  map[string]int
}

// SpecTraps are the specification's (spec §5.4): P1 to P5 each on some
// task, and P5, the family guessing fails, on at least three.
var SpecTraps = Traps{
	Families: []string{"P1", "P2", "P3", "P4", "P5"},
	AtLeast:  map[string]int{"P5": 3},
}

// What every track shares (docs/contract.md, section 5; spec §5.3 to 5.6).
const (
	// MinCalls and MaxCalls bound the calls answering a task takes.
	MinCalls = 2
	MaxCalls = 12
	// A statement's assertions_min is MinAssertions to MaxAssertionsMin,
	// its assertions_max twice it (docs/contract.md, section 5; spec §5.5).
	MinAssertions    = 2
	MaxAssertionsMin = 4
)

// commonFields are the members every statement has.
var commonFields = []string{"id", "references", "assertions_min", "assertions_max", "question"}

// The tracks' rulebooks, each added by its own package (Register): by
// track, and by the type of their statements' own members (Task.Rules).
var (
	registered  = map[*corpus.Track]*Rules{}
	byStatement = map[reflect.Type]*Rules{}
)

// Register adds a track's rulebook. tracks.Register calls it, with the
// track's criteria and checks, and a program learns a track by importing
// its package (tools/tracks/all imports every one). It panics on a rulebook that
// does not fit its track: a second one, a probative table that is not
// exactly the track's collections, or a statement type with no members.
func Register(r *Rules) {
	switch {
	case r.Track == nil || !slices.Contains(corpus.Tracks, r.Track):
		panic("season: a rulebook of no track of corpus.Tracks")
	case registered[r.Track] != nil:
		panic("season: two rulebooks for the track " + r.Track.Name)
	}
	if got := slices.Sorted(maps.Keys(r.Probative)); !slices.Equal(got, slices.Sorted(slices.Values(r.Track.Collections))) {
		panic(fmt.Sprintf("season: the probative table of %s has the collections %v, not the track's %v", r.Track.Name, got, r.Track.Collections))
	}
	statement := reflect.TypeOf(r.Statement())
	if statement.Kind() != reflect.Pointer || statement.Elem().Kind() != reflect.Struct || byStatement[statement] != nil {
		panic(fmt.Sprintf("season: the statements of %s decode into %v, not a pointer to a struct of their own", r.Track.Name, statement))
	}
	r.Fields = membersOf(statement.Elem()).Allowed
	if len(r.Fields) == 0 {
		panic("season: the statements of " + r.Track.Name + " have no member of their own")
	}
	registered[r.Track] = r
	byStatement[statement] = r
}

// Tracks returns the rulebooks of corpus.Tracks, in their order. It panics
// when a track has none: its package was not imported.
func Tracks() []*Rules {
	out := make([]*Rules, len(corpus.Tracks))
	for i, t := range corpus.Tracks {
		out[i] = RulesOf(t)
	}
	return out
}

// RulesOf returns a track's rulebook.
func RulesOf(track *corpus.Track) *Rules {
	if r := registered[track]; r != nil {
		return r
	}
	panic("season: no rulebook for the track " + track.Name + ": import its package (tools/tracks/all imports every one)")
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
	return r.Choice != "" && corpus.CollectionOf(verdict) == r.Choice
}

// FrenchWords are a track's words in the scorer's French reports.
type FrenchWords struct {
	Owner     string // whose resources are a task's own: "de l'entité"
	Concerned string // what a common list's entry must concern: "son entité"
}

// FrenchOwners joins every track's French words, for the scorer's reports,
// which name them all whatever the task's track: whose resources are a
// task's own ("de l'entité, ou des candidats") and what a common list's
// entry must concern ("son entité, ou un candidat").
func FrenchOwners() (owners, concerned string) {
	var o, c []string
	for _, r := range Tracks() {
		if r.French.Owner != "" {
			o = append(o, r.French.Owner)
		}
		if r.French.Concerned != "" {
			c = append(c, r.French.Concerned)
		}
	}
	return strings.Join(o, ", ou "), strings.Join(c, ", ou ")
}

// Subject names, in messages, what a task's resources concern: the
// entity, or the task's candidates.
func (r *Rules) Subject(task Task) string { return r.SubjectOf(task) }

// Probative reports whether an assertion may name field of resource: a
// pointer of the probative table of the track the resource's collection
// belongs to. The rules resources and the fixed bodies have none.
func Probative(resource, field string) bool {
	ref, ok := corpus.ParseReference(resource)
	return ok && ProbativeAt(ref, Tokens(field))
}

// Tokens splits a JSON pointer at each "/", as the probative table's
// patterns are written: the first token is the empty one before the
// leading slash, and each is left escaped.
func Tokens(field string) []string { return strings.Split(field, "/") }

// ProbativeAt is Probative of a resource already parsed and a field
// already split (Tokens): what a reader that parsed them once asks.
func ProbativeAt(ref corpus.Reference, got []string) bool {
	if ref.Track() == nil {
		return false
	}
	for _, pattern := range RulesOf(ref.Track()).Probative[ref.Collection()] {
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
