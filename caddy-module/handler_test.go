package corpushandler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/caddyserver/caddy/v2"
	"github.com/spf13/afero"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/corpus/corpustest"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
)

const (
	secretA = "0123456789abcdef0123456789abcdef-slot-a"
	secretB = "fedcba9876543210fedcba9876543210-slot-b"
)

// fixtureDocs are a few resources beside the real fixed bodies.
var fixtureDocs = map[string]string{
	"referentiel.json":             "{\n  \"ressource\": \"/referentiel\",\n  \"titre\": \"Règles\"\n}\n",
	"agrements/AGR-4417.json":      "{\n  \"ressource\": \"/agrements/AGR-4417\",\n  \"existe\": true,\n  \"entite\": \"/entites/ENT-1\"\n}\n",
	"entites/ENT-1.json":           "{\"ressource\": \"/entites/ENT-1\", \"existe\": true, \"denomination\": \"Société Zoé\", \"agrements\": [\"/agrements/AGR-4417\", \"/agrements/AGR-0001\"]}",
	"listes/agrees/change-p2.json": "{\"ressource\": \"/listes/agrees/change-p2\", \"page_suivante\": null}",
}

// newFixtureTree returns an in-memory corpus tree and the path of its manifest.
func newFixtureTree(t *testing.T) (afero.Fs, string) {
	t.Helper()
	tree := afero.NewMemMapFs()
	err := fs.WalkDir(corpus.Conformity.Embedded(), "_systeme", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(corpus.Conformity.Embedded(), name)
		if err != nil {
			return err
		}
		return afero.WriteFile(tree, name, data, 0o644)
	})
	require.NoError(t, err)
	for name, body := range fixtureDocs {
		require.NoError(t, afero.WriteFile(tree, name, []byte(body), 0o644))
	}
	m, err := manifest.Build(afero.NewIOFS(tree), corpus.Conformity.Name, manifest.DefaultOrigin, []string{"/attestations/ATT-0404"})
	require.NoError(t, err)
	manifestPath := filepath.Join(t.TempDir(), "manifest.json")
	require.NoError(t, os.WriteFile(manifestPath, m.Encode(), 0o644))
	return tree, manifestPath
}

// fixtureCorpus is the conformity corpus of a fixture tree.
func fixtureCorpus(tree afero.Fs, manifestPath string) Corpus {
	return Corpus{Track: corpus.Conformity.Name, Manifest: manifestPath, tree: tree}
}

func provision(t *testing.T, h *Handler) (*observer.ObservedLogs, error) {
	t.Helper()
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	t.Cleanup(cancel)
	if err := h.Provision(ctx); err != nil {
		return nil, err
	}
	core, logs := observer.New(zapcore.InfoLevel)
	h.telemetry = zap.New(core)
	return logs, h.Validate()
}

func newHandler(t *testing.T, mutate func(*Handler)) (*Handler, *observer.ObservedLogs) {
	t.Helper()
	tree, manifestPath := newFixtureTree(t)
	h := &Handler{Secrets: []string{secretA, secretB}, Corpora: []Corpus{fixtureCorpus(tree, manifestPath)}}
	if mutate != nil {
		mutate(h)
	}
	logs, err := provision(t, h)
	require.NoError(t, err)
	return h, logs
}

func systemBody(t *testing.T, path string) string {
	t.Helper()
	data, err := fs.ReadFile(corpus.Conformity.Embedded(), corpus.FileOf(path))
	require.NoError(t, err)
	return string(data)
}

type request struct {
	method, target, body string
	headers              map[string]string
	host                 string
}

func serve(h *Handler, req request) *httptest.ResponseRecorder {
	method := req.method
	if method == "" {
		method = http.MethodGet
	}
	var body *strings.Reader
	if req.body != "" {
		body = strings.NewReader(req.body)
	}
	var r *http.Request
	if body != nil {
		r = httptest.NewRequest(method, "http://localhost/", body)
	} else {
		r = httptest.NewRequest(method, "http://localhost/", nil)
	}
	r.RequestURI = req.target
	if req.host != "" {
		r.Host = req.host
	}
	for name, value := range req.headers {
		r.Header.Set(name, value)
	}
	w := httptest.NewRecorder()
	_ = h.ServeHTTP(w, r, nil)
	return w
}

func withSecret(secret string) map[string]string {
	return map[string]string{corpus.SecretHeader: secret}
}

