package main

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/arkforge/proveit-corpus/harness/servertest"
)

// A setup is one way of serving a corpus.
type setup struct {
	Key  string // names the setup in ratios and targets
	Name string
	Note string // what the setup is, for the table's legend
	// start launches the server, its files in dir; it returns why the
	// setup cannot run, if so.
	start func(b *bench, c *corpusSet, dir string) (*server, error)
}

const (
	keyCorpus       = "corpus"
	keyCorpusNoTele = "corpus-no-telemetry"
	keyCorpusCaddy  = "corpus-caddy-metrics"
	keyRespond      = "respond"
	keyFileServer   = "file_server"
	keyNginx        = "nginx"
)

func setups() []setup {
	return []setup{
		{keyCorpus, "proveit_corpus, shipped Caddyfile",
			"this project's Caddy build and shipped Caddyfile as production runs it: telemetry written to a file, no access log",
			startCorpus(nil)},
		{keyCorpusNoTele, "proveit_corpus, telemetry off",
			"the same with `CORPUS_TELEMETRY_OUTPUT=discard`: the module alone",
			startCorpus(map[string]string{"CORPUS_TELEMETRY_OUTPUT": "discard"})},
		{keyCorpusCaddy, "proveit_corpus, Caddy's metrics on",
			"the shipped Caddyfile with `CORPUS_METRICS=on`: Caddy's per-request HTTP metrics besides the handler's own counters",
			startCorpus(map[string]string{"CORPUS_METRICS": "on"})},
		{keyRespond, "Caddy `respond` (floor)",
			"the same binary, a plain Caddyfile whose static `respond` answers one fixed body, with the shipped Caddyfile's protocols, " +
				"timeouts and listener wrappers (`proveit_limits`, `proveit_guard`, `proveit_h2_guard`) and no metrics: the floor of any Caddy handler",
			startRespond},
		{keyFileServer, "Caddy `file_server`, gated",
			"the same binary, a plain Caddyfile: `@ok header X-Challenge-Secret`, the contract's headers, stock `file_server` over the tree, " +
				"the shipped protocols without the listener wrappers",
			startFileServer},
		{keyNginx, "nginx, generated vhost",
			"nginx from Debian, one worker (peak RSS adds the master's), access log written to a file; the vhost `proveit nginx -root` generates, " +
				"in which a front server checks each call and hands it to nginx's own backend server over a unix socket",
			startNginx},
	}
}

// server is one running server of the benchmark, pinned to the server CPU.
type server struct {
	*servertest.Process
	Addr  string // 127.0.0.1:port
	Admin string // Caddy's admin endpoint, empty for nginx
}

// startServer launches a setup in a folder of its own and checks that it
// answers a resource of the corpus with 200.
func (b *bench) startServer(c *corpusSet, st setup) (*server, error) {
	dir, err := os.MkdirTemp(b.work, st.Key+"-")
	if err != nil {
		return nil, err
	}
	s, err := st.start(b, c, dir)
	if err != nil {
		return nil, fmt.Errorf("%s did not start: %v", st.Name, err)
	}
	if status, err := get(s.Addr, c.documents()[0], b.secret); err != nil || status != http.StatusOK {
		s.Stop()
		return nil, fmt.Errorf("%s does not serve %s: status %d, %v\n%s", st.Name, c.documents()[0], status, err, tail(s.Output(), 2000))
	}
	return s, nil
}

