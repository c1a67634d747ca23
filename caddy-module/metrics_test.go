package corpushandler

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each call adds one to the counter of its outcome and track, and one
// observation to the latency histogram; nothing else moves.
func TestMetricsCountEachOutcome(t *testing.T) {
	h, _ := newHandler(t, nil)
	tests := []struct {
		name           string
		req            request
		outcome, track string
	}{
		{"a document", request{target: "/agrements/AGR-4417", headers: withSecret(secretA)}, outcomeResource, "conformite"},
		{"an absent reference", request{target: "/agrements/AGR-9999", headers: withSecret(secretA)}, outcomeAbsent, "conformite"},
		{"an absent reference the manifest lists", request{target: "/attestations/ATT-0404", headers: withSecret(secretA)}, outcomeAbsent, "conformite"},
		{"no secret", request{target: "/agrements/AGR-4417"}, outcomeForbidden, noTrack},
		{"a query", request{target: "/agrements/AGR-4417?", headers: withSecret(secretA)}, outcomeMalformed, noTrack},
		{"a bare collection", request{target: "/agrements", headers: withSecret(secretA)}, outcomeNotFound, noTrack},
	}
	outcomes := []string{outcomeResource, outcomeAbsent, outcomeForbidden, outcomeMalformed, outcomeNotFound, outcomeUnavailable}
	counts := func() map[[2]string]float64 {
		out := map[[2]string]float64{}
		for _, o := range outcomes {
			for _, track := range []string{"conformite", noTrack} {
				out[[2]string{o, track}] = testutil.ToFloat64(h.metrics.calls.WithLabelValues(o, track))
			}
		}
		return out
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := counts()
			serve(h, tt.req)
			want := before
			want[[2]string{tt.outcome, tt.track}]++
			assert.Equal(t, want, counts())
			assert.Equal(t, i+1, observations(t, h.metrics.duration))
		})
	}
	h.Maintenance = true
	serve(h, request{target: "/agrements/AGR-4417", headers: withSecret(secretA)})
	assert.Equal(t, 1.0, testutil.ToFloat64(h.metrics.calls.WithLabelValues(outcomeUnavailable, noTrack)))
}

// observations is a histogram's sample count.
func observations(t *testing.T, h prometheus.Histogram) int {
	t.Helper()
	metrics := make(chan prometheus.Metric, 1)
	h.Collect(metrics)
	m := <-metrics
	var out dto.Metric
	require.NoError(t, m.Write(&out))
	return int(out.GetHistogram().GetSampleCount())
}

// The manifest each track's tree matched is published once, with its pin.
func TestMetricsPublishTheManifest(t *testing.T) {
	h, _ := newHandler(t, nil)
	registry := prometheus.NewPedanticRegistry()
	require.NoError(t, registry.Register(h.metrics.manifest))
	n, err := testutil.GatherAndCount(registry, "proveit_corpus_manifest_info")
	require.NoError(t, err)
	assert.Equal(t, 1, n)
}

// Two handlers in one configuration share the registry's counters instead
// of failing to register them twice.
func TestMetricsSharedByTwoHandlers(t *testing.T) {
	registry := prometheus.NewPedanticRegistry()
	a, err := newMetrics(registry)
	require.NoError(t, err)
	b, err := newMetrics(registry)
	require.NoError(t, err)
	assert.Same(t, a.calls, b.calls)
	assert.Same(t, a.duration, b.duration)
}
