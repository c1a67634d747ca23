package seasonservice_test

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConcurrentEnrollSameKey: many enrollments of one key at once, on one
// track: exactly one 201, every other a 409, one enrollment kept.
func TestConcurrentEnrollSameKey(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db backend) {
		f := newFixture(t, db, options{limits: noLimits})
		p := f.newParticipant()
		const n = 24
		statuses := make([]int, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				statuses[i] = f.enroll(p, "conformite").status
			}()
		}
		close(start)
		wg.Wait()
		count := map[int]int{}
		for _, s := range statuses {
			count[s]++
		}
		assert.Equal(t, map[int]int{http.StatusCreated: 1, http.StatusConflict: n - 1}, count)
		out, _ := f.export("conformite")
		assert.Len(t, out.Enrollments.Enrollments, 1)
	})
}

// TestSubmitRacingTheClose: submissions racing the close, the record's
// cloture passing and the store's close following it, are each either
// recorded, answered with its receipt and exported with it, or refused
// with 409 and exported nowhere: the receipts answered are exactly the
// receipts exported, and each counted submission is the last accepted
// bytes. Once the store is closed, a new version is refused even if the
// clock says otherwise.
func TestSubmitRacingTheClose(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db backend) {
		f := newFixture(t, db, options{limits: noLimits})
		type sender struct {
			did, token, id string
		}
		var senders []sender
		for range 4 {
			p := f.newParticipant()
			id, token := f.enrolled(p, "conformite")
			senders = append(senders, sender{did: p.did, token: token, id: id})
		}
		f.clock.set(closing) // the last second: still open, bound included

		type outcome struct {
			sender  sender
			task    string
			body    []byte
			status  int
			receipt string
		}
		var (
			mu       sync.Mutex
			outcomes []outcome
			wg       sync.WaitGroup
			answered = make(chan struct{}, 80)
		)
		start := make(chan struct{})
		for _, s := range senders {
			for task := 1; task <= 10; task++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					taskID := fmt.Sprintf("conf-%02d", task)
					// Two versions of each task, one after the other.
					for v := range 2 {
						body := submission(s.did, taskID, fmt.Sprintf("v%d", v))
						a := f.submit(s.token, body)
						o := outcome{sender: s, task: taskID, body: body, status: a.status}
						if a.status == http.StatusOK {
							acc, _ := readAccepted(t, a)
							o.receipt = string(acc.Receipt)
						} else {
							assertRefusal(t, a, http.StatusConflict, "piste_fermee")
						}
						mu.Lock()
						outcomes = append(outcomes, o)
						mu.Unlock()
						answered <- struct{}{}
					}
				}()
			}
		}
		close(start)
		// The close, once a third of the submissions are answered and the rest
		// in flight: the record's cloture passes, then the operator closes the
		// store, which waits for every transaction in flight.
		for range 25 {
			<-answered
		}
		f.clock.set(closing.Add(time.Second))
		_, err := f.store.CloseTrack(context.Background(), 1, "conformite", closing.Add(time.Second))
		require.NoError(t, err)
		wg.Wait()

		out, counted := f.export("conformite")
		assert.True(t, out.Closed)
		receipts := map[string]bool{}
		last := map[string]outcome{} // by enrollment and task, the last accepted
		for _, o := range outcomes {
			if o.status == http.StatusOK {
				receipts[o.receipt] = true
				last[o.sender.id+"/"+o.task] = o
			}
		}
		exported := map[string]bool{}
		for _, r := range out.Receipts {
			exported[string(r)] = true
		}
		assert.Equal(t, receipts, exported, "every receipt answered is exported, and no other")
		require.Len(t, counted, len(last))
		for _, c := range counted {
			o, ok := last[c.EnrollmentID+"/"+c.TaskID]
			require.True(t, ok)
			assert.Equal(t, o.body, c.Body)
			assert.Equal(t, o.receipt, string(c.Receipt))
		}
		assert.GreaterOrEqual(t, len(receipts), 25)
		t.Logf("%d of %d submissions recorded before the close", len(receipts), len(outcomes))

		// Closed in the store: refused whatever the clock says.
		f.clock.set(during)
		s := senders[0]
		assertRefusal(t, f.submit(s.token, submission(s.did, "conf-01", "after")), http.StatusConflict, "piste_fermee")
		assertRefusal(t, f.enroll(f.newParticipant(), "conformite"), http.StatusConflict, "piste_fermee")
	})
}
