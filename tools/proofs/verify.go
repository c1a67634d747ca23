package proofs

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/oasisprotocol/curve25519-voi/primitives/ed25519"
	"github.com/transparency-dev/merkle/proof"

	"github.com/arkforge/proveit-corpus/internal/printable"
	"github.com/arkforge/proveit-corpus/manifest/pyjson"
)

// The fields every spec 3.1 proof commits (chain_data): the call's six,
// then the identity block, which the public view opens in "disclosed".
var (
	callFields     = []string{"request_hash", "response_hash", "transaction_id", "timestamp", "buyer_fingerprint", "seller"}
	identityFields = []string{"agent_identity", "agent_identity_verified", "did_resolution_status", "identity_consistent"}
)

// Window bounds the RFC 3161 time of the season's proofs, both ends
// included. A zero end leaves that side open; a Verifier is given a window
// only by an option that says which (WithSeason, WithAnchoredBefore,
// WithOpenWindow), so that a window left unset is an error, not every time.
type Window struct {
	Opening, Closing time.Time
}

// contains reports whether t lies within the window, bounds included.
func (w Window) contains(t time.Time) bool {
	return (w.Opening.IsZero() || !t.Before(w.Opening)) && (w.Closing.IsZero() || !t.After(w.Closing))
}

// The season's own acts (an enrollment, a submission, a published file)
// are dated to the second, the records' precision: a track is open from
// its ouverture to its cloture, both seconds included, so that whatever it
// dates within them lies between the record's two dates as written.

// OpenAt reports whether the window is open at now, to the second.
func (w Window) OpenAt(now time.Time) bool { return w.contains(now.Truncate(time.Second)) }

// NotYetOpenAt reports whether the window's opening is still to come at
// now, to the second.
func (w Window) NotYetOpenAt(now time.Time) bool { return now.Truncate(time.Second).Before(w.Opening) }

// ClosedAt reports whether the window's closing has passed at now, to the
// second.
func (w Window) ClosedAt(now time.Time) bool {
	return !w.Closing.IsZero() && now.Truncate(time.Second).After(w.Closing)
}

// Verifier verifies proofs against pinned trust material and a season's
// window. It is made by NewVerifier only, which validates both; the trust
// material it is given must not change afterwards. A Verifier it did not
// make (the zero value) panics on use rather than verify with nothing.
//
// A Verifier is safe for concurrent use by several goroutines. The
// witnesses of a batch (its token and its Rekor entry) are checked once, by
// the first proof of the batch that needs them; every other proof of the
// batch, on any goroutine, waits for and reads what that check found.
type Verifier struct {
	trust   *Trust
	season  Window
	workers int
	// signers are the history's keys ready to verify with, by their
	// encoding: each one's point is decoded once, not once a proof.
	signers   map[string]*ed25519.ExpandedPublicKey
	witnessed witnessMemo
}

// A VerifierOption configures the Verifier NewVerifier makes.
type VerifierOption func(*verifierConfig) error

type verifierConfig struct {
	window  *Window
	workers int
}

// The errors NewVerifier returns wrap one of these (errors.Is).
var (
	// ErrInvalidTrust: the trust material is missing or incomplete.
	ErrInvalidTrust = errors.New("invalid trust material")
	// ErrNoWindow: no option says which tokens' times are accepted; a
	// verifier never defaults to every time.
	ErrNoWindow = errors.New("no window for the tokens' time: give WithSeason, WithAnchoredBefore or WithOpenWindow")
	// ErrInvalidWindow: the window given is reversed, has a missing end,
	// or is given twice.
	ErrInvalidWindow = errors.New("invalid window for the tokens' time")
)

