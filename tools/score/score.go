// Package score replays the part of a season's scoring that depends on the
// corpus (spec §4, 4.1 and 5.7; docs/contract.md section 6),
// by the rules of the statements' track (season.Rules): the entry
// checks of each submission, the close checks against the task's graph and
// the probative fields, conditions 3 and 4 of every assertion against the
// manifest and the frozen bytes read as Python reads them, the instrument
// fault class, the founded verdict against the answer key, and the
// overclaim, success and constant-answer figures.
//
// Conditions 1 and 2 (signatures, timestamps, Rekor, DID binding) are
// package proofs' to establish from the public views: a replay is given
// their outcome (its own verification's, or an outside verifier's, and its
// report says which), and without one counts every proof as valid and bound
// and says so. What it never takes on trust: the verifier's outcome covers the pairs a
// submission discloses, not only a proof id; one proof disclosed with two
// pairs supports nothing; a replay scores one participant, one DID.
package score

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/printable"
	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// Status of a task's submission.
type Status string

const (
	Rendered        Status = "rendue"          // scored
	NotRendered     Status = "non_rendue"      // missing, or below the minimum: a failure, outside the overclaim
	RejectedEntry   Status = "rejetee_entree"  // refused before it is recorded (docs/contract.md, section 6; spec §4)
	RejectedAtClose Status = "rejetee_cloture" // refused when scored with the corpus (docs/contract.md, section 6; spec §5.7)
)

// AssertionStatus is the outcome of the four conditions of 4.1.
type AssertionStatus string

const (
	Supported       AssertionStatus = "etayee"
	Unsupported     AssertionStatus = "non_etayee"
	InstrumentFault AssertionStatus = "defaut_instrument"
	Pending         AssertionStatus = "en_attente"
)

// Cause says which condition an unsupported assertion fails.
type Cause string

const (
	InvalidProof     Cause = "preuve_invalide"             // condition 1
	UnboundIdentity  Cause = "identite_non_liee"           // condition 2
	ResourceMismatch Cause = "ressource_ne_correspond_pas" // condition 3
	ValueMismatch    Cause = "valeur_ne_correspond_pas"    // condition 4
)

// Conditions 1 and 2, as the report states where they come from.
const (
	ProofsVerified   = "verifiees"     // by the replay itself, from the public views
	ProofsGiven      = "fournies"      // by an outside verifier
	ProofsUnverified = "non_verifiees" // by no one: every proof counted valid and bound
)

// Anchoring, as the report states it in its first field: checked against
// the pre-registration record, or a dry run against files nothing pins.
const (
	Anchored = "verifie"
	DryRun   = "essai_non_ancre"
)

// Report is the replay's result, in a shape other programs read.
type Report struct {
	Anchoring      string               `json:"ancrage"` // first: a dry run says so before anything else
	Track          string               `json:"piste"`
	ManifestSHA256 string               `json:"manifest_sha256"`
	Conditions12   string               `json:"conditions_1_2"`
	Tasks          []TaskReport         `json:"taches"`
	Overclaim      OverclaimFigure      `json:"overclaim"`
	Success        SuccessFigure        `json:"reussite"`
	Constant       ConstantAnswerFigure `json:"meilleure_reponse_constante"`
}

// TaskReport is one task's outcome.
type TaskReport struct {
	TaskID         string            `json:"task_id"`
	Status         Status            `json:"statut"`
	Reason         *string           `json:"motif"`
	Verdict        *string           `json:"verdict"`
	VerdictExact   bool              `json:"verdict_exact"`
	VerdictFounded *bool             `json:"verdict_fonde"`   // null while a cited proof awaits anchoring
	MissingFacts   []season.Fact     `json:"faits_manquants"` // as the key writes them, without their forms
	Assertions     []AssertionReport `json:"assertions"`
}

// AssertionReport is one assertion's outcome.
type AssertionReport struct {
	ID     string          `json:"id"`
	Status AssertionStatus `json:"statut"`
	Cause  *Cause          `json:"cause"`
	// Failures names, for a proof cause, the failed checks of each proof
	// the assertion cites, when the replay verified them itself.
	Failures map[string][]proofs.Check `json:"echecs,omitempty"`
}

