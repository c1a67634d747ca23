package proofs_test

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"

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

// BenchmarkVerifySeason verifies a season's proofs offline, one op being
// all of them: each view parsed from its bytes and verified with its
// disclosure, the witnesses of each batch checked once, on the worker pool
// VerifyFolder uses (GOMAXPROCS workers: make bench runs it with -cpu 1
// and with every core, and sets each against BenchmarkEd25519Season).
func BenchmarkVerifySeason(b *testing.B) {
	s := issuedSeason(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		vr, err := proofs.NewVerifier(s.trust, proofs.WithSeason(s.window))
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
}

// BenchmarkEd25519Season is the floor BenchmarkVerifySeason is measured
// against: as many standard-library Ed25519 verifications as a season has
// proofs, of messages as long as a chain hash's hex, one after the other.
func BenchmarkEd25519Season(b *testing.B) {
	pub, priv, err := ed25519.GenerateKey(nil)
	require.NoError(b, err)
	messages := make([][]byte, seasonProofs)
	sigs := make([][]byte, seasonProofs)
	for i := range messages {
		sum := sha256.Sum256([]byte(strconv.Itoa(i)))
		messages[i] = []byte(hex.EncodeToString(sum[:]))
		sigs[i] = ed25519.Sign(priv, messages[i])
	}
	b.ResetTimer()
	for b.Loop() {
		for i := range messages {
			if !ed25519.Verify(pub, messages[i], sigs[i]) {
				b.Fatal("a signature does not verify")
			}
		}
	}
}
