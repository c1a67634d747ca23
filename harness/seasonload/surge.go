package seasonload

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/arkforge/proveit-corpus/harness/participant"
	"github.com/arkforge/proveit-corpus/tools/index"
	"github.com/arkforge/proveit-corpus/tools/seal"
	"github.com/arkforge/proveit-corpus/tools/seasonservice"
	"github.com/arkforge/proveit-corpus/tools/seasonstore"
)

// Outcome is what one submission got in the end, and how many times it
// was sent to get it.
type Outcome struct {
	// Sent is how many times it was sent: more than once when a send got
	// no answer and the client sent the same bytes again.
	Sent int
	// Status is the last answer's HTTP status, 0 when none came (a
	// transport error, or an answer that is not the service's: a
	// frontal's own error page).
	Status int
	// Code is a refusal's erreur, "" for an acknowledgement.
	Code string
	// Accepted is the 200's body: its receipt, whether it replaces.
	Accepted *participant.Accepted
	// Latency is the last send's, from the request to its answer.
	Latency time.Duration
	// Err is why the last send got no answer.
	Err error
}

// Acknowledged tells a 200 with a receipt.
func (o Outcome) Acknowledged() bool { return o.Accepted != nil }

// Answered tells an answer of the service's: an acknowledgement or one
// of its refusals.
func (o Outcome) Answered() bool { return o.Status != 0 }

// Refused tells whether the send got no answer because nothing listened
// on the address (the connection was refused), as after a kill.
func (o Outcome) Refused() bool { return errors.Is(o.Err, syscall.ECONNREFUSED) }

// Kind names the outcome for a count: "acknowledged", "refused: <status>
// <erreur>", or "no answer".
func (o Outcome) Kind() string {
	switch {
	case o.Acknowledged():
		return "acknowledged"
	case o.Answered():
		return fmt.Sprintf("refused: %d %s", o.Status, o.Code)
	}
	return "no answer"
}

// Surge hands submissions in at once.
type Surge struct {
	// Client is the participant's client of the service.
	Client *participant.Season
	// Conns is how many clients send at once, each one submission at a
	// time (default 1).
	Conns int
	// Attempts bounds how many times a submission that got no answer is
	// sent, the same bytes each time (default 1: never again).
	Attempts int
	// Pause is the wait before sending again.
	Pause time.Duration
	// Done, if set, is told each submission's final outcome, from the
	// goroutine of the client that sent it.
	Done func(i int, o Outcome)
}

// Result is a surge's outcomes, one per submission in order, and how long
// it took from the first send to the last answer.
type Result struct {
	Outcomes []Outcome
	Elapsed  time.Duration
}

// Run hands subs in and returns when each has its outcome.
func (s Surge) Run(subs []Submission) *Result {
	r := &Result{Outcomes: make([]Outcome, len(subs))}
	next := make(chan int)
	var wg sync.WaitGroup
	start := time.Now()
	for range max(1, min(s.Conns, len(subs))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				o := s.send(subs[i])
				r.Outcomes[i] = o
				if s.Done != nil {
					s.Done(i, o)
				}
			}
		}()
	}
	for i := range subs {
		next <- i
	}
	close(next)
	wg.Wait()
	r.Elapsed = time.Since(start)
	return r
}

// send sends one submission until it is answered, at most Attempts times.
func (s Surge) send(sub Submission) Outcome {
	var o Outcome
	for o.Sent < max(1, s.Attempts) {
		if o.Sent > 0 {
			time.Sleep(s.Pause)
		}
		o = Outcome{Sent: o.Sent + 1}
		start := time.Now()
		accepted, err := s.Client.Submit(sub.Entrant.Token, sub.Body)
		o.Latency = time.Since(start)
		var refusal *participant.Refusal
		switch {
		case err == nil:
			o.Status, o.Accepted = 200, accepted
		case errors.As(err, &refusal):
			o.Status, o.Code = refusal.Status, refusal.Code
		default:
			o.Err = err
		}
		if o.Answered() {
			break
		}
	}
	return o
}

// Count is how many submissions had one kind of outcome.
type Count struct {
	Kind string
	N    int
}

