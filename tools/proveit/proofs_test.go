package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/harness/servertest"
	"github.com/arkforge/proveit-corpus/tools/proofs/fetch"
)

// proofs fetch's own flags: a budget over what the fetch needs is refused
// before anything is sent, naming the flag that raises it; each bound must
// be more than nothing.
func TestProofsFetchFlags(t *testing.T) {
	var sent sync.Map
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent.Store(r.URL.Path, true)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(api.Close)
	var ids []string
	for i := range fetch.BatchSize + 1 {
		ids = append(ids, fmt.Sprintf("prf_20260101_000000_%06x", i))
	}
	fetchWith := func(flags ...string) []string {
		return append(append([]string{"proofs", "fetch", "-views", t.TempDir(), "-trust-layer", api.URL}, flags...), ids...)
	}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"over its budget", fetchWith("-budget", "1"), 2, "proveit proofs: 51 views to read take 2 reads of Trust Layer (50 views a read), " +
			"over this fetch's budget of 1: Trust Layer blocks an address past 100 view reads an hour (specification 10); " +
			"fetch these submissions in parts an hour apart, or raise -budget; see proveit proofs fetch -h"},
		{"a budget of nothing", fetchWith("-budget", "0"), 2, "-budget: at least 1"},
		{"no time for the whole fetch", fetchWith("-deadline", "0s"), 2, "-timeout, -deadline and -max-wait: each more than 0s"},
		{"no wait for a Retry-After", fetchWith("-max-wait", "-1s"), 2, "-timeout, -deadline and -max-wait: each more than 0s"},
		{"its help names the budget", []string{"proofs", "fetch", "-h"}, 0, "Trust Layer blocks an address past 100 an hour (specification 10), so a fetch needing more is refused before it starts (default 100)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(tt.args...)
			assert.Equal(t, tt.code, code, out+errOut)
			assert.Contains(t, strings.Join(strings.Fields(out+errOut), " "), tt.want)
		})
	}
	sent.Range(func(path, _ any) bool {
		t.Errorf("%s sent: every row refuses before sending", path)
		return true
	})
}

// The built binary names itself to Trust Layer with the version -version
// prints, and an interrupt ends its fetch as the deadline does: what was
// not read is FAILED, exit status 1, and no file is left half written.
func TestProofsFetchBinary(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no interrupt to send a process here")
	}
	bin := servertest.Toolbox(t)
	out, err := exec.Command(bin, "-version").Output()
	require.NoError(t, err)
	version := strings.TrimPrefix(strings.TrimSpace(string(out)), "proveit ")

	agents := make(chan string, 4)
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		agents <- r.UserAgent()
		io.Copy(io.Discard, r.Body) // then the server sees the client leave
		select {                    // stalls until the fetch is interrupted, or 10 s pass
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}))
	t.Cleanup(api.Close)
	views := t.TempDir()
	const id = "prf_20260923_072144_2ad720"
	cmd := exec.Command(bin, "proofs", "fetch", "-views", views, "-trust-layer", api.URL, id)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Start())
	select {
	case agent := <-agents:
		assert.Equal(t, fetch.UserAgent(version), agent)
		assert.True(t, strings.HasPrefix(agent, "proveit/"), agent)
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the fetch never reached Trust Layer")
	}
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("an interrupt did not end the fetch")
	}
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "exit status 1: %v", err)
	assert.Equal(t, 1, exit.ExitCode(), stderr.String())
	assert.Equal(t, "0 views read, 0 kept; 0 Rekor entries read, 0 kept; 0 pending\n"+
		"FAILED "+id+": POST /v1/proofs: interrupt signal received\n", stdout.String())
	entries, err := os.ReadDir(views)
	require.NoError(t, err)
	require.Len(t, entries, 1, "the rekor folder only")
	assert.Equal(t, "rekor", entries[0].Name())
	rekor, err := os.ReadDir(filepath.Join(views, "rekor"))
	require.NoError(t, err)
	assert.Empty(t, rekor)
}
