package frontal

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/harness/participant"
	"github.com/arkforge/proveit-corpus/harness/pgtest"
	"github.com/arkforge/proveit-corpus/harness/seasonload"
	"github.com/arkforge/proveit-corpus/harness/servertest"
)

// The season service's faults: bin/caddy serving the shipped Caddyfile's
// season site (its per-address limits lifted, harness/seasonload), a
// crowd enrolled through the Trust Layer stand-in, then a deadline's
// surge of submissions, with the service killed in its midst. Small
// counts: the benchmark (make bench, "season") runs the large ones.
const (
	seasonEntrants  = 20   // enrollments of a fault's crowd
	seasonConns     = 8    // clients sending at once
	seasonNarrative = 2048 // bytes of each submission's narrative: a real one's few KiB
)

// seasonRig is what a season service runs with in a test: its private
// folder, records open now, the Trust Layer stand-in, the Caddyfile.
type seasonRig struct {
	folder    *seasonload.Folder
	tl        *seasonload.TrustLayer
	caddyfile string
	secrets   []string
}

func newSeasonRig(t *testing.T) *seasonRig {
	t.Helper()
	repo := servertest.RepoRoot(t)
	dir := t.TempDir()
	folder, err := seasonload.NewFolder(repo, filepath.Join(dir, "saison-1"), seasonload.OpenWindow(time.Now()))
	require.NoError(t, err)
	tl, err := seasonload.StartTrustLayer()
	require.NoError(t, err)
	t.Cleanup(tl.Close)
	caddyfile := filepath.Join(dir, "Caddyfile")
	require.NoError(t, seasonload.WriteCaddyfile(filepath.Join(repo, "Caddyfile"), caddyfile))
	return &seasonRig{folder: folder, tl: tl, caddyfile: caddyfile, secrets: newSecrets(t, 1)}
}

// service is the service on database at the season port port.
func (r *seasonRig) service(database string, port int) seasonload.Service {
	return seasonload.Service{Folder: r.folder, Database: database, TrustLayer: r.tl.URL, Port: port}
}

// start runs bin/caddy with the season site of svc (the corpus's site on
// corpusPort, 0 for a free one) and waits until the service answers.
func (r *seasonRig) start(t *testing.T, svc seasonload.Service, corpusPort int) *servertest.Server {
	t.Helper()
	s := servertest.Start(t, servertest.Options{Caddyfile: r.caddyfile, Env: svc.Env(), Secrets: r.secrets, Port: corpusPort})
	require.NoError(t, seasonload.WaitReady(svc.URL(), 30*time.Second), s.Output())
	return s
}

func (r *seasonRig) publicKey() ed25519.PublicKey {
	return r.folder.ReceiptKey.Public().(ed25519.PublicKey)
}

// seasonClient is a participant's client of the service at url, with a
// keep-alive connection for each of conns clients.
func seasonClient(url string, conns int) *participant.Season {
	transport := &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns}
	return &participant.Season{URL: url, Number: seasonload.Number, HTTP: &http.Client{Transport: transport, Timeout: 30 * time.Second}}
}

// deadline enrolls a crowd through client and returns its submissions.
func (r *seasonRig) deadline(t *testing.T, client *participant.Season) []seasonload.Submission {
	t.Helper()
	entrants, err := seasonload.Enroll(r.tl, client, seasonload.Track.Name, seasonEntrants, seasonConns)
	require.NoError(t, err)
	tasks, err := seasonload.Tasks(seasonload.Track)
	require.NoError(t, err)
	return seasonload.Deadline(entrants, tasks, seasonNarrative, uint64(time.Now().UnixNano()))
}

// killAfter is a surge's Done that closes kill once n submissions have
// been acknowledged.
func killAfter(n int, kill chan struct{}) func(int, seasonload.Outcome) {
	var acked atomic.Int64
	var once sync.Once
	return func(_ int, o seasonload.Outcome) {
		if o.Acknowledged() && acked.Add(1) >= int64(n) {
			once.Do(func() { close(kill) })
		}
	}
}

