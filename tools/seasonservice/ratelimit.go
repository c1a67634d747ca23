package seasonservice

import (
	"sync"
	"time"
)

// limiter is a token bucket per key (a key's hash, an address) in bounded
// memory: two generations of buckets, the current and the previous. A
// bucket seen is moved to the current generation; when the current holds
// half the entries allowed, it becomes the previous and the old previous
// is dropped. A forgotten key starts again with a full bucket, which a
// bucket left alone long enough would be anyway; forgetting an active one
// takes entries/2 other keys seen since, so the memory stays bounded
// without a sweep and without refusing newcomers.
type limiter struct {
	mu        sync.Mutex
	perSecond float64
	burst     float64
	half      int
	current   map[string]*bucket
	previous  map[string]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

// newLimiter is the limiter of a rate; nil, which allows everything, for a
// negative one.
func newLimiter(r Rate, entries int) *limiter {
	if r.PerMinute < 0 {
		return nil
	}
	half := max(entries/2, 1)
	return &limiter{perSecond: r.PerMinute / 60, burst: float64(r.Burst), half: half,
		current: map[string]*bucket{}, previous: map[string]*bucket{}}
}

// take spends one token of key's bucket at now, or says how long until
// one is there.
func (l *limiter) take(key string, now time.Time) (ok bool, wait time.Duration) {
	if l == nil {
		return true, 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.current[key]
	if b == nil {
		if b = l.previous[key]; b != nil {
			delete(l.previous, key)
		} else {
			b = &bucket{tokens: l.burst, last: now}
		}
		if len(l.current) >= l.half {
			l.previous, l.current = l.current, make(map[string]*bucket, l.half)
		}
		l.current[key] = b
	}
	if elapsed := now.Sub(b.last); elapsed > 0 {
		b.tokens = min(l.burst, b.tokens+elapsed.Seconds()*l.perSecond)
		b.last = now
	}
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	if l.perSecond <= 0 {
		return false, time.Hour // a rate of zero refills never: say "much later"
	}
	return false, time.Duration((1 - b.tokens) / l.perSecond * float64(time.Second))
}

// size is how many buckets the limiter holds, for tests.
func (l *limiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.current) + len(l.previous)
}
