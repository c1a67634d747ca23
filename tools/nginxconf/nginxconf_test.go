package nginxconf

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/harness/servertest"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/tools/probe"
)

// frontalOptions and aloneOptions are the two kinds of vhost, with paths
// under dir.
func frontalOptions(dir string) Options {
	return Options{
		Manifest:  manifest.Embedded(corpus.Conformity),
		Tree:      corpus.Conformity.Embedded(),
		Upstreams: []string{"127.0.0.1:18081"},
		Listen:    []string{"127.0.0.1:18080"},
		Hosts:     servertest.Hosts,
		GateFile:  filepath.Join(dir, "gate.conf"),
	}
}

// replicaOptions are the frontal's, in front of two replicas.
func replicaOptions(dir string) Options {
	o := frontalOptions(dir)
	o.Upstreams = []string{"127.0.0.1:18081", "127.0.0.1:18082"}
	return o
}

func aloneOptions(t *testing.T, dir string) Options {
	root, manifestPath := servertest.CopyCorpus(t)
	data, err := os.ReadFile(manifestPath)
	require.NoError(t, err)
	return Options{
		Manifest:      data,
		Root:          root,
		BackendSocket: filepath.Join(dir, "backend.sock"),
		Listen:        []string{"127.0.0.1:18080"},
		Hosts:         servertest.Hosts,
		GateFile:      filepath.Join(dir, "gate.conf"),
	}
}

func newSecret(t *testing.T) string {
	b := make([]byte, 32)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return hex.EncodeToString(b)
}

func TestGeneratedLiteralsAreTheManifests(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name     string
		options  Options
		statuses []int
	}{
		{"frontal", frontalOptions(dir), []int{400, 403, 503}},
		{"nginx alone", aloneOptions(t, dir), []int{200, 400, 403, 404, 503}},
		{"frontal in maintenance", func() Options { o := frontalOptions(dir); o.Maintenance = true; return o }(), []int{400, 403, 503}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			conf, err := Generate(tt.options)
			require.NoError(t, err)
			answers, err := Verify(conf, tt.options.Manifest)
			require.NoError(t, err)
			seen := map[int]bool{}
			for _, a := range answers {
				seen[a.Status] = true
			}
			for _, status := range tt.statuses {
				assert.True(t, seen[status], "no return %d", status)
			}
			assert.Len(t, seen, len(tt.statuses))
		})
	}
}

