// Package servertest starts the real corpus server, the project's Caddy
// binary with the shipped Caddyfile, and nginx with a vhost of
// tools/nginxconf, on loopback ports, for integration tests and benchmarks.
// Every server it starts listens on 127.0.0.1 only and is killed when the
// test ends, or when the test process dies.
package servertest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
)

// BinaryEnv and ToolboxEnv name the variables holding prebuilt binaries
// (the Makefile sets them); without one, its binary is built once per test
// process.
const (
	BinaryEnv  = "CORPUS_CADDY_BIN"
	ToolboxEnv = "CORPUS_PROVEIT_BIN"
)

// RepoRoot is the folder holding go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := findRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// prebuilt is a binary of this tree: the one its variable names, or built
// once per test process from its package.
type prebuilt struct {
	env, pkg, name string
	once           sync.Once
	path           string
	err            error
}

var (
	caddyBinary   = &prebuilt{env: BinaryEnv, pkg: "./tools/caddy", name: "caddy"}
	toolboxBinary = &prebuilt{env: ToolboxEnv, pkg: "./tools/proveit", name: "proveit"}
)

func (b *prebuilt) get(t testing.TB) string {
	t.Helper()
	if bin := os.Getenv(b.env); bin != "" {
		return bin
	}
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "proveit-"+b.name+"-")
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(dir, b.name)
		cmd := exec.Command("go", "build", "-o", b.path, b.pkg)
		cmd.Dir = RepoRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// Binary returns the path of the custom Caddy binary.
func Binary(t testing.TB) string { return caddyBinary.get(t) }

// Toolbox returns the path of bin/proveit's binary.
func Toolbox(t testing.TB) string { return toolboxBinary.get(t) }

