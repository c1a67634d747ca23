package frontal

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/harness/servertest"
	"github.com/arkforge/proveit-corpus/tools/nginxconf"
	"github.com/arkforge/proveit-corpus/tools/probe"
)

// nginxReplicas is the frontal of two Caddy replicas, as the report names it.
const nginxReplicas = "nginx → two Caddy"

// TestReplicaKilledBehindFrontal runs two Caddy replicas of the same
// manifests behind the frontal `proveit nginx -upstream A,B` writes. The
// probe passes on each replica and on the frontal. Under load, one replica
// is killed (SIGKILL), started again on its port, then the other is
// killed: not one error, not one 503 body, every answer the manifest's.
// With both killed, every call gets the 503 body.
func TestReplicaKilledBehindFrontal(t *testing.T) {
	c := newCorpusCopy(t)
	secrets := newSecrets(t, 1)
	replicas := []*servertest.Server{servertest.Start(t, c.caddyOptions(secrets)), servertest.Start(t, c.caddyOptions(secrets))}
	n, gate := c.startNginx(t, secrets, nginxconf.Options{
		Upstreams: []string{fmt.Sprintf("127.0.0.1:%d", replicas[0].Port), fmt.Sprintf("127.0.0.1:%d", replicas[1].Port)},
		Tree:      os.DirFS(c.root),
	})
	tp := &topology{name: nginxReplicas, url: n.URL, nginx: n, gate: gate}

	checks, err := probe.CatalogueOf(c.manifests(), probe.Options{Secrets: secrets})
	require.NoError(t, err)
	for _, url := range []string{replicas[0].URL, replicas[1].URL, tp.url} {
		client, err := probe.NewClient(url, 10*time.Second)
		require.NoError(t, err)
		for _, r := range probe.Run(context.Background(), client, checks) {
			require.Empty(t, r.Problems, "%s: %s", url, r.Check.Name)
		}
	}

	// The frontal tries a replica back only once it has passed over it for
	// nginxconf.PassOver: the other is killed after that, however short the
	// load's pauses, and the load runs longer by twice the wait added, so
	// that it goes on after the second kill as long as a full run does.
	backUp := max(scaled(3*time.Second), nginxconf.PassOver+time.Second)
	added := backUp - scaled(3*time.Second)

	start := time.Now()
	done := make(chan loadResult, 1) // the load ends on its own, even if the test stops first
	go func() {
		done <- loadRun{url: tp.url, conns: 50, duration: scaled(12*time.Second) + 2*added, checks: always(loadChecks(t, c.manifest, secrets, tp)),
			tolerateCut: true}.run()
	}()
	pause := func(d time.Duration) { time.Sleep(scaled(d)) }
	pause(3 * time.Second)
	killedA := time.Now()
	replicas[0].Kill()
	pause(3 * time.Second)
	o := c.caddyOptions(secrets)
	o.Port = replicas[0].Port
	restartedA := time.Now()
	replicas[0] = servertest.Start(t, o)
	readyA := time.Now()
	time.Sleep(backUp)
	killedB := time.Now()
	replicas[1].Kill()

	r := <-done
	t.Logf("one replica down at a time: %s", r)
	if r.Errors+r.Mismatches > 0 {
		t.Logf("nginx's error log:\n%s", tail(n.AllLogs(), 20))
	}
	r.requireClean(t)
	figures.add(fault{Name: "replica killed", Topology: nginxReplicas, Requests: r.Requests, Errors: r.Errors, Mismatches: r.Mismatches,
		Refused: r.Refused, Cut: r.Cut, Resent: r.Retried, Recovery: "none needed",
		Figures: replicaFigures{Connections: 50, Checks: len(checks), KilledA: killedA.Sub(start), RestartedA: restartedA.Sub(killedA),
			ReadyA: readyA.Sub(restartedA), KilledB: killedB.Sub(start), Cut: r.Cut, Retried: r.Retried,
			P99: r.percentile(99), Max: r.percentile(100)}})

	// Both down: the frontal answers the 503 body, and nothing else.
	replicas[0].Kill()
	bodies, err := newContractBodies(c.manifest, c.root)
	require.NoError(t, err)
	unavailable := func(resp *probe.Response) bool {
		return resp.Status == http.StatusServiceUnavailable && bytes.Equal(resp.Body, bodies.fixed[http.StatusServiceUnavailable]) &&
			len(probe.HeaderProblems(resp.Header)) == 0
	}
	down := loadRun{url: tp.url, conns: 10, duration: scaled(2 * time.Second), checks: always(resourceChecks(t, c, secrets, tp)),
		tolerate: unavailable}.run()
	t.Logf("both replicas down: %s", down)
	down.requireClean(t)
	require.Equal(t, down.Requests, down.Tolerated, "every call to a resource gets the 503 body")
	figures.add(fault{Name: "both replicas killed", Topology: nginxReplicas, Requests: down.Requests, Errors: down.Errors,
		Mismatches: down.Mismatches, Refused: down.Refused, Tolerated: down.Tolerated, Recovery: "—",
		Figures: bothDownFigures{Connections: 10, Elapsed: down.Elapsed, P99: down.percentile(99)}})
}

// resourceChecks are the load's checks that reach the corpus (a document
// or an absent reference with the secret): those the frontal refuses by
// itself (no secret, a malformed request) are answered without it.
func resourceChecks(t *testing.T, c *corpusCopy, secrets []string, tp *topology) []probe.Check {
	t.Helper()
	var checks []probe.Check
	for _, check := range loadChecks(t, c.manifest, secrets, tp) {
		if check.Expect.Status == http.StatusOK && strings.HasPrefix(check.Request.Target, "/") && len(check.Request.Header) == 1 &&
			check.Request.Method == http.MethodGet && check.Request.Body == "" && check.Request.Host == "" && check.Request.Proto == "" {
			checks = append(checks, check)
		}
	}
	require.NotEmpty(t, checks)
	return checks
}

// replicaFigures are one replica killed, restarted, then the other killed,
// each time from the load's start or from the step before.
type replicaFigures struct {
	Connections, Checks                  int
	KilledA, RestartedA, ReadyA, KilledB time.Duration
	Cut, Retried                         int
	P99, Max                             time.Duration
}

// bothDownFigures are the calls made with both replicas killed.
type bothDownFigures struct {
	Connections int
	Elapsed     time.Duration
	P99         time.Duration
}
