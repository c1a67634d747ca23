package proofs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// A views folder holds what a replay reads of Trust Layer and Rekor, as
// `proveit proofs fetch` writes it: <proof_id>.json, each proof's public
// view as Trust Layer served it, and rekor/<uuid>.json, each batch's Rekor
// entry as Rekor served it.

// ViewFile is where a folder keeps a proof's public view.
func ViewFile(dir, proofID string) string { return filepath.Join(dir, proofID+".json") }

// EntryFile is where a folder keeps a Rekor entry.
func EntryFile(dir, uuid string) string { return filepath.Join(dir, "rekor", uuid+".json") }

// Settled reports whether a view can no longer change: its batch is
// anchored, or it predates batches. A pending view is read again.
func (v *View) Settled() bool { return v.Batch == nil || v.Batch.Status == anchoredStatus }

// ReadView reads a proof's view from a folder; a view that is not there is
// an error wrapping fs.ErrNotExist.
func ReadView(dir, proofID string) (*View, error) {
	if !ValidProofID(proofID) {
		return nil, fmt.Errorf("%q is not a proof id (prf_YYYYMMDD_HHMMSS_xxxxxx)", proofID)
	}
	file := ViewFile(dir, proofID)
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	v, err := ParseView(file, data)
	if err != nil {
		return nil, err
	}
	if v.ProofID != proofID {
		return nil, fmt.Errorf("%s /proof_id: %q, not the proof the file is named for", file, v.ProofID)
	}
	return v, nil
}

// readEntry reads the Rekor entry a view names from a folder: nil when the
// view names none it could be (an unverifiable uuid) or the folder lacks
// it, which verification reports as not supplied.
func readEntry(dir string, v *View) ([]byte, error) {
	if v.Log == nil || !ValidRekorUUID(v.Log.UUID) {
		return nil, nil
	}
	data, err := os.ReadFile(EntryFile(dir, v.Log.UUID))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// Citation is one proof as a submission cites it: with the submission's
// DID and its disclosure, or alone (both zero) to verify a view by itself.
type Citation struct {
	ProofID    string
	AgentDID   string
	Disclosure *Disclosure
}

// VerifyFolder verifies each cited proof from a views folder, once per
// proof id (the first citation's disclosure; a second, different one is
// the replay's to refuse). A proof the folder holds no view of fails
// CheckViewMissing (so does an id no proof can have): as far as any reader
// can tell, it does not exist. A view
// or entry that cannot be read is an error naming its file.
//
// The proofs are verified on the verifier's workers (every core by
// default); the results are those of one worker.
func (vr *Verifier) VerifyFolder(dir string, cites []Citation) (map[string]Result, error) {
	vr.mustBeMade()
	var unique []Citation
	seen := make(map[string]bool, len(cites))
	for _, c := range cites {
		if !seen[c.ProofID] {
			seen[c.ProofID] = true
			unique = append(unique, c)
		}
	}
	results := make([]Result, len(unique))
	entries := newEntryCache(dir) // a batch's entry, read once for its hundred proofs
	err := vr.each(len(unique), func(i int) error {
		c := unique[i]
		view, err := ReadView(dir, c.ProofID)
		if !ValidProofID(c.ProofID) || errors.Is(err, fs.ErrNotExist) {
			results[i] = viewMissing(err)
			return nil
		}
		if err != nil {
			return err
		}
		entry, err := entries.read(view)
		if err != nil {
			return err
		}
		results[i] = vr.Verify(Input{View: view, Entry: entry, Disclosure: c.Disclosure, AgentDID: c.AgentDID})
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make(map[string]Result, len(unique))
	for i, c := range unique {
		out[c.ProofID] = results[i]
	}
	return out, nil
}

// Outcomes are the verifier's input the results establish, by proof id.
func Outcomes(results map[string]Result) map[string]Outcome {
	out := make(map[string]Outcome, len(results))
	for id, r := range results {
		out[id] = r.Outcome
	}
	return out
}
