package loadgen

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
)

func TestPercentile(t *testing.T) {
	sorted := make([]time.Duration, 1000)
	for i := range sorted {
		sorted[i] = time.Duration(i+1) * time.Millisecond
	}
	tests := []struct {
		p    float64
		want time.Duration
	}{
		{50, 500 * time.Millisecond},
		{99, 990 * time.Millisecond},
		{99.9, 999 * time.Millisecond},
		{100, 1000 * time.Millisecond},
		{0, time.Millisecond},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Percentile(sorted, tt.p), "p%v", tt.p)
	}
	assert.Zero(t, Percentile(nil, 50))
}

// TestRun drives a local server briefly and checks that every request due
// was answered, with and without the secret.
func TestRun(t *testing.T) {
	const secret = "test-secret"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(corpus.SecretHeader) != secret {
			w.WriteHeader(http.StatusForbidden)
		}
		_, _ = w.Write([]byte(`{"ok": true}`))
	}))
	defer srv.Close()
	addr := srv.Listener.Addr().(*net.TCPAddr).String()
	r, err := Run(Config{
		Addr:     addr,
		Requests: [][]byte{Request(addr, "/a", true, secret), Request(addr, "/b", false, "")},
		Rate:     400,
		Duration: 500 * time.Millisecond,
		Conns:    4,
	})
	require.NoError(t, err)
	assert.Equal(t, 200, r.Sent)
	assert.Equal(t, 200, r.Completed)
	assert.Zero(t, r.Errors)
	assert.Equal(t, map[string]int{"200": 100, "403": 100}, r.Status)
	assert.Positive(t, r.P50, "latencies were recorded")
	assert.Less(t, r.Max, 10_000.0, "no call to a loopback server waited ten seconds")
}

// TestMain drives a local server through the command line and checks the
// JSON it prints, and that a bad targets file is an error naming the line.
func TestMainCommand(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"ok": true}`))
	}))
	defer srv.Close()
	addr := srv.Listener.Addr().(*net.TCPAddr).String()
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good"), filepath.Join(dir, "bad")
	require.NoError(t, os.WriteFile(good, []byte("+ /a\n- /b\n"), 0o644))
	require.NoError(t, os.WriteFile(bad, []byte("+ /a\nGET /b\n"), 0o644))

	var stdout, stderr bytes.Buffer
	status := Main([]string{"-addr", addr, "-targets", good, "-rate", "200", "-duration", "250ms", "-conns", "2"}, &stdout, &stderr)
	require.Equal(t, 0, status, stderr.String())
	var r Result
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &r))
	assert.Equal(t, 50, r.Sent)
	assert.Equal(t, 50, r.Completed)

	stdout.Reset()
	status = Main([]string{"-addr", addr, "-targets", bad}, &stdout, &stderr)
	assert.Equal(t, 2, status)
	assert.Contains(t, stderr.String(), bad+":2:")
	assert.Empty(t, stdout.String())
}

func TestRequestHasNoSecretUnlessAuthenticated(t *testing.T) {
	assert.NotContains(t, string(Request("h", "/x", false, "s3cret")), "s3cret")
	assert.True(t, strings.HasPrefix(string(Request("h", "/x", true, "s3cret")), "GET /x HTTP/1.1\r\nHost: h\r\nX-Challenge-Secret: s3cret\r\n\r\n"))
}
