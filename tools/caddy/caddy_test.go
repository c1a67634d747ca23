package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quic-go/quic-go/http3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/harness/servertest"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
	"github.com/arkforge/proveit-corpus/tools/probe"
)

const (
	secret0 = "integration-secret-0-0123456789abcdef0123"
	secret1 = "integration-secret-1-fedcba9876543210fedc"
)

func embeddedManifest(t *testing.T) *manifest.Manifest {
	t.Helper()
	return embeddedManifests(t)[0]
}

// embeddedManifests are every track's, the conformity track's first: the
// shipped Caddyfile serves them all.
func embeddedManifests(t *testing.T) []*manifest.Manifest {
	t.Helper()
	var manifests []*manifest.Manifest
	for _, track := range corpus.Tracks {
		m, err := manifest.Decode(manifest.Embedded(track))
		require.NoError(t, err)
		manifests = append(manifests, m)
	}
	return manifests
}

func runProbe(t *testing.T, baseURL string, o probe.Options) {
	t.Helper()
	client, err := probe.NewClient(baseURL, 10*time.Second)
	require.NoError(t, err)
	checks, err := probe.CatalogueOf(embeddedManifests(t), o)
	require.NoError(t, err)
	failed := 0
	for _, r := range probe.Run(context.Background(), client, checks) {
		if len(r.Problems) > 0 {
			failed++
			t.Errorf("%s: %s", r.Check.Name, strings.Join(r.Problems, "; "))
		}
	}
	t.Logf("probe: %d checks, %d failed", len(checks), failed)
}

// assertNoSecretLogged reads every log the server wrote.
func assertNoSecretLogged(t *testing.T, s *servertest.Server, secrets ...string) {
	t.Helper()
	logs := s.AllLogs(t)
	require.NotEmpty(t, logs)
	for _, secret := range secrets {
		if strings.Contains(logs, secret) {
			t.Errorf("a log holds a secret (slot %d)", indexOf(secrets, secret))
		}
	}
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// TestContractOverHTTP runs every row of the contract and every manifest entry
// against the real binary with the shipped Caddyfile, access log on.
func TestContractOverHTTP(t *testing.T) {
	s := servertest.Start(t, servertest.Options{Secrets: []string{secret0, secret1}})
	runProbe(t, s.URL, probe.Options{Secrets: []string{secret0, secret1}, Protocols: []string{probe.HTTP10, probe.HTTP2}})
	runProbe(t, s.URL, probe.Options{Secrets: []string{secret1}, SkipResources: true})

	t.Run("HTTP/2 cleartext", func(t *testing.T) {
		var protocols http.Protocols
		protocols.SetUnencryptedHTTP2(true)
		client := &http.Client{Transport: &http.Transport{Protocols: &protocols}, Timeout: 10 * time.Second}
		for _, target := range []string{"/referentiel", "/avenants/AVN-3412", "/regles-achat", "/produits/CSQ-0815", "/inconnu", "/x?y"} {
			req, err := http.NewRequest(http.MethodGet, s.URL+target, nil)
			require.NoError(t, err)
			req.Header.Set(corpus.SecretHeader, secret0)
			resp, err := client.Do(req)
			require.NoError(t, err)
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			require.NoError(t, err)
			assert.Equal(t, "HTTP/2.0", resp.Proto)
			assert.Empty(t, probe.HeaderProblems(resp.Header), target)
			assertIsContractBody(t, body)
		}
	})

	t.Run("telemetry records every call with its slot", func(t *testing.T) {
		require.Eventually(t, func() bool {
			data, _ := os.ReadFile(s.TelemetryLog())
			return strings.Contains(string(data), `"secret_slot":1`) && strings.Contains(string(data), `"outcome":"absent"`)
		}, 5*time.Second, 50*time.Millisecond)
		data, err := os.ReadFile(s.TelemetryLog())
		require.NoError(t, err)
		assert.Contains(t, string(data), `"outcome":"forbidden"`)
		assert.Contains(t, string(data), `"secret_slot":-1`)
		assert.Contains(t, string(data), `"sha256":"`)
	})
	assertNoSecretLogged(t, s, secret0, secret1)
	_, err := os.Stat(s.AccessLog())
	assert.True(t, os.IsNotExist(err), "the shipped configuration writes no access log")
}

// assertIsContractBody requires body to be one the manifest lists, or the
// absent body of a reference.
func assertIsContractBody(t *testing.T, body []byte) {
	t.Helper()
	sum := anchor.SHA256(body)
	for _, m := range embeddedManifests(t) {
		for _, e := range m.Resources {
			if e.BytesSHA256 == sum {
				return
			}
		}
	}
	obj, err := anchor.CheckBody(body)
	require.NoError(t, err, "not a contract body: %q", body)
	path, _ := obj.Get("ressource")
	p, _ := path.(string)
	assert.Equal(t, string(corpus.AbsentBody(p)), string(body), "not a contract body")
}

func TestMaintenance(t *testing.T) {
	s := servertest.Start(t, servertest.Options{Secrets: []string{secret0}, Env: map[string]string{"CORPUS_MAINTENANCE": "on"}})
	runProbe(t, s.URL, probe.Options{Secrets: []string{secret0}, Maintenance: true, SkipResources: true})
}

// TestReload rotates the secret through a reload, then offers a tampered tree
// that must be refused while the previous corpus keeps serving.
func TestReload(t *testing.T) {
	root, manifestPath := servertest.CopyCorpus(t)
	s := servertest.Start(t, servertest.Options{
		Secrets: []string{secret0},
		Env:     map[string]string{"CORPUS_ROOT": root, "CORPUS_MANIFEST": manifestPath},
	})
	const rotated = "integration-rotated-secret-000000000000000"
	require.NoError(t, os.WriteFile(filepath.Join(s.SecretsDir, "secret.next"), []byte(rotated+"\n"), 0o600))
	require.NoError(t, s.Reload(t, nil))
	runProbe(t, s.URL, probe.Options{Secrets: []string{secret0, rotated}, SkipResources: true})

	target := filepath.Join(root, "agrements", "AGR-4417.json")
	original, err := os.ReadFile(target)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(target, append(original[:len(original)-1], ' ', '\n'), 0o644))
	err = s.Reload(t, nil)
	require.Error(t, err, "a tampered tree must be refused")
	assert.Contains(t, err.Error(), "agrements/AGR-4417.json: bytes changed")

	runProbe(t, s.URL, probe.Options{Secrets: []string{secret0, rotated}})
	assertNoSecretLogged(t, s, secret0, rotated)
}

