package frontal

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/harness/servertest"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/tools/nginxconf"
)

// The three topologies, as the report names them.
const (
	caddyAlone   = "Caddy alone"
	nginxFrontal = "nginx → Caddy"
	nginxAlone   = "nginx alone"
)

// topology is one way of serving the corpus, running.
type topology struct {
	name  string
	url   string
	caddy *servertest.Server // nil for nginx alone
	nginx *servertest.Nginx  // nil for Caddy alone
	gate  string             // nginx's gate file: rewrite it and reload to rotate
}

// corpusCopy is the corpus on disk, as every topology here serves it, with
// canary files beside the tree: no request may ever read them.
type corpusCopy struct {
	root, manifestPath string
	manifestBytes      []byte
	manifest           *manifest.Manifest
	canary             string // the token inside every canary file

	// The purchasing track's copy, served beside the conformity track's at
	// the same origin by every topology.
	genericRoot, genericManifestPath string
	genericManifestBytes             []byte
	genericManifest                  *manifest.Manifest
}

func newCorpusCopy(t *testing.T) *corpusCopy {
	t.Helper()
	c := &corpusCopy{canary: "canari-" + randomHex(t, 16)}
	c.root, c.manifestPath = servertest.CopyCorpus(t)
	var err error
	c.manifest, c.manifestBytes, err = manifest.ReadFile(c.manifestPath)
	require.NoError(t, err)
	c.genericRoot, c.genericManifestPath = servertest.CopyTrack(t, corpus.Purchasing)
	c.genericManifest, c.genericManifestBytes, err = manifest.ReadFile(c.genericManifestPath)
	require.NoError(t, err)
	body := fmt.Sprintf("{\n  \"canari\": %q\n}\n", c.canary)
	beside := filepath.Dir(c.root)
	for _, name := range canaryFiles {
		path := filepath.Join(beside, name)
		require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
		// An access time older than the modification time: the next read
		// moves it, even under relatime.
		require.NoError(t, os.Chtimes(path, time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC), time.Now()))
	}
	return c
}

// manifests are both tracks' manifests, the conformity track's first.
func (c *corpusCopy) manifests() []*manifest.Manifest {
	return []*manifest.Manifest{c.manifest, c.genericManifest}
}

// canaryFiles sit beside the tree, where a traversal would land.
var canaryFiles = []string{"canary.json", "canary", "conformite.json", "referentiel.json"}

// canaryAccessed reports whether a canary file was opened and read since
// newCorpusCopy wrote it, by its access time. Where the system gives no
// access time (accessTime), or the file system does not record reads
// (noatime), it says so in the log and reports false: the canary's bytes,
// which no answer may hold, remain the test.
func canaryAccessed(t *testing.T, c *corpusCopy) bool {
	t.Helper()
	witness := filepath.Join(t.TempDir(), "witness")
	require.NoError(t, os.WriteFile(witness, []byte("x"), 0o644))
	require.NoError(t, os.Chtimes(witness, time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC), time.Now()))
	_, err := os.ReadFile(witness)
	require.NoError(t, err)
	year, known := accessYear(t, witness)
	if !known {
		t.Log("this system gives no access time: only the canary's bytes are checked")
		return false
	}
	if year == 2001 {
		t.Log("this file system records no reads (noatime): only the canary's bytes are checked")
		return false
	}
	for _, name := range canaryFiles {
		if year, _ := accessYear(t, filepath.Join(filepath.Dir(c.root), name)); year != 2001 {
			return true
		}
	}
	return false
}

// accessYear is the year path was last read, and false where the system
// gives no access time.
func accessYear(t *testing.T, path string) (int, bool) {
	info, err := os.Stat(path)
	require.NoError(t, err)
	at, known := accessTime(info)
	return at.Year(), known
}

// caddyOptions are those of a Caddy serving the copy.
func (c *corpusCopy) caddyOptions(secrets []string) servertest.Options {
	return servertest.Options{
		Secrets: secrets,
		Env: map[string]string{"CORPUS_ROOT": c.root, "CORPUS_MANIFEST": c.manifestPath,
			"CORPUS_GENERIQUE_ROOT": c.genericRoot, "CORPUS_GENERIQUE_MANIFEST": c.genericManifestPath},
	}
}

func (c *corpusCopy) startCaddy(t *testing.T, secrets []string) *topology {
	t.Helper()
	s := servertest.Start(t, c.caddyOptions(secrets))
	return &topology{name: caddyAlone, url: s.URL, caddy: s}
}