// WithSeason holds RFC 3161 times to a season's window, both ends given
// and included (docs/scoring.md, "Verifying proofs").
func WithSeason(w Window) VerifierOption {
	return func(c *verifierConfig) error {
		switch {
		case w.Opening.IsZero() || w.Closing.IsZero():
			return fmt.Errorf("%w: a season has an opening and a closing", ErrInvalidWindow)
		case w.Closing.Before(w.Opening):
			return fmt.Errorf("%w: the season closes before it opens (closing %s before opening %s)", ErrInvalidWindow,
				w.Closing.UTC().Format(time.RFC3339), w.Opening.UTC().Format(time.RFC3339))
		}
		return c.setWindow(w)
	}
}

// WithAnchoredBefore accepts the tokens dated at or before t, however
// early: a proof that something existed before a season opened.
func WithAnchoredBefore(t time.Time) VerifierOption {
	return func(c *verifierConfig) error {
		if t.IsZero() {
			return fmt.Errorf("%w: anchored before no time", ErrInvalidWindow)
		}
		return c.setWindow(Window{Closing: t})
	}
}

// WithOpenWindow accepts a token of any time: for a verification about no
// season. Proofs scored for a season are held to it with WithSeason.
func WithOpenWindow() VerifierOption {
	return func(c *verifierConfig) error { return c.setWindow(Window{}) }
}

// WithWorkers sets how many proofs VerifyFolder verifies at once (default
// runtime.GOMAXPROCS: every core). The results do not depend on it.
func WithWorkers(n int) VerifierOption {
	return func(c *verifierConfig) error {
		if n < 1 {
			return fmt.Errorf("%d workers: want at least one", n)
		}
		c.workers = n
		return nil
	}
}

func (c *verifierConfig) setWindow(w Window) error {
	if c.window != nil {
		return fmt.Errorf("%w: given twice", ErrInvalidWindow)
	}
	c.window = &w
	return nil
}

// NewVerifier makes a Verifier of trust material and options, one of which
// must set the tokens' window. It refuses trust material with no signing
// key, or with a key, a TSA or a log that cannot verify anything.
func NewVerifier(trust *Trust, opts ...VerifierOption) (*Verifier, error) {
	c := verifierConfig{workers: runtime.GOMAXPROCS(0)}
	for _, opt := range opts {
		if err := opt(&c); err != nil {
			return nil, err
		}
	}
	if c.window == nil {
		return nil, ErrNoWindow
	}
	if err := validateTrust(trust); err != nil {
		return nil, err
	}
	v := &Verifier{trust: trust, season: *c.window, workers: c.workers,
		signers: make(map[string]*ed25519.ExpandedPublicKey, len(trust.Keys))}
	for _, k := range trust.Keys {
		v.signers[k.Encoded] = expandKey(k.Public)
	}
	return v, nil
}

// validateTrust checks that every part of the trust material can verify:
// a Trust built by hand, not by PinnedTrust or ReadTrust, may lack some.
func validateTrust(t *Trust) error {
	if t == nil {
		return fmt.Errorf("%w: none given", ErrInvalidTrust)
	}
	if len(t.Keys) == 0 {
		return fmt.Errorf("%w: no signing key", ErrInvalidTrust)
	}
	for i, k := range t.Keys {
		if len(k.Public) != ed25519.PublicKeySize || k.Encoded == "" {
			return fmt.Errorf("%w: signing key %d (%q) is not a 32-byte Ed25519 key with its encoding", ErrInvalidTrust, i, k.ID)
		}
	}
	for i, k := range t.RekorKeys {
		if k.Public == nil || len(k.DER) == 0 {
			return fmt.Errorf("%w: Rekor key %d (%q) has no public key", ErrInvalidTrust, i, k.ID)
		}
	}
	for name, tsa := range t.TSAs {
		if tsa == nil || tsa.Cert == nil {
			return fmt.Errorf("%w: TSA %q has no certificate", ErrInvalidTrust, name)
		}
	}
	for name, l := range t.Logs {
		if l == nil || l.Public == nil || l.Note == nil || l.ID == "" {
			return fmt.Errorf("%w: Rekor log %q has no key", ErrInvalidTrust, name)
		}
	}
	return nil
}

