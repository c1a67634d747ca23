package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/harness/servertest"
	"github.com/arkforge/proveit-corpus/tools/probe"
)

// unit reads the systemd unit the README documents: its Exec lines, split
// into words, and its Environment assignments.
func unit(t *testing.T) (exec map[string][]string, env map[string]string) {
	t.Helper()
	f, err := os.Open(filepath.Join(servertest.RepoRoot(t), "deploy", "proveit-corpus.service"))
	require.NoError(t, err)
	defer f.Close()
	exec, env = map[string][]string{}, map[string]string{}
	scanner := bufio.NewScanner(f)
	for scanner.Scan() {
		key, value, ok := strings.Cut(strings.TrimSpace(scanner.Text()), "=")
		switch {
		case !ok || strings.HasPrefix(key, "#"):
		case strings.HasPrefix(key, "Exec"):
			exec[key] = strings.Fields(value)
		case key == "Environment":
			name, v, _ := strings.Cut(value, "=")
			env[name] = v
		}
	}
	require.NoError(t, scanner.Err())
	return exec, env
}

var echoesSecret = regexp.MustCompile(`(?i)(echo|printf)[^\n]*\$\{?CORPUS_CHALLENGE_SECRET`)

// TestNoDocumentedCommandPrintsASecret: `caddy run --environ` prints every
// variable of the environment, the secret's included.
func TestNoDocumentedCommandPrintsASecret(t *testing.T) {
	root := servertest.RepoRoot(t)
	for _, doc := range []string{"README.md", "docs/operating.md", "docs/contributing.md", "Makefile", "Caddyfile", "deploy/proveit-corpus.service"} {
		text, err := os.ReadFile(filepath.Join(root, doc))
		require.NoError(t, err)
		assert.False(t, strings.Contains(string(text), "--environ"), "%s documents --environ, which prints the secret", doc)
		assert.False(t, echoesSecret.Match(text), "%s echoes the secret's variable", doc)
	}
	exec, env := unit(t)
	assert.Equal(t, []string{"run", "--config", "/etc/proveit/Caddyfile", "--adapter", "caddyfile"}, exec["ExecStart"][1:])
	assert.Equal(t, []string{"reload", "--config", "/etc/proveit/Caddyfile", "--adapter", "caddyfile",
		"--address", "unix//run/proveit/admin.sock", "--force"}, exec["ExecReload"][1:])
	for name := range env {
		assert.NotContains(t, name, "SECRET_", "the unit's environment holds no secret")
	}
}

// startAsTheUnit runs the server as the systemd unit does (its command, its
// environment, secrets in files, the admin endpoint on a unix socket), with
// Caddy's log at DEBUG and the access log switched on; over TLS with h2 and
// h3 switched on, or in clear (h1 and h2c). It returns the server and its admin socket.
func startAsTheUnit(t *testing.T, secret string, useTLS bool) (*servertest.Server, string) {
	t.Helper()
	_, unitEnv := unit(t)
	dir, err := os.MkdirTemp("", "proveit-") // a unix socket path is short: not under the test's folder
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	socket := filepath.Join(dir, "admin.sock")
	env := map[string]string{
		"CORPUS_LOG_LEVEL":  "DEBUG",
		"CORPUS_ACCESS_LOG": "on",
		"CORPUS_ADMIN":      "unix/" + socket + "|0600",
	}
	for name, value := range unitEnv {
		if name != "CORPUS_SECRETS_DIR" && !strings.HasPrefix(name, "XDG_") { // the test's own folders stand in for these
			env[name] = value
		}
	}
	protocols := "" // in clear, servertest's h1 and h2c
	if useTLS {
		protocols = "h1 h2 h3" // every protocol an operator may switch on
	}
	o := servertest.Options{SecretFiles: []string{secret}, Env: env, TLS: useTLS, Protocols: protocols}
	// The unit binds the socket its socket unit holds (CORPUS_BIND=fd/3).
	// Over TLS the server binds its own ports instead: HTTP/3, switched on
	// here to cover its paths, needs a datagram socket the unit does not
	// hold (docs/operating.md, "Socket activation"); so does a system with
	// no socket activation.
	if strings.HasPrefix(env["CORPUS_BIND"], "fd/") {
		if servertest.SocketActivation && !useTLS {
			socket, port := servertest.HeldSocket(t, "https")
			o.Port, o.Sockets = port, []servertest.Socket{socket}
		} else {
			delete(env, "CORPUS_BIND")
		}
	}
	s := servertest.Start(t, o)
	info, err := os.Stat(socket)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "only the owner may use the admin socket")
	return s, socket
}