// startNginx generates the vhost for o (its manifest, listen address, hosts
// and gate filled in here), writes the gate outside the repository, and runs
// nginx on it.
func (c *corpusCopy) startNginx(t *testing.T, secrets []string, o nginxconf.Options) (*servertest.Nginx, string) {
	t.Helper()
	dir := t.TempDir()
	port := servertest.FreePort(t)
	o.Manifest = c.manifestBytes
	generic := nginxconf.Corpus{Manifest: c.genericManifestBytes, Tree: os.DirFS(c.genericRoot)}
	if o.Root != "" {
		generic = nginxconf.Corpus{Manifest: c.genericManifestBytes, Root: c.genericRoot}
	}
	o.Others = append(o.Others, generic)
	o.Listen = []string{fmt.Sprintf("127.0.0.1:%d", port)}
	o.Hosts = servertest.Hosts
	o.GateFile = filepath.Join(dir, "gate.conf")
	require.NoError(t, nginxconf.WriteGate(o.GateFile, secrets))
	conf, err := nginxconf.Generate(o)
	require.NoError(t, err)
	vhost := filepath.Join(dir, "vhost.conf")
	require.NoError(t, os.WriteFile(vhost, conf, 0o644))
	return servertest.StartNginx(t, servertest.NginxOptions{Vhost: vhost, Port: port}), o.GateFile
}

// frontal puts nginx in front of a running Caddy.
func (c *corpusCopy) frontal(t *testing.T, secrets []string, caddy *servertest.Server) *topology {
	t.Helper()
	n, gate := c.startNginx(t, secrets, nginxconf.Options{
		Upstreams: []string{fmt.Sprintf("127.0.0.1:%d", caddy.Port)},
		Tree:      os.DirFS(c.root),
	})
	return &topology{name: nginxFrontal, url: n.URL, caddy: caddy, nginx: n, gate: gate}
}

// alone has nginx serve the copy by itself.
func (c *corpusCopy) alone(t *testing.T, secrets []string) *topology {
	t.Helper()
	// A unix socket path is short (108 bytes): not under the test's folder.
	dir, err := os.MkdirTemp("", "proveit-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	n, gate := c.startNginx(t, secrets, nginxconf.Options{Root: c.root, BackendSocket: filepath.Join(dir, "backend.sock")})
	return &topology{name: nginxAlone, url: n.URL, nginx: n, gate: gate}
}

// start runs one topology, the frontal in front of a Caddy of its own.
func (c *corpusCopy) start(t *testing.T, name string, secrets []string) *topology {
	t.Helper()
	switch name {
	case caddyAlone:
		return c.startCaddy(t, secrets)
	case nginxFrontal:
		return c.frontal(t, secrets, servertest.Start(t, c.caddyOptions(secrets)))
	case nginxAlone:
		return c.alone(t, secrets)
	}
	panic("no topology " + name)
}

// startTopologies runs the three, in the order of topologyNames.
func (c *corpusCopy) startTopologies(t *testing.T, secrets []string) []*topology {
	t.Helper()
	topologies := make([]*topology, len(topologyNames))
	for i, name := range topologyNames {
		topologies[i] = c.start(t, name, secrets)
	}
	return topologies
}

// logs is everything the topology's servers wrote.
func (tp *topology) logs(t *testing.T) string {
	var b strings.Builder
	if tp.caddy != nil {
		b.WriteString(tp.caddy.AllLogs(t))
	}
	if tp.nginx != nil {
		b.WriteString(tp.nginx.AllLogs())
	}
	return b.String()
}

// requireNoSecretLogged reads every log of the topologies.
func requireNoSecretLogged(t *testing.T, topologies []*topology, secrets ...string) {
	t.Helper()
	for _, tp := range topologies {
		logs := tp.logs(t)
		for slot, s := range secrets {
			if strings.Contains(logs, s) {
				t.Errorf("%s: a log holds secret %d", tp.name, slot)
			}
		}
	}
}

// newSecrets draws n secrets for one test: none is ever in the repository.
func newSecrets(t *testing.T, n int) []string {
	secrets := make([]string, n)
	for i := range secrets {
		secrets[i] = randomHex(t, 32)
	}
	return secrets
}

func randomHex(t *testing.T, n int) string {
	b := make([]byte, n)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return hex.EncodeToString(b)
}