func TestServeHTTP(t *testing.T) {
	h, _ := newHandler(t, nil)
	forbidden := systemBody(t, corpus.SystemForbidden)
	badRequest := systemBody(t, corpus.SystemBadRequest)
	notFound := systemBody(t, corpus.SystemNotFound)
	tests := []struct {
		name   string
		req    request
		status int
		body   string
		slot   int
	}{
		{"no secret", request{target: "/agrements/AGR-4417"}, 403, forbidden, -1},
		{"wrong secret", request{target: "/agrements/AGR-4417", headers: withSecret(secretA + "x")}, 403, forbidden, -1},
		{"secret prefix", request{target: "/agrements/AGR-4417", headers: withSecret(secretA[:32])}, 403, forbidden, -1},
		{"empty secret", request{target: "/agrements/AGR-4417", headers: withSecret("")}, 403, forbidden, -1},
		{"gate before 400", request{method: "POST", target: "/x?y", headers: map[string]string{}}, 403, forbidden, -1},
		{"resource, slot 0", request{target: "/agrements/AGR-4417", headers: withSecret(secretA)}, 200, fixtureDocs["agrements/AGR-4417.json"], 0},
		{"resource, slot 1", request{target: "/agrements/AGR-4417", headers: withSecret(secretB)}, 200, fixtureDocs["agrements/AGR-4417.json"], 1},
		{"referentiel", request{target: "/referentiel", headers: withSecret(secretA)}, 200, fixtureDocs["referentiel.json"], 0},
		{"two-segment collection", request{target: "/listes/agrees/change-p2", headers: withSecret(secretA)}, 200, fixtureDocs["listes/agrees/change-p2.json"], 0},
		{"absent reference", request{target: "/agrements/AGR-9999", headers: withSecret(secretA)}, 200, string(corpus.AbsentBody("/agrements/AGR-9999")), 0},
		{"absent reference the manifest lists", request{target: "/attestations/ATT-0404", headers: withSecret(secretA)}, 200, string(corpus.AbsentBody("/attestations/ATT-0404")), 0},
		{"absent in two-segment collection", request{target: "/listes/agrees/x", headers: withSecret(secretA)}, 200, string(corpus.AbsentBody("/listes/agrees/x")), 0},
		{"bare collection", request{target: "/agrements", headers: withSecret(secretA)}, 404, notFound, 0},
		{"bare two-segment collection", request{target: "/listes/agrees", headers: withSecret(secretA)}, 404, notFound, 0},
		{"unknown collection", request{target: "/listes/x", headers: withSecret(secretA)}, 404, notFound, 0},
		{"id outside grammar", request{target: "/agrements/_x", headers: withSecret(secretA)}, 404, notFound, 0},
		{"id too long", request{target: "/agrements/" + strings.Repeat("a", 65), headers: withSecret(secretA)}, 404, notFound, 0},
		{"system path", request{target: "/_systeme/403", headers: withSecret(secretA)}, 404, notFound, 0},
		{"below a resource", request{target: "/referentiel/x", headers: withSecret(secretA)}, 404, notFound, 0},
		{"query", request{target: "/agrements/AGR-4417?a=b", headers: withSecret(secretA)}, 400, badRequest, 0},
		{"empty query", request{target: "/agrements/AGR-4417?", headers: withSecret(secretA)}, 400, badRequest, 0},
		{"fragment", request{target: "/agrements/AGR-4417#x", headers: withSecret(secretA)}, 400, badRequest, 0},
		{"percent-encoding", request{target: "/agrements%2FAGR-4417", headers: withSecret(secretA)}, 400, badRequest, 0},
		{"encoded dot-dot", request{target: "/agrements/%2e%2e/x", headers: withSecret(secretA)}, 400, badRequest, 0},
		{"double slash", request{target: "//agrements/AGR-4417", headers: withSecret(secretA)}, 400, badRequest, 0},
		{"dot segment", request{target: "/./agrements/AGR-4417", headers: withSecret(secretA)}, 400, badRequest, 0},
		{"dot-dot segment", request{target: "/agrements/../referentiel", headers: withSecret(secretA)}, 400, badRequest, 0},
		{"trailing slash", request{target: "/agrements/AGR-4417/", headers: withSecret(secretA)}, 400, badRequest, 0},
		{"root", request{target: "/", headers: withSecret(secretA)}, 400, badRequest, 0},
		{"absolute form", request{target: "http://localhost/referentiel", headers: withSecret(secretA)}, 400, badRequest, 0},
		{"asterisk", request{target: "*", headers: withSecret(secretA)}, 400, badRequest, 0},
		{"non-ASCII", request{target: "/entites/é", headers: withSecret(secretA)}, 400, badRequest, 0},
		{"POST", request{method: "POST", target: "/referentiel", headers: withSecret(secretA)}, 400, badRequest, 0},
		{"HEAD", request{method: "HEAD", target: "/referentiel", headers: withSecret(secretA)}, 400, badRequest, 0},
		{"GET with a body", request{target: "/referentiel", body: "{}", headers: withSecret(secretA)}, 400, badRequest, 0},
		{"range ignored", request{target: "/referentiel", headers: map[string]string{corpus.SecretHeader: secretA, "Range": "bytes=0-3"}}, 200, fixtureDocs["referentiel.json"], 0},
		{"conditional ignored", request{target: "/referentiel", headers: map[string]string{corpus.SecretHeader: secretA, "If-None-Match": "*", "If-Modified-Since": "Mon, 30 Nov 2026 00:00:00 GMT"}}, 200, fixtureDocs["referentiel.json"], 0},
		{"gzip ignored", request{target: "/referentiel", headers: map[string]string{corpus.SecretHeader: secretA, "Accept-Encoding": "gzip"}}, 200, fixtureDocs["referentiel.json"], 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := serve(h, tt.req)
			assert.Equal(t, tt.status, w.Code)
			assertContractHeaders(t, w.Result().Header, len(tt.body))
			if tt.req.method != "HEAD" {
				assert.Equal(t, tt.body, w.Body.String())
			}
		})
	}
}

