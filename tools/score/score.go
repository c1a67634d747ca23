// Package score replays the part of a season's scoring that depends on the
// corpus (spec §4, 4.1 and 5.7; docs/contract.md section 6),
// by the rules of the statements' track (season.Rules): the entry
// checks of each submission, the close checks against the task's graph and
// the probative fields, conditions 3 and 4 of every assertion against the
// manifest and the frozen bytes read as Python reads them, the instrument
// fault class, the founded verdict against the answer key, and the
// overclaim, success and constant-answer figures.
//
// A season's replay is built once (NewReplay: the tree checked, every
// task's graph walked, every body parsed once) and scores each participant
// from it (Replay.Score), concurrently if the caller wishes.
//
// Conditions 1 and 2 (signatures, timestamps, Rekor, DID binding) are
// package proofs' to establish from the public views: a replay is given
// one result per proof with its source (Conditions: its own
// verification's, an outside verifier's, or by name none, and its report
// says which). What it never takes on trust: the verifier's outcome covers
// the pairs a submission discloses, not only a proof id; one proof
// disclosed with two pairs supports nothing; a replay scores one
// participant, one DID.
package score

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/arkforge/proveit-corpus/internal/printable"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
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
	Conditions12   Source               `json:"conditions_1_2"`
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

// Score replays one participant's submissions, at most one per task, with
// conditions 1 and 2 of the proofs they cite. A submission rejected at
// entry is given as parsed so far, with its entry error. Conditions
// without a source are refused: a caller that means none says so
// (Unverified). Safe for concurrent use.
func (r *Replay) Score(subs []Parsed, conditions Conditions) (*Report, error) {
	if conditions.Source() == "" {
		return nil, errors.New("conditions 1 and 2 come from nowhere: give the verification's results, an outside verifier's, or Unverified by name")
	}
	if err := oneParticipant(subs); err != nil {
		return nil, err
	}
	s := &scoring{Replay: r, conditions: conditions, twice: disclosedTwice(subs)}
	report := &Report{
		Anchoring:      DryRun,
		Track:          r.tasks.Track,
		ManifestSHA256: r.manifestSHA256,
		Conditions12:   conditions.Source(),
	}
	if r.anchored {
		report.Anchoring = Anchored
	}
	byTask := map[string]Parsed{}
	var orphans []Parsed
	for _, p := range subs {
		id := p.Submission.TaskID
		if !r.known[id] {
			orphans = append(orphans, p)
			continue
		}
		if _, dup := byTask[id]; dup {
			return nil, fmt.Errorf("%s: a second submission for %s: give only the last one, which replaces the others", p.Submission.File, id)
		}
		byTask[id] = p
	}
	pending := false
	founded := 0
	for _, t := range r.tasks.Tasks {
		k := r.keys[t.ID]
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
					report.Overclaim.Rendered++
				case Unsupported:
					report.Overclaim.Rendered++
					report.Overclaim.Unsupported++
				case Pending:
					pending = true
				}
			}
		}
		if tr.VerdictFounded != nil && *tr.VerdictFounded {
			founded++
		}
		report.Tasks = append(report.Tasks, tr)
	}
	for _, p := range orphans {
		// The season service's entry check, the same code (entry.go).
		tr := TaskReport{TaskID: p.Submission.TaskID, Status: RejectedEntry, Reason: ptr(p.Submission.File + " " + rejectedAtEntry(r.tasks, r.rules, p).Error())}
		normalize(&tr)
		report.Tasks = append(report.Tasks, tr)
	}
	report.Success.OutOf = len(r.tasks.Tasks)
	if !pending {
		report.Success.Founded = &founded
		if report.Overclaim.Rendered > 0 {
			taux := float64(report.Overclaim.Unsupported) / float64(report.Overclaim.Rendered)
			report.Overclaim.Rate = &taux
		}
	}
	report.Constant = r.constant
	return report, nil
}

