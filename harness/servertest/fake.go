package servertest

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
)

// Loopback serves h on 127.0.0.1 until the test ends and returns its URL.
func Loopback(t testing.TB, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := &httptest.Server{Listener: ln, Config: &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}}
	s.Start()
	t.Cleanup(s.Close)
	return s.URL
}

// Answer is what a fake corpus answers for a path: a status and a body.
type Answer struct {
	Status int
	Body   string
}

// FakeCorpus serves, on loopback, what the corpus would for the paths of
// served: 403 without the secret, the path's answer otherwise, and the
// absent-reference body for any other path. It stands in for the corpus
// where a test needs its answers, not the server.
func FakeCorpus(t testing.TB, secret string, served map[string]Answer) string {
	return Loopback(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get(corpus.SecretHeader) != secret {
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, `{"erreur": "secret absent"}`)
			return
		}
		a, ok := served[r.URL.RequestURI()]
		if !ok {
			a = Answer{http.StatusNotFound, fmt.Sprintf(`{"ressource": %q, "existe": false}`, r.URL.RequestURI())}
		}
		w.WriteHeader(a.Status)
		io.WriteString(w, a.Body)
	}))
}

// HeldSocket opens a listening socket on a free loopback port and holds it
// until the test ends, as a systemd socket unit named name holds its own:
// the servers it is handed to come and go, the socket stays.
func HeldSocket(t testing.TB, name string) (Socket, int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	file, err := ln.(*net.TCPListener).File()
	require.NoError(t, err)
	t.Cleanup(func() { file.Close() })
	return Socket{Name: name, File: file}, ln.Addr().(*net.TCPAddr).Port
}
