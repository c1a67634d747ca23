package proofs_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/transparency-dev/merkle/proof"

	"github.com/arkforge/proveit-corpus/harness/trustlayer"
	"github.com/arkforge/proveit-corpus/tools/proofs"
)

// NewVerifier refuses what would verify nothing or accept every time, and
// says why.
func TestNewVerifierValidates(t *testing.T) {
	trust := pinned(t)
	noKeys := *trust
	noKeys.Keys = nil
	shortKey := *trust
	shortKey.Keys = []proofs.SigningKey{{ID: "short", Public: make([]byte, 31), Encoded: "ed25519:x"}}
	noTSACert := *trust
	noTSACert.TSAs = map[string]*proofs.TSA{"freetsa.org": {}}
	noLogKey := *trust
	noLogKey.Logs = map[string]*proofs.Log{"rekor.sigstore.dev": {Name: "rekor.sigstore.dev"}}
	tests := []struct {
		name  string
		trust *proofs.Trust
		opts  []proofs.VerifierOption
		want  error
	}{
		{"a season", trust, []proofs.VerifierOption{proofs.WithSeason(gelSeason)}, nil},
		{"an open window, said so", trust, []proofs.VerifierOption{proofs.WithOpenWindow()}, nil},
		{"anchored before a time", trust, []proofs.VerifierOption{proofs.WithAnchoredBefore(gelSeason.Opening)}, nil},
		{"one worker", trust, []proofs.VerifierOption{proofs.WithSeason(gelSeason), proofs.WithWorkers(1)}, nil},
		{"no window", trust, nil, proofs.ErrNoWindow},
		{"the zero window", trust, []proofs.VerifierOption{proofs.WithSeason(proofs.Window{})}, proofs.ErrInvalidWindow},
		{"a season with no closing", trust, []proofs.VerifierOption{proofs.WithSeason(proofs.Window{Opening: gelSeason.Opening})}, proofs.ErrInvalidWindow},
		{"a season closing before it opens", trust, []proofs.VerifierOption{proofs.WithSeason(proofs.Window{Opening: gelSeason.Closing, Closing: gelSeason.Opening})}, proofs.ErrInvalidWindow},
		{"anchored before no time", trust, []proofs.VerifierOption{proofs.WithAnchoredBefore(time.Time{})}, proofs.ErrInvalidWindow},
		{"two windows", trust, []proofs.VerifierOption{proofs.WithSeason(gelSeason), proofs.WithOpenWindow()}, proofs.ErrInvalidWindow},
		{"no trust", nil, []proofs.VerifierOption{proofs.WithSeason(gelSeason)}, proofs.ErrInvalidTrust},
		{"no signing key", &noKeys, []proofs.VerifierOption{proofs.WithSeason(gelSeason)}, proofs.ErrInvalidTrust},
		{"a signing key of 31 bytes", &shortKey, []proofs.VerifierOption{proofs.WithSeason(gelSeason)}, proofs.ErrInvalidTrust},
		{"a TSA with no certificate", &noTSACert, []proofs.VerifierOption{proofs.WithSeason(gelSeason)}, proofs.ErrInvalidTrust},
		{"a log with no key", &noLogKey, []proofs.VerifierOption{proofs.WithSeason(gelSeason)}, proofs.ErrInvalidTrust},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vr, err := proofs.NewVerifier(tt.trust, tt.opts...)
			if tt.want == nil {
				require.NoError(t, err)
				assert.NotNil(t, vr)
				return
			}
			assert.ErrorIs(t, err, tt.want)
			assert.Nil(t, vr)
		})
	}
	_, err := proofs.NewVerifier(trust, proofs.WithSeason(gelSeason), proofs.WithWorkers(0))
	assert.Error(t, err, "zero workers")

	// A Verifier not made by NewVerifier says so, rather than verify with
	// no trust material or accept any time.
	view := readView(t, "proof_proveit_gel.json")
	assert.PanicsWithError(t, "proofs: a Verifier is made by NewVerifier", func() { (&proofs.Verifier{}).Verify(proofs.Input{View: view}) })
	assert.PanicsWithError(t, "proofs: a Verifier is made by NewVerifier", func() { _ = (&proofs.Verifier{}).VerifyFolder(t.TempDir(), nil) })
}