// TestVerifyCatchesEveryChangedLiteral alters the generated vhost the ways a
// hand edit or a stale file would, and requires Verify to refuse each.
func TestVerifyCatchesEveryChangedLiteral(t *testing.T) {
	o := aloneOptions(t, t.TempDir())
	generated, err := Generate(o)
	require.NoError(t, err)
	conf := string(generated)
	tests := []struct {
		name, old, new, want string
	}{
		{"a byte of the 403 body", `\"acces_refuse\"`, `\"acces_refusé\"`, "return 403: body sha256"},
		{"a byte of the 503 body", `momentanément`, `momentanement`, "return 503: body sha256"},
		{"a byte of the 400 body", `requete_invalide`, `requete_invalidE`, "return 400: body sha256"},
		{"a byte of the 404 body", `hors_corpus`, `hors-corpus`, "return 404: body sha256"},
		{"the absent body", `\"existe\": false`, `\"existe\": null`, "differs from corpus.AbsentBody"},
		{"a swapped body", "return 400 $proveit_body_400;", "return 400 $proveit_body_403;", "return 400: body sha256"},
		{"a body of nginx's own", "return 404 $proveit_body_404;", "return 404;", "without a body of its own"},
		{"an improvised body", "return 404 $proveit_body_404;", `return 404 "{}";`, "return 404: body sha256"},
		{"another status", "return 404 $proveit_body_404;", "return 410 $proveit_body_404;", "no fixed body for this status"},
		{"a variable", "${request_uri}${proveit_absent_tail}", "${uri}${proveit_absent_tail}", "$uri is not one of"},
		{"the target outside an absent body", "return 404 $proveit_body_404;", "return 404 $request_uri;", "only the 200 of an absent reference"},
		{"a missing 503", "return 503 $proveit_body_503;", "return 404 $proveit_body_404;", "no return gives the 503 body"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Contains(t, conf, tt.old)
			_, err := Verify([]byte(strings.ReplaceAll(conf, tt.old, tt.new)), o.Manifest)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	t.Run("a manifest whose 403 changed", func(t *testing.T) {
		m, err := manifest.Decode(o.Manifest)
		require.NoError(t, err)
		for i, e := range m.Resources {
			if e.Path == corpus.SystemForbidden {
				m.Resources[i].BytesSHA256 = strings.Repeat("0", 64)
			}
		}
		_, err = Verify(generated, m.Encode())
		require.Error(t, err)
		assert.Contains(t, err.Error(), "return 403: body sha256")
	})
}

func TestQuoteReadsBack(t *testing.T) {
	for _, s := range []string{``, `a`, `\`, `\\`, `\.`, `\n`, "\\\n", `\"`, `"'`, "a\nb\r\tc", `${x}`, `\'`, "é « » ;{}#"} {
		for _, token := range []string{quote(s), literal(s)} {
			statements, err := parseConf("x " + token + ";")
			require.NoError(t, err, "%q", s)
			require.Len(t, statements, 1)
			assert.Equal(t, []string{s}, statements[0].Args, "%q written as %s", s, token)
		}
	}
}

func TestGenerateRefuses(t *testing.T) {
	dir := t.TempDir()
	tampered := aloneOptions(t, dir)
	file := filepath.Join(tampered.Root, "agrements", "AGR-4417.json")
	require.NoError(t, os.WriteFile(file, []byte(`{"existe": true}`+"\n"), 0o644))
	extra := aloneOptions(t, dir)
	require.NoError(t, os.WriteFile(filepath.Join(extra.Root, "canary.json"), []byte(`{"a": "b"}`), 0o644))

	tests := []struct {
		name   string
		change func(*Options)
		want   string
	}{
		{"no upstream nor root", func(o *Options) { o.Upstreams = nil }, "exactly one of"},
		{"an upstream and a root", func(o *Options) { o.Root = "/srv/corpus" }, "exactly one of"},
		{"an upstream without a port", func(o *Options) { o.Upstreams = []string{"127.0.0.1"} }, "want host:port"},
		{"a directive smuggled into the upstream", func(o *Options) { o.Upstreams = []string{"127.0.0.1;include /etc/passwd:80"} }, "want host:port"},
		{"a brace in the upstream", func(o *Options) { o.Upstreams = []string{"a}b:80"} }, "want host:port"},
		{"a quote in the upstream", func(o *Options) { o.Upstreams = []string{`"x":80`} }, "want host:port"},
		{"a space in the upstream", func(o *Options) { o.Upstreams = []string{"a b:80"} }, "want host:port"},
		{"a unix socket upstream", func(o *Options) { o.Upstreams = []string{"unix:/run/x.sock"} }, "want host:port"},
		{"an IPv6 upstream", func(o *Options) { o.Upstreams = []string{"[::1]:80"} }, "want host:port"},
		{"port zero", func(o *Options) { o.Upstreams = []string{"127.0.0.1:0"} }, "port in 1..65535"},
		{"a port out of range", func(o *Options) { o.Upstreams = []string{"127.0.0.1:65536"} }, "port in 1..65535"},
		{"a signed port", func(o *Options) { o.Upstreams = []string{"127.0.0.1:+80"} }, "port in 1..65535"},
		{"a port with a leading zero", func(o *Options) { o.Upstreams = []string{"127.0.0.1:080"} }, "port in 1..65535"},
		{"a replica given twice", func(o *Options) { o.Upstreams = []string{"127.0.0.1:8081", "127.0.0.1:8081"} }, "given twice"},
		{"a bad second replica", func(o *Options) { o.Upstreams = []string{"127.0.0.1:8081", "127.0.0.1:8082;"} }, "want host:port"},
		{"no listen", func(o *Options) { o.Listen = nil }, "no listen address"},
		{"http2", func(o *Options) { o.Listen = []string{"443 ssl http2"} }, "http2 is not served"},
		{"a directive smuggled into listen", func(o *Options) { o.Listen = []string{"80; include /etc/passwd"} }, "want an address"},
		{"no host", func(o *Options) { o.Hosts = nil }, "no host"},
		{"an IPv6 host", func(o *Options) { o.Hosts = []string{"::1"} }, "want a DNS name"},
		{"a relative gate", func(o *Options) { o.GateFile = "gate.conf" }, "gate file"},
		{"a glob gate", func(o *Options) { o.GateFile = "/etc/proveit/*.conf" }, "no glob"},
		{"a tree that is not the manifest's", func(o *Options) { o.Tree = os.DirFS(tampered.Root) }, "agrements/AGR-4417.json: bytes changed"},
		{"an extra file", func(o *Options) { o.Tree = os.DirFS(extra.Root) }, "canary.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := frontalOptions(dir)
			tt.change(&o)
			_, err := Generate(o)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	t.Run("a root with a variable", func(t *testing.T) {
		o := aloneOptions(t, dir)
		o.Root = "/srv/$host"
		_, err := Generate(o)
		assert.ErrorContains(t, err, "root")
	})
	t.Run("a tampered root", func(t *testing.T) {
		_, err := Generate(tampered)
		assert.ErrorContains(t, err, "agrements/AGR-4417.json: bytes changed")
	})
}

func TestGate(t *testing.T) {
	secret := newSecret(t)
	gate, err := gateInclude([]string{secret, newSecret(t)})
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(string(gate), " 1;\n"))
	assert.Contains(t, string(gate), "default 0;")

	for _, tt := range []struct {
		name    string
		secrets []string
		want    string
	}{
		{"none", nil, "no challenge secret"},
		{"short", []string{"too-short"}, "secret 0: shorter than 32 bytes"},
		{"not visible ASCII", []string{secret, secret + " x"}, "secret 1: byte 64 is not visible ASCII"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := gateInclude(tt.secrets)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.NotContains(t, err.Error(), secret, "an error quotes the secret")
		})
	}

	t.Run("written outside the repository only", func(t *testing.T) {
		inside := filepath.Join(servertest.RepoRoot(t), "gate.conf")
		err := WriteGate(inside, []string{secret})
		require.ErrorContains(t, err, "inside the git work tree")
		assert.NoFileExists(t, inside)

		outside := filepath.Join(t.TempDir(), "gate.conf")
		require.NoError(t, WriteGate(outside, []string{secret}))
		info, err := os.Stat(outside)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
		written, err := os.ReadFile(outside)
		require.NoError(t, err)
		want, err := gateInclude([]string{secret})
		require.NoError(t, err)
		assert.Equal(t, want, written)
	})
}

// TestNginxAcceptsTheVhost runs nginx -t on both kinds of vhost, and
// refuses to start without the gate: no secret is never an open door.
func TestNginxAcceptsTheVhost(t *testing.T) {
	for _, tt := range []struct {
		name    string
		options func(dir string) Options
	}{
		{"frontal", frontalOptions},
		{"frontal of two replicas", replicaOptions},
		{"nginx alone", func(dir string) Options { return aloneOptions(t, dir) }},
		{"nginx alone in maintenance", func(dir string) Options {
			o := aloneOptions(t, dir)
			o.Maintenance = true
			return o
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			o := tt.options(dir)
			conf, err := Generate(o)
			require.NoError(t, err)
			vhost := filepath.Join(dir, "vhost.conf")
			require.NoError(t, os.WriteFile(vhost, conf, 0o644))

			out, err := servertest.CheckNginx(t, vhost)
			require.Error(t, err, "nginx started without the gate")
			assert.Contains(t, out, "gate.conf")

			require.NoError(t, WriteGate(o.GateFile, []string{newSecret(t)}))
			out, err = servertest.CheckNginx(t, vhost)
			require.NoError(t, err, out)
			assert.Contains(t, out, "test is successful")
		})
	}
}

// TestGateComparesLikeTheHandler runs the vhost with a secret made of every
// character a pattern or an nginx string treats specially, and checks that
// the gate opens for that secret and only for it, as the handler's does.
func TestGateComparesLikeTheHandler(t *testing.T) {
	secret := `~"$\{};#'*.^[(|?` + newSecret(t)
	o := aloneOptions(t, t.TempDir())
	port := servertest.FreePort(t)
	o.Listen = []string{"127.0.0.1:" + strconv.Itoa(port)}
	conf, err := Generate(o)
	require.NoError(t, err)
	vhost := filepath.Join(t.TempDir(), "vhost.conf")
	require.NoError(t, os.WriteFile(vhost, conf, 0o644))
	require.NoError(t, WriteGate(o.GateFile, []string{secret}))
	n := servertest.StartNginx(t, servertest.NginxOptions{Vhost: vhost, Port: port})

	client, err := probe.NewClient(n.URL, 5*time.Second)
	require.NoError(t, err)
	for _, tt := range []struct {
		name, value string
		status      int
	}{
		{"the secret", secret, http.StatusOK},
		{"padded with spaces and tabs", " \t" + secret + "\t", http.StatusOK},
		{"another case", strings.ToUpper(secret), http.StatusForbidden},
		{"a prefix", secret[:len(secret)-1], http.StatusForbidden},
		{"longer", secret + "7", http.StatusForbidden},
		{"a pattern that would match it", ".*", http.StatusForbidden},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := client.Do(t.Context(), probe.Request{Method: http.MethodGet, Target: corpus.Referentiel,
				Header: [][2]string{{corpus.SecretHeader, tt.value}}})
			require.NoError(t, err)
			assert.Equal(t, tt.status, resp.Status)
			assert.Empty(t, probe.HeaderProblems(resp.Header))
		})
	}
	assert.NotContains(t, n.AllLogs(), secret)
}