// CheckError is one failed check and why it failed: the error of merkle,
// pkcs7, the timestamp or a signature's verification, or the rule the input
// broke. Result.Err gives them to a caller; a report shows their text.
type CheckError struct {
	Check Check
	Err   error
}

func (e *CheckError) Error() string { return string(e.Check) + ": " + e.Err.Error() }
func (e *CheckError) Unwrap() error { return e.Err }

// Err is nil for a proof no check failed, else every failure as a
// *CheckError, in the order of Failures (errors.As finds the first).
func (r Result) Err() error {
	if len(r.Failures) == 0 {
		return nil
	}
	errs := make([]error, len(r.Failures))
	for i, c := range r.Failures {
		switch e, detail := r.errs[c], r.Details[c]; {
		case e != nil:
			errs[i] = e
		case detail != "": // a result read back from JSON
			errs[i] = &CheckError{Check: c, Err: errors.New(detail)}
		default:
			errs[i] = &CheckError{Check: c, Err: errors.New("failed")}
		}
	}
	return errors.Join(errs...)
}

// Input is one proof to verify.
type Input struct {
	View *View
	// Entry is the Rekor entry of the proof's batch, as Rekor answers
	// GET /api/v1/log/entries/{uuid}; nil: not supplied.
	Entry []byte
	// EntryErr says why Entry is nil when the entry could not be read (a
	// file of the views folder that is not one): the reason its Rekor
	// entry is not supplied.
	EntryErr error
	// Disclosure is what the citing submission discloses; nil verifies the
	// view alone, with no pair to open.
	Disclosure *Disclosure
	// AgentDID is the citing submission's DID; "" with no submission.
	AgentDID string
}

// verification gathers one proof's failures as its checks run.
type verification struct {
	Result
}

// fail records a failed check and why; the first reason of a check is kept.
func (v *verification) fail(c Check, err error) {
	if slices.Contains(v.Failures, c) {
		return
	}
	v.Failures = append(v.Failures, c)
	if v.errs == nil {
		v.errs = make(map[Check]*CheckError, 2)
		v.Details = make(map[Check]string, 2)
	}
	v.errs[c] = &CheckError{Check: c, Err: err}
	v.Details[c] = printable.String(err.Error()) // the error may quote the input
}

func (v *verification) failAll(errs []*CheckError) {
	for _, e := range errs {
		v.fail(e.Check, e.Err)
	}
}

func (v *verification) incident(pointer string) { v.Incidents = append(v.Incidents, pointer) }

// checkOrder is each check's place in Checks.
var checkOrder = func() map[Check]int {
	m := make(map[Check]int, len(Checks))
	for i, c := range Checks {
		m[c] = i
	}
	return m
}()

