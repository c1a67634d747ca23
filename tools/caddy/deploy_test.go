package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/harness/servertest"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/tools/probe"
)

// TestHealthyStart starts the server as the unit does (secret and pins in
// files, no secret.next, the admin endpoint on a unix socket), calls it,
// reloads it and stops it: Caddy's log (the journal) names each manifest
// served and whether it is pinned, and holds no error and no warning (the
// admin endpoint's on its socket among them); the telemetry opens on the same records; the
// socket's /metrics counts the calls.
func TestHealthyStart(t *testing.T) {
	dir, err := os.MkdirTemp("", "proveit-") // a unix socket path is short: not under the test's folder
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	socket := filepath.Join(dir, "admin.sock")
	secret := "healthy-start-" + strings.Repeat("ab12", 8)
	s := servertest.Start(t, servertest.Options{
		SecretFiles: []string{secret},
		Env:         map[string]string{"CORPUS_ADMIN": "unix/" + socket + "|0600"},
		Dir:         dir,
		TLS:         true, // HTTPS, as production: a cleartext site warns that it gets no automatic HTTPS
	})
	// Written before the reload: the pins are read at every load.
	sums := map[string]string{}
	for _, track := range corpus.Tracks {
		sums[track.Name] = anchor.SHA256(manifest.Embedded(track))
	}
	require.NoError(t, os.WriteFile(filepath.Join(s.SecretsDir, "manifest.sha256"), []byte(sums["conformite"]+"\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(s.SecretsDir, "manifest-generique.sha256"), []byte(sums["generique"]+"\n"), 0o600))
	require.NoError(t, s.Reload(t, nil))

	client, err := probe.NewClient(s.URL, 10*time.Second)
	require.NoError(t, err)
	client.InsecureTLS = true // Caddy's internal CA
	for _, secretSent := range []string{secret, ""} {
		req := probe.Request{Method: http.MethodGet, Target: "/referentiel"}
		if secretSent != "" {
			req.Header = [][2]string{{corpus.SecretHeader, secretSent}}
		}
		_, err := client.Do(context.Background(), req)
		require.NoError(t, err)
	}

	admin := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", socket)
		}}}
	resp, err := admin.Get("http://localhost/metrics")
	require.NoError(t, err)
	metrics, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(metrics), "caddy_config_last_reload_successful 1")
	// The handler's own counters (docs/operating.md, "Health and monitoring"), the
	// pins as an info metric; Caddy's per-request metrics are off.
	assert.Contains(t, string(metrics), `proveit_corpus_calls_total{outcome="resource",track="conformite"} 1`)
	assert.Contains(t, string(metrics), `proveit_corpus_calls_total{outcome="forbidden",track=""} 1`)
	assert.Contains(t, string(metrics), "proveit_corpus_call_duration_seconds_count 2")
	for track, sum := range sums {
		assert.Contains(t, string(metrics), `proveit_corpus_manifest_info{manifest_sha256="`+sum+`",pinned="true",track="`+track+`"} 1`)
	}
	assert.NotContains(t, string(metrics), "caddy_http_requests_total")
	s.Stop()

	journal := s.Output()
	for _, line := range strings.Split(strings.TrimSpace(journal), "\n") {
		var record struct{ Level, Logger, Msg string }
		require.NoError(t, json.Unmarshal([]byte(line), &record), "a JSON record: %s", line)
		assert.NotEqual(t, "error", record.Level, "a healthy start logs no error: %s", line)
		if !strings.HasPrefix(record.Msg, "exiting") { // Caddy's farewell at the stop is a warning
			assert.NotEqual(t, "warn", record.Level, "a healthy start logs no warning (the admin endpoint's on its unix socket among them): %s", line)
		}
	}
	for track, sum := range sums {
		assert.Regexp(t, `"logger":"proveit_corpus","msg":"corpus verified against its manifest","track":"`+track+`".*"manifest_sha256":"`+sum+`","manifest_pinned":false`, journal, "the start, unpinned")
		assert.Regexp(t, `"logger":"proveit_corpus","msg":"corpus verified against its manifest","track":"`+track+`".*"manifest_sha256":"`+sum+`","manifest_pinned":true`, journal, "the reload, pinned")
	}

	telemetry, err := os.ReadFile(s.TelemetryLog())
	require.NoError(t, err)
	records := strings.Split(strings.TrimSpace(string(telemetry)), "\n")
	require.NotEmpty(t, records)
	assert.Contains(t, records[0], `"msg":"corpus verified against its manifest","track":"conformite"`, "the telemetry opens on the manifests that answered")
	assert.Regexp(t, `"manifest_sha256":"`+sums["generique"]+`","manifest_pinned":true`, string(telemetry), "each configuration's first call is preceded by its manifests")
}

