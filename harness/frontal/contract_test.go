package frontal

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/harness/servertest"
	"github.com/arkforge/proveit-corpus/tools/nginxconf"
	"github.com/arkforge/proveit-corpus/tools/probe"
)

// probeSecretTwice is the probe's check that a repeated secret header is refused.
const probeSecretTwice = "gate: secret twice"

// TestThreeTopologies holds Caddy alone, nginx in front of Caddy, and nginx
// alone to one contract: the probe passes on each; the same calls get the
// same status and bytes from all three, but for the documented residuals;
// hostile targets get a contract body or a closed connection, and never a
// byte from outside the tree.
func TestThreeTopologies(t *testing.T) {
	c := newCorpusCopy(t)
	secrets := newSecrets(t, 2)
	topologies := c.startTopologies(t, secrets)
	bodies, err := newContractBodies(c.manifest, c.root)
	require.NoError(t, err)
	nginxJoins := nginxJoinsRepeatedHeaders(t)
	figures.setNginxVersion(servertest.NginxVersion(t))

	t.Run("probe", func(t *testing.T) {
		checks, err := probe.CatalogueOf(c.manifests(), probe.Options{Secrets: secrets})
		require.NoError(t, err)
		for _, tp := range topologies {
			client, err := probe.NewClient(tp.url, 10*time.Second)
			require.NoError(t, err)
			passed, residual := 0, 0
			for _, r := range probe.Run(context.Background(), client, checks) {
				switch {
				case len(r.Problems) == 0:
					passed++
				case tp.name == nginxAlone && !nginxJoins && r.Check.Name == probeSecretTwice:
					residual++ // R1: nginx reads the first of the two headers and serves the call
					residuals.observe(residualRepeatedSecret)
				default:
					t.Errorf("%s: %s: %s", tp.name, r.Check.Name, strings.Join(r.Problems, "; "))
				}
			}
			t.Logf("%s: %d checks, %d passed, %d documented residual", tp.name, len(checks), passed, residual)
			figures.probe(tp.name, len(checks), passed, residual)
		}
	})

	t.Run("differential", func(t *testing.T) {
		calls := append(append(append(resourceCalls(c.manifest), absentCalls()...), randomCalls(c.manifest, 600)...), hostileCalls()...)
		results := exchangeAll(t, topologies, calls, secrets)
		d := differential{bodies: bodies, canary: c.canary, nginxJoins: nginxJoins, beforeCaddy: map[string]int{}}
		variants := 0
		for _, r := range results {
			variants += len(r.call.variants)
			for _, problem := range d.judge(r) {
				t.Errorf("%s: %s", r.call.name, problem)
			}
		}
		before := 0
		for _, n := range d.beforeCaddy {
			before += n
		}
		summary := differentialFigures{Calls: len(calls), Requests: variants, Exchanges: 3 * variants, Identical: d.identical, BeforeCaddy: before}
		t.Logf("differential: %+v", summary)
		t.Logf("residuals observed: %v; refused before Caddy's handler: %v", residuals.counts(), d.beforeCaddy)
		figures.setDifferential(summary)
		figures.refusedBeforeCaddy(d.beforeCaddy)
	})

	t.Run("hostile targets", func(t *testing.T) {
		start := time.Now()
		calls := hostileCalls()
		results := exchangeAll(t, topologies, calls, secrets)
		h := hostileTally{contract: map[string]int{}, closed: map[string]int{}}
		for _, r := range results {
			for _, v := range r.call.variants {
				for i, tp := range topologies {
					h.judge(t, tp, r.call, v.name, r.answers[v.name][i], bodies, c.canary)
				}
			}
		}
		canaryRead := canaryAccessed(t, c)
		assert.False(t, canaryRead, "a canary file beside the tree was opened")
		summary := hostileFigures{Calls: len(calls), Requests: h.requests / len(topologies), AllRequests: h.requests,
			BeforeCaddy: h.beforeCaddy, Contract: h.contract, Closed: h.closed, Elapsed: time.Since(start)}
		t.Logf("hostile targets: %+v", summary)
		figures.setHostile(summary)
		figures.add(fault{Name: "hostile targets", Topology: "all three", Requests: h.requests, Recovery: "—", Figures: summary})
	})

	// The first secret was only ever sent in its header: no log may hold it.
	// The second was also sent under other header names, and must not reach
	// nginx's logs nor Caddy's telemetry.
	requireNoSecretLogged(t, topologies, secrets[0])
	for _, tp := range topologies {
		if tp.nginx != nil {
			assert.NotContains(t, tp.nginx.AllLogs(), secrets[1], "%s: nginx logged a secret", tp.name)
		}
	}
	telemetry, err := os.ReadFile(topologies[atCaddy].caddy.TelemetryLog())
	require.NoError(t, err)
	assert.NotContains(t, string(telemetry), secrets[1], "Caddy's telemetry logged a secret")
}

