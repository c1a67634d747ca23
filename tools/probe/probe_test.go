package probe

import (
	"context"
	"crypto/x509"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/manifest"
	"github.com/arkforge/proveit-corpus/manifest/anchor"
)

// serveOnce answers every connection with reply, then closes it.
func serveOnce(t *testing.T, reply string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			buf := make([]byte, 4096)
			_, _ = conn.Read(buf)
			_, _ = conn.Write([]byte(reply))
			conn.Close()
		}
	}()
	return "http://" + l.Addr().String()
}

func TestExchange(t *testing.T) {
	tests := []struct {
		name    string
		reply   string
		status  int
		body    string
		interim bool
		err     string
	}{
		{"a response", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}", 200, "{}", false, ""},
		{"after 100 Continue", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 400 Bad Request\r\nContent-Length: 2\r\n\r\n{}", 400, "{}", true, ""},
		{"closed at once", "", 0, "", false, ErrClosed.Error()},
		{"cut mid-body", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{}", 0, "", false, ErrClosed.Error()},
		{"HTTP/0.9", "{\"a\": \"b\"}", 0, "", false, "not an HTTP/1.x response"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, err := NewClient(serveOnce(t, tt.reply), 5*time.Second)
			require.NoError(t, err)
			resp, err := client.Do(context.Background(), Request{Method: http.MethodGet, Target: "/referentiel"})
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.status, resp.Status)
			assert.Equal(t, tt.body, string(resp.Body))
			assert.Equal(t, tt.interim, resp.Interim)
		})
	}
}

func TestProblems(t *testing.T) {
	body := corpus.AbsentBody("/agrements/AGR-1")
	hash, err := anchor.ResponseHash(body)
	require.NoError(t, err)
	expect := Expect{Status: 200, Path: "/agrements/AGR-1", BytesSHA256: anchor.SHA256(body), ResponseHash: hash}
	good := func() http.Header {
		h := http.Header{}
		for _, kv := range contractHeaders {
			h.Set(kv[0], kv[1])
		}
		h.Set("Content-Length", strconv.Itoa(len(body)))
		return h
	}
	tests := []struct {
		name   string
		mutate func(*Response)
		want   string
	}{
		{"as required", func(*Response) {}, ""},
		{"other status", func(r *Response) { r.Status = 404 }, "status 404, want 200"},
		{"other bytes", func(r *Response) { r.Body = append([]byte(" "), body...) }, "body is not the one of /agrements/AGR-1"},
		{"an ETag", func(r *Response) { r.Header.Set("ETag", `"x"`) }, "forbidden header ETag"},
		{"cacheable", func(r *Response) { r.Header.Set("Cache-Control", "max-age=60") }, "header Cache-Control"},
		{"wrong length", func(r *Response) { r.Header.Set("Content-Length", "1") }, "Content-Length \"1\""},
		{"text", func(r *Response) { r.Header.Set("Content-Type", "text/plain") }, "header Content-Type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := &Response{Status: 200, Header: good(), Body: body}
			tt.mutate(resp)
			got := strings.Join(Problems(expect, resp), "; ")
			if tt.want == "" {
				assert.Empty(t, got)
			} else {
				assert.Contains(t, got, tt.want)
			}
		})
	}
}

func TestCatalogueCoversEveryEntry(t *testing.T) {
	m, err := manifest.Decode(manifest.Embedded(corpus.Conformity))
	require.NoError(t, err)
	checks, err := Catalogue(m, Options{Secrets: []string{strings.Repeat("s", 32)}})
	require.NoError(t, err)
	names := map[string]bool{}
	for _, c := range checks {
		names[c.Name] = true
	}
	for _, e := range m.Resources {
		if e.Kind != manifest.System {
			assert.True(t, names[string(e.Kind)+": "+e.Path], e.Path)
		}
	}
	_, err = Catalogue(m, Options{})
	assert.ErrorContains(t, err, "no secret")
}

// One server, both tracks: every entry of each manifest is checked, the
// absent rule on every collection of either track, the fixed bodies once.
func TestCatalogueOfBothTracks(t *testing.T) {
	var manifests []*manifest.Manifest
	for _, track := range corpus.Tracks {
		m, err := manifest.Decode(manifest.Embedded(track))
		require.NoError(t, err)
		manifests = append(manifests, m)
	}
	checks, err := CatalogueOf(manifests, Options{Secrets: []string{strings.Repeat("s", 32)}})
	require.NoError(t, err)
	names := map[string]int{}
	for _, c := range checks {
		names[c.Name]++
	}
	for _, m := range manifests {
		for _, e := range m.Resources {
			if e.Kind != manifest.System {
				assert.Equal(t, 1, names[string(e.Kind)+": "+e.Path], e.Path)
			}
		}
	}
	for _, c := range corpus.Collections {
		assert.Equal(t, 1, names["absent: unlisted in "+c], c)
	}
	assert.Equal(t, 1, names["gate: no secret"])

	alone, err := Catalogue(manifests[1], Options{Secrets: []string{strings.Repeat("s", 32)}})
	require.NoError(t, err)
	for _, c := range alone {
		assert.NotEqual(t, "absent: unlisted in entites", c.Name, "a server of one track answers no absent reference of the other")
		if c.Name == "gate: no secret" {
			assert.Equal(t, corpus.ReglesAchat, c.Request.Target, "the sample is the track's rules resource")
		}
	}
	_, err = CatalogueOf(nil, Options{Secrets: []string{strings.Repeat("s", 32)}})
	assert.ErrorContains(t, err, "no manifest")
}