// requireNoSecretInLogs stops the server and looks for the secret, and for
// pieces and encodings of it, in everything the server wrote. A leak is
// named by the logger and message of each line holding it, never the line.
// It returns the logs.
func requireNoSecretInLogs(t *testing.T, s *servertest.Server, secret string, encodings ...string) string {
	t.Helper()
	s.Stop()
	logs := s.AllLogs(t)
	require.Contains(t, logs, `"level":"debug"`, "Caddy's log ran at DEBUG")
	require.Contains(t, logs, `"outcome":"absent"`, "telemetry was written")
	access, err := os.ReadFile(s.AccessLog())
	require.NoError(t, err, "the access log was switched on")
	require.NotEmpty(t, access)
	leaks := append([]string{secret, secret[:16], secret[len(secret)-16:], url.QueryEscape(secret)}, encodings...)
	leaks = append(leaks, "5ecre75ecre7", "5ecre7-5ecre7")
	for _, line := range strings.Split(strings.ToLower(logs), "\n") {
		for _, leak := range leaks {
			if strings.Contains(line, strings.ToLower(leak)) {
				t.Errorf("a log line holds the secret, or a piece of it: %s", whereLogged(line))
				break
			}
		}
	}
	return logs
}

var loggedAt = regexp.MustCompile(`"(logger|msg)":"([^"]{0,60})`)

// whereLogged names a log line by its logger and message.
func whereLogged(line string) string {
	var parts []string
	for _, m := range loggedAt.FindAllStringSubmatch(line, 2) {
		parts = append(parts, m[1]+"="+m[2])
	}
	if len(parts) == 0 {
		return "a line that is not a JSON record"
	}
	return strings.Join(parts, " ")
}

// TestDocumentedStartWritesNoSecret runs the server as the systemd unit
// does, sends the secret everywhere a caller can put it, reloads through the
// socket, and then looks for the secret in everything the server wrote.
func TestDocumentedStartWritesNoSecret(t *testing.T) {
	secret := "documented-start-" + strings.Repeat("5ecre7", 6)
	s, socket := startAsTheUnit(t, secret, false)

	encoded := url.PathEscape(secret[:10]) + "%" + strings.ToUpper(strings.TrimPrefix(url.QueryEscape(secret[10:11]), "%")) + secret[11:]
	client, err := probe.NewClient(s.URL, 10*time.Second)
	require.NoError(t, err)
	host := client.Host()
	withSecret := corpus.SecretHeader + ": " + secret + "\r\n"
	raw := []string{
		"GET /agrements/" + secret + " HTTP/1.1\r\nHost: " + host + "\r\n" + withSecret + "\r\n",
		"GET /agrements/" + secret + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n",
		"GET /referentiel?" + secret + " HTTP/1.1\r\nHost: " + host + "\r\n" + withSecret + "\r\n",
		"GET /" + encoded + " HTTP/1.1\r\nHost: " + host + "\r\n" + withSecret + "\r\n",
		"GET /referentiel HTTP/1.1\r\nHost: " + secret + "\r\n" + withSecret + "\r\n",
		"GET /referentiel HTTP/1.1\r\nHost: " + host + "\r\nX-Other: " + secret + "\r\n\r\n",
		"GET /referentiel HTTP/1.1\r\nHost: " + host + "\r\nX_" + secret + ": 1\r\n" + withSecret + "\r\n",
		secret + "-" + secret + " /referentiel HTTP/1.1\r\nHost: " + host + "\r\n" + withSecret + "\r\n",
		secret[:32] + " /referentiel HTTP/1.1\r\nHost: " + host + "\r\n\r\n",
		"GET /" + secret + " HTTP/9.9\r\nHost: " + host + "\r\n\r\n",
		"GET /referentiel HTTP/1.1\r\nHost:\r\n" + withSecret + "\r\n",
		"POST /referentiel HTTP/1.1\r\nHost: " + host + "\r\n" + withSecret + "Content-Length: 53\r\n\r\n" + secret,
		"GET /referentiel HTTP/1.0\r\n" + withSecret + "Expect: " + secret + "\r\n\r\n",
	}
	for _, r := range raw {
		_, _ = client.Exchange(context.Background(), []byte(r), "GET") // any answer: what matters is what was written
	}
	for _, req := range []probe.Request{
		{Proto: probe.HTTP2, Method: "GET", Target: "/agrements/" + secret, Header: [][2]string{{corpus.SecretHeader, secret}}},
		{Proto: probe.HTTP2, Method: "GET", Target: "/referentiel", Host: secret, Header: [][2]string{{corpus.SecretHeader, secret}}},
		{Proto: probe.HTTP2, Method: "GET", Target: "/referentiel", Header: [][2]string{{"x_" + secret, "1"}, {corpus.SecretHeader, secret}}},
		{Proto: probe.HTTP2, Fields: [][2]string{{":method", "GET"}, {":scheme", "http"}, {":authority", host}, {":path", "/referentiel"}, {"transfer-encoding", secret}}},
	} {
		_, _ = client.Do(context.Background(), req)
	}
	callAdmin(t, socket, secret)
	require.NoError(t, s.Reload(t, nil), "a reload through the unix socket, as ExecReload does")
	requireNoSecretInLogs(t, s, secret, encoded)
}