// exchanged is one call as the topologies answered it, in each variant.
type exchanged struct {
	call    call
	answers map[string][]answer // by variant name, in the order of the topologies
}

// exchangeAll sends every call in each of its variants to every topology,
// a few at a time. A call whose secret is misplaced carries the second
// secret, the others the first.
func exchangeAll(t *testing.T, topologies []*topology, calls []call, secrets []string) []exchanged {
	t.Helper()
	type job struct {
		call    int
		variant variant
	}
	results := make([]exchanged, len(calls))
	var jobs []job
	for i, c := range calls {
		results[i] = exchanged{call: c, answers: map[string][]answer{}}
		for _, v := range c.variants {
			results[i].answers[v.name] = make([]answer, len(topologies))
			jobs = append(jobs, job{i, v})
		}
	}
	queue := make(chan job)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range queue {
				c := calls[j.call]
				secret := secrets[0]
				if c.misplaced {
					secret = secrets[1]
				}
				for k, tp := range topologies {
					u, _ := url.Parse(tp.url)
					a, err := exchange(tp.url, c.render(j.variant, u.Host, secret), c.method)
					if err != nil {
						t.Errorf("%s: %s [%s]: %v", tp.name, c.name, j.variant.name, err)
					}
					results[j.call].answers[j.variant.name][k] = a // each job writes its own element
				}
			}
		}()
	}
	for _, j := range jobs {
		queue <- j
	}
	close(queue)
	wg.Wait()
	return results
}

// hostileTally counts what the topologies answered to hostile calls.
type hostileTally struct {
	contract, closed map[string]int
	beforeCaddy      int
	requests         int
}

// judge requires a contract body or a closed connection (from Caddy alone,
// also one of its refusals before the handler), and nothing of the canary
// files beside the tree nor of the system's files.
func (h *hostileTally) judge(t *testing.T, tp *topology, c call, variant string, a answer, bodies *contractBodies, canary string) {
	t.Helper()
	h.requests++
	if got := string(a.Body) + string(a.Raw); strings.Contains(got, canary) || strings.Contains(got, "root:x:0:0") {
		t.Errorf("%s: %s [%s]: a file outside the tree came back: %s", tp.name, c.name, variant, a)
	}
	err := bodies.contractProblem(a, c.method)
	switch {
	case err == nil && a.Closed:
		h.closed[tp.name]++
	case err == nil:
		h.contract[tp.name]++
	case tp.name == caddyAlone && refusedBeforeHandler(a) != "":
		h.beforeCaddy++
	case tp.nginx != nil && bodies.isHTTP09Refusal(c, a):
		h.contract[tp.name]++ // R6: the 403 body alone, as HTTP/0.9 has no status line nor headers
	default:
		t.Errorf("%s: %s [%s]: %v", tp.name, c.name, variant, err)
	}
}

func perTopology(counts map[string]int) string {
	parts := make([]string, 0, 3)
	for _, name := range topologyNames {
		parts = append(parts, fmt.Sprintf("%s %d", name, counts[name]))
	}
	return strings.Join(parts, ", ")
}

// TestMaintenance switches nginx alone off for maintenance, as
// CORPUS_MAINTENANCE does Caddy: the probe then expects the 503 body past
// the gate. (In front of Caddy, Caddy's own switch answers through nginx.)
func TestMaintenance(t *testing.T) {
	c := newCorpusCopy(t)
	secrets := newSecrets(t, 1)
	dir, err := os.MkdirTemp("", "proveit-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	n, _ := c.startNginx(t, secrets, nginxconf.Options{Root: c.root, BackendSocket: filepath.Join(dir, "backend.sock"), Maintenance: true})
	client, err := probe.NewClient(n.URL, 10*time.Second)
	require.NoError(t, err)
	checks, err := probe.CatalogueOf(c.manifests(), probe.Options{Secrets: secrets, Maintenance: true, SkipResources: true})
	require.NoError(t, err)
	bodies, err := newContractBodies(c.manifest, c.root)
	require.NoError(t, err)
	for _, r := range probe.Run(context.Background(), client, checks) {
		switch target := r.Check.Request.Target; {
		case len(r.Problems) == 0:
		case r.Check.Name == probeSecretTwice && !nginxJoinsRepeatedHeaders(t): // R1
		case !strings.HasPrefix(target, "/") && !strings.Contains(target, "://") && refusedWith400(t, client, r.Check, bodies):
			residuals.observe(residualMaintenance) // a target nginx cannot parse: refused before the switch
		default:
			t.Errorf("%s: %s", r.Check.Name, strings.Join(r.Problems, "; "))
		}
	}
}

// refusedWith400 sends a check again and reports whether the answer is the 400 body.
func refusedWith400(t *testing.T, client *probe.Client, check probe.Check, bodies *contractBodies) bool {
	resp, err := client.Do(context.Background(), check.Request)
	require.NoError(t, err)
	return resp.Status == http.StatusBadRequest && bytes.Equal(resp.Body, bodies.fixed[http.StatusBadRequest])
}
