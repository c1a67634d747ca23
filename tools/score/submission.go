package score

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// Submission is one task's submission in the format of docs/contract.md,
// section 6 (spec §4): read as Python reads JSON (ParseSubmission), and
// written by encoding/json in that format.
type Submission struct {
	File        string                       `json:"-"`      // where it was read from, for messages
	Season      json.Number                  `json:"season"` // the integer literal, as written
	Track       string                       `json:"track"`
	TaskID      string                       `json:"task_id"`
	AgentDID    string                       `json:"agent_did"`
	Verdict     string                       `json:"verdict"`
	Assertions  []Assertion                  `json:"assertions"`
	Disclosures map[string]proofs.Disclosure `json:"disclosures"`
	Narrative   string                       `json:"narrative"` // published, never scored
}

// Assertion is a claim, a fact whose value is written in canonical form,
// and the proofs it cites. ParseSubmission also reads the claim's
// reference, pointer, value and identity, so that nothing downstream
// parses them again; a participant writing an assertion leaves them unset.
type Assertion struct {
	ID       string      `json:"id"`
	Claim    season.Fact `json:"claim"` // as written
	ProofIDs []string    `json:"proof_ids"`

	// Reference is the claim's resource parsed; the zero Reference when it
	// is none, outside every task's graph.
	Reference corpus.Reference `json:"-"`
	// Pointer is the claim's field split at each "/" (season.Tokens).
	Pointer []string `json:"-"`
	// Value is the claim's value as Python reads it.
	Value pyjson.Value `json:"-"`
	// Identity is the claim as the contract compares claims: the key of
	// every set of facts (docs/contract.md, section 5).
	Identity season.Claim `json:"-"`
}

// entryError is why a submission is rejected at entry: the JSON pointer
// and the rule it breaks.
type entryError struct {
	Pointer string
	Rule    string
}

func (e *entryError) Error() string {
	return pyjson.ShowPointer(e.Pointer) + ": " + e.Rule
}

func entryErr(pointer, format string, args ...any) *entryError {
	return &entryError{Pointer: pointer, Rule: fmt.Sprintf(format, args...)}
}

// SubmissionLimit bounds a submission's file: a real one, a few dozen
// assertions and their disclosures, holds a few KiB.
var SubmissionLimit = proofs.Limit{What: "a submission", Bytes: 1 << 20}

// ParseSubmission reads a submission and checks its strict schema. On an
// error it still returns what it could read (the task id at least, when
// there is one), so that the rejection is reported against its task.
func ParseSubmission(file string, data []byte) (*Submission, error) {
	s := &Submission{File: file}
	if int64(len(data)) > SubmissionLimit.Bytes {
		return s, entryErr("", "%d octets, au-delà des %d qu'une soumission peut contenir", len(data), SubmissionLimit.Bytes)
	}
	doc, err := pyjson.Parse(data)
	if err != nil {
		var syntax *pyjson.SyntaxError
		if errors.As(err, &syntax) {
			return s, entryErr(syntax.Pointer, "pas du JSON tel que Python le lit: %s (octet %d)", syntax.Reason, syntax.Offset)
		}
		return s, entryErr("", "pas du JSON: %v", err)
	}
	root, ok := doc.(pyjson.Object)
	if !ok {
		return s, entryErr("", "un objet JSON attendu")
	}
	if id, ok := root.Get("task_id"); ok {
		s.TaskID, _ = id.(string)
	}
	fields, err := members(root, "", submissionMembers)
	if err != nil {
		return s, err
	}
	season, ok := fields["season"].(pyjson.Number)
	if !ok || strings.Trim(string(season), "0123456789") != "" || (len(season) > 1 && season[0] == '0') {
		return s, entryErr("/season", "la saison attendue en entier, tel que 1")
	}
	s.Season = json.Number(season)
	for _, f := range []struct {
		name string
		into *string
	}{{"track", &s.Track}, {"task_id", &s.TaskID}, {"agent_did", &s.AgentDID}, {"verdict", &s.Verdict}} {
		if *f.into, err = nonEmptyString(fields[f.name], "/"+f.name); err != nil {
			return s, err
		}
	}
	if n, ok := fields["narrative"]; ok {
		var isString bool
		if s.Narrative, isString = n.(string); !isString {
			return s, entryErr("/narrative", "une chaîne attendue (publiée, jamais notée)")
		}
	}
	if s.Assertions, err = parseAssertions(fields["assertions"]); err != nil {
		return s, err
	}
	if s.Disclosures, err = parseDisclosures(fields["disclosures"]); err != nil {
		return s, err
	}
	return s, s.checkDisclosures()
}