// bothTracksAlone is nginx alone serving every track's tree, each from its
// own root, at one origin.
func bothTracksAlone(t *testing.T, dir string) Options {
	o := aloneOptions(t, dir)
	for _, track := range corpus.Tracks[1:] {
		root, manifestPath := servertest.CopyTrack(t, track)
		data, err := os.ReadFile(manifestPath)
		require.NoError(t, err)
		o.Others = append(o.Others, Corpus{Manifest: data, Root: root})
	}
	return o
}

// TestBothTracksAlone serves both trees with nginx alone and probes every
// entry of both manifests over HTTP.
func TestBothTracksAlone(t *testing.T) {
	secret := newSecret(t)
	o := bothTracksAlone(t, t.TempDir())
	port := servertest.FreePort(t)
	o.Listen = []string{"127.0.0.1:" + strconv.Itoa(port)}
	conf, err := Generate(o)
	require.NoError(t, err)
	assert.Contains(t, string(conf), "/regles-achat")
	vhost := filepath.Join(t.TempDir(), "vhost.conf")
	require.NoError(t, os.WriteFile(vhost, conf, 0o644))
	require.NoError(t, WriteGate(o.GateFile, []string{secret}))
	n := servertest.StartNginx(t, servertest.NginxOptions{Vhost: vhost, Port: port})

	var manifests []*manifest.Manifest
	for _, data := range append([][]byte{o.Manifest}, o.Others[0].Manifest) {
		m, err := manifest.Decode(data)
		require.NoError(t, err)
		manifests = append(manifests, m)
	}
	checks, err := probe.CatalogueOf(manifests, probe.Options{Secrets: []string{secret}})
	require.NoError(t, err)
	client, err := probe.NewClient(n.URL, 5*time.Second)
	require.NoError(t, err)
	failed := 0
	for _, r := range probe.Run(t.Context(), client, checks) {
		// R1 of docs/reliability.md: nginx before 1.23 reads the first of
		// two secret headers, and nginx alone serves the call.
		if len(r.Problems) > 0 && r.Check.Name != "gate: secret twice" {
			failed++
			t.Errorf("%s: %s", r.Check.Name, strings.Join(r.Problems, "; "))
		}
	}
	t.Logf("probe: %d checks, %d failed", len(checks), failed)
}