// get sends one GET with the secret header and returns the status.
func get(addr, path, secret string) (int, error) {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nX-Challenge-Secret: %s\r\nConnection: close\r\n\r\n", path, addr, secret); err != nil {
		return 0, err
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

// heapStats reads the Go runtime's memory statistics of a Caddy server
// from its admin endpoint; gc first runs a collection, so that HeapAlloc
// is the live heap. Zero values when the server has no admin endpoint.
func (s *server) heapStats(gc bool) (heapAlloc, sys int64) {
	if s.Admin == "" {
		return 0, 0
	}
	url := "http://" + s.Admin + "/debug/pprof/heap?debug=1"
	if gc {
		url += "&gc=1"
	}
	client := http.Client{Timeout: 30 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		return 0, 0
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(body), "\n") {
		var name string
		var value int64
		if n, _ := fmt.Sscanf(line, "# %s = %d", &name, &value); n == 2 {
			switch name {
			case "HeapAlloc":
				heapAlloc = value
			case "Sys":
				sys = value
			}
		}
	}
	return heapAlloc, sys
}

// launchCaddy runs this project's Caddy on a Caddyfile with the
// environment of the integration tests (harness/servertest).
func (b *bench) launchCaddy(dir, caddyfile string, env map[string]string) (*server, error) {
	s, err := servertest.Launch(servertest.Options{
		Binary:    b.caddy,
		Caddyfile: caddyfile,
		Dir:       dir,
		CPUs:      b.serverCPU,
		Secrets:   []string{b.secret},
		Env:       env,
	})
	if err != nil {
		return nil, err
	}
	return &server{Process: s.Process, Addr: strings.TrimPrefix(s.URL, "http://"), Admin: s.AdminAddr}, nil
}

// startCorpus runs the shipped Caddyfile, telemetry written to a file of
// the server's folder, with the settings given over the shipped ones.
func startCorpus(settings map[string]string) func(*bench, *corpusSet, string) (*server, error) {
	return func(b *bench, c *corpusSet, dir string) (*server, error) {
		env := map[string]string{"CORPUS_TELEMETRY_OUTPUT": "proveit_file " + filepath.Join(dir, "telemetry.log")}
		maps.Copy(env, settings)
		if !c.Embedded {
			env["CORPUS_ROOT"], env["CORPUS_MANIFEST"] = c.Tree, c.Manifest
		}
		return b.launchCaddy(dir, b.caddyfile, env)
	}
}

// floorOptions are the shipped Caddyfile's server options that cost
// something on every request, for the plain Caddyfiles to compare with it
// on equal terms.
const floorOptions = `{
	admin {$CORPUS_ADMIN}
	servers {
		protocols {$CORPUS_PROTOCOLS}
		timeouts {
			read_header 5s
			read_body 5s
			write 10s
			idle 60s
		}
		max_header_size 16KiB
		listener_wrappers {
			proveit_limits {
				connections_per_address 256
				h2_streams 16
				h2_stream_buffer 16384
				h2_connection_buffer 65535
				h2_frame_size 16384
			}
			tls
			proveit_guard
			proveit_h2_guard
		}
	}
}
`

// respondCaddyfile answers every request with one fixed body.
const respondCaddyfile = floorOptions + `
{$CORPUS_SITE} {
	bind 127.0.0.1
	respond ` + "`%s`" + ` 200
}
`

// startRespond serves the body of the corpus's first resource to every
// request: what any handler inside Caddy costs at the least.
func startRespond(b *bench, c *corpusSet, dir string) (*server, error) {
	body, err := os.ReadFile(filepath.Join(c.Tree, strings.TrimPrefix(c.documents()[0], "/")+".json"))
	if err != nil {
		return nil, err
	}
	return b.plainCaddy(dir, fmt.Sprintf(respondCaddyfile, body), nil)
}

// fileServerCaddyfile is stock Caddy serving the tree: gated on the secret
// header (read from the environment at run time), with the contract's
// headers, the 403 body for a call without the secret. It runs with
// Caddy's own server options: the guard would close the connection of
// each of its empty 404 answers.
const fileServerCaddyfile = `{
	admin {$CORPUS_ADMIN}
	servers {
		protocols {$CORPUS_PROTOCOLS}
	}
}

{$CORPUS_SITE} {
	bind 127.0.0.1
	root * %s
	header {
		Content-Type "application/json; charset=utf-8"
		Cache-Control "no-store, no-cache, must-revalidate, max-age=0"
		Pragma "no-cache"
		Expires "0"
		X-Content-Type-Options "nosniff"
		-ETag
		-Last-Modified
		-Accept-Ranges
	}
	@ok header X-Challenge-Secret {env.CORPUS_CHALLENGE_SECRET}
	handle @ok {
		rewrite * {path}.json
		file_server
	}
	handle {
		rewrite * /_systeme/403.json
		file_server {
			status 403
		}
	}
}
`

func startFileServer(b *bench, c *corpusSet, dir string) (*server, error) {
	return b.plainCaddy(dir, fmt.Sprintf(fileServerCaddyfile, c.Tree), nil)
}

// plainCaddy writes a Caddyfile into dir and runs it.
func (b *bench) plainCaddy(dir, caddyfile string, env map[string]string) (*server, error) {
	file := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(file, []byte(caddyfile), 0o644); err != nil {
		return nil, err
	}
	return b.launchCaddy(dir, file, env)
}

// startNginx serves the tree with nginx alone and the vhost `proveit nginx
// -root` generates. The gate include it needs holds the secret: it is
// written by `proveit nginx -write-gate`, mode 0600, in the server's folder
// of the scratch folder, which the benchmark removes when it ends.
func startNginx(b *bench, c *corpusSet, dir string) (*server, error) {
	port, err := servertest.PickPort()
	if err != nil {
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	gate := filepath.Join(dir, "gate.conf")
	vhost := filepath.Join(dir, "vhost.conf")
	steps := [][]string{
		{"nginx", "-write-gate", "-gate", gate, "-manifest", c.Manifest},
		{"nginx", "-manifest", c.Manifest, "-root", c.Tree, "-backend-socket", filepath.Join(dir, "backend.sock"),
			"-listen", addr, "-hosts", "127.0.0.1,localhost", "-gate", gate, "-o", vhost},
	}
	for _, args := range steps {
		cmd := exec.Command(b.proveit, args...)
		cmd.Env = append(os.Environ(), "CORPUS_CHALLENGE_SECRET="+b.secret)
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("proveit %s: %v: %s", strings.Join(args[:2], " "), err, tail(string(out), 500))
		}
	}
	n, err := servertest.LaunchNginx(servertest.NginxOptions{
		Binary:  b.nginx,
		Vhost:   vhost,
		Port:    port,
		Dir:     dir,
		CPUs:    b.serverCPU,
		Workers: 1,
	})
	if err != nil {
		return nil, err
	}
	return &server{Process: n.Process, Addr: addr}, nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
