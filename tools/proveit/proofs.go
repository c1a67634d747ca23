package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"

	proveitcorpus "github.com/arkforge/proveit-corpus"
	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/internal/printable"
	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/proofs/fetch"
	"github.com/arkforge/proveit-corpus/tools/proxycall"
	"github.com/arkforge/proveit-corpus/tools/score"
	"github.com/arkforge/proveit-corpus/tools/seal"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// runProofs is `proveit proofs fetch|verify`: conditions 1 and 2 of the
// proofs submissions cite, established from the published files alone
// (docs/scoring.md, "Verifying proofs").
func runProofs(args []string, stdout io.Writer) error {
	sub := ""
	if len(args) > 0 {
		sub = args[0]
	}
	switch sub {
	case "fetch":
		return subcommandUsage("proofs fetch", runProofsFetch(args[1:], stdout))
	case "verify":
		return subcommandUsage("proofs verify", runProofsVerify(args[1:], stdout))
	case "keys":
		return subcommandUsage("proofs keys", runProofsKeys(args[1:], stdout))
	case "-h", "-help", "--help":
		fs := newFlagSet("proofs")
		fs.Usage = func() {
			fmt.Fprintln(fs.Output(), "usage: proveit proofs fetch -views DIR [flags] SUBMISSION.json|PROOF_ID...")
			fmt.Fprintln(fs.Output(), "       proveit proofs verify -views DIR [flags] SUBMISSION.json|PROOF_ID...")
			fmt.Fprintln(fs.Output(), "       proveit proofs keys [-trust-layer URL] [-trust DIR]")
			fmt.Fprintln(fs.Output(), "proveit proofs fetch -h, verify -h and keys -h list their flags.")
		}
		return helpRequest{fs}
	}
	return badUsage(fmt.Errorf("want fetch, verify or keys, not %q", sub))
}

// citedProofs reads the command's arguments: each a proof id or a
// record's anchoring file (preenregistrement.ancrage.json), verified alone,
// or a submission, whose cited proofs are verified with its DID and
// disclosures. A submission rejected at entry is bad input here: it cites
// nothing a verification could open.
func citedProofs(args []string) ([]proofs.Citation, error) {
	var cites []proofs.Citation
	var subs []score.Parsed
	for _, arg := range args {
		if proofs.ValidProofID(arg) {
			cites = append(cites, proofs.Citation{ProofID: arg})
			continue
		}
		if filepath.Base(arg) == seal.AnchoringFile {
			// A record's anchoring cites the proof that anchored it.
			a, err := readAnchoring(arg)
			if err != nil {
				return nil, badInput(err)
			}
			cites = append(cites, proofs.Citation{ProofID: a.ProofID})
			continue
		}
		data, err := readSubmission(arg)
		if errors.Is(err, fs.ErrNotExist) && strings.HasPrefix(arg, "prf_") {
			return nil, badInput(fmt.Errorf("%s is not a proof id (prf_YYYYMMDD_HHMMSS_ and 6 lowercase hex digits) nor a file", arg))
		}
		if err != nil {
			return nil, badInput(err)
		}
		sub, err := score.ParseSubmission(arg, data)
		if err != nil {
			return nil, badInput(fmt.Errorf("%s %w", arg, err))
		}
		subs = append(subs, score.Parsed{Submission: sub})
	}
	return append(score.Citations(subs), cites...), nil
}