// TestDocumentedTLSStartWritesNoSecret does the same over TLS, where a
// caller also writes the server name it asks for, what it sends after
// choosing h2, and HTTP/3's extended CONNECT protocol.
func TestDocumentedTLSStartWritesNoSecret(t *testing.T) {
	secret := "documented-tls-st-" + strings.Repeat("5ecre7", 6)
	s, socket := startAsTheUnit(t, secret, true)
	client, err := probe.NewClient(s.URL, 10*time.Second)
	require.NoError(t, err)
	client.InsecureTLS = true
	host := client.Host()
	withSecret := corpus.SecretHeader + ": " + secret + "\r\n"
	for _, r := range []string{
		"GET /agrements/" + secret + " HTTP/1.1\r\nHost: " + host + "\r\n" + withSecret + "\r\n",
		"GET /referentiel HTTP/1.1\r\nHost: " + host + "\r\nX_" + secret + ": 1\r\n" + withSecret + "\r\n",
		"GET /referentiel HTTP/1.1\r\nHost: " + secret + "\r\n" + withSecret + "\r\n",
	} {
		_, _ = client.Exchange(context.Background(), []byte(r), "GET")
	}
	for _, req := range []probe.Request{
		{Proto: probe.HTTP2, Method: "GET", Target: "/referentiel", Header: [][2]string{{"x_" + secret, "1"}, {corpus.SecretHeader, secret}}},
		{Proto: probe.HTTP3, Method: "GET", Target: "/referentiel", Header: [][2]string{{"x_" + secret, "1"}, {corpus.SecretHeader, secret}}},
		{Proto: probe.HTTP3, Fields: [][2]string{{":method", "CONNECT"}, {":protocol", secret}, {":scheme", "https"},
			{":authority", host}, {":path", "/referentiel"}, {strings.ToLower(corpus.SecretHeader), secret}}},
		{Proto: probe.HTTP3, Method: "GET", Target: "/agrements/" + secret, Header: [][2]string{{corpus.SecretHeader, secret}}},
	} {
		_, _ = client.Do(context.Background(), req)
	}
	addr := "127.0.0.1:" + strconv.Itoa(s.Port)
	// A server name the certificate does not cover, in two DNS labels.
	sendOverTLS(t, addr, &tls.Config{ServerName: secret[:32] + "." + secret[32:], NextProtos: []string{"http/1.1"}, InsecureSkipVerify: true},
		"GET /referentiel HTTP/1.1\r\nHost: "+host+"\r\n\r\n")
	// The secret where HTTP/2's connection preface belongs.
	sendOverTLS(t, addr, &tls.Config{NextProtos: []string{"h2"}, InsecureSkipVerify: true}, secret+"\r\n\r\n")
	callAdmin(t, socket, secret)
	logs := requireNoSecretInLogs(t, s, secret)
	// The filters remove the caller's text, not the records.
	for _, kept := range []string{`"proto":"HTTP/3.0"`, `"proto":""`, `"logger":"tls.handshake"`, `"msg":"dropping header containing underscore"`} {
		assert.True(t, strings.Contains(logs, kept), "the logs lost every %s", kept)
	}
}

