package frontal

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/harness/servertest"
	"github.com/arkforge/proveit-corpus/tools/nginxconf"
	"github.com/arkforge/proveit-corpus/tools/probe"
)

// TestLoad runs a bounded load on each topology: every answer hash-checked,
// no error, no mismatch. Caddy alone carries the longest run.
func TestLoad(t *testing.T) {
	c := newCorpusCopy(t)
	secrets := newSecrets(t, 1)
	for _, tt := range []struct {
		topology string
		duration time.Duration
	}{
		{caddyAlone, 20 * time.Second},
		{nginxFrontal, 8 * time.Second},
		{nginxAlone, 8 * time.Second},
	} {
		t.Run(tt.topology, func(t *testing.T) {
			tp := c.start(t, tt.topology, secrets)
			checks := loadChecks(t, c.manifest, secrets, tp)
			r := loadRun{url: tp.url, conns: 50, duration: scaled(tt.duration), checks: always(checks)}.run()
			t.Logf("%s: %s", tp.name, r)
			r.requireClean(t)
			figures.add(fault{Name: "load", Topology: tp.name, Requests: r.Requests, Errors: r.Errors, Mismatches: r.Mismatches,
				Recovery: "—", Figures: loadFigures{Connections: 50, Checks: len(checks), Elapsed: r.Elapsed, Rate: r.rate(),
					P50: r.percentile(50), P99: r.percentile(99), Max: r.percentile(100)}})
		})
	}
}

// TestReloadUnderLoad rotates the secret list through reloads while a load
// runs, then offers a tampered tree: not one request may fail or get a wrong
// byte, the tampered tree is refused, and the retired secret no longer opens.
func TestReloadUnderLoad(t *testing.T) {
	c := newCorpusCopy(t)
	secrets := newSecrets(t, 2)
	old, next := secrets[0], secrets[1]

	t.Run("Caddy", func(t *testing.T) {
		o := c.caddyOptions(nil)
		o.SecretFiles = []string{old}
		s := servertest.Start(t, o)
		tp := &topology{name: caddyAlone, url: s.URL, caddy: s}
		var current atomic.Pointer[[]probe.Check]
		oldChecks, nextChecks := loadChecks(t, c.manifest, []string{old}, tp), loadChecks(t, c.manifest, []string{next}, tp)
		current.Store(&oldChecks)
		done := make(chan loadResult, 1) // the load ends on its own, even if the test stops first
		go func() {
			done <- loadRun{url: s.URL, conns: 50, duration: scaled(14 * time.Second), checks: func() []probe.Check { return *current.Load() }}.run()
		}()
		pause := func(d time.Duration) { time.Sleep(scaled(d)) }

		pause(2 * time.Second)
		// Rotation, as the README says: secret.next, reload, switch Trust
		// Layer over, move secret.next onto secret, reload.
		require.NoError(t, os.WriteFile(filepath.Join(s.SecretsDir, "secret.next"), []byte(next+"\n"), 0o600))
		addNext := timed(func() { require.NoError(t, s.Reload(t, nil)) })
		pause(2 * time.Second)
		current.Store(&nextChecks)
		pause(time.Second) // every request signed with the old secret has been answered
		require.NoError(t, os.WriteFile(filepath.Join(s.SecretsDir, "secret"), []byte(next+"\n"), 0o600))
		require.NoError(t, os.Remove(filepath.Join(s.SecretsDir, "secret.next")))
		retireOld := timed(func() { require.NoError(t, s.Reload(t, nil)) })
		pause(2 * time.Second)

		// A tampered tree: refused, the verified corpus keeps serving from memory.
		file := filepath.Join(c.root, "agrements", "AGR-4417.json")
		original, err := os.ReadFile(file)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(file, bytes.Replace(original, []byte("actif"), []byte("retire"), 1), 0o644))
		t.Cleanup(func() { _ = os.WriteFile(file, original, 0o644) })
		var refused error
		tampered := timed(func() { refused = s.Reload(t, nil) })
		require.Error(t, refused, "a tampered tree must be refused")
		assert.Contains(t, refused.Error(), "agrements/AGR-4417.json: bytes changed")

		r := <-done
		t.Logf("%s", r)
		if r.Errors > 0 {
			t.Logf("Caddy's output:\n%s", tail(s.Output(), 20))
		}
		r.requireClean(t)
		requireStatus(t, s.URL, old, http.StatusForbidden)
		requireStatus(t, s.URL, next, http.StatusOK)
		assertNoSecretIn(t, s.AllLogs(t), secrets...)

		figures.add(fault{Name: "reload: secrets", Topology: caddyAlone, Requests: r.Requests, Errors: r.Errors, Mismatches: r.Mismatches, Resent: r.Retried,
			Recovery: "none needed", Figures: reloadFigures{Connections: 50, Requests: r.Requests, Retried: r.Retried,
				AddNext: addNext, RetireOld: retireOld, P99: r.percentile(99), Max: r.percentile(100)}})
		figures.add(fault{Name: "reload: tampered tree", Topology: caddyAlone, Requests: r.Requests, Errors: r.Errors,
			Mismatches: r.Mismatches, Recovery: "none needed", Figures: tamperedFigures{Refused: tampered}})
	})

	t.Run("nginx alone", func(t *testing.T) {
		tp := c.alone(t, []string{old})
		var current atomic.Pointer[[]probe.Check]
		oldChecks, nextChecks := loadChecks(t, c.manifest, []string{old}, tp), loadChecks(t, c.manifest, []string{next}, tp)
		current.Store(&oldChecks)
		done := make(chan loadResult, 1) // the load ends on its own, even if the test stops first
		go func() {
			done <- loadRun{url: tp.url, conns: 50, duration: scaled(8 * time.Second), checks: func() []probe.Check { return *current.Load() }}.run()
		}()
		pause := func(d time.Duration) { time.Sleep(scaled(d)) }

		pause(2 * time.Second)
		require.NoError(t, nginxconf.WriteGate(tp.gate, []string{old, next}))
		addNext := timed(func() { require.NoError(t, tp.nginx.Reload(t)) })
		pause(time.Second)
		current.Store(&nextChecks)
		pause(time.Second)
		require.NoError(t, nginxconf.WriteGate(tp.gate, []string{next}))
		retireOld := timed(func() { require.NoError(t, tp.nginx.Reload(t)) })

		r := <-done
		t.Logf("%s", r)
		r.requireClean(t)
		requireStatus(t, tp.url, old, http.StatusForbidden)
		requireStatus(t, tp.url, next, http.StatusOK)
		assertNoSecretIn(t, tp.nginx.AllLogs(), secrets...)
		figures.add(fault{Name: "nginx reload: secrets", Topology: nginxAlone, Requests: r.Requests, Errors: r.Errors, Resent: r.Retried,
			Mismatches: r.Mismatches, Recovery: "none needed", Figures: reloadFigures{Connections: 50, Requests: r.Requests,
				Retried: r.Retried, AddNext: addNext, RetireOld: retireOld, P99: r.percentile(99), Max: r.percentile(100)}})
	})
}

