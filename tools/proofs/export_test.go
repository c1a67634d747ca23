package proofs

// Each exposes the worker pool VerifyFolder runs on to the benchmarks,
// which verify a season from memory.
func (vr *Verifier) Each(n int, do func(i int) error) error { return vr.each(n, do) }
