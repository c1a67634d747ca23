package frontal

import (
	"context"
	"errors"
	"fmt"
	"net/http"
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

// h2ServerReply is a request Go's HTTP/2 server answers itself, before any
// handler: its extra header fields.
type h2ServerReply struct {
	name   string
	fields [][2]string
}

func h2ServerReplies() []h2ServerReply {
	var big [][2]string
	for i := range 6 {
		big = append(big, [2]string{fmt.Sprintf("x-big%d", i+1), strings.Repeat("b", 3000)})
	}
	return []h2ServerReply{
		{"six fields of 3,000 bytes (a field section over the limit, small frames)", big},
		{"connection: keep-alive", [][2]string{{"connection", "keep-alive"}}},
		{"keep-alive: timeout=5", [][2]string{{"keep-alive", "timeout=5"}}},
		{"proxy-connection: keep-alive", [][2]string{{"proxy-connection", "keep-alive"}}},
		{"upgrade: websocket", [][2]string{{"upgrade", "websocket"}}},
		{"te: gzip", [][2]string{{"te", "gzip"}}},
		{"transfer-encoding: chunked", [][2]string{{"transfer-encoding", "chunked"}}},
		// Allowed, and answered by the handler: the guard must let them be.
		{"te: trailers", [][2]string{{"te", "trailers"}}},
		{"none", nil},
	}
}

var h2ReplyChannels = []string{"h2c, with the secret", "h2c, without", "HTTP/2 over TLS, with the secret", "HTTP/2 over TLS, without"}

// TestH2ServerRepliesClosed sends, with HTTP/2 switched on, over h2c and
// over HTTP/2 inside TLS, with and without the secret, the requests Go's
// HTTP/2 server would answer with a 431 in HTML or a 400 in plain text:
// each gets a contract body or a closed connection, and the allowed ones a
// contract body.
func TestH2ServerRepliesClosed(t *testing.T) {
	root, manifestPath := servertest.CopyCorpus(t)
	m, _, err := manifest.ReadFile(manifestPath)
	require.NoError(t, err)
	bodies, err := newContractBodies(m, root)
	require.NoError(t, err)
	secret := newSecrets(t, 1)[0]
	clients := map[bool]*probe.Client{}
	for _, useTLS := range []bool{false, true} {
		s := servertest.Start(t, servertest.Options{Secrets: []string{secret}, TLS: useTLS, Protocols: h2Protocols(useTLS), Lifetime: time.Minute})
		client, err := probe.NewClient(s.URL, 10*time.Second)
		require.NoError(t, err)
		client.InsecureTLS = true
		clients[useTLS] = client
	}
	var rows []replyRow
	for _, r := range h2ServerReplies() {
		row := replyRow{Request: r.name}
		for _, useTLS := range []bool{false, true} {
			for _, withSecret := range []bool{true, false} {
				header := r.fields
				if withSecret {
					header = append([][2]string{{corpus.SecretHeader, secret}}, header...)
				}
				resp, err := clients[useTLS].Do(context.Background(),
					probe.Request{Proto: probe.HTTP2, Method: http.MethodGet, Target: "/referentiel", Header: header})
				var a answer
				switch {
				case errors.Is(err, probe.ErrClosed):
					a = answer{Closed: true}
				case err != nil:
					t.Fatalf("%s, TLS %v: %v", r.name, useTLS, err)
				default:
					a = answer{Status: resp.Status, Header: resp.Header, Body: resp.Body}
				}
				where := fmt.Sprintf("%s (TLS %v, secret %v)", r.name, useTLS, withSecret)
				assert.NoError(t, bodies.contractProblem(a, http.MethodGet), where)
				if r.name == "te: trailers" || r.name == "none" {
					assert.False(t, a.Closed, "%s: answered by the handler", where)
				}
				verdict := "closed"
				if !a.Closed {
					verdict = fmt.Sprintf("%d body", a.Status)
				}
				row.Verdicts = append(row.Verdicts, verdict)
			}
		}
		rows = append(rows, row)
	}
	figures.setH2Replies(rows)
}

func (f *reportFigures) setH2Replies(rows []replyRow) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.h2Replies = rows
}