func assertContractHeaders(t *testing.T, header http.Header, length int) {
	t.Helper()
	assert.Equal(t, "application/json; charset=utf-8", header.Get("Content-Type"))
	assert.Equal(t, "no-store, no-cache, must-revalidate, max-age=0", header.Get("Cache-Control"))
	assert.Equal(t, "no-cache", header.Get("Pragma"))
	assert.Equal(t, "0", header.Get("Expires"))
	assert.Equal(t, "nosniff", header.Get("X-Content-Type-Options"))
	assert.Equal(t, []string{strconv.Itoa(length)}, header.Values("Content-Length"))
	for _, name := range []string{"ETag", "Last-Modified", "Accept-Ranges", "Content-Encoding"} {
		assert.Empty(t, header.Values(name), name)
	}
}

func TestMaintenanceAnswers503PastTheGate(t *testing.T) {
	h, _ := newHandler(t, func(h *Handler) { h.Maintenance = true })
	unavailable := systemBody(t, corpus.SystemUnavailable)
	for _, target := range []string{"/referentiel", "/agrements/AGR-9999", "/nowhere", "/x?y"} {
		w := serve(h, request{target: target, headers: withSecret(secretB)})
		assert.Equal(t, 503, w.Code, target)
		assert.Equal(t, unavailable, w.Body.String(), target)
		assertContractHeaders(t, w.Result().Header, len(unavailable))
	}
	w := serve(h, request{target: "/referentiel"})
	assert.Equal(t, 403, w.Code)
}

func TestHostsRefusesOtherHosts(t *testing.T) {
	h, _ := newHandler(t, func(h *Handler) { h.Hosts = []string{"Corpus.Arkforge.Tech", "::1"} })
	tests := []struct {
		host   string
		status int
	}{
		{"corpus.arkforge.tech", 200},
		{"CORPUS.arkforge.tech:443", 200},
		{"[::1]:8080", 200},
		{"evil.example", 400},
		{"corpus.arkforge.tech.evil.example", 400},
		{"", 400},
		{"corpus.arkforge.tech:443 x", 400},
		{"corpus.arkforge.tech:", 200}, // an empty port, as a URI allows
		{"corpus.arkforge.tech:4430000", 400},
		{"[::1]:80a", 400},
		{"corpus.arkforge.tech x", 400},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			w := serve(h, request{target: "/referentiel", host: tt.host, headers: withSecret(secretA)})
			assert.Equal(t, tt.status, w.Code)
		})
	}
}

func TestSecretHeaderTwiceIsRefused(t *testing.T) {
	h, _ := newHandler(t, nil)
	r := httptest.NewRequest(http.MethodGet, "/referentiel", nil)
	r.Header.Add(corpus.SecretHeader, secretA)
	r.Header.Add(corpus.SecretHeader, secretA)
	w := httptest.NewRecorder()
	require.NoError(t, h.ServeHTTP(w, r, nil))
	assert.Equal(t, 403, w.Code)
}