// The members of a submission's objects (docs/contract.md, section 6).
var (
	submissionMembers = season.Members{
		Allowed:  []string{"season", "track", "task_id", "agent_did", "verdict", "assertions", "disclosures", "narrative"},
		Required: []string{"season", "track", "task_id", "agent_did", "verdict", "assertions", "disclosures"},
	}
	assertionMembers  = season.FieldsOf[Assertion]()
	claimMembers      = season.Exactly("resource", "field", "value")
	disclosureMembers = season.FieldsOf[proofs.Disclosure]()
	openingMembers    = season.FieldsOf[proofs.Opening]()
)

// members returns an object's members by key, once the rule has checked
// them: its refusal is a rejection at entry, in the submission's French.
func members(obj pyjson.Object, at string, rule season.Members) (map[string]pyjson.Value, error) {
	if err := rule.Check(obj, at); err != nil {
		var m *season.MemberError
		if !errors.As(err, &m) {
			return nil, entryErr(at, "un objet attendu")
		}
		if m.Missing {
			return nil, entryErr(m.Pointer, "champ %q manquant", m.Member)
		}
		return nil, entryErr(m.Pointer, "champ inconnu (le schéma admet %s)", strings.Join(m.Allowed, ", "))
	}
	out := make(map[string]pyjson.Value, len(obj))
	for _, m := range obj {
		out[m.Key] = m.Value
	}
	return out, nil
}

func nonEmptyString(v pyjson.Value, at string) (string, error) {
	s, ok := v.(string)
	if !ok || s == "" {
		return "", entryErr(at, "une chaîne non vide attendue")
	}
	return s, nil
}

func parseAssertions(v pyjson.Value) ([]Assertion, error) {
	list, ok := v.(pyjson.Array)
	if !ok {
		return nil, entryErr("/assertions", "un tableau d'assertions attendu")
	}
	out := make([]Assertion, len(list))
	ids := map[string]int{}
	claims := map[season.Claim]int{}
	for i, item := range list {
		at := fmt.Sprintf("/assertions/%d", i)
		obj, ok := item.(pyjson.Object)
		if !ok {
			return nil, entryErr(at, "un objet {id, claim, proof_ids} attendu")
		}
		f, err := members(obj, at, assertionMembers)
		if err != nil {
			return nil, err
		}
		a := &out[i]
		if a.ID, err = nonEmptyString(f["id"], at+"/id"); err != nil {
			return nil, err
		}
		if first, dup := ids[a.ID]; dup {
			return nil, entryErr(at+"/id", "l'id %q nomme déjà /assertions/%d", a.ID, first)
		}
		ids[a.ID] = i
		claim, ok := f["claim"].(pyjson.Object)
		if !ok {
			return nil, entryErr(at+"/claim", "un objet {resource, field, value} attendu")
		}
		c, err := members(claim, at+"/claim", claimMembers)
		if err != nil {
			return nil, err
		}
		if a.Claim.Resource, err = nonEmptyString(c["resource"], at+"/claim/resource"); err != nil {
			return nil, err
		}
		field, ok := c["field"].(string)
		if !ok {
			return nil, entryErr(at+"/claim/field", "un pointeur JSON (RFC 6901) attendu, en chaîne")
		}
		a.Claim.Field, a.Claim.Value = field, pyjson.Canonical(c["value"])
		a.Reference, _ = corpus.ParseReference(a.Claim.Resource)
		a.Pointer = season.Tokens(field)
		a.Value = c["value"]
		a.Identity = season.ClaimOf(a.Claim.Resource, field, a.Value)
		if first, dup := claims[a.Identity]; dup {
			return nil, entryErr(at+"/claim", "le même (resource, field, value) que /assertions/%d: chaque triplet affirmé est unique", first)
		}
		claims[a.Identity] = i
		proofs, ok := f["proof_ids"].(pyjson.Array)
		if !ok || len(proofs) == 0 {
			return nil, entryErr(at+"/proof_ids", "un tableau non vide d'identifiants de preuve attendu")
		}
		cited := make(map[string]bool, len(proofs)) // not a scan of a.ProofIDs: linear in a long list
		for j, p := range proofs {
			id, err := nonEmptyString(p, fmt.Sprintf("%s/proof_ids/%d", at, j))
			if err != nil {
				return nil, err
			}
			if cited[id] {
				return nil, entryErr(fmt.Sprintf("%s/proof_ids/%d", at, j), "la preuve %q est citée deux fois", id)
			}
			cited[id] = true
			a.ProofIDs = append(a.ProofIDs, id)
		}
	}
	return out, nil
}

