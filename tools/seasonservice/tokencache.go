package seasonservice

import (
	"context"
	"sync"

	"github.com/arkforge/proveit-corpus/tools/seasonstore"
)

// maxCachedEnrollments bounds the cache: past it, it starts over. A
// season's enrollments are thousands; only tokens the store knew are kept,
// so that unknown ones cannot fill it.
const maxCachedEnrollments = 100_000

// enrollmentCache keeps the enrollments tokens belong to, as this process
// recorded them or found them in the store: an enrollment never changes
// once kept, and an enrollment hands in each of its tasks, often more than
// once, so that a deadline's submissions look their token up in memory
// rather than in the store, whose one writer they queue for already. Safe
// for concurrent use; replicas each keep their own, which stays true.
type enrollmentCache struct {
	mu      sync.Mutex
	entries map[[32]byte]seasonstore.Enrolled
}

// byToken is the enrollment of the token whose SHA-256 is sum, from the
// cache or else from the store.
func (c *enrollmentCache) byToken(ctx context.Context, store seasonstore.Store, sum [32]byte) (seasonstore.Enrolled, error) {
	c.mu.Lock()
	en, ok := c.entries[sum]
	c.mu.Unlock()
	if ok {
		return en, nil
	}
	en, err := store.EnrollmentByToken(ctx, sum)
	if err != nil {
		return en, err
	}
	c.keep(sum, en)
	return en, nil
}

// keep remembers that the token whose SHA-256 is sum is en's: called once
// the store holds en, never before.
func (c *enrollmentCache) keep(sum [32]byte, en seasonstore.Enrolled) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || len(c.entries) >= maxCachedEnrollments {
		c.entries = map[[32]byte]seasonstore.Enrolled{}
	}
	c.entries[sum] = en
}