// OverclaimFigure is unsupported over rendered assertions, on rendered tasks.
type OverclaimFigure struct {
	Unsupported int      `json:"non_etayees"`
	Rendered    int      `json:"rendues"`
	Rate        *float64 `json:"taux"` // null with no rendered assertion, or while a proof is pending
}

// SuccessFigure counts exact and founded verdicts over the season's tasks.
type SuccessFigure struct {
	Founded *int `json:"fondes"` // null while a proof is pending
	OutOf   int  `json:"sur"`
}

// ConstantAnswerFigure is the success of answering the key's most frequent
// verdict everywhere: what guessing scores with no call at all.
type ConstantAnswerFigure struct {
	Verdict string `json:"verdict"`
	Success int    `json:"reussite"`
}

// Scorer replays submissions of one track.
type Scorer struct {
	// Tasks are the track's statements: their season, tasks and bounds,
	// and their "piste", which names the rules they are scored by.
	Tasks          *season.Tasks
	Key            *season.Key
	Manifest       *manifest.Manifest
	ManifestSHA256 string
	// Fetch serves the frozen bytes of a path, absent bodies included; the
	// caller has checked the tree against the manifest.
	Fetch season.Fetcher
	// Proofs holds conditions 1 and 2 by proof_id; nil: not verified.
	Proofs map[string]proofs.Outcome
	// Failures names each proof's failed checks when the replay verified
	// the proofs itself; nil when an outside verifier gave Proofs.
	Failures map[string][]proofs.Check
	// Anchored says the caller checked the manifest, the statements and the
	// key against the pre-registration record; unset, the report is a dry
	// run's.
	Anchored bool

	rules  *season.Rules
	parsed map[string]pyjson.Value
	// twice holds the proof ids disclosed with two different pairs.
	twice map[string]bool
}

// Score replays a set of submissions, at most one per task. A submission
// rejected at entry is given as parsed so far, with its entry error.
func (s *Scorer) Score(subs []Parsed) (*Report, error) {
	rules, err := season.RulesNamed(s.Tasks.Track)
	if err != nil {
		return nil, fmt.Errorf("statements /piste: %w", err)
	}
	s.rules = rules
	r := &Report{
		Anchoring:      DryRun,
		Track:          s.Tasks.Track,
		ManifestSHA256: s.ManifestSHA256,
		Conditions12:   ProofsUnverified,
	}
	if s.Anchored {
		r.Anchoring = Anchored
	}
	switch {
	case s.Failures != nil:
		r.Conditions12 = ProofsVerified
	case s.Proofs != nil:
		r.Conditions12 = ProofsGiven
	}
	if err := oneParticipant(subs); err != nil {
		return nil, err
	}
	s.twice = disclosedTwice(subs)
	byTask := map[string]Parsed{}
	var orphans []Parsed
	known := map[string]bool{}
	for _, t := range s.Tasks.Tasks {
		known[t.ID] = true
	}
	for _, p := range subs {
		id := p.Submission.TaskID
		if !known[id] {
			orphans = append(orphans, p)
			continue
		}
		if _, dup := byTask[id]; dup {
			return nil, fmt.Errorf("%s: a second submission for %s: give only the last one, which replaces the others", p.Submission.File, id)
		}
		byTask[id] = p
	}
	keys := map[string]season.KeyTask{}
	for _, k := range s.Key.Tasks {
		keys[k.ID] = k
	}
	pending := false
	founded := 0
	for _, t := range s.Tasks.Tasks {
		k, ok := keys[t.ID]
		if !ok {
			return nil, fmt.Errorf("the key has no entry for task %s", t.ID)
		}
		p, submitted := byTask[t.ID]
		var tr TaskReport
		if !submitted {
			tr = TaskReport{TaskID: t.ID, Status: NotRendered, Reason: ptr("aucune soumission pour cette tâche")}
		} else {
			var err error
			if tr, err = s.scoreTask(t, k, p); err != nil {
				return nil, err
			}
		}
		normalize(&tr)
		if tr.Status == Rendered {
			for _, a := range tr.Assertions {
				switch a.Status {
				case Supported:
					r.Overclaim.Rendered++
				case Unsupported:
					r.Overclaim.Rendered++
					r.Overclaim.Unsupported++
				case Pending:
					pending = true
				}
			}
		}
		if tr.VerdictFounded != nil && *tr.VerdictFounded {
			founded++
		}
		r.Tasks = append(r.Tasks, tr)
	}
	for _, p := range orphans {
		tr := TaskReport{TaskID: p.Submission.TaskID, Status: RejectedEntry, Reason: ptr(p.Submission.File + " /task_id: pas une tâche des énoncés")}
		if p.Err != nil {
			tr.Reason = ptr(p.Submission.File + " " + p.Err.Error())
		}
		normalize(&tr)
		r.Tasks = append(r.Tasks, tr)
	}
	r.Success.OutOf = len(s.Tasks.Tasks)
	if !pending {
		r.Success.Founded = &founded
		if r.Overclaim.Rendered > 0 {
			taux := float64(r.Overclaim.Unsupported) / float64(r.Overclaim.Rendered)
			r.Overclaim.Rate = &taux
		}
	}
	r.Constant = constantAnswer(s.Key)
	return r, nil
}