func parseDisclosures(v pyjson.Value) (map[string]proofs.Disclosure, error) {
	obj, ok := v.(pyjson.Object)
	if !ok {
		return nil, entryErr("/disclosures", "un objet indexé par proof_id attendu")
	}
	out := make(map[string]proofs.Disclosure, len(obj))
	for _, m := range obj {
		at := "/disclosures" + pyjson.FormatPointer([]string{m.Key})
		d, ok := m.Value.(pyjson.Object)
		if !ok {
			return nil, entryErr(at, "un objet {request_hash, response_hash} attendu")
		}
		f, err := members(d, at, disclosureMembers)
		if err != nil {
			return nil, err
		}
		var disclosure proofs.Disclosure
		for _, h := range []struct {
			name string
			into *proofs.Opening
		}{{"request_hash", &disclosure.RequestHash}, {"response_hash", &disclosure.ResponseHash}} {
			pair, ok := f[h.name].(pyjson.Object)
			if !ok {
				return nil, entryErr(at+"/"+h.name, "un objet {nonce, value} attendu")
			}
			p, err := members(pair, at+"/"+h.name, openingMembers)
			if err != nil {
				return nil, err
			}
			for _, part := range []struct {
				name string
				into *string
			}{{"nonce", &h.into.Nonce}, {"value", &h.into.Value}} {
				s, ok := p[part.name].(string)
				if !ok {
					return nil, entryErr(at+"/"+h.name+"/"+part.name, "une chaîne attendue")
				}
				*part.into = s
			}
		}
		out[m.Key] = disclosure
	}
	return out, nil
}

// checkDisclosures: one disclosure for each cited proof, none for another.
func (s *Submission) checkDisclosures() error {
	cited := map[string]bool{}
	for i, a := range s.Assertions {
		for j, id := range a.ProofIDs {
			cited[id] = true
			if _, ok := s.Disclosures[id]; !ok {
				return entryErr(fmt.Sprintf("/assertions/%d/proof_ids/%d", i, j), "la preuve %q est citée mais /disclosures n'a pas d'entrée pour elle", id)
			}
		}
	}
	ids := make([]string, 0, len(s.Disclosures))
	for id := range s.Disclosures {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if !cited[id] {
			return entryErr("/disclosures"+pyjson.FormatPointer([]string{id}), "aucune assertion ne cite la preuve %q: divulguer exactement les preuves citées", id)
		}
	}
	return nil
}
