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

// enrollmentCache keeps the enrollments tokens were found to belong to: an
// enrollment never changes once kept, and an enrollment hands in each of
// its tasks, often more than once, so that a deadline's submissions look
// their token up in memory rather than in the store, whose one writer
// they queue for already. Safe for concurrent use; replicas each keep
// their own, which stays true.
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
	c.mu.Lock()
	if c.entries == nil || len(c.entries) >= maxCachedEnrollments {
		c.entries = map[[32]byte]seasonstore.Enrolled{}
	}
	c.entries[sum] = en
	c.mu.Unlock()
	return en, nil
}