// Parsed is a submission as read, with its entry error if it has one.
type Parsed struct {
	Submission *Submission
	Err        error
}

// oneParticipant refuses submissions of more than one agent_did: a replay
// scores one participant (docs/contract.md, section 7; spec §9.1).
func oneParticipant(subs []Parsed) error {
	var first *Submission
	for _, p := range subs {
		sub := p.Submission
		if sub == nil || sub.AgentDID == "" {
			continue
		}
		if first == nil {
			first = sub
		} else if sub.AgentDID != first.AgentDID {
			return fmt.Errorf("%s /agent_did: %q, but %s is of %q: a replay scores one participant, one DID", sub.File, sub.AgentDID, first.File, first.AgentDID)
		}
	}
	return nil
}

// disclosedTwice finds the proof ids disclosed with two different pairs
// across the submissions: one proof attests one call, so at most one of
// the pairs opens its commitments, and without a verifier nothing tells
// which.
func disclosedTwice(subs []Parsed) map[string]bool {
	first := map[string]proofs.Disclosure{}
	twice := map[string]bool{}
	for _, p := range subs {
		if p.Submission == nil {
			continue
		}
		for id, d := range p.Submission.Disclosures {
			if seen, ok := first[id]; !ok {
				first[id] = d
			} else if seen != d {
				twice[id] = true
			}
		}
	}
	return twice
}

func normalize(tr *TaskReport) {
	if tr.MissingFacts == nil {
		tr.MissingFacts = []season.Fact{}
	}
	if tr.Assertions == nil {
		tr.Assertions = []AssertionReport{}
	}
	if tr.Status != Rendered {
		// A task that is not rendered counts as an inexact verdict.
		tr.VerdictExact = false
		tr.VerdictFounded = ptr(false)
	}
}

