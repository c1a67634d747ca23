package seasonservice

import (
	"context"
	"sync/atomic"

	"github.com/arkforge/proveit-corpus/tools/seasonstore"
)

// CountingStore is a real store that counts its token look-ups, for the
// tests of this package and of seasonservice_test.
type CountingStore struct {
	seasonstore.Store
	lookups atomic.Int64
}

func (c *CountingStore) EnrollmentByToken(ctx context.Context, sum [32]byte) (seasonstore.Enrolled, error) {
	c.lookups.Add(1)
	return c.Store.EnrollmentByToken(ctx, sum)
}

// Lookups is how many times the store was asked for a token's enrollment.
func (c *CountingStore) Lookups() int { return int(c.lookups.Load()) }