func TestTelemetryRecord(t *testing.T) {
	h, logs := newHandler(t, nil)
	serve(h, request{target: "/agrements/AGR-4417", headers: withSecret(secretB)})
	serve(h, request{target: "/attestations/ATT-0404", headers: withSecret(secretA)})
	serve(h, request{target: "/attestations/ATT-0405", headers: withSecret(secretA)})
	serve(h, request{target: "/referentiel"})
	entries := logs.All()
	require.Len(t, entries, 4)

	hit := entries[0].ContextMap()
	assert.Equal(t, "call", entries[0].Message)
	assert.Equal(t, "resource", hit["outcome"])
	assert.Equal(t, int64(200), hit["status"])
	assert.Equal(t, "/agrements/AGR-4417", hit["resource"])
	assert.NotContains(t, hit, "target_sha256", "a resource's target is its path")
	assert.Equal(t, int64(len(fixtureDocs["agrements/AGR-4417.json"])), hit["bytes"])
	assert.Equal(t, anchor.SHA256([]byte(fixtureDocs["agrements/AGR-4417.json"])), hit["sha256"])
	assert.Equal(t, int64(1), hit["secret_slot"])
	assert.Equal(t, "GET", hit["method"])
	assert.Equal(t, "HTTP/1.1", hit["proto"])
	assert.Contains(t, hit, "remote")
	assert.Contains(t, hit, "duration")

	cited := entries[1].ContextMap()
	assert.Equal(t, "absent", cited["outcome"])
	assert.Equal(t, "/attestations/ATT-0404", cited["resource"], "an absent reference the manifest lists is named")

	uncited := entries[2].ContextMap()
	assert.Equal(t, "absent", uncited["outcome"])
	assert.Equal(t, "", uncited["resource"], "any other absent path is the caller's text")
	assert.Equal(t, anchor.SHA256([]byte("/attestations/ATT-0405")), uncited["target_sha256"])

	assert.Equal(t, int64(-1), entries[3].ContextMap()["secret_slot"])
	assert.Equal(t, "forbidden", entries[3].ContextMap()["outcome"])
}

// TestTelemetryNeverHoldsTheSecret sends the secret everywhere a caller can
// put text, with and without the gate passing, raw and percent-encoded, and
// looks for it, whole or in part, in every record.
func TestTelemetryNeverHoldsTheSecret(t *testing.T) {
	encoded := strings.NewReplacer("-", "%2D", "a", "%61").Replace(secretA)
	tests := []struct {
		name string
		req  request
	}{
		{"absent path", request{target: "/agrements/" + secretA, headers: withSecret(secretA)}},
		{"absent path without the gate", request{target: "/agrements/" + secretA}},
		{"query", request{target: "/agrements/AGR-4417?" + secretA, headers: withSecret(secretA)}},
		{"path outside the corpus", request{target: "/" + secretA + "/x", headers: withSecret(secretA)}},
		{"percent-encoded", request{target: "/agrements/" + encoded, headers: withSecret(secretA)}},
		{"percent-encoded in a query", request{target: "/referentiel?s=" + encoded}},
		{"Host", request{target: "/referentiel", host: secretA + ".example", headers: withSecret(secretA)}},
		{"another header", request{target: "/referentiel", headers: map[string]string{"X-Other": secretA, corpus.SecretHeader: secretA}}},
		{"method", request{method: secretA[:32], target: "/referentiel", headers: withSecret(secretA)}},
		{"body", request{method: "POST", target: "/referentiel", body: secretA, headers: withSecret(secretA)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, logs := newHandler(t, nil)
			serve(h, tt.req)
			require.Len(t, logs.All(), 1)
			record := logs.All()[0]
			for key, v := range record.ContextMap() {
				text := strings.ToLower(fmt.Sprint(v))
				for _, leak := range []string{secretA, encoded, secretA[:16], secretA[len(secretA)-16:]} {
					assert.NotContains(t, text, strings.ToLower(leak), "field %s", key)
				}
			}
			if tt.req.method != "" && tt.req.method != "POST" {
				assert.Equal(t, "other", record.ContextMap()["method"], "an unknown method is not written")
			}
		})
	}
}

