package proofs_test

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/harness/trustlayer"
	"github.com/arkforge/proveit-corpus/tools/proofs"
)

// A season's worth of proofs: what a replay of every submission verifies.
const (
	seasonProofs  = 10000
	seasonBatches = 100
)

// benchSeason is a season the stand-in issued, as files hold it: issued
// once for every benchmark and every -cpu value.
type benchSeason struct {
	trust  *proofs.Trust
	window proofs.Window
	proofs []benchProof
}

type benchProof struct {
	view       []byte
	entry      []byte
	disclosure proofs.Disclosure
}

var (
	seasonOnce sync.Once
	season     benchSeason
)

func issuedSeason(b *testing.B) *benchSeason {
	seasonOnce.Do(func() {
		var tl *trustlayer.TrustLayer
		tl, season.trust, season.window = standInTrust(b, trustlayer.Options{BatchMaxSize: -1})
		for range seasonBatches {
			for _, p := range issueBatch(b, tl, seasonProofs/seasonBatches, standInDID) {
				data, err := tl.View(trustlayer.ProofID(p.view.ProofID))
				require.NoError(b, err)
				season.proofs = append(season.proofs, benchProof{data, p.entry, p.disclosure})
			}
		}
	})
	if season.proofs == nil {
		b.Fatal("the season could not be issued")
	}
	return &season
}

// BenchmarkVerifySeason verifies a season's proofs offline on one core,
// one op being all of them: each view parsed from its bytes and verified
// with its disclosure, the witnesses of each batch checked once, on the
// worker pool VerifyFolder uses, with one worker and GOMAXPROCS 1.
//
// Its goal is a ratio, so each op is followed, off the clock, by what it
// is compared with, that both see the same moments of a machine whose
// speed drifts: 10,000 standard-library Ed25519 verifications (x-ed25519,
// the season's time over theirs).
func BenchmarkVerifySeason(b *testing.B) {
	s := issuedSeason(b)
	floor := newEd25519Floor(b)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var season, compared time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		verifySeason(b, s, 1)
		season += time.Since(start)
		b.StopTimer()
		start = time.Now()
		floor.verify(b)
		compared += time.Since(start)
		b.StartTimer()
	}
	b.ReportMetric(season.Seconds()/compared.Seconds(), "x-ed25519")
}

// BenchmarkVerifySeasonAllCores is the same on every core: a worker per
// CPU, GOMAXPROCS the CPUs. Each op is followed, off the clock, by the
// season on one core (x-one-core, the season's time on every core over its
// time on one).
func BenchmarkVerifySeasonAllCores(b *testing.B) {
	s := issuedSeason(b)
	cpus := runtime.NumCPU()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(cpus))
	var season, compared time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		verifySeason(b, s, cpus)
		season += time.Since(start)
		b.StopTimer()
		runtime.GOMAXPROCS(1)
		start = time.Now()
		verifySeason(b, s, 1)
		compared += time.Since(start)
		runtime.GOMAXPROCS(cpus)
		b.StartTimer()
	}
	b.ReportMetric(season.Seconds()/compared.Seconds(), "x-one-core")
}

// verifySeason verifies every proof of the season on a new verifier of
// that many workers.
func verifySeason(b *testing.B, s *benchSeason, workers int) {
	vr, err := proofs.NewVerifier(s.trust, proofs.WithSeason(s.window), proofs.WithWorkers(workers))
	if err != nil {
		b.Fatal(err)
	}
	err = vr.Each(len(s.proofs), func(i int) error {
		p := &s.proofs[i]
		view, err := proofs.ParseView("view", p.view)
		if err != nil {
			return err
		}
		if r := vr.Verify(proofs.Input{View: view, Entry: p.entry, Disclosure: &p.disclosure, AgentDID: standInDID}); !r.Valid {
			return errors.New(fmt.Sprint(r.Failures))
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// ed25519Floor is as many standard-library Ed25519 verifications as a
// season has proofs, of messages as long as a chain hash's hex.
type ed25519Floor struct {
	public   ed25519.PublicKey
	messages [][]byte
	sigs     [][]byte
}

func newEd25519Floor(b *testing.B) *ed25519Floor {
	pub, priv, err := ed25519.GenerateKey(nil)
	require.NoError(b, err)
	f := &ed25519Floor{public: pub, messages: make([][]byte, seasonProofs), sigs: make([][]byte, seasonProofs)}
	for i := range f.messages {
		sum := sha256.Sum256([]byte(strconv.Itoa(i)))
		f.messages[i] = []byte(hex.EncodeToString(sum[:]))
		f.sigs[i] = ed25519.Sign(priv, f.messages[i])
	}
	return f
}

func (f *ed25519Floor) verify(b *testing.B) {
	for i := range f.messages {
		if !ed25519.Verify(f.public, f.messages[i], f.sigs[i]) {
			b.Fatal("a signature does not verify")
		}
	}
}

// BenchmarkEd25519Season is the floor alone, one op being a season's
// verifications, one after the other on one core.
func BenchmarkEd25519Season(b *testing.B) {
	floor := newEd25519Floor(b)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	b.ResetTimer()
	for b.Loop() {
		floor.verify(b)
	}
}
