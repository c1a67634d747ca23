package index

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/score"
)

// This file is the Index's one use of the replay (package score) and of
// the proofs' verification: everything else reads what it returns.

// replayer scores a track's ranked enrollments one at a time, each exactly
// as proveit score scores it alone, with the season's proofs verified once.
type replayer struct {
	replay   *score.Replay
	verifier *proofs.Verifier
	views    string
	trust    *proofs.Trust
	// results are the season's proofs, each verified with its first
	// citation in the ranked enrollments' order; firstCiter is that
	// enrollment's position.
	results    map[string]proofs.Result
	firstCiter map[string]int
	// subs are the ranked enrollments' submissions, read once for the
	// verification and each released once scored.
	subs [][]score.Parsed
}

// newReplayer scores the track's enrollments on its season's replay,
// built once (score.OpenSeason) and shared by every enrollment.
func newReplayer(in *trackInputs, trust *proofs.Trust, verifier *proofs.Verifier, views string) *replayer {
	return &replayer{replay: in.season.Replay, trust: trust, verifier: verifier, views: views}
}

// verifySeason verifies every proof the ranked enrollments cite, once,
// and refuses while one is pending, naming them all.
func (r *replayer) verifySeason(in *trackInputs, ranked []*Enrollment) error {
	var cites []proofs.Citation
	r.firstCiter = map[string]int{}
	r.subs = make([][]score.Parsed, len(ranked))
	for i, en := range ranked {
		subs, err := in.submissions(en)
		if err != nil {
			return err
		}
		r.subs[i] = subs
		for _, c := range score.Citations(subs) {
			if _, seen := r.firstCiter[c.ProofID]; !seen {
				r.firstCiter[c.ProofID] = i
			}
			cites = append(cites, c)
		}
	}
	var err error
	r.results, err = score.VerifyCited(r.verifier, r.trust, r.views, cites)
	var untrusted *proofs.UntrustedError
	if errors.As(err, &untrusted) {
		return fmt.Errorf("refusing to publish: %w", err)
	}
	var pending []string
	for id, res := range r.results {
		if res.Pending {
			pending = append(pending, id)
		}
	}
	if len(pending) > 0 {
		slices.Sort(pending)
		return &PendingError{Proofs: pending}
	}
	return nil
}

// PendingError refuses an Index while cited proofs await their batch's
// anchoring: no score is rendered for a submission citing one.
type PendingError struct{ Proofs []string }

func (e *PendingError) Error() string {
	return fmt.Sprintf("refusing to publish: %d cited proofs are pending (their batch is not anchored yet; fetch the views again later): %s",
		len(e.Proofs), strings.Join(e.Proofs, ", "))
}

// score replays the i-th ranked enrollment's submissions.
func (r *replayer) score(i int) (*replayed, error) {
	subs := r.subs[i]
	r.subs[i] = nil
	cites := score.Citations(subs)
	// A proof another enrollment cited first is verified again with this
	// one's citation, as its own replay would: its DID and disclosure.
	var shared []proofs.Citation
	for _, c := range cites {
		if r.firstCiter[c.ProofID] != i {
			shared = append(shared, c)
		}
	}
	own := r.verifier.VerifyFolder(r.views, shared)
	results := make(map[string]proofs.Result, len(cites))
	for _, c := range cites {
		if res, ok := own[c.ProofID]; ok {
			results[c.ProofID] = res
		} else {
			results[c.ProofID] = r.results[c.ProofID]
		}
	}
	report, err := r.replay.Score(subs, score.Verified(results))
	if err != nil {
		return nil, err
	}
	return replayedOf(report, subs)
}

// constant is the constant-best-answer row of the track.
func (r *replayer) constant() (Constant, string, error) {
	report, err := r.replay.Score(nil, score.Verified(map[string]proofs.Result{}))
	if err != nil {
		return Constant{}, "", err
	}
	return Constant{Verdict: report.Constant.Verdict, Success: report.Constant.Success, OutOf: report.Success.OutOf}, report.Anchoring, nil
}

// replayedOf is what the pages show of a report.
func replayedOf(report *score.Report, subs []score.Parsed) (*replayed, error) {
	out := &replayed{
		report:     report,
		conditions: string(report.Conditions12),
		overclaim:  Overclaim{Unsupported: report.Overclaim.Unsupported, Rendered: report.Overclaim.Rendered, Rate: report.Overclaim.Rate},
		success:    Success{OutOf: report.Success.OutOf},
	}
	if report.Success.Founded == nil {
		return nil, errors.New("the replay rendered no score: a cited proof is pending")
	}
	out.success.Founded = *report.Success.Founded
	for _, t := range report.Tasks {
		tv := taskView{ID: t.TaskID, Status: string(t.Status), Exact: t.VerdictExact, Founded: t.VerdictFounded}
		if t.Status == score.Rendered {
			out.rendered++
		}
		if t.Reason != nil {
			tv.Reason = *t.Reason
		}
		if t.Verdict != nil {
			tv.Verdict = *t.Verdict
		}
		for _, f := range t.MissingFacts {
			tv.Missing = append(tv.Missing, factText(f.Resource, f.Field, f.Value))
		}
		for _, a := range t.Assertions {
			av := assertionView{ID: a.ID, Status: string(a.Status)}
			if a.Cause != nil {
				av.Cause = string(*a.Cause)
			}
			for _, id := range slices.Sorted(maps.Keys(a.Failures)) {
				checks := make([]string, len(a.Failures[id]))
				for k, c := range a.Failures[id] {
					checks[k] = string(c)
				}
				av.Failures = append(av.Failures, proofFailures{ProofID: id, Checks: checks})
			}
			tv.Assertions = append(tv.Assertions, av)
		}
		out.tasks = append(out.tasks, tv)
	}
	for _, p := range subs {
		if p.Submission != nil && p.Submission.Narrative != "" {
			out.narratives = append(out.narratives, Narrative{TaskID: p.Submission.TaskID, Text: p.Submission.Narrative})
		}
	}
	withClaims(out, report, subs)
	return out, nil
}
