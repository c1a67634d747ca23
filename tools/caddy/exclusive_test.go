package main

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/harness/servertest"
)

// TestRefusesAServedAddress starts the real binary twice on one loopback
// port: the second refuses, with one line naming the address, and exits,
// leaving the first to answer every call; the first still reloads on its
// own address.
func TestRefusesAServedAddress(t *testing.T) {
	first := servertest.Start(t, servertest.Options{Secrets: []string{secret0}})
	address := "127.0.0.1:" + strconv.Itoa(first.Port)

	out, err := refusedStart(t, first.Port, "CORPUS_CHALLENGE_SECRET="+secret1)
	require.Error(t, err, "a second server on a served address exits with an error")
	assert.Contains(t, string(out), address+" is already served by another process")
	assert.NotContains(t, string(out), secret1)

	// Only the first answers: a call with its secret is never refused by
	// another server's gate.
	for range 20 {
		assert.Equal(t, http.StatusOK, get(t, first.URL+"/referentiel", secret0))
	}
	require.NoError(t, first.Reload(t, nil), "a reload binds the address its own process serves")
	assert.Equal(t, http.StatusOK, get(t, first.URL+"/referentiel", secret0))
}

// TestHandedOverSocketNotProbed: a socket systemd's socket unit holds
// accepts connections before the server starts, yet it is the server's own;
// the server bound to it (fd/3) starts.
func TestHandedOverSocketNotProbed(t *testing.T) {
	if !servertest.SocketActivation {
		t.Skip("no socket activation on this system")
	}
	socket, port := servertest.HeldSocket(t, "https")
	s := servertest.Start(t, servertest.Options{Secrets: []string{secret0}, Port: port, Sockets: []servertest.Socket{socket},
		Env: map[string]string{"CORPUS_BIND": "fd/3"}})
	assert.Equal(t, http.StatusOK, get(t, s.URL+"/referentiel", secret0))
}

// get returns the status of a GET with the secret.
func get(t *testing.T, url, secret string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	req.Header.Set(corpus.SecretHeader, secret)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	return resp.StatusCode
}