func TestProvisionRefuses(t *testing.T) {
	tests := []struct {
		name    string
		mutate  func(t *testing.T, h *Handler)
		message string
	}{
		{"no secret", func(t *testing.T, h *Handler) { h.Secrets = nil }, "no challenge secret"},
		{"only unset placeholders", func(t *testing.T, h *Handler) {
			h.Secrets = []string{"{env.PROVEIT_TEST_UNSET_SECRET}"}
		}, "no challenge secret"},
		{"short secret", func(t *testing.T, h *Handler) { h.Secrets = []string{secretA, "short-secret"} }, "secret slot 1: shorter than 32 bytes"},
		{"short secret from the environment", func(t *testing.T, h *Handler) {
			t.Setenv("PROVEIT_TEST_SHORT_SECRET", "short-secret")
			h.Secrets = []string{secretA, "{env.PROVEIT_TEST_SHORT_SECRET}"}
		}, "secret slot 1 (PROVEIT_TEST_SHORT_SECRET): shorter than 32 bytes"},
		{"short secret from a file", func(t *testing.T, h *Handler) {
			name := filepath.Join(t.TempDir(), "brief-file")
			require.NoError(t, os.WriteFile(name, []byte("short-secret\n"), 0o600))
			h.Secrets = []string{"{file." + name + "}"}
		}, "brief-file): shorter than 32 bytes"},
		{"changed file", func(t *testing.T, h *Handler) {
			require.NoError(t, afero.WriteFile(h.Corpora[0].tree, "referentiel.json", []byte(`{"ressource": "/referentiel", "titre": "Regles"}`), 0o644))
		}, "referentiel.json: bytes changed"},
		{"missing file", func(t *testing.T, h *Handler) {
			require.NoError(t, h.Corpora[0].tree.Remove("agrements/AGR-4417.json"))
		}, "agrements/AGR-4417.json: missing from the tree"},
		{"extra file", func(t *testing.T, h *Handler) {
			require.NoError(t, afero.WriteFile(h.Corpora[0].tree, "agrements/AGR-0002.json", []byte(`{"existe": true}`), 0o644))
		}, "agrements/AGR-0002.json: extra"},
		{"stray file", func(t *testing.T, h *Handler) {
			require.NoError(t, afero.WriteFile(h.Corpora[0].tree, "notes.txt", []byte("x"), 0o644))
		}, "notes.txt: not a .json file"},
		{"missing manifest", func(t *testing.T, h *Handler) { h.Corpora[0].Manifest = filepath.Join(t.TempDir(), "none.json") }, "reading manifest"},
		{"another manifest than the pinned one", func(t *testing.T, h *Handler) {
			h.Corpora[0].ManifestSHA256 = anchor.SHA256(manifest.Embedded(corpus.Conformity))
		}, "the pinned one is " + anchor.SHA256(manifest.Embedded(corpus.Conformity))},
		{"another manifest than the pinned one, and a changed file", func(t *testing.T, h *Handler) {
			h.Corpora[0].ManifestSHA256 = anchor.SHA256(manifest.Embedded(corpus.Conformity))
			require.NoError(t, afero.WriteFile(h.Corpora[0].tree, "referentiel.json", []byte(`{"ressource": "/referentiel"}`), 0o644))
		}, "the pinned one is " + anchor.SHA256(manifest.Embedded(corpus.Conformity))},
		{"a pin that is no SHA-256", func(t *testing.T, h *Handler) { h.Corpora[0].ManifestSHA256 = "sha256:abc" }, "is not a SHA-256"},
		{"a pin in upper case", func(t *testing.T, h *Handler) {
			h.Corpora[0].ManifestSHA256 = strings.ToUpper(anchor.SHA256(manifest.Embedded(corpus.Conformity)))
		}, "is not a SHA-256"},
		{"a manifest without its fixed bodies", func(t *testing.T, h *Handler) {
			m, _, err := manifest.ReadFile(h.Corpora[0].Manifest)
			require.NoError(t, err)
			m.Resources = slices.DeleteFunc(m.Resources, func(e manifest.Entry) bool { return e.Path == corpus.SystemUnavailable })
			require.NoError(t, os.WriteFile(h.Corpora[0].Manifest, m.Encode(), 0o644))
		}, "no entry for the fixed body /_systeme/503"},
		{"an unknown track", func(t *testing.T, h *Handler) { h.Corpora[0].Track = "autre" }, `corpus "autre": unknown track "autre"`},
		{"a track served twice", func(t *testing.T, h *Handler) { h.Corpora = append(h.Corpora, h.Corpora[0]) },
			`corpus "conformite": the track is configured twice`},
		{"another track's manifest", func(t *testing.T, h *Handler) { h.Corpora[0].Track = corpus.Purchasing.Name },
			`refusing to serve: the manifest is the track "conformite"'s`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree, manifestPath := newFixtureTree(t)
			h := &Handler{Secrets: []string{secretA}, Corpora: []Corpus{fixtureCorpus(tree, manifestPath)}}
			tt.mutate(t, h)
			_, err := provision(t, h)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.message)
			assert.NotContains(t, err.Error(), secretA)
			assert.NotContains(t, err.Error(), "short-secret", "no error quotes a secret")
		})
	}
}

// TestSecretSource: a slot's error names the variable or the file to
// change, and never a literal, which is the secret itself.
func TestSecretSource(t *testing.T) {
	tests := []struct{ configured, source string }{
		{"{env.CORPUS_CHALLENGE_SECRET}", " (CORPUS_CHALLENGE_SECRET)"},
		{"{file./etc/proveit/secret.next}", " (the file /etc/proveit/secret.next)"},
		{"a-literal-secret-of-at-least-32-bytes", ""},
		{"{env.A}{env.B}", ""},
		{"prefix{env.A}", ""},
		{"{vars.x}", ""},
	}
	for _, tt := range tests {
		t.Run(tt.configured, func(t *testing.T) {
			assert.Equal(t, tt.source, secretSource(tt.configured))
		})
	}
}