// tail is the last n lines of a log.
func tail(log string, n int) string {
	lines := strings.Split(strings.TrimRight(log, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// timed runs f and returns how long it took.
func timed(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}

// requireStatus asks for the referentiel with a secret.
func requireStatus(t *testing.T, baseURL, secret string, status int) {
	t.Helper()
	client, err := probe.NewClient(baseURL, 5*time.Second)
	require.NoError(t, err)
	resp, err := client.Do(context.Background(), probe.Request{Method: http.MethodGet, Target: corpus.Referentiel,
		Header: [][2]string{{corpus.SecretHeader, secret}}})
	require.NoError(t, err)
	require.Equal(t, status, resp.Status)
}

func assertNoSecretIn(t *testing.T, logs string, secrets ...string) {
	t.Helper()
	for slot, s := range secrets {
		assert.False(t, bytes.Contains([]byte(logs), []byte(s)), "a log holds secret %d", slot)
	}
}

// TestCorpusKilledBehindFrontal kills the Caddy corpus behind nginx under
// load and starts it again on its port: while it is down nginx answers the
// 503 body, before and after the right bytes, and nothing else ever.
func TestCorpusKilledBehindFrontal(t *testing.T) {
	c := newCorpusCopy(t)
	secrets := newSecrets(t, 1)
	caddy := servertest.Start(t, c.caddyOptions(secrets))
	tp := c.frontal(t, secrets, caddy)
	bodies, err := newContractBodies(c.manifest, c.root)
	require.NoError(t, err)
	unavailable := func(resp *probe.Response) bool {
		return resp.Status == http.StatusServiceUnavailable && bytes.Equal(resp.Body, bodies.fixed[http.StatusServiceUnavailable]) &&
			len(probe.HeaderProblems(resp.Header)) == 0
	}
	start := time.Now()
	done := make(chan loadResult, 1) // the load ends on its own, even if the test stops first
	go func() {
		done <- loadRun{url: tp.url, conns: 20, duration: scaled(12 * time.Second), checks: always(loadChecks(t, c.manifest, secrets, tp)),
			tolerate: unavailable, tolerateCut: true}.run()
	}()

	time.Sleep(scaled(3 * time.Second))
	killed := time.Now()
	caddy.Kill()
	time.Sleep(scaled(2 * time.Second))
	o := c.caddyOptions(secrets)
	o.Port = caddy.Port
	restarted := time.Now()
	servertest.Start(t, o)
	ready := time.Now()

	r := <-done
	t.Logf("%s", r)
	r.requireClean(t)
	require.Positive(t, r.Tolerated, "no call saw the corpus down")
	assert.False(t, r.FirstTolerated.Before(killed), "a 503 body before the corpus was killed")
	t.Logf("killed at %s, restarted at %s, answering at %s; 503 bodies from %s to %s",
		killed.Sub(start), restarted.Sub(start), ready.Sub(start), r.FirstTolerated.Sub(start), r.LastTolerated.Sub(start))
	outage := r.LastTolerated.Sub(r.FirstTolerated)
	figures.add(fault{Name: "corpus killed", Topology: nginxFrontal, Requests: r.Requests, Errors: r.Errors, Mismatches: r.Mismatches,
		Tolerated: r.Tolerated, Cut: r.Cut, Recovery: "503 for " + ms(outage), Figures: killFigures{Connections: 20,
			Tolerated: r.Tolerated, Cut: r.Cut, Killed: killed.Sub(start), Restarted: restarted.Sub(killed), Ready: ready.Sub(restarted),
			Down: ready.Sub(killed), FirstTolerated: r.FirstTolerated.Sub(killed), Outage: outage,
			LastToReady: r.LastTolerated.Sub(ready).Abs(), LastBeforeReady: r.LastTolerated.Before(ready)}})
}