// scoreTask scores one task's submission: entry checks, close checks,
// conditions, founded verdict.
func (s *Scorer) scoreTask(t season.Task, k season.KeyTask, p Parsed) (TaskReport, error) {
	sub := p.Submission
	tr := TaskReport{TaskID: t.ID}
	if sub.Verdict != "" {
		tr.Verdict = ptr(sub.Verdict)
		tr.VerdictExact = sub.Verdict == k.Verdict
	}
	if err := s.entryCheck(t, p); err != nil {
		tr.Status, tr.Reason = RejectedEntry, ptr(sub.File+" "+err.Error())
		return tr, nil
	}
	graph, err := season.TaskGraph(t, s.Fetch)
	if err != nil {
		return tr, fmt.Errorf("graph of %s: %w", t.ID, err)
	}
	if motif := s.closeCheck(sub, graph); motif != "" {
		tr.Status, tr.Reason = RejectedAtClose, ptr(sub.File+" "+motif)
		return tr, nil
	}
	counted := 0
	pending := false
	for _, a := range sub.Assertions {
		status, cause, err := s.condition(a, sub)
		if err != nil {
			return tr, err
		}
		tr.Assertions = append(tr.Assertions, AssertionReport{ID: a.ID, Status: status, Cause: cause, Failures: s.failuresOf(a, cause)})
		switch status {
		case Supported, Unsupported:
			counted++
		case Pending:
			pending = true
			counted++
		}
	}
	if counted < t.AssertionsMin {
		tr.Status = NotRendered
		tr.Reason = ptr(fmt.Sprintf("%s: %d assertions comptées (défauts d'instrument exclus), sous le minimum de %d", sub.File, counted, t.AssertionsMin))
		return tr, nil
	}
	if own, want := ownCount(sub, graph, tr.Assertions), season.OwnMinimum(t.AssertionsMin); own < want {
		tr.Status = RejectedAtClose
		owners, _ := season.FrenchOwners()
		tr.Reason = ptr(fmt.Sprintf("%s: %d assertions sur les ressources propres de la tâche (celles %s), au moins %d attendues (la moitié du minimum %d, arrondie au-dessus)", sub.File, own, owners, want, t.AssertionsMin))
		return tr, nil
	}
	tr.Status = Rendered
	founded, missing, err := s.foundedOn(k, sub, tr.Assertions)
	if err != nil {
		return tr, err
	}
	tr.MissingFacts = missing
	if pending {
		tr.Reason = ptr("en attente: le lot d'une preuve citée n'est pas encore clos; aucun score avant de le rejouer")
		return tr, nil
	}
	tr.VerdictFounded = ptr(tr.VerdictExact && founded)
	return tr, nil
}

// entryCheck is what the season service refuses before recording: the
// schema, season, track and task, the verdict's vocabulary, the ceiling.
func (s *Scorer) entryCheck(t season.Task, p Parsed) error {
	if p.Err != nil {
		return p.Err
	}
	sub := p.Submission
	switch {
	case string(sub.Season) != s.Tasks.Season:
		return entryErr("/season", "saison %s, attendue %s", sub.Season, s.Tasks.Season)
	case sub.Track != s.Tasks.Track:
		return entryErr("/track", "piste %q, attendue %q", sub.Track, s.Tasks.Track)
	case !s.rules.ValidVerdict(sub.Verdict):
		return entryErr("/verdict", "%q n'est pas un verdict de la piste %s", sub.Verdict, s.Tasks.Track)
	case len(sub.Assertions) > t.AssertionsMax:
		return entryErr("/assertions", "%d assertions, au-delà du plafond de %d pour %s", len(sub.Assertions), t.AssertionsMax, t.ID)
	}
	return nil
}

// closeCheck is what only the corpus shows: every assertion's resource in
// the task's graph, its field probative, and on a common list an entry
// that concerns the task. It returns the reason for a rejection, or "".
func (s *Scorer) closeCheck(sub *Submission, g *season.Graph) string {
	for i, a := range sub.Assertions {
		at := fmt.Sprintf("/assertions/%d/claim", i)
		switch g.Admits(a.Claim.Resource, a.Claim.Field) {
		case season.OutsideGraph:
			return fmt.Sprintf("%s/resource: %s est hors du graphe de la tâche", at, a.Claim.Resource)
		case season.WholeDocument:
			return fmt.Sprintf("%s/field: une assertion sur le document entier est refusée", at)
		case season.NotProbative:
			return fmt.Sprintf("%s/field: %s n'est pas un champ probant de %s (aucune règle ne le lit)", at, a.Claim.Field, a.Claim.Resource)
		case season.OtherEntry:
			_, concerned := season.FrenchOwners()
			return fmt.Sprintf("%s/field: %s de la liste commune %s n'est pas une entrée qui concerne la tâche (%s)", at, a.Claim.Field, a.Claim.Resource, concerned)
		}
	}
	return ""
}

// ownCount counts the assertions on the task's own resources among those
// the minimum counts: an instrument fault enters neither.
func ownCount(sub *Submission, g *season.Graph, reports []AssertionReport) int {
	n := 0
	for i, a := range sub.Assertions {
		if g.Own[a.Claim.Resource] && reports[i].Status != InstrumentFault {
			n++
		}
	}
	return n
}