// sendOverTLS opens a TLS connection with conf, writes data and reads what
// comes back until the server closes or a second passes.
func sendOverTLS(t *testing.T, addr string, conf *tls.Config, data string) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(time.Second)))
	tc := tls.Client(conn, conf)
	if tc.Handshake() != nil {
		return // refused in the handshake: what matters is what was written
	}
	_, _ = io.WriteString(tc, data)
	_, _ = io.Copy(io.Discard, tc)
}

// callAdmin sends a request with the secret in its path and in a header to
// the admin endpoint, as a local process could.
func callAdmin(t *testing.T, socket, secret string) {
	t.Helper()
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socket)
		}}}
	req, err := http.NewRequest(http.MethodGet, "http://admin/id/"+secret, nil)
	require.NoError(t, err)
	req.Header.Set("X-Other", secret)
	resp, err := client.Do(req)
	require.NoError(t, err, "the admin endpoint answers on its socket")
	resp.Body.Close()
}

// TestMakeRunPrintsNoSecret runs the README's first command, with the secret
// from the environment and then from the generated file, and reads what it
// printed.
func TestMakeRunPrintsNoSecret(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	root := servertest.RepoRoot(t)
	runDir := t.TempDir()
	for _, fromEnv := range []bool{true, false} {
		secret := ""
		environment := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
		if fromEnv {
			secret = "make-run-secret-" + strings.Repeat("7e57", 8)
			environment = append(environment, "CORPUS_CHALLENGE_SECRET="+secret)
		}
		port := servertest.FreePort(t)
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		// -o build: the binary under test is served as it is, never rebuilt
		// beneath the other tests.
		cmd := exec.CommandContext(ctx, "make", "-s", "-o", "build", "run", "RUN_DIR="+runDir,
			"CORPUS_LISTEN=127.0.0.1:"+strconv.Itoa(port), "CADDY="+servertest.Binary(t))
		cmd.Dir = root
		cmd.Env = append(environment, "CORPUS_ADMIN=127.0.0.1:"+strconv.Itoa(servertest.FreePort(t)))
		inOwnGroup(cmd)
		out := &servertest.SyncBuffer{}
		cmd.Stdout, cmd.Stderr = out, out
		require.NoError(t, cmd.Start())
		client, err := probe.NewClient("http://127.0.0.1:"+strconv.Itoa(port), time.Second)
		require.NoError(t, err)
		require.Eventually(t, func() bool {
			_, err := client.Do(context.Background(), probe.Request{Method: "GET", Target: "/referentiel"})
			return err == nil
		}, 2*time.Minute, 100*time.Millisecond, "make run serves: %s", out)
		stopGroup(cmd) // make and the server it runs
		_ = cmd.Wait()
		cancel()
		if !fromEnv {
			data, err := os.ReadFile(filepath.Join(runDir, "secret"))
			require.NoError(t, err)
			secret = strings.TrimSpace(string(data))
			assert.Contains(t, out.String(), "$(cat "+runDir+"/secret)", "the curl line names the file")
		} else {
			assert.Contains(t, out.String(), "$CORPUS_CHALLENGE_SECRET", "the curl line names the variable")
		}
		require.GreaterOrEqual(t, len(secret), 32)
		assert.NotContains(t, out.String(), secret, "make run printed the secret")
	}
}