func runProofsFetch(args []string, stdout io.Writer) error {
	fs := newFlagSet("proofs fetch")
	views := fs.String("views", "", "the views folder to fill (required): <proof_id>.json and rekor/<uuid>.json")
	trustLayer := fs.String("trust-layer", fetch.DefaultTrustLayer, "Trust Layer's base URL")
	rekor := fs.String("rekor", fetch.DefaultRekor, "the Rekor log's base URL")
	attempts := fs.Int("attempts", 3, "tries of each request, on a network error, a 429 or a 5xx")
	timeout := fs.Duration("timeout", 30*time.Second, "the longest one request may take")
	deadline := fs.Duration("deadline", 10*time.Minute, "the longest the whole fetch may take; what is left then is FAILED, read at the next fetch")
	maxWait := fs.Duration("max-wait", fetch.DefaultMaxWait, "the longest a Retry-After is waited for; past it, FAILED says when to fetch again")
	budget := fs.Int("budget", fetch.DefaultBudget, fmt.Sprintf("the most reads of Trust Layer's views (%d a read, retries included) this fetch may make; "+
		"Trust Layer blocks an address past %d an hour (specification 10), so a fetch needing more is refused before it starts", fetch.BatchSize, fetch.DefaultBudget))
	fs.args = "SUBMISSION.json|PROOF_ID..."
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case *views == "":
		return badUsage(errors.New("-views is required: the folder the views are kept in"))
	case fs.NArg() == 0:
		return badUsage(errors.New("no submission or proof id given"))
	case *attempts < 1:
		return badUsage(errors.New("-attempts: at least 1"))
	case *budget < 1:
		return badUsage(errors.New("-budget: at least 1"))
	case *timeout <= 0 || *deadline <= 0 || *maxWait <= 0:
		return badUsage(errors.New("-timeout, -deadline and -max-wait: each more than 0s"))
	}
	cites, err := citedProofs(fs.Args())
	if err != nil {
		return err
	}
	var ids []string
	for _, c := range cites {
		if !slices.Contains(ids, c.ProofID) {
			ids = append(ids, c.ProofID)
		}
	}
	f := &fetch.Fetcher{
		Client: &http.Client{Timeout: *timeout}, TrustLayer: *trustLayer, Rekor: *rekor,
		Dir: *views, UserAgent: fetch.UserAgent(proveitcorpus.Version()),
		Attempts: *attempts, Backoff: 500 * time.Millisecond, MaxWait: *maxWait,
		Deadline: *deadline, Budget: *budget,
	}
	// An interrupt ends the fetch as its deadline does: every file is
	// whole, and what was not read is FAILED, read at the next fetch.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	r, err := f.Fetch(ctx, ids)
	var overBudget *fetch.BudgetError
	switch {
	case errors.As(err, &overBudget):
		return badUsage(fmt.Errorf("%w; fetch these submissions in parts an hour apart, or raise -budget", err))
	case err != nil:
		return badInput(err)
	}
	fmt.Fprintf(stdout, "%d views read, %d kept; %d Rekor entries read, %d kept; %d pending\n",
		r.Read, r.Kept, r.EntriesRead, r.EntriesKept, len(r.Pending))
	for _, id := range r.Pending {
		fmt.Fprintf(stdout, "PENDING %s: its batch is not anchored yet; fetch again later\n", printable.String(id))
	}
	for _, e := range r.Errors {
		fmt.Fprintf(stdout, "FAILED %s\n", printable.String(e.Error()))
	}
	if len(r.Errors) > 0 {
		return errFailed
	}
	return nil
}

// seasonFlags say which season bounds the tokens' time: the dates of a
// track's record, or of a record named, either end overridable.
type seasonFlags struct {
	track            string
	record           string
	opening, closing string
}

func (s *seasonFlags) register(fs *flagSet) {
	registerTrack(fs, &s.track, "no record: say -record, or -opening and -closing")
	fs.StringVar(&s.record, "record", "", "the pre-registration record whose ouverture and cloture bound the tokens' time (default "+season.Dir+"/preenregistrement[-<track>].json)")
	fs.StringVar(&s.opening, "opening", "", "the season's opening, RFC 3339 in UTC, instead of the record's")
	fs.StringVar(&s.closing, "closing", "", "the season's closing, RFC 3339 in UTC, instead of the record's")
}

// window resolves the flags into the season's window: the record's, read
// once, either end overridden.
func (s *seasonFlags) window() (proofs.Window, error) {
	if s.record == "" && s.track != "" {
		t, err := corpus.TrackNamed(s.track)
		if err != nil {
			return proofs.Window{}, badUsage(err)
		}
		s.record = season.RecordFile(t)
	}
	var rec *seal.Record
	if s.record != "" {
		read, err := seal.ReadRecord(s.record)
		if err != nil {
			return proofs.Window{}, badInput(err)
		}
		rec = &read
	}
	return recordWindow(rec, s.record, s.opening, s.closing)
}

// recordWindow is the season window of proveit score and proofs verify
// alike: the ouverture and cloture of rec (read from file; nil when no
// record is named), either end overridden by opening or closing, RFC 3339
// in UTC. Both ends are required: an open window would accept any token's
// time.
func recordWindow(rec *seal.Record, file, opening, closing string) (proofs.Window, error) {
	var w proofs.Window
	if rec != nil {
		var err error
		if w, err = rec.Window(); err != nil {
			return w, badInput(fmt.Errorf("%s %w", file, err))
		}
	}
	for _, end := range []struct {
		flag, value string
		into        *time.Time
	}{{"-opening", opening, &w.Opening}, {"-closing", closing, &w.Closing}} {
		if end.value == "" {
			continue
		}
		t, err := seal.ParseUTC(end.value)
		if err != nil {
			return w, badUsage(fmt.Errorf("%s %w", end.flag, err))
		}
		*end.into = t
	}
	if w.Opening.IsZero() || w.Closing.IsZero() {
		return w, badUsage(errors.New("say which season bounds the tokens' time: -track, -record, or -opening and -closing"))
	}
	return w, nil // the verifier's constructor refuses a season that closes before it opens
}

// newVerifier is the verifier of proofs verify and score -views: the trust
// material and the season window, both resolved.
func newVerifier(trust *proofs.Trust, window proofs.Window) (*proofs.Verifier, error) {
	vr, err := proofs.NewVerifier(trust, proofs.WithSeason(window))
	if err != nil {
		return nil, badInput(err)
	}
	return vr, nil
}

// loadTrust reads the trust material of -trust, or the pinned one.
func loadTrust(dir string) (*proofs.Trust, error) {
	if dir == "" {
		return proofs.PinnedTrust()
	}
	t, err := proofs.ReadTrust(dir)
	if err != nil {
		return nil, badInput(err)
	}
	return t, nil
}

