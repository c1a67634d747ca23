// Package parallel spreads independent calls over every CPU the process may
// use, for the manifest's packages, which each check or hash many entries.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// For calls fn(i) for every i in [0, n), spread over as many goroutines as
// the process may run at once. Each fn(i) writes only its own slot of its
// results, so the outcome never depends on scheduling.
func For(n int, fn func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		})
	}
	wg.Wait()
}