// Verify runs every check on one proof, in order, and returns its result.
// A check whose input is missing fails by its own name; later checks still
// run where they can, so that a report names everything that is wrong.
func (vr *Verifier) Verify(in Input) Result {
	vr.mustBeMade()
	view := in.View
	r := &verification{}
	receivable := specAtLeast31(view.SpecVersion)
	if !receivable {
		r.fail(CheckSpecVersion, fmt.Errorf("spec_version %q, below 3.1", view.SpecVersion))
	}
	chain, chainErr := decodeHash(bareHex(view.Hashes.Chain))
	if chainErr != nil {
		chainErr = fmt.Errorf("hashes.chain: %w", chainErr)
	}
	commitments := checkCommitments(r, view, chain, chainErr)
	checkIdentity(r, view, commitments, in.AgentDID, receivable)
	if in.Disclosure != nil {
		r.RequestHash = checkPair(r, "request_hash", in.Disclosure.RequestHash, commitments, view.Hashes.Request, CheckRequestPair)
		r.ResponseHash = checkPair(r, "response_hash", in.Disclosure.ResponseHash, commitments, view.Hashes.Response, CheckResponsePair)
	}
	key, keyOK := vr.checkSignature(r, view, chain, chainErr)

	anchored, pending := checkBatch(r, view, chain, chainErr)
	signedAt, hasTime := parseIssued(view.Timestamp)
	if !pending && anchored != nil {
		w := vr.witness(view, anchored, in.Entry, in.EntryErr)
		r.failAll(w.failures)
		if w.tokenTime != nil {
			signedAt, hasTime = *w.tokenTime, true
		}
	}
	if keyOK && hasTime && retiredAt(key.Retired, signedAt) {
		r.fail(CheckKeyRetired, fmt.Errorf("key %q retired at %s, the proof dated %s", key.ID,
			key.Retired.UTC().Format(time.RFC3339), signedAt.UTC().Format(time.RFC3339)))
	}
	slices.SortFunc(r.Failures, func(a, b Check) int { return checkOrder[a] - checkOrder[b] })
	r.Pending = pending && len(r.Failures) == 0
	r.Valid = !pending && len(r.Failures) == 0
	if r.Failures == nil {
		r.Failures = []Check{}
	}
	if r.Incidents == nil {
		r.Incidents = []string{}
	}
	return r.Result
}

// errNotMade is the use of a Verifier NewVerifier did not make, a
// programming error: its zero value holds no trust material and no window.
var errNotMade = errors.New("proofs: a Verifier is made by NewVerifier")

func (vr *Verifier) mustBeMade() {
	if vr == nil || vr.trust == nil {
		panic(errNotMade)
	}
}

// failed is the result of a proof that failed one check before any other
// could run (its view missing or unreadable), for a reason.
func failed(c Check, why error) Result {
	r := &verification{}
	r.fail(c, why)
	r.Incidents = []string{}
	return r.Result
}

// specAtLeast31 reports whether a spec_version is "3.1" or later.
func specAtLeast31(s string) bool {
	major, minor, ok := strings.Cut(s, ".")
	if !ok {
		return false
	}
	ma, err1 := strconv.Atoi(major)
	mi, err2 := strconv.Atoi(minor)
	if err1 != nil || err2 != nil || ma < 0 || mi < 0 {
		return false
	}
	return ma > 3 || ma == 3 && mi >= 1
}

// commitment is one decoded commitment of a view.
type commitment struct {
	field string
	sum   [sha256.Size]byte
}

// commitments are a view's decoded commitments, sorted by field name.
type commitments []commitment

func (cs commitments) of(field string) ([]byte, bool) {
	i, ok := slices.BinarySearchFunc(cs, field, func(c commitment, f string) int { return strings.Compare(c.field, f) })
	if !ok {
		return nil, false
	}
	return cs[i].sum[:], true
}

// checkCommitments decodes every commitment, requires the fields a spec 3.1
// proof commits, and checks that their root is the chain hash. It returns
// the commitments it could decode.
func checkCommitments(r *verification, view *View, chain [sha256.Size]byte, chainErr error) commitments {
	cs := make(commitments, 0, len(view.Commitments))
	for field, c := range view.Commitments {
		sum, err := decodeHash(bareHex(c))
		if err != nil {
			r.fail(CheckCommitments, fmt.Errorf("commitments.%s: %w", field, err))
			continue
		}
		cs = append(cs, commitment{field, sum})
	}
	slices.SortFunc(cs, func(a, b commitment) int { return strings.Compare(a.field, b.field) })
	for _, fields := range [][]string{callFields, identityFields} {
		for _, f := range fields {
			if _, ok := cs.of(f); !ok {
				r.fail(CheckCommitments, fmt.Errorf("commitments.%s: missing", f))
			}
		}
	}
	if len(cs) == 0 {
		return cs
	}
	switch root := cs.root(); {
	case chainErr != nil:
		r.fail(CheckCommitmentsRoot, chainErr)
	case len(cs) != len(view.Commitments):
		r.fail(CheckCommitmentsRoot, errors.New("a commitment is not a SHA-256"))
	case string(root) != string(chain[:]):
		r.fail(CheckCommitmentsRoot, fmt.Errorf("the commitments' root is %x, not the chain hash", root))
	}
	return cs
}