func TestSecretsFromPlaceholders(t *testing.T) {
	t.Setenv("PROVEIT_TEST_SECRET", secretB)
	secretFile := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(secretFile, []byte(secretA+"\n"), 0o600))
	h, _ := newHandler(t, func(h *Handler) {
		h.Secrets = []string{"{file." + secretFile + "}", "{env.PROVEIT_TEST_SECRET}", "{env.PROVEIT_TEST_UNSET_SECRET}"}
	})
	assert.Equal(t, 200, serve(h, request{target: "/referentiel", headers: withSecret(secretA)}).Code)
	assert.Equal(t, 200, serve(h, request{target: "/referentiel", headers: withSecret(secretB)}).Code)
	assert.Equal(t, 403, serve(h, request{target: "/referentiel", headers: withSecret("{env.PROVEIT_TEST_SECRET}")}).Code)
}

// A {file.PATH} that does not exist leaves its setting unused (secret.next
// before a rotation, a pin not yet written); one that exists but cannot be
// read refuses the configuration instead of leaving it silently empty.
func TestSettingFiles(t *testing.T) {
	dir := t.TempDir()
	secretFile := filepath.Join(dir, "secret")
	require.NoError(t, os.WriteFile(secretFile, []byte(secretA+"\r\n"), 0o600))
	missing := filepath.Join(dir, "secret.next")
	unreadable := filepath.Join(dir, "manifest.sha256")
	require.NoError(t, os.Mkdir(unreadable, 0o700)) // opens, and cannot be read
	tests := []struct {
		name    string
		secrets []string
		pin     string
		err     string
	}{
		{name: "a missing file is an unused slot", secrets: []string{"{file." + secretFile + "}", "{file." + missing + "}"}},
		{name: "a missing pin is no pin", secrets: []string{"{file." + secretFile + "}"}, pin: "{file." + missing + "}"},
		{name: "an unreadable secret file", secrets: []string{"{file." + unreadable + "}"}, err: "secret slot 0 (the file " + unreadable + "): read " + unreadable},
		{name: "an unreadable pin", secrets: []string{"{file." + secretFile + "}"}, pin: "{file." + unreadable + "}", err: "manifest_sha256: read " + unreadable},
		{name: "only missing files", secrets: []string{"{file." + missing + "}"}, err: "no challenge secret configured"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree, manifestPath := newFixtureTree(t)
			c := fixtureCorpus(tree, manifestPath)
			c.ManifestSHA256 = tt.pin
			h := &Handler{Secrets: tt.secrets, Corpora: []Corpus{c}}
			_, err := provision(t, h)
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Len(t, h.digests, 1)
			assert.Equal(t, 200, serve(h, request{target: "/referentiel", headers: withSecret(secretA)}).Code, "the trailing line ending is not the secret's")
		})
	}
}

// With no corpus configured, the handler serves every track embedded in
// the binary, each checked against its embedded manifest, from one origin.
func TestEmbeddedCorporaMatchEmbeddedManifests(t *testing.T) {
	h := &Handler{Secrets: []string{secretA}}
	_, err := provision(t, h)
	require.NoError(t, err)
	for _, track := range corpus.Tracks {
		m, err := manifest.Decode(manifest.Embedded(track))
		require.NoError(t, err)
		for _, e := range m.Resources {
			resp := serve(h, request{target: e.Path, headers: withSecret(secretA)})
			if e.Kind == manifest.System {
				assert.Equal(t, 404, resp.Code, e.Path)
				continue
			}
			assert.Equal(t, 200, resp.Code, e.Path)
			assert.Equal(t, e.BytesSHA256, anchor.SHA256(resp.Body.Bytes()), e.Path)
		}
	}
	for _, path := range []string{"/produits/PRD-0000", "/entites/ENT-0000", "/livraisons/x.y"} {
		resp := serve(h, request{target: path, headers: withSecret(secretA)})
		assert.Equal(t, string(corpus.AbsentBody(path)), resp.Body.String(), "either track's collections answer absent references")
	}
}