func TestProtocolsNamed(t *testing.T) {
	tests := []struct {
		names  string
		scheme string
		want   []string
		err    string
	}{
		{"h1 h2 h3", "https", []string{HTTP2, HTTP3}, ""},
		{"h1 h2c", "http", []string{HTTP2}, ""},
		{"http1.0 h2c h2c", "http", []string{HTTP10, HTTP2}, ""},
		{"h1", "http", nil, ""},
		{"", "https", nil, ""},
		{"h2", "http", nil, "protocol h2 is served over https only, and the URL is http"},
		{"h3", "http", nil, "protocol h3 is served over https only"},
		{"h2c", "https", nil, "protocol h2c is served over http only"},
		{"HTTP/2", "http", nil, `protocol "HTTP/2": want h1, h2, h2c, h3`},
	}
	for _, tt := range tests {
		t.Run(tt.names+" on "+tt.scheme, func(t *testing.T) {
			got, err := ProtocolsNamed(strings.Fields(tt.names), tt.scheme)
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// Reach stops at what would fail every check alike, and at nothing else.
func TestReach(t *testing.T) {
	answer := func(status int) string {
		return "HTTP/1.1 " + strconv.Itoa(status) + " X\r\nContent-Length: 2\r\n\r\n{}"
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := "http://" + l.Addr().String()
	require.NoError(t, l.Close())
	tests := []struct {
		name, url string
		secrets   []string
		err       string
	}{
		{"answers past the gate", serveOnce(t, answer(200)), []string{"a"}, ""},
		{"in maintenance", serveOnce(t, answer(503)), []string{"a"}, ""},
		{"refuses the secret", serveOnce(t, answer(403)), []string{"a", "b"}, "the server refuses secret 0 (403)"},
		{"dead", dead, []string{"a"}, dead + " does not answer"},
		{"closes at once", serveOnce(t, ""), []string{"a"}, "does not answer: " + ErrClosed.Error()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, err := NewClient(tt.url, 5*time.Second)
			require.NoError(t, err)
			err = client.Reach(context.Background(), corpus.Referentiel, tt.secrets)
			if tt.err == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tt.err)
		})
	}
}

// A certificate of a private CA is refused, but for RootCAs holding that CA.
func TestRootCAs(t *testing.T) {
	server := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", "2")
		_, _ = w.Write([]byte("{}"))
	}))
	server.EnableHTTP2 = true
	server.StartTLS()
	t.Cleanup(server.Close)
	client, err := NewClient(server.URL, 5*time.Second)
	require.NoError(t, err)
	_, err = client.Do(context.Background(), Request{Method: http.MethodGet, Target: "/referentiel"})
	var unknown x509.UnknownAuthorityError
	require.ErrorAs(t, err, &unknown)

	client.RootCAs = x509.NewCertPool()
	client.RootCAs.AddCert(server.Certificate())
	for _, proto := range []string{HTTP11, HTTP2} {
		resp, err := client.Do(context.Background(), Request{Proto: proto, Method: http.MethodGet, Target: "/referentiel"})
		require.NoError(t, err, proto)
		assert.Equal(t, "{}", string(resp.Body))
	}
}

// TestResidual: a check that fails with exactly the answer of its
// documented residual (docs/reliability.md, R1: nginx alone before 1.23
// serves a call that carries the secret twice) names it; another failure,
// or a check without a residual, names none.
func TestResidual(t *testing.T) {
	m, err := manifest.Decode(manifest.Embedded(corpus.Conformity))
	require.NoError(t, err)
	checks, err := Catalogue(m, Options{Secrets: []string{strings.Repeat("s", 40)}, SkipResources: true})
	require.NoError(t, err)
	named := map[string]Check{}
	for _, c := range checks {
		named[c.Name] = c
	}
	rules, err := fs.ReadFile(corpus.Conformity.Embedded(), strings.TrimPrefix(corpus.Conformity.Rules, "/")+".json")
	require.NoError(t, err)
	answer := func(body string) string {
		return "HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\nCache-Control: no-store, no-cache, must-revalidate, max-age=0\r\n" +
			"Pragma: no-cache\r\nExpires: 0\r\nX-Content-Type-Options: nosniff\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	}
	tests := []struct {
		name, check, reply string
		residual           string
	}{
		{"the secret twice, served as once", "gate: secret twice", answer(string(rules)), "R1"},
		{"the secret twice, another body", "gate: secret twice", answer(`{"a": "b"}`), ""},
		{"no secret, served", "gate: no secret", answer(string(rules)), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			client, err := NewClient(serveOnce(t, tt.reply), 5*time.Second)
			require.NoError(t, err)
			results := Run(context.Background(), client, []Check{named[tt.check]})
			require.Len(t, results, 1)
			assert.NotEmpty(t, results[0].Problems, "a residual is still a departure from the contract")
			if tt.residual == "" {
				assert.Nil(t, results[0].Residual)
				return
			}
			require.NotNil(t, results[0].Residual)
			assert.Equal(t, tt.residual, results[0].Residual.ID)
		})
	}
}

func TestNewClientURL(t *testing.T) {
	tests := []struct{ url, err string }{
		{"http://127.0.0.1:8080", ""},
		{"https://corpus.arkforge.tech", ""},
		{"127.0.0.1:8080", `base URL "127.0.0.1:8080" has no scheme: write http://127.0.0.1:8080 or https://127.0.0.1:8080`},
		{"localhost", "has no scheme"},
		{"ftp://127.0.0.1", "want http(s)://host[:port] with no path"},
		{"http://127.0.0.1:8080/referentiel", "with no path"},
		{"http://[::1", "want http(s)://host[:port]"},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			_, err := NewClient(tt.url, time.Second)
			if tt.err == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tt.err)
		})
	}
}
