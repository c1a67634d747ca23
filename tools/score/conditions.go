package score

import "github.com/arkforge/proveit-corpus/tools/proofs"

// Source says who established conditions 1 and 2 of the proofs a replay
// reads, as the report states it.
type Source string

const (
	ProofsVerified   Source = "verifiees"     // by the replay itself, from the public views
	ProofsGiven      Source = "fournies"      // by an outside verifier
	ProofsUnverified Source = "non_verifiees" // by no one: every proof counted valid and bound
)

// ProofResult is conditions 1 and 2 of one proof, with their source.
type ProofResult struct {
	Source Source
	// Known says the source holds an outcome for the proof; one that does
	// not (a verifier that never saw it) says it does not exist. Never
	// set when the source is ProofsUnverified.
	Known   bool
	Outcome proofs.Outcome
	// Failures are the checks that failed, when the replay verified the
	// proof itself.
	Failures []proofs.Check
}

// Conditions are conditions 1 and 2 of every proof a replay reads, from
// one source: Verified, Given or Unverified, each named where it is
// chosen. The zero value is no source at all, which Score refuses. Only
// read once made: safe for concurrent use.
type Conditions struct {
	source  Source
	results map[string]ProofResult
}

// Verified are the results of the replay's own verification of the views
// (proofs.Verifier.VerifyFolder).
func Verified(results map[string]proofs.Result) Conditions {
	c := Conditions{source: ProofsVerified, results: make(map[string]ProofResult, len(results))}
	for id, r := range results {
		c.results[id] = ProofResult{Source: ProofsVerified, Known: true, Outcome: r.Outcome, Failures: r.Failures}
	}
	return c
}

// Given are an outside verifier's outcomes (ParseProofs).
func Given(outcomes map[string]proofs.Outcome) Conditions {
	c := Conditions{source: ProofsGiven, results: make(map[string]ProofResult, len(outcomes))}
	for id, o := range outcomes {
		c.results[id] = ProofResult{Source: ProofsGiven, Known: true, Outcome: o}
	}
	return c
}

// Unverified counts every proof valid and bound, verified by no one: for a
// dry run, or a replay asked so by name (docs/scoring.md).
func Unverified() Conditions { return Conditions{source: ProofsUnverified} }

// Source is who established the conditions; "" for the zero Conditions.
func (c Conditions) Source() Source { return c.source }

// Of is the result for one proof.
func (c Conditions) Of(proofID string) ProofResult {
	if r, ok := c.results[proofID]; ok {
		return r
	}
	return ProofResult{Source: c.source}
}
