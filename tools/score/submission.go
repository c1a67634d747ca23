package score

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/arkforge/proveit-corpus/manifest/pyjson"
)

// Submission is one task's submission in the format of specification 4,
// read as Python reads JSON.
type Submission struct {
	File        string // where it was read from, for messages
	Season      string // the integer literal of "season"
	Track       string
	TaskID      string
	AgentDID    string
	Verdict     string
	Assertions  []Assertion
	Disclosures map[string]Disclosure
}

// Assertion is a claim and the proofs it cites.
type Assertion struct {
	ID       string
	Resource string
	Field    string
	Value    pyjson.Value
	ProofIDs []string
}

// Disclosure opens the two hash commitments of one proof.
type Disclosure struct {
	RequestHash, ResponseHash Opening
}

// Opening is a committed value and its nonce.
type Opening struct {
	Nonce, Value string
}

// EntryError is why a submission is rejected at entry: the JSON pointer
// and the rule it breaks.
type EntryError struct {
	Pointer string
	Rule    string
}

func (e *EntryError) Error() string {
	return pyjson.ShowPointer(e.Pointer) + ": " + e.Rule
}

func entryErr(pointer, format string, args ...any) *EntryError {
	return &EntryError{Pointer: pointer, Rule: fmt.Sprintf(format, args...)}
}