// TestServesAGrownCorpusFromDisk serves a tree on disk whose manifest
// the handler reads as a stream, a window at a time: every resource is
// answered with its file's bytes, and telemetry names the SHA-256 the
// manifest lists for it.
func TestServesAGrownCorpusFromDisk(t *testing.T) {
	files := corpustest.Grown(t, corpus.Conformity, 1000)
	m, err := manifest.Build(files, corpus.Conformity.Name, manifest.DefaultOrigin, nil)
	require.NoError(t, err)
	root, data := t.TempDir(), m.Encode()
	require.NoError(t, os.CopyFS(root, files))
	manifestPath := filepath.Join(t.TempDir(), "manifest.json")
	require.NoError(t, os.WriteFile(manifestPath, data, 0o644))
	h := &Handler{Secrets: []string{secretA}, Corpora: []Corpus{{Track: corpus.Conformity.Name, Root: root, Manifest: manifestPath, ManifestSHA256: anchor.SHA256(data)}}}
	logs, err := provision(t, h)
	require.NoError(t, err)
	served := 0
	for _, e := range m.Resources {
		resp := serve(h, request{target: e.Path, headers: withSecret(secretA)})
		record := logs.TakeAll()
		require.Len(t, record, 1)
		if e.Kind == manifest.System {
			assert.Equal(t, 404, resp.Code, e.Path)
			continue
		}
		want := string(corpus.AbsentBody(e.Path))
		if e.Kind == manifest.Document {
			served++
			want = string(files[*e.File].Data)
		}
		assert.Equal(t, 200, resp.Code, e.Path)
		assert.Equal(t, want, resp.Body.String(), e.Path)
		assert.Equal(t, e.BytesSHA256, record[0].ContextMap()["sha256"], e.Path)
		assert.Equal(t, e.Path, record[0].ContextMap()["resource"], e.Path)
	}
	assert.Equal(t, len(files)-len(corpus.SystemStatus), served)
}

// The two trees are served side by side only if they agree: one fixed body
// of each kind, the same bytes in both; no path served by both.
func TestTwoCorpora(t *testing.T) {
	tree, manifestPath := newFixtureTree(t)
	generic, genericManifest := newGenericFixtureTree(t, nil)
	h, _ := newHandler(t, func(h *Handler) {
		h.Corpora = append(h.Corpora, Corpus{Track: corpus.Purchasing.Name, Manifest: genericManifest, tree: generic})
	})
	for target, status := range map[string]int{"/referentiel": 200, "/regles-achat": 200, "/produits/PRD-1": 200, "/produits/PRD-2": 200, "/agrements/AGR-9": 200, "/_systeme/404": 404} {
		assert.Equal(t, status, serve(h, request{target: target, headers: withSecret(secretA)}).Code, target)
	}
	assert.Equal(t, string(corpus.AbsentBody("/produits/PRD-2")), serve(h, request{target: "/produits/PRD-2", headers: withSecret(secretA)}).Body.String())
	assert.Equal(t, systemBody(t, corpus.SystemNotFound), serve(h, request{target: "/inconnu", headers: withSecret(secretA)}).Body.String())
	for path := range corpus.SystemStatus {
		assert.NotContains(t, h.resources, path, "a fixed body is never a resource")
	}

	// One track alone answers no absent reference into the other's collections.
	alone, _ := newHandler(t, nil)
	assert.Equal(t, 404, serve(alone, request{target: "/produits/PRD-1", headers: withSecret(secretA)}).Code)

	tests := []struct {
		name    string
		edit    func(generic afero.Fs) []string // returns the generic manifest's citations
		message string
	}{
		{"a fixed body that differs", func(generic afero.Fs) []string {
			require.NoError(t, afero.WriteFile(generic, "_systeme/404.json", []byte("{\"erreur\": \"autre\"}"), 0o644))
			return nil
		}, "the fixed body /_systeme/404 of generique differs from the one already served"},
		{"a path claimed by both trees", func(afero.Fs) []string { return []string{"/entites/ENT-1"} },
			"/entites/ENT-1: absent entry of another track than generique"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			generic, genericManifest := newGenericFixtureTree(t, tt.edit)
			h := &Handler{Secrets: []string{secretA}, Corpora: []Corpus{
				fixtureCorpus(tree, manifestPath),
				{Track: corpus.Purchasing.Name, Manifest: genericManifest, tree: generic},
			}}
			_, err := provision(t, h)
			assert.ErrorContains(t, err, tt.message)
		})
	}
}