func TestGenerateRefusesTracksThatDisagree(t *testing.T) {
	dir := t.TempDir()
	t.Run("fixed bodies that differ", func(t *testing.T) {
		o := bothTracksAlone(t, dir)
		other := o.Others[0]
		body := filepath.Join(other.Root, "_systeme", "404.json")
		require.NoError(t, os.WriteFile(body, []byte("{\"erreur\": \"autre\"}\n"), 0o644))
		m, err := manifest.Build(os.DirFS(other.Root), corpus.Purchasing.Name, manifest.DefaultOrigin, []string{"/produits/CSQ-0815"})
		require.NoError(t, err)
		o.Others[0].Manifest = m.Encode()
		_, err = Generate(o)
		assert.ErrorContains(t, err, "the generique tree's /_systeme/404 differs from the first tree's")
	})
	t.Run("a path of the first track in the other's manifest", func(t *testing.T) {
		o := bothTracksAlone(t, dir)
		m, err := manifest.Decode(o.Others[0].Manifest)
		require.NoError(t, err)
		first, err := manifest.Decode(o.Manifest)
		require.NoError(t, err)
		entry, _ := first.Lookup("/agrements/AGR-4417")
		m.Resources = append(m.Resources, entry)
		o.Others[0].Manifest = m.Encode()
		_, err = Generate(o)
		assert.ErrorContains(t, err, "agrements/AGR-4417.json: missing from the tree")
	})
	t.Run("a frontal corpus with a root", func(t *testing.T) {
		o := frontalOptions(dir)
		o.Others = []Corpus{{Manifest: manifest.Embedded(corpus.Purchasing), Root: "/srv/generique"}}
		_, err := Generate(o)
		assert.ErrorContains(t, err, "corpus 1: the frontal reads the fixed bodies from a tree")
	})
	t.Run("nginx alone with an embedded tree", func(t *testing.T) {
		o := aloneOptions(t, dir)
		o.Others = []Corpus{{Manifest: manifest.Embedded(corpus.Purchasing), Tree: corpus.Purchasing.Embedded()}}
		_, err := Generate(o)
		assert.ErrorContains(t, err, "corpus 1: nginx alone serves every tree from disk")
	})
}