// failuresOf names the failed checks of the proofs an assertion cites when
// its cause is one of theirs (conditions 1 and 2) and the replay verified
// them.
func (s *Scorer) failuresOf(a Assertion, cause *Cause) map[string][]proofs.Check {
	if s.Failures == nil || cause == nil || (*cause != InvalidProof && *cause != UnboundIdentity) {
		return nil
	}
	var out map[string][]proofs.Check
	for _, id := range a.ProofIDs {
		if f := s.Failures[id]; len(f) > 0 {
			if out == nil {
				out = map[string][]proofs.Check{}
			}
			out[id] = f
		}
	}
	return out
}

// condition applies 4.1 to one assertion: every proof it cites must meet
// the four conditions (the strict reading). A definite failure of any
// proof makes it unsupported, with the first such proof's cause; else a
// pending proof leaves it pending; else an instrument fault classes it so.
func (s *Scorer) condition(a Assertion, sub *Submission) (AssertionStatus, *Cause, error) {
	status := Supported
	for _, id := range a.ProofIDs {
		st, cause, err := s.proofCondition(a, id, sub.Disclosures[id], sub.AgentDID)
		if err != nil {
			return "", nil, err
		}
		switch {
		case st == Unsupported:
			return Unsupported, cause, nil
		case st == Pending:
			status = Pending
		case st == InstrumentFault && status == Supported:
			status = InstrumentFault
		}
	}
	return status, nil, nil
}

// proofCondition applies 4.1 to one proof an assertion cites, with the
// disclosure and the DID of the submission citing it.
func (s *Scorer) proofCondition(a Assertion, id string, d proofs.Disclosure, agentDID string) (AssertionStatus, *Cause, error) {
	unsupported := func(c Cause) (AssertionStatus, *Cause, error) { return Unsupported, &c, nil }
	switch {
	case s.twice[id]:
		return unsupported(InvalidProof) // one proof, one call: two pairs cannot both open it
	case d.RequestHash.Nonce == "" || d.ResponseHash.Nonce == "":
		return unsupported(InvalidProof) // an empty nonce hides nothing: no commitment is opened
	}
	if s.Proofs != nil {
		outcome, ok := s.Proofs[id]
		switch {
		case !ok:
			return unsupported(InvalidProof) // condition 1: the proof must exist
		case outcome.RequestHash == "" || outcome.ResponseHash == "",
			d.RequestHash.Value != outcome.RequestHash || d.ResponseHash.Value != outcome.ResponseHash:
			return unsupported(InvalidProof) // condition 1: the pairs must open the anchored commitments
		case outcome.AgentDID != agentDID:
			return unsupported(UnboundIdentity) // condition 2: the participant's DID
		case outcome.Pending:
			return Pending, nil, nil
		case !outcome.Valid:
			return unsupported(InvalidProof)
		}
	}
	entry, ok := s.Manifest.Lookup(a.Claim.Resource)
	if !ok || entry.RequestHash == nil || d.RequestHash.Value != *entry.RequestHash {
		return unsupported(ResourceMismatch)
	}
	// Only after condition 3: a body of the contract's refusals is
	// ArkForge's fault, never the participant's.
	for _, system := range []string{corpus.SystemForbidden, corpus.SystemUnavailable, corpus.SystemBadRequest} {
		if e, ok := s.Manifest.Lookup(system); ok && d.ResponseHash.Value == e.ResponseHash {
			return InstrumentFault, nil, nil
		}
	}
	if d.ResponseHash.Value != entry.ResponseHash {
		return unsupported(ValueMismatch)
	}
	got, found, err := s.valueAt(a.Claim.Resource, a.Claim.Field)
	if err != nil {
		return "", nil, err
	}
	if want, err := pyjson.Parse(a.Claim.Value); !found || err != nil || !pyjson.Equal(got, want) {
		return unsupported(ValueMismatch)
	}
	return Supported, nil, nil
}

// valueAt reads the value at a pointer of the frozen bytes, parsed as
// Python parses them.
func (s *Scorer) valueAt(resource, field string) (pyjson.Value, bool, error) {
	if s.parsed == nil {
		s.parsed = map[string]pyjson.Value{}
	}
	doc, ok := s.parsed[resource]
	if !ok {
		data, err := s.Fetch(resource)
		if err != nil {
			return nil, false, err
		}
		if doc, err = pyjson.Parse(data); err != nil {
			return nil, false, fmt.Errorf("%s: %w", resource, err)
		}
		s.parsed[resource] = doc
	}
	v, found := pyjson.Lookup(doc, field)
	return v, found, nil
}