// root is the RFC 6962 root over the commitments' leaf hashes, in field
// order, as CommitmentsRoot computes it.
func (cs commitments) root() []byte {
	var leaves [16][]byte // a view's commitments fit: no allocation for the list
	list := leaves[:0]
	for i := range cs {
		list = append(list, hasher.HashLeaf(cs[i].sum[:]))
	}
	return MerkleRoot(list)
}

// checkIdentity opens the identity block and binds it: each field opens its
// commitment, the identity is verified and bound, and, for a submission, it
// is the submission's DID. The opened DID becomes the outcome's only when
// everything holds on a receivable proof.
func checkIdentity(r *verification, view *View, cs commitments, agentDID string, receivable bool) {
	var opened [4]pyjson.Value // identityFields' values, in their order
	openedAll := true
	for i, f := range identityFields {
		d, ok := view.Disclosed[f]
		if !ok {
			r.fail(CheckIdentityOpening, fmt.Errorf("disclosed.%s: missing", f))
			openedAll = false
			continue
		}
		c, _ := cs.of(f)
		if err := opens(f, d.Nonce, d.Value, c); err != nil {
			r.fail(CheckIdentityOpening, fmt.Errorf("disclosed.%s: %w", f, err))
			openedAll = false
			continue
		}
		opened[i] = d.Value
		if flat, given := view.Flat[f]; given && !pyjson.Equal(flat, d.Value) {
			r.incident("/" + f)
		}
	}
	if !openedAll {
		return // not opened: identite_non_ouverte says why
	}
	did, isString := opened[0].(string)
	if !isString || did == "" || opened[1] != true || opened[2] != "bound" {
		r.fail(CheckIdentityUnbound, fmt.Errorf("the identity opens to agent_identity %s, agent_identity_verified %s, did_resolution_status %s, not a DID verified and bound",
			pyjson.Canonical(opened[0]), pyjson.Canonical(opened[1]), pyjson.Canonical(opened[2])))
		return
	}
	if agentDID != "" && did != agentDID {
		r.fail(CheckIdentityOtherDID, fmt.Errorf("the identity opens to %s, not the submission's %s", did, agentDID))
	}
	if receivable {
		r.AgentDID = did
	}
}

// checkPair opens one hash commitment with the submission's pair and
// returns the opened value, "" when it opens nothing. The view's flat copy
// of that hash is compared, for an incident only.
func checkPair(r *verification, field string, o Opening, cs commitments, flat string, c Check) string {
	if _, err := decodeHash(o.Value); err != nil {
		r.fail(c, fmt.Errorf("the submission's %s value: %w", field, err))
		return ""
	}
	commitment, _ := cs.of(field)
	if err := opens(field, o.Nonce, o.Value, commitment); err != nil {
		r.fail(c, fmt.Errorf("the submission's %s: %w", field, err))
		return ""
	}
	if bareHex(flat) != o.Value {
		r.incident("/hashes/" + strings.TrimSuffix(field, "_hash"))
	}
	return o.Value
}

// signatureOptions verify as crypto/ed25519 does: curve25519-voi with the
// standard library's rules (cofactorless, canonical S and R, any A),
// which TestEd25519AsStandardLibrary holds on edge-case vectors. It is
// about 1.6 times as fast (docs/performance.md).
var signatureOptions = &ed25519.Options{Verify: ed25519.VerifyOptionsStdLib}