// FreePort returns a loopback TCP port free at the time of the call.
func FreePort(t testing.TB) int {
	t.Helper()
	port, err := PickPort()
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// Hosts are the Host names every server started here answers; any other
// gets the 400 body.
var Hosts = []string{"127.0.0.1", "localhost", "corpus.arkforge.tech"}

// Options configure a server.
type Options struct {
	// Secrets go to CORPUS_CHALLENGE_SECRET and CORPUS_CHALLENGE_SECRET_NEXT.
	Secrets []string
	// SecretFiles are written to the files secret and secret.next of the
	// secrets folder before the server starts: unlike the environment, a
	// reload reads them again.
	SecretFiles []string
	// Port to listen on; 0 picks a free one. A server started again on the
	// port of one that was killed takes its place.
	Port int
	// Env adds or overrides environment variables of the Caddyfile.
	Env map[string]string
	// Caddyfile to run; empty: the repository's. Another Caddyfile may read
	// the same variables ({$CORPUS_SITE}, {$CORPUS_ADMIN}...).
	Caddyfile string
	// Lifetime bounds how long the server may live (default 10 minutes).
	Lifetime time.Duration
	// TLS serves HTTPS with a certificate of Caddy's internal CA, as the
	// systemd unit does, instead of cleartext HTTP/1.x and h2c.
	TLS bool
	// Protocols overrides CORPUS_PROTOCOLS ("h1 h2 h3" serves HTTP/2 and
	// HTTP/3 over TLS). Empty: the Caddyfile's default over TLS, HTTP/1.x
	// only; "h1 h2c" in clear, as make run serves.
	Protocols string
	// Binary is the Caddy binary; Start defaults to Binary(t), Launch to
	// the one CORPUS_CADDY_BIN names.
	Binary string
	// Dir holds the server's logs and secrets folder; Start defaults to a
	// temporary folder of the test, Launch requires it.
	Dir string
	// CPUs pins the server to these CPUs (a taskset list such as "0");
	// empty: not pinned.
	CPUs string
	// Sockets are listening sockets the caller holds, handed to the server
	// as systemd's socket unit hands them (file descriptors from 3 on,
	// LISTEN_FDS, LISTEN_PID, LISTEN_FDNAMES); Port is then the first's
	// port, and Env says where the Caddyfile binds (CORPUS_BIND=fd/3, as
	// the unit does). Unix systems only (SocketActivation).
	Sockets []Socket
}

// Socket is a listening socket that outlives the servers it is handed to,
// as a systemd socket unit's does across restarts of its service.
type Socket struct {
	Name string   // the unit's FileDescriptorName=
	File *os.File // the listening socket; the caller closes it
}

// Server is a running corpus server.
type Server struct {
	*Process
	URL        string // http://127.0.0.1:PORT
	Port       int
	AdminAddr  string
	Dir        string // holds the logs and the secrets folder
	SecretsDir string
	binary     string
	env        []string
	caddyfile  string
}

// Start runs the server and waits until it answers; the test fails if it
// does not, and the server is stopped when the test ends.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	if o.Binary == "" {
		o.Binary = Binary(t)
	}
	if o.Dir == "" {
		o.Dir = t.TempDir()
	}
	if o.Caddyfile == "" {
		o.Caddyfile = filepath.Join(RepoRoot(t), "Caddyfile")
	}
	s, err := Launch(o)
	if s != nil {
		t.Cleanup(s.Stop)
	}
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Launch runs the server and waits until it answers, for callers without a
// test (the benchmark); the caller stops it.
func Launch(o Options) (*Server, error) {
	if o.Binary == "" {
		if o.Binary = os.Getenv(BinaryEnv); o.Binary == "" {
			return nil, fmt.Errorf("no Caddy binary: set Options.Binary or %s", BinaryEnv)
		}
	}
	if o.Dir == "" {
		return nil, fmt.Errorf("no folder for the server's files (Options.Dir)")
	}
	if o.Caddyfile == "" {
		root, err := findRepoRoot()
		if err != nil {
			return nil, err
		}
		o.Caddyfile = filepath.Join(root, "Caddyfile")
	}
	s := &Server{Port: o.Port, Dir: o.Dir, SecretsDir: filepath.Join(o.Dir, "secrets"), binary: o.Binary, caddyfile: o.Caddyfile}
	ports := []*int{&s.Port}
	if s.Port != 0 {
		ports = nil
	}
	var otherPort, adminPort int
	for _, p := range append(ports, &otherPort, &adminPort) {
		var err error
		if *p, err = PickPort(); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(s.SecretsDir, 0o700); err != nil {
		return nil, err
	}
	for i, name := range []string{"secret", "secret.next"} {
		if i < len(o.SecretFiles) {
			if err := os.WriteFile(filepath.Join(s.SecretsDir, name), []byte(o.SecretFiles[i]+"\n"), 0o600); err != nil {
				return nil, err
			}
		}
	}
	// The port of the other scheme must be a free one: Caddy refuses an
	// http:// address on its HTTPS port and the reverse.
	scheme, protocols, httpPort, httpsPort := "http", "h1 h2c", s.Port, otherPort
	if o.TLS {
		scheme, protocols, httpPort, httpsPort = "https", "", otherPort, s.Port
	}
	if o.Protocols != "" {
		protocols = o.Protocols
	}
	s.URL = fmt.Sprintf("%s://127.0.0.1:%d", scheme, s.Port)
	s.AdminAddr = fmt.Sprintf("127.0.0.1:%d", adminPort)
	vars := map[string]string{
		"CORPUS_SITE":             s.URL,
		"CORPUS_OTHER_HOSTS":      fmt.Sprintf("%s://:%d", scheme, s.Port),
		"CORPUS_HTTP_PORT":        fmt.Sprint(httpPort),
		"CORPUS_HTTPS_PORT":       fmt.Sprint(httpsPort),
		"CORPUS_HOSTS":            strings.Join(Hosts, " "),
		"CORPUS_BIND":             "127.0.0.1",
		"CORPUS_DEFAULT_SNI":      "127.0.0.1", // clients call the IP address, which no TLS client names
		"CORPUS_ADMIN":            s.AdminAddr,
		"CORPUS_TELEMETRY_OUTPUT": "proveit_file " + s.TelemetryLog(), // the shipped writer, buffered
		"CORPUS_ACCESS_OUTPUT":    "file " + s.AccessLog(),
		"CORPUS_SERVER_OUTPUT":    "stderr",
		"CORPUS_SECRETS_DIR":      s.SecretsDir,
	}
	if protocols != "" {
		vars["CORPUS_PROTOCOLS"] = protocols
	}
	for i, name := range []string{"CORPUS_CHALLENGE_SECRET", "CORPUS_CHALLENGE_SECRET_NEXT"} {
		if i < len(o.Secrets) {
			vars[name] = o.Secrets[i]
		}
	}
	for k, v := range o.Env {
		vars[k] = v
	}
	s.AdminAddr = vars["CORPUS_ADMIN"] // a caller may put it on a unix socket
	s.env = baseEnv(o.Dir)
	for k, v := range vars {
		s.env = append(s.env, k+"="+v)
	}
	var err error
	s.Process, err = launch{
		bin:      o.Binary,
		args:     []string{"run", "--config", s.caddyfile, "--adapter", "caddyfile"},
		env:      s.env,
		dir:      o.Dir,
		cpus:     o.CPUs,
		lifetime: o.Lifetime,
		sockets:  o.Sockets,
	}.start()
	if err != nil {
		return nil, err
	}
	if err := s.waitAnswers(s.URL, readyLimit); err != nil {
		s.Stop()
		return s, fmt.Errorf("server did not start: %v\n%s", err, s.Output())
	}
	return s, nil
}

// Reload asks the running server to load the Caddyfile again, with env
// overriding its variables, exactly as an operator's `caddy reload` does.
func (s *Server) Reload(t testing.TB, env map[string]string) error {
	t.Helper()
	cmd := exec.Command(s.binary, "reload", "--config", s.caddyfile, "--adapter", "caddyfile", "--address", s.AdminAddr, "--force")
	cmd.Env = append([]string(nil), s.env...)
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Dir = s.Dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("caddy reload: %v: %s", err, out)
	}
	return nil
}