// scoring is one participant's replay: what Score reads besides the
// season's Replay, its own so that participants are scored concurrently.
type scoring struct {
	*Replay
	conditions Conditions
	// twice holds the proof ids disclosed with two different pairs.
	twice map[string]bool
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
func (s *scoring) scoreTask(t season.Task, k season.KeyTask, p Parsed) (TaskReport, error) {
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
	graph := s.graphs[t.ID]
	if motif := closeCheck(sub, graph); motif != "" {
		tr.Status, tr.Reason = RejectedAtClose, ptr(sub.File+" "+motif)
		return tr, nil
	}
	counted := 0
	pending := false
	for _, a := range sub.Assertions {
		status, cause := s.condition(a, sub, graph)
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

// entryCheck is what the season service refuses before recording, by the
// same code (checkEntry, entry.go).
func (s *scoring) entryCheck(t season.Task, p Parsed) error {
	return checkEntry(s.tasks, s.rules, t, p)
}

// closeCheck is what only the corpus shows: every assertion's resource in
// the task's graph, its field probative, and on a common list an entry
// that concerns the task. It returns the reason for a rejection, or "".
func closeCheck(sub *Submission, g *season.Graph) string {
	for i, a := range sub.Assertions {
		at := fmt.Sprintf("/assertions/%d/claim", i)
		switch g.AdmitsAt(a.Reference, a.Pointer) {
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
func (s *scoring) failuresOf(a Assertion, cause *Cause) map[string][]proofs.Check {
	if cause == nil || (*cause != InvalidProof && *cause != UnboundIdentity) {
		return nil
	}
	var out map[string][]proofs.Check
	for _, id := range a.ProofIDs {
		if f := s.conditions.Of(id).Failures; len(f) > 0 {
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
func (s *scoring) condition(a Assertion, sub *Submission, g *season.Graph) (AssertionStatus, *Cause) {
	status := Supported
	for _, id := range a.ProofIDs {
		st, cause := s.proofCondition(a, id, sub.Disclosures[id], sub.AgentDID, g)
		switch {
		case st == Unsupported:
			return Unsupported, cause
		case st == Pending:
			status = Pending
		case st == InstrumentFault && status == Supported:
			status = InstrumentFault
		}
	}
	return status, nil
}

// proofCondition applies 4.1 to one proof an assertion cites, with the
// disclosure and the DID of the submission citing it; g is the task's
// graph, whose bodies hold every resource an assertion past the close
// checks names.
func (s *scoring) proofCondition(a Assertion, id string, d proofs.Disclosure, agentDID string, g *season.Graph) (AssertionStatus, *Cause) {
	unsupported := func(c Cause) (AssertionStatus, *Cause) { return Unsupported, &c }
	switch {
	case s.twice[id]:
		return unsupported(InvalidProof) // one proof, one call: two pairs cannot both open it
	case d.RequestHash.Nonce == "" || d.ResponseHash.Nonce == "":
		return unsupported(InvalidProof) // an empty nonce hides nothing: no commitment is opened
	}
	if p := s.conditions.Of(id); p.Source != ProofsUnverified {
		outcome := p.Outcome
		switch {
		case !p.Known:
			return unsupported(InvalidProof) // condition 1: the proof must exist
		case outcome.RequestHash == "" || outcome.ResponseHash == "",
			d.RequestHash.Value != outcome.RequestHash || d.ResponseHash.Value != outcome.ResponseHash:
			return unsupported(InvalidProof) // condition 1: the pairs must open the anchored commitments
		case outcome.AgentDID != agentDID:
			return unsupported(UnboundIdentity) // condition 2: the participant's DID
		case outcome.Pending:
			return Pending, nil
		case !outcome.Valid:
			return unsupported(InvalidProof)
		}
	}
	entry, ok := s.manifest.Lookup(a.Claim.Resource)
	if !ok || entry.RequestHash == nil || d.RequestHash.Value != *entry.RequestHash {
		return unsupported(ResourceMismatch)
	}
	// Only after condition 3: a body of the contract's refusals is
	// ArkForge's fault, never the participant's.
	if slices.Contains(s.refusals, d.ResponseHash.Value) {
		return InstrumentFault, nil
	}
	if d.ResponseHash.Value != entry.ResponseHash {
		return unsupported(ValueMismatch)
	}
	got, found := pyjson.Lookup(g.Body(a.Claim.Resource), a.Claim.Field)
	if !found || !pyjson.Equal(got, a.Value) {
		return unsupported(ValueMismatch)
	}
	return Supported, nil
}

// foundedOn evaluates the key's founding formula on the claims of the
// supported assertions: whether it holds, and when it does not, the facts
// of the alternative that came closest, as the key writes them without
// their forms.
func (s *scoring) foundedOn(k season.KeyTask, sub *Submission, reports []AssertionReport) (bool, []season.Fact, error) {
	carried := season.Carried{}
	for i, a := range sub.Assertions {
		if reports[i].Status == Supported {
			carried[a.Identity] = true
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
			// A proof cause says which checks of which proof failed, as
			// proofs verify names them: the line to contest it on.
			for _, id := range slices.Sorted(maps.Keys(a.Failures)) {
				checks := make([]string, len(a.Failures[id]))
				for i, c := range a.Failures[id] {
					checks[i] = string(c)
				}
				fmt.Fprintf(&b, "           preuve %s: %s\n", printable.String(id), strings.Join(checks, ", "))
			}
		}
		for _, f := range t.MissingFacts {
			fmt.Fprintf(&b, "         fait manquant: %s %s = %s\n", printable.String(f.Resource), printable.String(f.Field), shownValue(f.Value))
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

// shownValue is a fact's value as the table shows it to people: the
// JSON Python writes without ensure_ascii, on one line and printable, so
// that a name reads "Hélène" and never as the canonical form's \u escapes.
func shownValue(raw []byte) string {
	v, err := pyjson.Parse(raw)
	if err != nil {
		return printable.String(string(raw))
	}
	return printable.String(string(pyjson.AppendCompact(nil, v)))
}

// deref is a report's optional text as the table shows it: printable,
// since a submission may have written it.
func deref(s *string) string {
	if s == nil {
		return "-"
	}
	return printable.String(*s)
}

// MarshalReport writes a report as every JSON report of the project is
// written: indented, no HTML escaping (a DID or a reason stays as it
// reads), one final newline.
func MarshalReport(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