// expandKey decodes an Ed25519 public key's point once, for every
// signature verifyEd25519 checks with it; nil when the point does not
// decode, a key the standard library verifies nothing with.
func expandKey(public []byte) *ed25519.ExpandedPublicKey {
	if len(public) != ed25519.PublicKeySize {
		return nil
	}
	x, err := ed25519.NewExpandedPublicKey(ed25519.PublicKey(public))
	if err != nil {
		return nil
	}
	return x
}

// verifyEd25519 is crypto/ed25519.Verify of a key expandKey prepared.
func verifyEd25519(key *ed25519.ExpandedPublicKey, message, sig []byte) bool {
	return key != nil && len(sig) == ed25519.SignatureSize && ed25519.VerifyExpandedWithOptions(key, message, sig, signatureOptions)
}

// checkSignature verifies ArkForge's Ed25519 signature over the 64 hex
// digits of the chain hash with the key of the pinned history the view
// names. It returns that key, for the retirement test.
func (vr *Verifier) checkSignature(r *verification, view *View, chain [sha256.Size]byte, chainErr error) (SigningKey, bool) {
	key, ok := vr.trust.signingKey(view)
	if !ok {
		r.fail(CheckKeyUnknown, fmt.Errorf("arkforge_kid %q, arkforge_pubkey %q: not a key of the pinned history", view.KeyID, view.PublicKey))
		return key, false
	}
	raw, hasPrefix := strings.CutPrefix(view.Signature, "ed25519:")
	var sig [ed25519.SignatureSize]byte
	sigOK := len(raw) == base64.RawURLEncoding.EncodedLen(len(sig))
	if sigOK {
		n, err := base64.RawURLEncoding.Decode(sig[:], []byte(raw))
		sigOK = err == nil && n == len(sig)
	}
	var message [2 * sha256.Size]byte // the chain hash's 64 hex digits
	hex.Encode(message[:], chain[:])
	switch signer := vr.signers[key.Encoded]; {
	case !hasPrefix:
		r.fail(CheckSignature, errors.New(`arkforge_signature: want "ed25519:" and base64url`))
	case !sigOK:
		r.fail(CheckSignature, errors.New("arkforge_signature: want 64 bytes in base64url without padding"))
	case chainErr != nil:
		r.fail(CheckSignature, chainErr)
	case !verifyEd25519(signer, message[:], sig[:]):
		r.fail(CheckSignature, fmt.Errorf("ed25519: the signature over the chain hash does not verify with key %q", key.ID))
	}
	return key, true
}

// checkBatch walks the audit path from the chain hash's leaf to the batch
// root, requiring the exact length RFC 6962 gives for (leaf_index,
// tree_size). It returns the hash the witnesses attest: the root, or the
// chain hash itself before spec 3.0, which had no batches; pending reports
// a batch not anchored yet.
func checkBatch(r *verification, view *View, chain [sha256.Size]byte, chainErr error) (anchored []byte, pending bool) {
	b := view.Batch
	if b == nil {
		if strings.HasPrefix(view.SpecVersion, "1.") || strings.HasPrefix(view.SpecVersion, "2.") {
			if chainErr == nil {
				return chain[:], false
			}
			return nil, false
		}
		r.fail(CheckBatchPath, errors.New("batch_anchor: missing"))
		return nil, false
	}
	if b.Status != anchoredStatus {
		return nil, true
	}
	root, rootErr := decodeHash(bareHex(b.Root))
	switch {
	case rootErr != nil:
		r.fail(CheckBatchPath, fmt.Errorf("batch_anchor.root: %w", rootErr))
		return nil, false
	case b.LeafIndex == nil || b.TreeSize == nil || *b.LeafIndex < 0 || *b.LeafIndex >= *b.TreeSize:
		r.fail(CheckBatchPath, errors.New("batch_anchor: want 0 ≤ leaf_index < tree_size"))
		return root[:], false
	}
	var buf [maxPathLength][]byte
	path := buf[:0]
	for i, h := range b.AuditPath {
		sum, err := decodeHash(h)
		if err != nil {
			r.fail(CheckBatchPath, fmt.Errorf("batch_anchor.audit_path[%d]: %w", i, err))
			return root[:], false
		}
		path = append(path, sum[:])
	}
	if chainErr != nil {
		r.fail(CheckBatchPath, chainErr)
	} else if err := proof.VerifyInclusion(hasher, uint64(*b.LeafIndex), uint64(*b.TreeSize),
		hasher.HashLeaf(chain[:]), path, root[:]); err != nil {
		r.fail(CheckBatchPath, err)
	}
	return root[:], false
}