// The window an option names is the one tokens are held to: the gel token
// (September 2026) is out of a season before it, within an open window and
// within "anchored before" a later time.
func TestVerifierWindows(t *testing.T) {
	genTime, err := time.Parse(time.RFC3339, gelGenTime)
	require.NoError(t, err)
	tests := []struct {
		name string
		opt  proofs.VerifierOption
		want []proofs.Check
	}{
		{"a season before the token", proofs.WithSeason(proofs.Window{Opening: genTime.Add(-48 * time.Hour), Closing: genTime.Add(-24 * time.Hour)}),
			[]proofs.Check{proofs.CheckTokenOutOfTime, proofs.CheckRekorMissing}},
		{"an open window", proofs.WithOpenWindow(), []proofs.Check{proofs.CheckRekorMissing}},
		{"anchored before a later time", proofs.WithAnchoredBefore(genTime.Add(time.Second)), []proofs.Check{proofs.CheckRekorMissing}},
		{"anchored before an earlier time", proofs.WithAnchoredBefore(genTime.Add(-time.Second)), []proofs.Check{proofs.CheckTokenOutOfTime, proofs.CheckRekorMissing}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vr, err := proofs.NewVerifier(pinned(t), tt.opt)
			require.NoError(t, err)
			r := vr.Verify(proofs.Input{View: readView(t, "proof_proveit_gel.json")})
			assert.Equal(t, tt.want, r.Failures)
		})
	}
}

// A failed check keeps why it failed: the detail in the report, the error
// itself through Result.Err, and the library's typed error beneath it.
func TestFailureDetails(t *testing.T) {
	vr := newVerifier(t, pinned(t), gelSeason)
	valid := vr.Verify(proofs.Input{View: readView(t, "proof_proveit_gel.json")})
	require.Equal(t, []proofs.Check{proofs.CheckRekorMissing}, valid.Failures)
	assert.Len(t, valid.Details, 1)
	assert.Contains(t, valid.Details[proofs.CheckRekorMissing], "no Rekor entry")

	tests := []struct {
		name   string
		view   func(v *proofs.View)
		check  proofs.Check
		detail string
		typed  func(t *testing.T, err error)
	}{
		{name: "a path to another root: merkle's mismatch", view: func(v *proofs.View) { v.Batch.AuditPath[0] = hexOf(7) },
			check: proofs.CheckBatchPath, detail: "root", typed: func(t *testing.T, err error) {
				var mismatch proof.RootMismatchError
				assert.ErrorAs(t, err, &mismatch)
			}},
		{name: "a path of another length: merkle's", view: func(v *proofs.View) { v.Batch.AuditPath = v.Batch.AuditPath[:1] },
			check: proofs.CheckBatchPath, detail: "wrong proof size"},
		{name: "a token pkcs7 cannot read", view: func(v *proofs.View) { v.TSA.TSRBase64 = "MIIDqTADAgEA" },
			check: proofs.CheckToken, detail: "asn1"},
		{name: "a signature that does not verify", view: func(v *proofs.View) {
			b := []byte(v.Signature)
			b[20] ^= 1
			v.Signature = string(b)
		}, check: proofs.CheckSignature, detail: "ed25519"},
		{name: "a commitment not hex", view: func(v *proofs.View) { v.Commitments["seller"] = "sha256:zz" },
			check: proofs.CheckCommitments, detail: "commitments.seller: want 64 lowercase hex digits"},
		{name: "control characters in a quoted value", view: func(v *proofs.View) { v.PublicKey = "\x1b[2J\nvalide" },
			check: proofs.CheckKeyUnknown, detail: `\x1b[2J\nvalide`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			view := readView(t, "proof_proveit_gel.json")
			tt.view(view)
			r := vr.Verify(proofs.Input{View: view})
			require.Contains(t, r.Failures, tt.check)
			assert.Contains(t, r.Details[tt.check], tt.detail)
			assert.NotContains(t, r.Details[tt.check], "\x1b", "printable text only")
			assert.NotContains(t, r.Details[tt.check], "\n", "printable text only")
			var ce *proofs.CheckError
			require.ErrorAs(t, r.Err(), &ce)
			assert.Equal(t, r.Failures[0], ce.Check, "errors.As finds the first failure")
			var found bool
			for _, err := range r.Err().(interface{ Unwrap() []error }).Unwrap() {
				if errors.As(err, &ce) && ce.Check == tt.check {
					found = true
					if tt.typed != nil {
						tt.typed(t, err)
					}
				}
			}
			assert.True(t, found, "Err holds the %s failure", tt.check)
			data, err := json.Marshal(r)
			require.NoError(t, err)
			var decoded map[string]any
			require.NoError(t, json.Unmarshal(data, &decoded))
			assert.Contains(t, decoded["details"], string(tt.check))
		})
	}
	assert.NoError(t, proofs.Result{Failures: []proofs.Check{}}.Err())
}

