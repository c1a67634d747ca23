package frontal

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/harness/servertest"
)

// restartGap is systemd's RestartSec default: how long after a crash
// Restart=on-failure starts the service again.
const restartGap = 100 * time.Millisecond

// TestRestartUnderLoad restarts Caddy alone under 50 connections, over TLS
// as the unit serves, the way systemd does it with deploy/'s units: the
// test holds the listening socket the socket unit describes and hands it to
// each new Caddy process (file descriptor 3, LISTEN_FDS, LISTEN_PID), with
// the service's CORPUS_BIND. A graceful restart (SIGTERM, then the next
// process) and a crash (SIGKILL, then the next process after RestartSec)
// must cost no refused connection and no wrong byte; what a crash cuts in
// flight is counted, and each such call sent again once on a new
// connection. The same restart without the socket unit, each process
// binding the port itself, is measured beside them.
func TestRestartUnderLoad(t *testing.T) {
	if !servertest.SocketActivation {
		t.Skip("socket activation needs a Unix system")
	}
	units := readSocketUnits(t)
	c := newCorpusCopy(t)
	secrets := newSecrets(t, 1)
	for _, tt := range []struct {
		name      string
		crash     bool
		activated bool
	}{
		{"restart, socket unit", false, true},
		{"crash, socket unit", true, true},
		{"restart, no socket unit", false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := c.caddyOptions(secrets)
			o.TLS = true
			o.Dir = t.TempDir() // every process of the run: one data folder, one certificate
			if tt.activated {
				socket, port := servertest.HeldSocket(t, units.name)
				o.Port, o.Sockets = port, []servertest.Socket{socket}
				o.Env["CORPUS_BIND"] = units.bind
			}
			s := servertest.Start(t, o)
			o.Port = s.Port
			tp := &topology{name: caddyAlone, url: s.URL, caddy: s}

			start := time.Now()
			done := make(chan loadResult, 1) // the load ends on its own, even if the test stops first
			go func() {
				done <- loadRun{url: s.URL, conns: 50, duration: scaled(10 * time.Second), checks: always(loadChecks(t, c.manifest, secrets, tp)),
					resendCut: tt.crash, tolerateRefused: !tt.activated}.run()
			}()
			time.Sleep(scaled(3 * time.Second))
			stopped := time.Now()
			if tt.crash {
				s.Kill()
			} else {
				s.Stop()
			}
			exited := time.Now()
			if tt.crash {
				time.Sleep(restartGap)
			}
			next := servertest.Start(t, o)
			ready := time.Now()

			r := <-done
			t.Logf("%s: %s", tt.name, r)
			t.Logf("stopped %s into the run, exited %s later; the next process answered %s after that (its own start-up %s)",
				stopped.Sub(start), exited.Sub(stopped), ready.Sub(exited), next.Startup())
			if r.Errors+r.Mismatches > 0 {
				t.Logf("%s\nthe stopped Caddy's output:\n%s\nthe next one's:\n%s", strings.Join(r.Examples, "\n"), tail(s.Output(), 10), tail(next.Output(), 10))
			}
			r.requireClean(t)
			if tt.activated {
				assert.Zero(t, r.Refused, "a connection refused with the socket held")
			}
			if !tt.crash {
				assert.Zero(t, r.CutInFlight)
			}
			figures.add(fault{Name: tt.name, Topology: caddyAlone, Requests: r.Requests, Errors: r.Errors, Mismatches: r.Mismatches,
				Refused: r.Refused, Resent: r.CutInFlight + r.Retried, Recovery: "answering " + ms(ready.Sub(exited)) + " after the exit",
				Figures: restartFigures{Connections: 50, Crash: tt.crash, Activated: tt.activated,
					Stopped: stopped.Sub(start), Exit: exited.Sub(stopped), Ready: ready.Sub(exited), Startup: next.Startup(),
					Retried: r.Retried, CutInFlight: r.CutInFlight, Refused: r.Refused, Pause: refusedPause,
					P99: r.percentile(99), Max: r.percentile(100)}})
		})
	}
}

// socketUnits is what the test reads of deploy/'s units: the name of the
// socket the socket unit hands over, and the address the service has the
// Caddyfile bind.
type socketUnits struct {
	name, bind string
}

// readSocketUnits reads deploy/proveit-corpus.socket and the service's
// CORPUS_BIND: one stream socket, bound by its file descriptor.
func readSocketUnits(t *testing.T) socketUnits {
	t.Helper()
	deploy := filepath.Join(servertest.RepoRoot(t), "deploy")
	socket := unitSettings(t, filepath.Join(deploy, "proveit-corpus.socket"))
	service := unitSettings(t, filepath.Join(deploy, "proveit-corpus.service"))
	require.Len(t, socket["ListenStream"], 1, "one stream socket: the HTTPS port")
	require.Empty(t, socket["ListenDatagram"], "no datagram socket: HTTP/3 is off")
	require.Len(t, socket["FileDescriptorName"], 1)
	var bind string
	for _, env := range service["Environment"] {
		if v, ok := strings.CutPrefix(env, "CORPUS_BIND="); ok {
			bind = v
		}
	}
	// The first socket systemd hands over is file descriptor 3.
	require.Equal(t, "fd/3", bind, "the service binds the socket unit's socket")
	assert.Contains(t, service["Requires"], "proveit-corpus.socket")
	return socketUnits{name: socket["FileDescriptorName"][0], bind: bind}
}

// unitSettings reads a unit file's settings, every value of each key.
func unitSettings(t *testing.T, path string) map[string][]string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	settings := map[string][]string{}
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		line := strings.TrimSpace(scanner.Text())
		if key, value, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			settings[key] = append(settings[key], value)
		}
	}
	require.NoError(t, scanner.Err())
	return settings
}

// restartFigures are one restart under load: when it came, and what the
// clients saw.
type restartFigures struct {
	Connections                   int
	Crash, Activated              bool
	Stopped, Exit, Ready, Startup time.Duration
	Retried, CutInFlight, Refused int
	Pause                         time.Duration
	P99, Max                      time.Duration
}