// Counts are the outcomes by kind: acknowledged first, then refusals by
// status and erreur, then no answer.
func (r *Result) Counts() []Count {
	n := map[string]int{}
	for _, o := range r.Outcomes {
		n[o.Kind()]++
	}
	var counts []Count
	for kind, c := range n {
		counts = append(counts, Count{kind, c})
	}
	rank := func(kind string) int {
		switch kind {
		case "acknowledged":
			return 0
		case "no answer":
			return 2
		}
		return 1
	}
	sort.Slice(counts, func(i, j int) bool {
		if a, b := rank(counts[i].Kind), rank(counts[j].Kind); a != b {
			return a < b
		}
		return counts[i].Kind < counts[j].Kind
	})
	return counts
}

// Acknowledged is how many submissions were acknowledged.
func (r *Result) Acknowledged() int { return r.count(Outcome.Acknowledged) }

// Answered is how many got an answer of the service's.
func (r *Result) Answered() int { return r.count(Outcome.Answered) }

// Resent is how many submissions were sent more than once.
func (r *Result) Resent() int {
	return r.count(func(o Outcome) bool { return o.Sent > 1 })
}

func (r *Result) count(is func(Outcome) bool) int {
	n := 0
	for _, o := range r.Outcomes {
		if is(o) {
			n++
		}
	}
	return n
}

// Rate is the submissions answered per second of the surge.
func (r *Result) Rate() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Answered()) / r.Elapsed.Seconds()
}

// Latency is the p-th percentile (0 to 100) of the answered submissions'
// latencies, 0 when none was answered.
func (r *Result) Latency(p float64) time.Duration {
	var l []time.Duration
	for _, o := range r.Outcomes {
		if o.Answered() {
			l = append(l, o.Latency)
		}
	}
	if len(l) == 0 {
		return 0
	}
	slices.Sort(l)
	i := int(p / 100 * float64(len(l)))
	return l[min(max(i, 0), len(l)-1)]
}

// EnrollInStore keeps the entrants' enrollments in store as the service
// keeps them (the same ids, DIDs, keys' and tokens' hashes), so that
// StoreSurge hands the store the same rows.
func EnrollInStore(ctx context.Context, store seasonstore.Store, track string, entrants []Entrant) error {
	now := seal.FormatUTC(time.Now())
	for _, e := range entrants {
		token, err := base64.RawURLEncoding.DecodeString(e.Token)
		if err != nil {
			return fmt.Errorf("enrollment %s: its token: %w", e.ID, err)
		}
		keySum := sha256.Sum256([]byte(e.Key))
		_, err = store.Enroll(ctx, seasonstore.NewEnrollment{Season: Number, Track: track, TokenSHA256: sha256.Sum256(token),
			Enrollment: index.Enrollment{ID: e.ID, Agent: agentName, DID: e.DID, Key: hex.EncodeToString(keySum[:]),
				DIDHistory: []string{e.DID}, EnrolledAt: now, Table: index.TableCommunity, Stack: stackName, ProofsLink: proofsLink}})
		if err != nil {
			return fmt.Errorf("enrollment %s: %w", e.ID, err)
		}
	}
	return nil
}

// StoreSurge hands the same submissions to the store itself, conns at a
// time, each recorded with the receipt the service signs (the same
// members, signed with key): what the store sustains alone, without HTTP,
// the token's look-up and the entry check.
func StoreSurge(ctx context.Context, store seasonstore.Store, key ed25519.PrivateKey, subs []Submission, conns int) *Result {
	r := &Result{Outcomes: make([]Outcome, len(subs))}
	next := make(chan int)
	var wg sync.WaitGroup
	start := time.Now()
	for range max(1, min(conns, len(subs))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				sub := subs[i]
				begun := time.Now()
				out, err := store.Submit(ctx, seasonstore.NewSubmission{EnrollmentID: sub.Entrant.ID, TaskID: sub.Task, Body: sub.Body,
					ReceivedAt: begun.UTC().Truncate(time.Second)}, func(f seasonstore.ReceiptFacts) ([]byte, error) {
					return seasonservice.SignReceipt(key, f), nil
				})
				o := Outcome{Sent: 1, Latency: time.Since(begun)}
				if err != nil {
					o.Status, o.Code = 500, err.Error()
				} else {
					o.Status, o.Accepted = 200, &participant.Accepted{Recorded: true, Replaces: out.Replaces, Receipt: out.Receipt}
				}
				r.Outcomes[i] = o
			}
		}()
	}
	for i := range subs {
		next <- i
	}
	close(next)
	wg.Wait()
	r.Elapsed = time.Since(start)
	return r
}