// CopyCorpus is CopyTrack of the track the Caddyfile serves from
// CORPUS_ROOT and CORPUS_MANIFEST, the conformity track, for a server told
// to read it from disk. The folder holds nothing else: a test may put
// files beside the tree.
func CopyCorpus(t testing.TB) (root, manifestPath string) {
	t.Helper()
	return CopyTrack(t, corpus.Conformity)
}

// CopyTrack copies a track's embedded tree and its manifest to a temporary
// folder a test may change: the tree in <dir>/<track>, the manifest in
// <dir>/manifest.json.
func CopyTrack(t testing.TB, track *corpus.Track) (root, manifestPath string) {
	t.Helper()
	dir := t.TempDir()
	root = filepath.Join(dir, track.Name)
	if err := os.CopyFS(root, track.Embedded()); err != nil {
		t.Fatal(err)
	}
	manifestPath = filepath.Join(dir, "manifest.json")
	if err := os.WriteFile(manifestPath, manifest.Embedded(track), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, manifestPath
}

// TelemetryLog is the file the handler's telemetry goes to.
func (s *Server) TelemetryLog() string { return filepath.Join(s.Dir, "telemetry.log") }

// AccessLog is the file Caddy's access log goes to.
func (s *Server) AccessLog() string { return filepath.Join(s.Dir, "access.log") }

// AllLogs returns every log the server wrote: its output, telemetry and access log.
func (s *Server) AllLogs(t testing.TB) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(s.Output())
	for _, f := range []string{s.TelemetryLog(), s.AccessLog()} {
		data, err := os.ReadFile(f)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return b.String()
}