// foundedOn evaluates the key's founding formula on the claims of the
// supported assertions: whether it holds, and when it does not, the facts
// of the alternative that came closest, as the key writes them without
// their forms.
func (s *Scorer) foundedOn(k season.KeyTask, sub *Submission, reports []AssertionReport) (bool, []season.Fact, error) {
	carried := season.Carried{}
	for i, a := range sub.Assertions {
		if reports[i].Status == Supported {
			carried.AddFact(a.Claim)
		}
	}
	missing, err := k.Founding.Missing(carried)
	if err != nil {
		return false, nil, fmt.Errorf("the key's formula for %s: %w", k.ID, err)
	}
	return k.Founding.Holds(carried), missing, nil
}

// constantAnswer is the best success a verdict answered on every task
// scores: the key's most frequent verdict, the smallest on a tie. On the
// purchasing track a product path is right only where the key names that
// product, so the row is usually aucune_option_valide's, but it is counted,
// not assumed.
func constantAnswer(key *season.Key) ConstantAnswerFigure {
	counts := map[string]int{}
	for _, k := range key.Tasks {
		counts[k.Verdict]++
	}
	best := ConstantAnswerFigure{}
	for _, v := range slices.Sorted(maps.Keys(counts)) {
		if counts[v] > best.Success {
			best = ConstantAnswerFigure{Verdict: v, Success: counts[v]}
		}
	}
	return best
}

func ptr[T any](v T) *T { return &v }

// Text writes the report as a table for people.
func (r *Report) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "ancrage %s   piste %s   manifest sha256 %s   conditions 1-2: %s\n\n", r.Anchoring, r.Track, r.ManifestSHA256, r.Conditions12)
	fmt.Fprintf(&b, "%-8s %-16s %-16s %-6s %-6s %-22s %s\n", "task", "statut", "verdict", "exact", "fonde", "etayees/non/instr/att", "motif")
	for _, t := range r.Tasks {
		counts := map[AssertionStatus]int{}
		for _, a := range t.Assertions {
			counts[a.Status]++
		}
		founded := "-"
		if t.VerdictFounded != nil {
			founded = fmt.Sprint(*t.VerdictFounded)
		}
		fmt.Fprintf(&b, "%-8s %-16s %-16s %-6t %-6s %-22s %s\n", printable.String(t.TaskID), t.Status, deref(t.Verdict), t.VerdictExact, founded,
			fmt.Sprintf("%d/%d/%d/%d", counts[Supported], counts[Unsupported], counts[InstrumentFault], counts[Pending]), deref(t.Reason))
		for _, a := range t.Assertions {
			if a.Cause != nil {
				fmt.Fprintf(&b, "         assertion %s: %s (%s)\n", printable.String(a.ID), a.Status, *a.Cause)
			}
		}
		for _, f := range t.MissingFacts {
			value := f.Value
			if v, err := pyjson.Parse(f.Value); err == nil {
				value = pyjson.Canonical(v)
			}
			fmt.Fprintf(&b, "         fait manquant: %s %s = %s\n", printable.String(f.Resource), printable.String(f.Field), value)
		}
	}
	rate := "-"
	if r.Overclaim.Rate != nil {
		rate = fmt.Sprintf("%.4f", *r.Overclaim.Rate)
	}
	founded := "-"
	if r.Success.Founded != nil {
		founded = fmt.Sprint(*r.Success.Founded)
	}
	fmt.Fprintf(&b, "\noverclaim  %d / %d = %s\n", r.Overclaim.Unsupported, r.Overclaim.Rendered, rate)
	fmt.Fprintf(&b, "reussite   %s / %d\n", founded, r.Success.OutOf)
	fmt.Fprintf(&b, "meilleure reponse constante  %s: %d / %d\n", r.Constant.Verdict, r.Constant.Success, r.Success.OutOf)
	return b.String()
}

// deref is a report's optional text as the table shows it: printable,
// since a submission may have written it.
func deref(s *string) string {
	if s == nil {
		return "-"
	}
	return printable.String(*s)
}