// VerifyFolder gives the same results on one worker and on many, the
// witnesses of a batch checked once however many proofs of it verify at
// once: a folder of many batches, some proofs broken, run under -race in
// the package's tests.
func TestVerifyFolderWorkers(t *testing.T) {
	tl, trust, window := standInTrust(t, trustlayer.Options{BatchMaxSize: -1})
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "rekor"), 0o755))
	var cites []proofs.Citation
	for b := range 6 {
		for i, p := range issueBatch(t, tl, 40, standInDID) {
			data, err := tl.View(trustlayer.ProofID(p.view.ProofID))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(proofs.ViewFile(dir, p.view.ProofID), data, 0o644))
			if b != 5 { // the last batch's entry is not in the folder
				require.NoError(t, os.WriteFile(proofs.EntryFile(dir, p.view.Log.UUID), p.entry, 0o644))
			}
			d := p.disclosure
			switch i % 7 {
			case 3:
				d.RequestHash.Value = hexOf(byte(i))
			case 5:
				d.ResponseHash.Nonce = "not hex"
			}
			cites = append(cites, proofs.Citation{ProofID: p.view.ProofID, AgentDID: standInDID, Disclosure: &d})
		}
	}
	cites = append(cites, proofs.Citation{ProofID: "prf_20260101_000000_000000"}, proofs.Citation{ProofID: "../x"})

	one := newVerifier(t, trust, window, proofs.WithWorkers(1)).VerifyFolder(dir, cites)
	many := newVerifier(t, trust, window, proofs.WithWorkers(8)).VerifyFolder(dir, cites)
	assert.Equal(t, one, many)

	assert.Contains(t, one["prf_20260101_000000_000000"].Details[proofs.CheckViewMissing], "prf_20260101_000000_000000.json")
	assert.Contains(t, one["../x"].Details[proofs.CheckViewMissing], "not a proof id")
	counts := map[string]int{}
	for _, r := range one {
		switch {
		case r.Valid:
			counts["valid"]++
		case len(r.Failures) > 0:
			counts[string(r.Failures[0])]++
		}
	}
	// A batch of 40: 6 request values changed (i % 7 == 3), 5 response
	// nonces (i % 7 == 5), 29 intact; the last batch's 29 lack its entry.
	assert.Equal(t, map[string]int{"valid": 5 * 29, string(proofs.CheckRekorMissing): 29,
		string(proofs.CheckRequestPair): 6 * 6, string(proofs.CheckResponsePair): 6 * 5, string(proofs.CheckViewMissing): 2}, counts)
}

// The worker pool calls every index once, however many workers share it
// and steal from one another, and returns the error of the lowest index
// that failed, as one worker would.
func TestWorkerPool(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7, 100, 1001} {
		for _, workers := range []int{1, 2, 3, 8, 64} {
			vr := newVerifier(t, pinned(t), gelSeason, proofs.WithWorkers(workers))
			calls := make([]atomic.Int32, n)
			require.NoError(t, vr.Each(n, func(i int) error {
				calls[i].Add(1)
				if i%5 == 0 {
					runtime.Gosched() // uneven work: some workers finish early and steal
				}
				return nil
			}))
			for i := range calls {
				require.Equal(t, int32(1), calls[i].Load(), "n %d, %d workers: index %d", n, workers, i)
			}
			if n > 3 {
				err := vr.Each(n, func(i int) error {
					if i == n-1 || i == 3 {
						return fmt.Errorf("index %d", i)
					}
					return nil
				})
				assert.EqualError(t, err, "index 3", "n %d, %d workers", n, workers)
			}
		}
	}
}
