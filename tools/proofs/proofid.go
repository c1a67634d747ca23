package proofs

import "fmt"

// ProofIDError is a string given as a proof id that is not one: it names
// no proof, and no file may be named after it.
type ProofIDError struct{ ID string }

func (e *ProofIDError) Error() string {
	return fmt.Sprintf("%q is not a proof id (prf_YYYYMMDD_HHMMSS_xxxxxx)", e.ID)
}