// TestReloadChecksEachTrack serves both tracks' trees from disk and offers
// a tampered purchasing tree at reload: refused, and both corpora keep
// serving.
func TestReloadChecksEachTrack(t *testing.T) {
	root, manifestPath := servertest.CopyCorpus(t)
	genericRoot, genericManifest := servertest.CopyTrack(t, corpus.Purchasing)
	s := servertest.Start(t, servertest.Options{
		Secrets: []string{secret0},
		Env: map[string]string{"CORPUS_ROOT": root, "CORPUS_MANIFEST": manifestPath,
			"CORPUS_GENERIQUE_ROOT": genericRoot, "CORPUS_GENERIQUE_MANIFEST": genericManifest},
	})
	require.NoError(t, os.WriteFile(filepath.Join(genericRoot, "tarifs", "TAR-ECR-9999.json"), []byte("{\"a\": \"b\"}\n"), 0o644))
	err := s.Reload(t, nil)
	require.Error(t, err, "a tampered purchasing tree must be refused")
	assert.Contains(t, err.Error(), "tarifs/TAR-ECR-9999.json: extra")
	runProbe(t, s.URL, probe.Options{Secrets: []string{secret0}})
}

func TestRefusesToStart(t *testing.T) {
	root, manifestPath := servertest.CopyCorpus(t)
	require.NoError(t, os.WriteFile(filepath.Join(root, "extra.json"), []byte(`{"a": "b"}`), 0o644))
	genericRoot, genericManifest := servertest.CopyTrack(t, corpus.Purchasing)
	require.NoError(t, os.WriteFile(filepath.Join(genericRoot, "produits", "PRD-EXTRA.json"), []byte(`{"a": "b"}`), 0o644))
	tests := []struct {
		name    string
		env     []string
		message string
	}{
		{"no secret", nil, "no challenge secret configured"},
		{"short secret", []string{"CORPUS_CHALLENGE_SECRET=too-short"}, "secret slot 0 (CORPUS_CHALLENGE_SECRET): shorter than 32 bytes"},
		{"tree with an extra file", []string{"CORPUS_CHALLENGE_SECRET=" + secret0, "CORPUS_ROOT=" + root, "CORPUS_MANIFEST=" + manifestPath}, "extra.json"},
		{"a purchasing tree with an extra file", []string{"CORPUS_CHALLENGE_SECRET=" + secret0, "CORPUS_GENERIQUE_ROOT=" + genericRoot, "CORPUS_GENERIQUE_MANIFEST=" + genericManifest},
			`corpus \"generique\": refusing to serve`},
		{"the conformity manifest for the purchasing tree", []string{"CORPUS_CHALLENGE_SECRET=" + secret0, "CORPUS_GENERIQUE_MANIFEST=" + manifestPath},
			`the manifest is the track \"conformite\"'s`},
		{"a pin that is not the purchasing manifest's", []string{"CORPUS_CHALLENGE_SECRET=" + secret0, "CORPUS_GENERIQUE_MANIFEST_SHA256=" + strings.Repeat("0", 64)},
			"the pinned one is " + strings.Repeat("0", 64)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := refusedStart(t, servertest.FreePort(t), tt.env...)
			require.Error(t, err)
			assert.Contains(t, string(out), tt.message)
			assert.NotContains(t, string(out), secret0)
			assert.NotContains(t, string(out), "too-short", "no error quotes a secret")
		})
	}
}

