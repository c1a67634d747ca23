package corpushandler

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the handler's own counters, in Caddy's metrics registry,
// which the admin endpoint serves at /metrics (docs/operating.md, "Health and
// monitoring"). They count the outcomes telemetry records, so that an
// operator watches the corpus without Caddy's per-request HTTP metrics,
// which cost a third of the throughput. Each prepared answer holds its own
// counter: a call adds to it and to the latency histogram, two atomic
// additions, and looks nothing up.
type metrics struct {
	calls    *prometheus.CounterVec
	duration prometheus.Histogram
	manifest *prometheus.GaugeVec
}

// noTrack labels the calls no track answers: the fixed bodies.
const noTrack = ""

// newMetrics makes the counters and registers them in registry. A registry
// that already holds them (two handlers in one configuration) shares them.
// A nil registry keeps them unregistered.
func newMetrics(registry *prometheus.Registry) (*metrics, error) {
	m := &metrics{
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "proveit",
			Subsystem: "corpus",
			Name:      "calls_total",
			Help:      "Calls answered, by outcome (resource, absent, forbidden, malformed, not_found, unavailable) and by the track whose tree answered (empty for a fixed body).",
		}, []string{"outcome", "track"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: "proveit",
			Subsystem: "corpus",
			Name:      "call_duration_seconds",
			Help:      "Time from the handler's start to the body's last byte written, every outcome together.",
			Buckets:   []float64{50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 5e-3, 10e-3, 25e-3, 100e-3, 1},
		}),
		manifest: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: "proveit",
			Subsystem: "corpus",
			Name:      "manifest_info",
			Help:      "1 for each track served, labelled with the SHA-256 of the manifest its tree matched and whether that manifest is pinned.",
		}, []string{"track", "manifest_sha256", "pinned"}),
	}
	if registry == nil {
		return m, nil
	}
	var err error
	if m.calls, err = register(registry, m.calls); err != nil {
		return nil, err
	}
	if m.duration, err = register(registry, m.duration); err != nil {
		return nil, err
	}
	if m.manifest, err = register(registry, m.manifest); err != nil {
		return nil, err
	}
	return m, nil
}

// register adds a collector to the registry, or returns the one it holds
// already under the same name.
func register[C prometheus.Collector](registry *prometheus.Registry, c C) (C, error) {
	err := registry.Register(c)
	var already prometheus.AlreadyRegisteredError
	if errors.As(err, &already) {
		if existing, ok := already.ExistingCollector.(C); ok {
			return existing, nil
		}
	}
	return c, err
}

// counter is the calls counter of one outcome and track.
func (m *metrics) counter(outcome, track string) prometheus.Counter {
	return m.calls.WithLabelValues(outcome, track)
}

// observe counts one call.
func (m *metrics) observe(resp *response, took time.Duration) {
	resp.calls.Inc()
	m.duration.Observe(took.Seconds())
}