// surgeAndKill runs the surge and calls kill once a third of it is
// acknowledged, mid-surge; the test fails if the surge ends first.
func surgeAndKill(t *testing.T, s seasonload.Surge, subs []seasonload.Submission, kill func()) (*seasonload.Result, time.Duration) {
	t.Helper()
	killNow := make(chan struct{})
	s.Done = killAfter(len(subs)/3, killNow)
	done := make(chan *seasonload.Result, 1)
	start := time.Now()
	go func() { done <- s.Run(subs) }()
	var killedAt time.Duration
	select {
	case <-killNow:
		killedAt = time.Since(start)
		kill()
	case r := <-done:
		t.Fatalf("the surge ended before a third of it was acknowledged: %v", r.Counts())
	}
	return <-done, killedAt
}

// TestSeasonServiceKilledMidSurge: bin/caddy serving the season service on
// SQLite is killed (SIGKILL) once a third of a deadline's submissions are
// acknowledged, then started again on the same database. Every
// submission is then sent again, the same bytes: each acknowledged before
// the kill gets the same receipt, byte for byte, not a second version; each
// cut or refused is acknowledged now. The track's export holds every one
// once, byte for byte, with the receipt it was answered, and nothing half
// written.
func TestSeasonServiceKilledMidSurge(t *testing.T) {
	rig := newSeasonRig(t)
	database := filepath.Join(t.TempDir(), "saison.db")
	svc := rig.service(database, servertest.FreePort(t))
	server := rig.start(t, svc, 0)
	client := seasonClient(svc.URL(), seasonConns)
	subs := rig.deadline(t, client)

	first, killedAt := surgeAndKill(t, seasonload.Surge{Client: client, Conns: seasonConns}, subs, server.Kill)
	t.Logf("before and at the kill: %v", first.Counts())
	for i, o := range first.Outcomes {
		require.True(t, o.Acknowledged() || !o.Answered(), "submission %d: %s, an answer other than a receipt", i, o.Kind())
	}
	var cut, refused int
	for _, o := range first.Outcomes {
		switch {
		case o.Refused():
			refused++
		case !o.Answered():
			cut++
		}
	}

	t.Logf("%d acknowledged before the kill, %d cut in flight, %d refused after it", first.Acknowledged(), cut, refused)

	restartedAt := time.Now()
	rig.start(t, svc, server.Port)
	ready := time.Since(restartedAt)
	again := seasonload.Surge{Client: client, Conns: seasonConns}.Run(subs)
	t.Logf("sent again after the restart: %v", again.Counts())
	require.Equal(t, len(subs), again.Acknowledged(), "every submission acknowledged once the service is back: %v", again.Counts())
	for i, o := range first.Outcomes {
		if o.Acknowledged() {
			require.True(t, bytes.Equal(o.Accepted.Receipt, again.Outcomes[i].Accepted.Receipt), "submission %d: another receipt when sent again", i)
			require.Equal(t, o.Accepted.Replaces, again.Outcomes[i].Accepted.Replaces, "submission %d: remplace changed", i)
		}
	}

	export := t.TempDir()
	require.NoError(t, seasonload.Export(context.Background(), database, seasonload.Track.Name, rig.publicKey(), export))
	for _, outcomes := range [][]seasonload.Outcome{first.Outcomes, again.Outcomes} {
		audit, err := seasonload.CheckExport(export, seasonload.Track.Name, rig.publicKey(), subs, outcomes)
		require.NoError(t, err)
		require.Equal(t, len(subs), audit.Exported, "every submission exported once")
	}
	figures.addSeason(seasonFault{Name: "service killed", Store: "SQLite", Topology: "Caddy alone",
		Submissions: len(subs), Acknowledged: first.Acknowledged(), Cut: cut, Refused: refused, SentAgain: len(subs),
		Exported: len(subs), Figures: seasonKillFigures{Entrants: seasonEntrants, Conns: seasonConns,
			KilledAt: killedAt, Ready: ready}})
}