// refusedStart runs the real binary on the shipped Caddyfile, as a
// loopback server on port with env after the base environment, and
// returns what it printed once it exits; one still running after 30 s
// started where it had to refuse, and fails the test.
func refusedStart(t *testing.T, port int, env ...string) ([]byte, error) {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(servertest.Binary(t), "run", "--config", filepath.Join(servertest.RepoRoot(t), "Caddyfile"), "--adapter", "caddyfile")
	cmd.Dir = dir
	cmd.Env = append([]string{"HOME=" + dir, "PATH=" + os.Getenv("PATH"), "XDG_DATA_HOME=" + dir, "XDG_CONFIG_HOME=" + dir,
		"CORPUS_SITE=http://127.0.0.1:" + strconv.Itoa(port), "CORPUS_OTHER_HOSTS=http://:" + strconv.Itoa(port), "CORPUS_BIND=127.0.0.1",
		"CORPUS_ADMIN=127.0.0.1:" + strconv.Itoa(servertest.FreePort(t)), "CORPUS_SECRETS_DIR=" + dir,
		"CORPUS_TELEMETRY_OUTPUT=stderr", "CORPUS_ACCESS_OUTPUT=stderr"}, env...)
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("the server started where it must refuse: %s", out)
	}
	return out, err
}

// TestShippedCaddyfile checks the binary's own commands on the production
// Caddyfile: the module is listed, the file adapts without any environment
// and without the secret's value, and validates once a secret is given.
func TestShippedCaddyfile(t *testing.T) {
	bin, caddyfile, dir := servertest.Binary(t), filepath.Join(servertest.RepoRoot(t), "Caddyfile"), t.TempDir()
	run := func(env []string, args ...string) (string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		cmd.Env = append([]string{"HOME=" + dir, "PATH=" + os.Getenv("PATH")}, env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run(nil, "list-modules")
	require.NoError(t, err)
	assert.Contains(t, out, "http.handlers.proveit_corpus")

	out, err = run([]string{"CORPUS_CHALLENGE_SECRET=" + secret0}, "adapt", "--config", caddyfile)
	require.NoError(t, err, out)
	assert.Contains(t, out, `"handler":"proveit_corpus"`)
	assert.Contains(t, out, `"corpus.arkforge.tech"`)
	assert.Contains(t, out, `{env.CORPUS_CHALLENGE_SECRET}`)
	assert.NotContains(t, out, secret0)

	logs := []string{"CORPUS_TELEMETRY_OUTPUT=file " + filepath.Join(dir, "t.log"), "CORPUS_ACCESS_OUTPUT=file " + filepath.Join(dir, "a.log"), "CORPUS_SECRETS_DIR=" + dir}
	out, err = run(append(logs, "CORPUS_CHALLENGE_SECRET="+secret0), "validate", "--config", caddyfile)
	require.NoError(t, err, out)
	assert.Contains(t, out, "Valid configuration")
	assert.NotContains(t, out, secret0)

	out, err = run(logs, "validate", "--config", caddyfile)
	require.Error(t, err, "no secret, no valid configuration")
	assert.Contains(t, out, "no challenge secret configured")
}

// TestTLSServesHTTP1ByDefault serves HTTPS as the systemd unit does: HTTP/1.0
// and HTTP/1.1 end in contract bodies, and neither HTTP/2 nor HTTP/3 is
// offered (Trust Layer's client speaks HTTP/1.1).
func TestTLSServesHTTP1ByDefault(t *testing.T) {
	s := servertest.Start(t, servertest.Options{Secrets: []string{secret0}, TLS: true})
	client, err := probe.NewClient(s.URL, 10*time.Second)
	require.NoError(t, err)
	client.InsecureTLS = true
	checks, err := probe.Catalogue(embeddedManifest(t), probe.Options{Secrets: []string{secret0}, SkipResources: true,
		Protocols: []string{probe.HTTP10}})
	require.NoError(t, err)
	for _, r := range probe.Run(context.Background(), client, checks) {
		assert.Empty(t, r.Problems, "HTTP/1.x over TLS: %s", r.Check.Name)
	}

	_, err = client.Do(context.Background(), probe.Request{Proto: probe.HTTP2, Method: http.MethodGet, Target: "/referentiel",
		Header: [][2]string{{corpus.SecretHeader, secret0}}})
	assert.ErrorIs(t, err, probe.ErrNotOffered, "ALPN offers no h2")

	insecure := &tls.Config{InsecureSkipVerify: true}
	req, err := http.NewRequest(http.MethodGet, s.URL+"/referentiel", nil)
	require.NoError(t, err)
	req.Header.Set(corpus.SecretHeader, secret0)
	resp, err := (&http.Client{Transport: &http.Transport{TLSClientConfig: insecure, ForceAttemptHTTP2: true}, Timeout: 10 * time.Second}).Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, "HTTP/1.1", resp.Proto, "a client asking for h2 gets HTTP/1.1")
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Empty(t, resp.Header.Values("Alt-Svc"), "no HTTP/3 advertised")
	_, err = (&http.Client{Transport: &http3.Transport{TLSClientConfig: insecure}, Timeout: 3 * time.Second}).Do(req)
	assert.Error(t, err, "no HTTP/3 listener")
}

// TestTLSAndHTTPVersions serves HTTPS with HTTP/2 and HTTP/3 switched on, as
// an operator may, and checks that HTTP/1.1, HTTP/2 and HTTP/3 all end in
// contract bodies with contract headers.
func TestTLSAndHTTPVersions(t *testing.T) {
	s := servertest.Start(t, servertest.Options{Secrets: []string{secret0}, TLS: true, Protocols: "h1 h2 h3"})
	client, err := probe.NewClient(s.URL, 10*time.Second)
	require.NoError(t, err)
	client.InsecureTLS = true
	checks, err := probe.Catalogue(embeddedManifest(t), probe.Options{Secrets: []string{secret0}, SkipResources: true,
		Protocols: []string{probe.HTTP10, probe.HTTP2, probe.HTTP3}})
	require.NoError(t, err)
	for _, r := range probe.Run(context.Background(), client, checks) {
		assert.Empty(t, r.Problems, "HTTP/1.1 over TLS: %s", r.Check.Name)
	}

	insecure := &tls.Config{InsecureSkipVerify: true}
	transports := map[string]http.RoundTripper{
		"HTTP/2.0": &http.Transport{TLSClientConfig: insecure, ForceAttemptHTTP2: true},
		"HTTP/3.0": &http3.Transport{TLSClientConfig: insecure},
	}
	for proto, transport := range transports {
		t.Run(proto, func(t *testing.T) {
			c := &http.Client{Transport: transport, Timeout: 10 * time.Second}
			for _, row := range []struct {
				target, secret string
				status         int
			}{
				{"/referentiel", secret0, 200},
				{"/avenants/AVN-3412", secret0, 200},
				{"/inconnu", secret0, 404},
				{"/referentiel?x", secret0, 400},
				{"/referentiel", "", 403},
			} {
				req, err := http.NewRequest(http.MethodGet, s.URL+row.target, nil)
				require.NoError(t, err)
				if row.secret != "" {
					req.Header.Set(corpus.SecretHeader, row.secret)
				}
				resp, err := c.Do(req)
				require.NoError(t, err, row.target)
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				require.NoError(t, err)
				assert.Equal(t, proto, resp.Proto)
				assert.Equal(t, row.status, resp.StatusCode, row.target)
				assert.Empty(t, probe.HeaderProblems(resp.Header), row.target)
				assertIsContractBody(t, body)
			}
		})
	}
}

// TestTelemetryLosesNothingOnReloadOrStop: the shipped telemetry writer
// holds records in a buffer; a reload keeps it open and a clean stop writes
// it out, so every call has its record.
func TestTelemetryLosesNothingOnReloadOrStop(t *testing.T) {
	s := servertest.Start(t, servertest.Options{Secrets: []string{secret0}})
	client, err := probe.NewClient(s.URL, 10*time.Second)
	require.NoError(t, err)
	send := func(n int) {
		for range n {
			resp, err := client.Do(context.Background(), probe.Request{Method: http.MethodGet, Target: "/referentiel",
				Header: [][2]string{{corpus.SecretHeader, secret0}}})
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, resp.Status)
		}
	}
	send(150)
	require.NoError(t, s.Reload(t, nil))
	send(150)
	s.Stop()

	data, err := os.ReadFile(s.TelemetryLog())
	require.NoError(t, err)
	calls := 0
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		var record struct {
			Msg        string `json:"msg"`
			Outcome    string `json:"outcome"`
			SecretSlot int    `json:"secret_slot"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &record), "a whole record: %.80s", line)
		if record.Msg == "call" && record.Outcome == "resource" && record.SecretSlot == 0 {
			calls++
		}
	}
	assert.Equal(t, 300, calls, "one record a call, none lost")
}