// ParseSubmission reads a submission and checks its strict schema. On an
// error it still returns what it could read (the task id at least, when
// there is one), so that the rejection is reported against its task.
func ParseSubmission(file string, data []byte) (*Submission, error) {
	s := &Submission{File: file}
	doc, err := pyjson.Parse(data)
	if err != nil {
		var syntax *pyjson.SyntaxError
		if errors.As(err, &syntax) {
			return s, entryErr(syntax.Pointer, "not JSON as Python reads it: %s (byte %d)", syntax.Reason, syntax.Offset)
		}
		return s, entryErr("", "not JSON: %v", err)
	}
	root, ok := doc.(pyjson.Object)
	if !ok {
		return s, entryErr("", "want a JSON object")
	}
	if id, ok := root.Get("task_id"); ok {
		s.TaskID, _ = id.(string)
	}
	fields, err := members(root, "", []string{"season", "track", "task_id", "agent_did", "verdict", "assertions", "disclosures"}, "narrative")
	if err != nil {
		return s, err
	}
	season, ok := fields["season"].(pyjson.Number)
	if !ok || strings.Trim(string(season), "0123456789") != "" || (len(season) > 1 && season[0] == '0') {
		return s, entryErr("/season", "want the season as an integer, such as 1")
	}
	s.Season = string(season)
	for _, f := range []struct {
		name string
		into *string
	}{{"track", &s.Track}, {"task_id", &s.TaskID}, {"agent_did", &s.AgentDID}, {"verdict", &s.Verdict}} {
		if *f.into, err = nonEmptyString(fields[f.name], "/"+f.name); err != nil {
			return s, err
		}
	}
	if n, ok := fields["narrative"]; ok {
		if _, isString := n.(string); !isString {
			return s, entryErr("/narrative", "want a string (published, never scored)")
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

// members returns an object's members by key, refusing a missing required
// key and any key not listed.
func members(obj pyjson.Object, at string, required []string, optional ...string) (map[string]pyjson.Value, error) {
	out := make(map[string]pyjson.Value, len(obj))
	for _, m := range obj {
		if !slices.Contains(required, m.Key) && !slices.Contains(optional, m.Key) {
			allowed := strings.Join(append(slices.Clone(required), optional...), ", ")
			return nil, entryErr(at+pyjson.FormatPointer([]string{m.Key}), "unknown field (the schema allows %s)", allowed)
		}
		out[m.Key] = m.Value
	}
	for _, key := range required {
		if _, ok := out[key]; !ok {
			return nil, entryErr(at, "missing field %q", key)
		}
	}
	return out, nil
}

func nonEmptyString(v pyjson.Value, at string) (string, error) {
	s, ok := v.(string)
	if !ok || s == "" {
		return "", entryErr(at, "want a non-empty string")
	}
	return s, nil
}

func parseAssertions(v pyjson.Value) ([]Assertion, error) {
	list, ok := v.(pyjson.Array)
	if !ok {
		return nil, entryErr("/assertions", "want an array of assertions")
	}
	out := make([]Assertion, len(list))
	ids := map[string]int{}
	claims := map[string]int{}
	for i, item := range list {
		at := fmt.Sprintf("/assertions/%d", i)
		obj, ok := item.(pyjson.Object)
		if !ok {
			return nil, entryErr(at, "want an object {id, claim, proof_ids}")
		}
		f, err := members(obj, at, []string{"id", "claim", "proof_ids"})
		if err != nil {
			return nil, err
		}
		a := &out[i]
		if a.ID, err = nonEmptyString(f["id"], at+"/id"); err != nil {
			return nil, err
		}
		if first, dup := ids[a.ID]; dup {
			return nil, entryErr(at+"/id", "id %q already names /assertions/%d", a.ID, first)
		}
		ids[a.ID] = i
		claim, ok := f["claim"].(pyjson.Object)
		if !ok {
			return nil, entryErr(at+"/claim", "want an object {resource, field, value}")
		}
		c, err := members(claim, at+"/claim", []string{"resource", "field", "value"})
		if err != nil {
			return nil, err
		}
		if a.Resource, err = nonEmptyString(c["resource"], at+"/claim/resource"); err != nil {
			return nil, err
		}
		field, ok := c["field"].(string)
		if !ok {
			return nil, entryErr(at+"/claim/field", "want a JSON pointer (RFC 6901) as a string")
		}
		a.Field, a.Value = field, c["value"]
		triplet := a.Resource + "\x00" + a.Field + "\x00" + string(pyjson.Canonical(a.Value))
		if first, dup := claims[triplet]; dup {
			return nil, entryErr(at+"/claim", "the same (resource, field, value) as /assertions/%d: each claim triplet is unique", first)
		}
		claims[triplet] = i
		proofs, ok := f["proof_ids"].(pyjson.Array)
		if !ok || len(proofs) == 0 {
			return nil, entryErr(at+"/proof_ids", "want a non-empty array of proof ids")
		}
		for j, p := range proofs {
			id, err := nonEmptyString(p, fmt.Sprintf("%s/proof_ids/%d", at, j))
			if err != nil {
				return nil, err
			}
			if slices.Contains(a.ProofIDs, id) {
				return nil, entryErr(fmt.Sprintf("%s/proof_ids/%d", at, j), "proof %q is cited twice", id)
			}
			a.ProofIDs = append(a.ProofIDs, id)
		}
	}
	return out, nil
}

func parseDisclosures(v pyjson.Value) (map[string]Disclosure, error) {
	obj, ok := v.(pyjson.Object)
	if !ok {
		return nil, entryErr("/disclosures", "want an object keyed by proof_id")
	}
	out := make(map[string]Disclosure, len(obj))
	for _, m := range obj {
		at := "/disclosures" + pyjson.FormatPointer([]string{m.Key})
		d, ok := m.Value.(pyjson.Object)
		if !ok {
			return nil, entryErr(at, "want an object {request_hash, response_hash}")
		}
		f, err := members(d, at, []string{"request_hash", "response_hash"})
		if err != nil {
			return nil, err
		}
		var disclosure Disclosure
		for _, h := range []struct {
			name string
			into *Opening
		}{{"request_hash", &disclosure.RequestHash}, {"response_hash", &disclosure.ResponseHash}} {
			pair, ok := f[h.name].(pyjson.Object)
			if !ok {
				return nil, entryErr(at+"/"+h.name, "want an object {nonce, value}")
			}
			p, err := members(pair, at+"/"+h.name, []string{"nonce", "value"})
			if err != nil {
				return nil, err
			}
			for _, part := range []struct {
				name string
				into *string
			}{{"nonce", &h.into.Nonce}, {"value", &h.into.Value}} {
				s, ok := p[part.name].(string)
				if !ok {
					return nil, entryErr(at+"/"+h.name+"/"+part.name, "want a string")
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
				return entryErr(fmt.Sprintf("/assertions/%d/proof_ids/%d", i, j), "proof %q is cited but /disclosures has no entry for it", id)
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
			return entryErr("/disclosures"+pyjson.FormatPointer([]string{id}), "no assertion cites proof %q: disclose exactly the cited proofs", id)
		}
	}
	return nil
}
