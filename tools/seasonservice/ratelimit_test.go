package seasonservice

import (
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestLimiter: a token bucket per key, refilled at its rate up to its
// burst, saying how long until the next token; its memory bounded by the
// entries it may hold, whatever the number of keys seen.
func TestLimiter(t *testing.T) {
	now := time.Date(2026, 10, 2, 9, 0, 0, 0, time.UTC)
	l := newLimiter(Rate{PerMinute: 6, Burst: 3}, 100)
	for i := range 3 {
		ok, _ := l.take("k", now)
		assert.True(t, ok, "call %d of the burst", i)
	}
	ok, wait := l.take("k", now)
	assert.False(t, ok)
	assert.InDelta(t, float64(10*time.Second), float64(wait), float64(time.Millisecond))
	ok, wait = l.take("k", now.Add(4*time.Second))
	assert.False(t, ok)
	assert.InDelta(t, float64(6*time.Second), float64(wait), float64(time.Millisecond))
	ok, _ = l.take("k", now.Add(10*time.Second))
	assert.True(t, ok, "refilled one token")
	ok, _ = l.take("other", now)
	assert.True(t, ok, "each key its own bucket")

	// An hour later the bucket is full again, no more.
	later := now.Add(time.Hour)
	for range 3 {
		ok, _ = l.take("k", later)
		assert.True(t, ok)
	}
	ok, _ = l.take("k", later)
	assert.False(t, ok)

	// A flood of keys: the memory stays within the entries.
	for i := range 10_000 {
		l.take(strconv.Itoa(i), now)
		assert.LessOrEqual(t, l.size(), 100)
	}
	// A key seen recently survives the newcomers' rotation.
	l = newLimiter(Rate{PerMinute: 1, Burst: 1}, 10)
	l.take("active", now)
	for i := range 4 {
		l.take(strconv.Itoa(i), now)
	}
	ok, _ = l.take("active", now)
	assert.False(t, ok, "its empty bucket is remembered")

	none := newLimiter(Rate{PerMinute: -1}, 10)
	ok, _ = none.take("k", now)
	assert.True(t, ok, "a negative rate sets no limit")
	zero := newLimiter(Rate{PerMinute: 0, Burst: 1}, 10)
	zero.take("k", now)
	ok, wait = zero.take("k", now.Add(24*time.Hour))
	assert.False(t, ok)
	assert.Positive(t, wait)
}

// TestRefusalRetryAfter: a 429's Retry-After is whole seconds, rounded up,
// at least one.
func TestRefusalRetryAfter(t *testing.T) {
	for _, tt := range []struct {
		wait time.Duration
		want string
	}{{0, "1"}, {time.Millisecond, "1"}, {time.Second, "1"}, {1500 * time.Millisecond, "2"}, {time.Minute, "60"}} {
		w := httptest.NewRecorder()
		refuse(w, tooMany(tt.wait))
		assert.Equal(t, tt.want, w.Header().Get("Retry-After"), tt.wait.String())
		assert.Equal(t, 429, w.Code)
	}
}