// parseIssued reads the view's issuer-asserted timestamp, used for a key's
// retirement only when no token dates the proof.
func parseIssued(s string) (time.Time, bool) {
	t, err := time.Parse("2006-01-02T15:04:05Z", s)
	return t, err == nil
}

// hexSum is the hex SHA-256 of b.
func hexSum(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// each calls do(i) for every i below n, on the verifier's workers, and
// returns the error of the lowest i that failed (as one worker would have),
// or nil. Calls past a failure may still run; their results are the
// caller's to drop.
//
// Each worker takes the indices of a contiguous share in order and, its
// share done, the upper half of the largest share left. Proofs cited
// together are mostly of one batch: kept on one worker, the batch's
// witnesses are checked by it while the others verify other batches,
// instead of waiting for the check (a millisecond, some fifteen proofs'
// worth of work).
func (vr *Verifier) each(n int, do func(i int) error) error {
	workers := min(vr.workers, n)
	if workers <= 1 {
		for i := range n {
			if err := do(i); err != nil {
				return err
			}
		}
		return nil
	}
	errs := make([]error, n)
	q := newShares(n, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i, ok := q.take(w); ok; i, ok = q.take(w) {
				errs[i] = do(i)
			}
		})
	}
	wg.Wait()
	return firstError(errs)
}

// firstError is the error of the lowest index, as one worker would stop at.
func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// shares hands out the indices below n to workers: a contiguous share
// each, then halves of what is left of the others'.
type shares struct {
	mu   sync.Mutex
	left []struct{ next, end int }
}

func newShares(n, workers int) *shares {
	q := &shares{left: make([]struct{ next, end int }, workers)}
	for w := range q.left {
		q.left[w].next, q.left[w].end = w*n/workers, (w+1)*n/workers
	}
	return q
}

// take is worker w's next index; false when none is left anywhere.
func (q *shares) take(w int) (int, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	own := &q.left[w]
	if own.next == own.end {
		largest := -1
		for v := range q.left {
			if rest := q.left[v].end - q.left[v].next; rest > 0 && (largest < 0 || rest > q.left[largest].end-q.left[largest].next) {
				largest = v
			}
		}
		if largest < 0 {
			return 0, false
		}
		from := &q.left[largest]
		mid := from.next + (from.end-from.next)/2
		own.next, own.end, from.end = mid, from.end, mid
	}
	i := own.next
	own.next++
	return i, true
}

// entryCache reads each Rekor entry of a folder once, for every goroutine:
// a batch's hundred proofs name the same one.
type entryCache struct {
	dir   string
	mu    sync.Mutex
	byKey map[string]*entryRead
}

type entryRead struct {
	once sync.Once
	data []byte
	err  error
}

func newEntryCache(dir string) *entryCache {
	return &entryCache{dir: dir, byKey: map[string]*entryRead{}}
}

// read is readEntry's answer for the view's uuid, read by the first view to
// name it.
func (c *entryCache) read(v *View) ([]byte, error) {
	if v.Log == nil {
		return nil, nil
	}
	c.mu.Lock()
	e, ok := c.byKey[v.Log.UUID]
	if !ok {
		e = &entryRead{}
		c.byKey[v.Log.UUID] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.data, e.err = readEntry(c.dir, v) })
	return e.data, e.err
}