const trustUsage = "trust material laid out as tools/proofs/trust (default: the one the repository pins, with its provenance)"

func runProofsVerify(args []string, stdout io.Writer) error {
	fs := newFlagSet("proofs verify")
	views := fs.String("views", "", "the views folder proveit proofs fetch filled (required)")
	trustDir := fs.String("trust", "", trustUsage)
	var s seasonFlags
	s.register(fs)
	out := fs.String("o", "", "write the verifier's input (docs/contract.md, section 7) to this file")
	format := fs.String("format", "text", "text or json")
	fs.args = "SUBMISSION.json|PROOF_ID..."
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case *views == "":
		return badUsage(errors.New("-views is required: the folder proveit proofs fetch filled"))
	case *format != "json" && *format != "text":
		return badUsage(fmt.Errorf("-format %q: want json or text", *format))
	case fs.NArg() == 0:
		return badUsage(errors.New("no submission or proof id given"))
	}
	// A folder that is not there is bad input, not a missing view for
	// every proof.
	if err := requireFolder("-views", *views); err != nil {
		return err
	}
	window, err := s.window()
	if err != nil {
		return err
	}
	trust, err := loadTrust(*trustDir)
	if err != nil {
		return err
	}
	cites, err := citedProofs(fs.Args())
	if err != nil {
		return err
	}
	vr, err := newVerifier(trust, window)
	if err != nil {
		return err
	}
	// The results are reported whatever they are; a trust failure is said
	// last, in one line.
	results, untrusted := score.VerifyCited(vr, trust, *views, cites)
	if *out != "" {
		if err := writeReport(*out, proofs.Outcomes(results)); err != nil {
			return err
		}
	}
	if *format == "json" {
		data, err := score.MarshalReport(results)
		if err != nil {
			return err
		}
		if _, err := stdout.Write(data); err != nil {
			return err
		}
	} else {
		io.WriteString(stdout, resultsText(results))
	}
	if untrusted != nil {
		return checkFailed(untrusted)
	}
	for _, r := range results {
		if len(r.Failures) > 0 {
			return errFailed
		}
	}
	return nil
}

// resultsText is the report for people: one line a proof, then a line
// for each failed check's detail, then its incidents. A proof id is the
// submission's, shown printable.
func resultsText(results map[string]proofs.Result) string {
	var b strings.Builder
	for _, id := range slices.Sorted(maps.Keys(results)) {
		r := results[id]
		id := printable.String(id)
		switch {
		case r.Valid:
			fmt.Fprintf(&b, "%s valide\n", id)
		case r.Pending:
			fmt.Fprintf(&b, "%s en_attente: its batch is not anchored yet\n", id)
		default:
			checks := make([]string, len(r.Failures))
			for i, c := range r.Failures {
				checks[i] = string(c)
			}
			fmt.Fprintf(&b, "%s invalide: %s\n", id, strings.Join(checks, ", "))
			for _, c := range r.Failures {
				if d, ok := r.Details[c]; ok {
					fmt.Fprintf(&b, "%s %s: %s\n", id, c, printable.String(d))
				}
			}
		}
		for _, p := range r.Incidents {
			fmt.Fprintf(&b, "%s incident: the view's flat field %s differs from its opened value (a Trust Layer incident)\n", id, p)
		}
	}
	return b.String()
}

func writeReport(file string, v any) error {
	data, err := score.MarshalReport(v)
	if err != nil {
		return err
	}
	return os.WriteFile(file, data, 0o644)
}

// runProofsKeys holds the trust material to the key history Trust Layer
// publishes now: a key it signs or submits to Rekor with that the material
// does not pin would fail every proof of the season, so the operator runs
// this before the opening and again before the close.
func runProofsKeys(args []string, stdout io.Writer) error {
	fs := newFlagSet("proofs keys")
	trustLayer := fs.String("trust-layer", fetch.DefaultTrustLayer, "Trust Layer's base URL, whose GET /v1/pubkey is read")
	trustDir := fs.String("trust", "", trustUsage)
	timeout := fs.Duration("timeout", 30*time.Second, "the longest the call may take")
	if err := fs.Parse(args); err != nil {
		return err
	}
	trust, err := loadTrust(*trustDir)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	data, err := (&proxycall.Client{URL: *trustLayer}).KeyHistory(ctx)
	if err != nil {
		return badInput(err)
	}
	name := printable.String(strings.TrimSuffix(*trustLayer, "/") + "/v1/pubkey")
	lines, err := trust.CompareKeyHistory(name, data)
	if err != nil {
		return badInput(err)
	}
	for _, line := range lines {
		fmt.Fprintf(stdout, "MISMATCH %s\n", printable.String(line))
	}
	if len(lines) > 0 {
		return errFailed
	}
	fmt.Fprintf(stdout, "OK %d signing keys and %d Rekor keys of %s are the ones %s pins\n", len(trust.Keys), len(trust.RekorKeys), name, trust.Name())
	return nil
}