// TestUpstreams: one server is never marked down and nothing is sent
// elsewhere; replicas get passive health checks and the failover of an
// error or a timeout, never of an answer.
func TestUpstreams(t *testing.T) {
	for _, tt := range []struct {
		name      string
		upstreams []string
		want      []string
		never     []string
	}{
		{"one server", []string{"127.0.0.1:18081"},
			[]string{"server 127.0.0.1:18081 max_fails=0;", "answers the 503 body when the corpus does not answer."},
			[]string{"proxy_next_upstream", "fail_timeout", "when the corpus answers"}},
		{"two replicas", []string{"127.0.0.1:18081", "127.0.0.1:18082"},
			[]string{"server 127.0.0.1:18081 max_fails=1 fail_timeout=2s;", "server 127.0.0.1:18082 max_fails=1 fail_timeout=2s;",
				"proxy_next_upstream error timeout;", "proxy_next_upstream_tries 2;", "answers the 503 body when no server answers."},
			[]string{"http_403", "http_404", "http_503", "non_idempotent"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := frontalOptions(t.TempDir())
			o.Upstreams = tt.upstreams
			conf, err := Generate(o)
			require.NoError(t, err)
			for _, w := range tt.want {
				assert.Contains(t, string(conf), w)
			}
			for _, n := range tt.never {
				assert.NotContains(t, string(conf), n)
			}
			_, err = Verify(conf, o.Manifest)
			require.NoError(t, err, "the literals are the manifest's, whatever the upstreams")
		})
	}
}