// newGenericFixtureTree is a small purchasing tree beside the real fixed
// bodies, and the path of its manifest; edit may change the tree and name
// the citations its manifest records.
func newGenericFixtureTree(t *testing.T, edit func(afero.Fs) []string) (afero.Fs, string) {
	t.Helper()
	tree := afero.NewMemMapFs()
	for path := range corpus.SystemStatus {
		require.NoError(t, afero.WriteFile(tree, corpus.FileOf(path), []byte(systemBody(t, path)), 0o644))
	}
	for name, body := range map[string]string{
		"regles-achat.json":   "{\"ressource\": \"/regles-achat\", \"catalogues\": {}}",
		"produits/PRD-1.json": "{\"ressource\": \"/produits/PRD-1\", \"existe\": true, \"tarif\": \"/tarifs/TAR-1\"}",
	} {
		require.NoError(t, afero.WriteFile(tree, name, []byte(body), 0o644))
	}
	var citations []string
	if edit != nil {
		citations = edit(tree)
	}
	m, err := manifest.Build(afero.NewIOFS(tree), corpus.Purchasing.Name, manifest.DefaultOrigin, []string{"/produits/PRD-2"})
	require.NoError(t, err)
	// A manifest that lists another track's path, as no build would write it.
	for _, path := range citations {
		m.Resources = append(m.Resources, manifest.Entry{Path: path, Kind: manifest.Absent, Status: 200, BytesSHA256: anchor.SHA256(corpus.AbsentBody(path))})
	}
	slices.SortFunc(m.Resources, func(a, b manifest.Entry) int { return strings.Compare(a.Path, b.Path) })
	manifestPath := filepath.Join(t.TempDir(), "generique.json")
	require.NoError(t, os.WriteFile(manifestPath, m.Encode(), 0o644))
	return tree, manifestPath
}

// TestBodyOfUnknownLength covers HTTP/2 and HTTP/3 requests, whose length may
// be unknown until the stream ends.
func TestBodyOfUnknownLength(t *testing.T) {
	h, _ := newHandler(t, nil)
	for _, tt := range []struct {
		name   string
		body   io.Reader
		status int
	}{
		{"stream ends at once", strings.NewReader(""), 200},
		{"one byte", strings.NewReader("x"), 400},
		{"read error", iotest.ErrReader(errors.New("reset")), 400},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/referentiel", nil)
			r.Body, r.ContentLength = io.NopCloser(tt.body), -1
			r.Header.Set(corpus.SecretHeader, secretA)
			w := httptest.NewRecorder()
			require.NoError(t, h.ServeHTTP(w, r, nil))
			assert.Equal(t, tt.status, w.Code)
		})
	}
}

func TestManifestPin(t *testing.T) {
	tree, manifestPath := newFixtureTree(t)
	data, err := os.ReadFile(manifestPath)
	require.NoError(t, err)
	pinFile := filepath.Join(t.TempDir(), "manifest.sha256")
	require.NoError(t, os.WriteFile(pinFile, []byte(anchor.SHA256(data)+"\n"), 0o644))
	t.Setenv("PROVEIT_TEST_PIN", anchor.SHA256(data))
	for _, pin := range []string{anchor.SHA256(data), "{env.PROVEIT_TEST_PIN}", "{file." + pinFile + "}", "{env.PROVEIT_TEST_UNSET_PIN}"} {
		t.Run(pin, func(t *testing.T) {
			c := fixtureCorpus(tree, manifestPath)
			c.ManifestSHA256 = pin
			h := &Handler{Secrets: []string{secretA}, Corpora: []Corpus{c}}
			_, err := provision(t, h)
			require.NoError(t, err)
			assert.Equal(t, 200, serve(h, request{target: "/referentiel", headers: withSecret(secretA)}).Code)
		})
	}
}

// panicWriter panics on the first WriteHeader, as a fault inside the handler
// would, and records what follows.
type panicWriter struct {
	*httptest.ResponseRecorder
	panicked bool
}

func (w *panicWriter) WriteHeader(code int) {
	if !w.panicked {
		w.panicked = true
		panic(errors.New("fault quoting the request " + secretA))
	}
	w.ResponseRecorder.WriteHeader(code)
}

func TestPanicIsAnsweredWithTheUnavailableBody(t *testing.T) {
	h, logs := newHandler(t, nil)
	w := &panicWriter{ResponseRecorder: httptest.NewRecorder()}
	r := httptest.NewRequest(http.MethodGet, "/referentiel", nil)
	r.Header.Set(corpus.SecretHeader, secretA)
	require.NoError(t, h.ServeHTTP(w, r, nil))
	assert.True(t, w.panicked)
	assert.Equal(t, 503, w.Code)
	assert.Equal(t, systemBody(t, corpus.SystemUnavailable), w.Body.String())
	assert.Equal(t, "application/json; charset=utf-8", w.Header().Get("Content-Type"))

	entries := logs.All()
	require.Len(t, entries, 2)
	assert.Equal(t, "handler panic", entries[0].Message)
	assert.Equal(t, "*errors.errorString", entries[0].ContextMap()["panic_type"])
	assert.Equal(t, "unavailable", entries[1].ContextMap()["outcome"])
	for _, e := range entries {
		assert.NotContains(t, fmt.Sprint(e.ContextMap()), secretA)
	}
}