// TestSeasonReplicaKilledBehindFrontal: two replicas of bin/caddy's season
// service on one PostgreSQL database behind nginx; one is killed (SIGKILL)
// once a third of a deadline's submissions are acknowledged. A client
// sends again, the same bytes, what got no answer (a cut connection, or
// nginx's 502 for a call the dead replica held). Every submission ends
// acknowledged, and every one acknowledged is in the export with the
// receipt it was answered.
func TestSeasonReplicaKilledBehindFrontal(t *testing.T) {
	t.Cleanup(func() {
		if t.Skipped() { // no PostgreSQL here: the report says so
			figures.addSeason(seasonFault{Name: "replica killed", Store: "PostgreSQL", Topology: "nginx → two Caddy",
				Skipped: "PostgreSQL's binaries are absent"})
		}
	})
	database := pgtest.Database(t)
	rig := newSeasonRig(t)
	svcs := []seasonload.Service{rig.service(database, servertest.FreePort(t)), rig.service(database, servertest.FreePort(t))}
	replicas := []*servertest.Server{rig.start(t, svcs[0], 0), rig.start(t, svcs[1], 0)}
	port := servertest.FreePort(t)
	vhost := filepath.Join(t.TempDir(), "season.conf")
	require.NoError(t, os.WriteFile(vhost, fmt.Appendf(nil, seasonVhost, svcs[0].Port, svcs[1].Port, port), 0o644))
	n := servertest.StartNginx(t, servertest.NginxOptions{Vhost: vhost, Port: port})
	client := seasonClient(n.URL, seasonConns)
	subs := rig.deadline(t, client)

	// A participant sends again what got no answer, for longer than nginx
	// passes a failed replica over.
	surge := seasonload.Surge{Client: client, Conns: seasonConns, Attempts: 150, Pause: 100 * time.Millisecond}
	r, killedAt := surgeAndKill(t, surge, subs, replicas[0].Kill)
	t.Logf("one replica killed: %v, %d sent again", r.Counts(), r.Resent())
	if r.Acknowledged() != len(subs) {
		t.Logf("nginx's error log:\n%s", tail(n.AllLogs(), 20))
	}
	require.Equal(t, len(subs), r.Acknowledged(), "every submission acknowledged by the replica left: %v", r.Counts())

	export := t.TempDir()
	require.NoError(t, seasonload.Export(context.Background(), database, seasonload.Track.Name, rig.publicKey(), export))
	audit, err := seasonload.CheckExport(export, seasonload.Track.Name, rig.publicKey(), subs, r.Outcomes)
	require.NoError(t, err)
	require.Equal(t, len(subs), audit.Exported)
	figures.addSeason(seasonFault{Name: "replica killed", Store: "PostgreSQL", Topology: "nginx → two Caddy",
		Submissions: len(subs), Acknowledged: r.Acknowledged(), SentAgain: r.Resent(), Exported: audit.Exported,
		Figures: seasonReplicaFigures{Entrants: seasonEntrants, Conns: seasonConns, KilledAt: killedAt,
			P99: r.Latency(99), Max: r.Latency(100)}})
}

// seasonVhost is nginx in front of two replicas of the season service:
// each call goes to one, a refused connection to the other, and a replica
// that failed is passed over for ten seconds. A submission cut after it
// was sent is not sent on (nginx sends no POST twice): the client sends it
// again, and the store answers the same bytes with the same receipt.
const seasonVhost = `# Written by harness/frontal's season tests.
upstream season_replicas {
    server 127.0.0.1:%d max_fails=1 fail_timeout=10s;
    server 127.0.0.1:%d max_fails=1 fail_timeout=10s;
    keepalive 16;
}
server {
    listen 127.0.0.1:%d;
    client_max_body_size 2m;
    location / {
        proxy_pass http://season_replicas;
        proxy_http_version 1.1;
        proxy_set_header Connection "";
        proxy_set_header Host $host;
    }
}
`

// seasonKillFigures are the service killed mid-surge and restarted.
type seasonKillFigures struct {
	Entrants, Conns int
	KilledAt, Ready time.Duration
}

// seasonReplicaFigures are one replica killed behind nginx.
type seasonReplicaFigures struct {
	Entrants, Conns int
	KilledAt        time.Duration
	P99, Max        time.Duration
}
