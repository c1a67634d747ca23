package proofs_test

import (
	"fmt"
	"testing"

	"github.com/arkforge/proveit-corpus/harness/trustlayer"
	"github.com/arkforge/proveit-corpus/tools/proofs"
)

// A season's worth of proofs: what a replay of every submission verifies.
const (
	seasonProofs  = 10000
	seasonBatches = 100
)

// BenchmarkVerifySeason verifies a season's proofs offline, one op being
// all of them: each view parsed from its bytes and verified with its
// disclosure, the witnesses of each batch checked once (make bench records
// it in docs/performance.md against its goal of one second on one core).
func BenchmarkVerifySeason(b *testing.B) {
	tl, vr := standIn(b, trustlayer.Options{BatchMaxSize: -1})
	type proof struct {
		view       []byte
		entry      []byte
		disclosure proofs.Disclosure
	}
	var season []proof
	for range seasonBatches {
		for _, p := range issueBatch(b, tl, seasonProofs/seasonBatches, standInDID) {
			data, err := tl.View(trustlayer.ProofID(p.view.ProofID))
			if err != nil {
				b.Fatal(err)
			}
			season = append(season, proof{data, p.entry, p.disclosure})
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		v := &proofs.Verifier{Trust: vr.Trust, Season: vr.Season}
		for i := range season {
			p := &season[i]
			view, err := proofs.ParseView("view", p.view)
			if err != nil {
				b.Fatal(err)
			}
			if r := v.Verify(proofs.Input{View: view, Entry: p.entry, Disclosure: &p.disclosure, AgentDID: standInDID}); !r.Valid {
				b.Fatal(fmt.Sprint(r.Failures))
			}
		}
	}
}