// deployUnits are the services of deploy/, which systemd rates; the
// other units of deploy/ start them (a timer, a socket).
var (
	deployUnits = []string{"proveit-corpus.service", "proveit-probe.service"}
	otherUnits  = []string{"proveit-probe.timer", "proveit-corpus.socket"}
)

// TestUnitsHardened reads systemd's own rating of each unit's exposure,
// which must be OK or SAFE, and checks the units' syntax.
func TestUnitsHardened(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed (Debian's package systemd; .ci/run installs it)")
	}
	deploy := filepath.Join(servertest.RepoRoot(t), "deploy")
	level := regexp.MustCompile(`Overall exposure level for \S+: ([0-9.]+) (\w+)`)
	for _, unit := range deployUnits {
		out, err := exec.Command(analyze, "security", "--offline=true", filepath.Join(deploy, unit)).CombinedOutput()
		require.NoError(t, err, "%s", out)
		m := level.FindStringSubmatch(string(out))
		require.NotNil(t, m, "%s", out)
		t.Logf("%s: exposure %s %s", unit, m[1], m[2])
		assert.Contains(t, []string{"SAFE", "OK"}, m[2], "%s: exposure %s", unit, m[1])
	}
	var files []string
	for _, unit := range append(otherUnits, deployUnits...) {
		files = append(files, filepath.Join(deploy, unit))
	}
	out, _ := exec.Command(analyze, append([]string{"verify"}, files...)...).CombinedOutput()
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		// The binaries are installed on the server, not here.
		if line != "" && !strings.Contains(line, "is not executable: No such file or directory") {
			t.Errorf("systemd-analyze verify: %s", line)
		}
	}
}

// TestDeployDocumented: the operator's deploy steps (docs/operating.md)
// install every unit of deploy/ and the file each unit's Documentation=
// names, and the Caddyfile's reload comment is the unit's ExecReload.
func TestDeployDocumented(t *testing.T) {
	root := servertest.RepoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "docs", "operating.md"))
	require.NoError(t, err)
	for _, unit := range append(otherUnits, deployUnits...) {
		text, err := os.ReadFile(filepath.Join(root, "deploy", unit))
		require.NoError(t, err)
		doc := regexp.MustCompile(`(?m)^Documentation=file:(\S+)$`).FindSubmatch(text)
		require.NotNil(t, doc, "%s: Documentation= names a file", unit)
		assert.True(t, strings.Contains(string(readme), "docs/operating.md "+string(doc[1])), "%s: docs/operating.md installs its documentation, %s", unit, doc[1])
	}
	files, err := os.ReadDir(filepath.Join(root, "deploy"))
	require.NoError(t, err)
	install := regexp.MustCompile(`(?m)^sudo install -m 0644 (deploy/.*) /etc/systemd/system/$`).FindSubmatch(readme)
	require.NotNil(t, install, "docs/operating.md installs the units")
	for _, f := range files {
		assert.Contains(t, strings.Fields(string(install[1])), "deploy/"+f.Name(), "docs/operating.md installs every unit of deploy/")
	}
	exec, _ := unit(t)
	caddyfile, err := os.ReadFile(filepath.Join(root, "Caddyfile"))
	require.NoError(t, err)
	assert.Contains(t, string(caddyfile), "#   caddy "+strings.Join(exec["ExecReload"][1:], " ")+"\n", "the reload comment is the unit's")
}
