package fetch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/proofs/fetch"
)

// standIn serves the real artefacts of ../testdata/trustlayer on loopback as
// Trust Layer's POST /v1/proofs and Rekor's entries endpoint do, counting
// what it is asked and failing the first tries it is told to.
type standIn struct {
	mu       sync.Mutex
	views    map[string]json.RawMessage
	entries  map[string][]byte
	asked    map[string]int // proof id or uuid → times served
	failures int            // the next requests answered 503
	batches  []int          // the size of each POST /v1/proofs
	requests int            // every request that reached the stand-in
	agents   []string       // the User-Agent of each
	// intercept, when set, sees each request with its number (from 1)
	// before the endpoints do, and answers it instead when it says so.
	intercept func(w http.ResponseWriter, r *http.Request, n int) bool
}

// defaultAgent is how Go's client names itself, which Trust Layer's edge
// answers with a bare 403.
const defaultAgent = "Go-http-client/"

func newStandIn(t *testing.T) (*standIn, *httptest.Server) {
	s := &standIn{views: map[string]json.RawMessage{}, entries: map[string][]byte{}, asked: map[string]int{}}
	for _, name := range []string{"proof_proveit_gel.json", "proof_rekor.json", "proof_2026_07.json"} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "trustlayer", name))
		require.NoError(t, err)
		v, err := proofs.ParseView(name, data)
		require.NoError(t, err)
		s.views[v.ProofID] = data
	}
	entry, err := os.ReadFile(filepath.Join("..", "testdata", "trustlayer", "rekor_entry.json"))
	require.NoError(t, err)
	uuid, err := proofs.ParseRekorEntry(entry)
	require.NoError(t, err)
	s.entries[uuid] = entry
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/proofs", func(w http.ResponseWriter, r *http.Request) {
		if s.fail(w) {
			return
		}
		var req struct {
			IDs []string `json:"proof_ids"`
		}
		if json.NewDecoder(r.Body).Decode(&req) != nil || len(req.IDs) == 0 || len(req.IDs) > fetch.BatchSize {
			http.Error(w, `{"error":"1 to 50 proof_ids"}`, http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		s.batches = append(s.batches, len(req.IDs))
		out := map[string]json.RawMessage{}
		for _, id := range req.IDs {
			s.asked[id]++
			if v, ok := s.views[id]; ok {
				out[id] = v
			} else {
				out[id] = json.RawMessage("null")
			}
		}
		json.NewEncoder(w).Encode(map[string]any{"proofs": out})
	})
	mux.HandleFunc("GET /api/v1/log/entries/{uuid}", func(w http.ResponseWriter, r *http.Request) {
		if s.fail(w) {
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		uuid := r.PathValue("uuid")
		s.asked[uuid]++
		e, ok := s.entries[uuid]
		if !ok {
			http.Error(w, `{"code":404,"message":"not found"}`, http.StatusNotFound)
			return
		}
		w.Write(e)
	})
	srv := httptest.NewServer(s.edge(mux))
	t.Cleanup(srv.Close)
	return s, srv
}

// edge counts each request, refuses a client that does not name itself as
// Trust Layer's edge does, and lets intercept answer first.
func (s *standIn) edge(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests++
		n := s.requests
		s.agents = append(s.agents, r.UserAgent())
		intercept := s.intercept
		s.mu.Unlock()
		if agent := r.UserAgent(); agent == "" || strings.HasPrefix(agent, defaultAgent) {
			w.WriteHeader(http.StatusForbidden)
			return
		}
		if intercept != nil && intercept(w, r, n) {
			return
		}
		next.ServeHTTP(w, r)
	})
}

// count is the number of requests that reached the stand-in.
func (s *standIn) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

// stall holds a request until its client gives up, or 10 s pass: a test
// server that stops by itself. The body is read first: only then does the
// server watch the connection, and see the client leave.
func stall(r *http.Request) {
	io.Copy(io.Discard, r.Body)
	select {
	case <-r.Context().Done():
	case <-time.After(10 * time.Second):
	}
}

// synthetic adds n views to the stand-in, each the 2.0 proof's under a
// proof id of its own, all naming the one Rekor entry it serves, and
// returns their ids.
func (s *standIn) synthetic(t *testing.T, n int) []string {
	t.Helper()
	model := s.views[rekorID]
	var ids []string
	for i := range n {
		id := fmt.Sprintf("prf_20260303_161853_%06x", 0xa00000+i)
		view := json.RawMessage(strings.Replace(string(model), rekorID, id, 1))
		_, err := proofs.ParseView(id, view)
		require.NoError(t, err)
		s.views[id] = view
		ids = append(ids, id)
	}
	return ids
}

func (s *standIn) fail(w http.ResponseWriter) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failures > 0 {
		s.failures--
		http.Error(w, "busy", http.StatusServiceUnavailable)
		return true
	}
	return false
}

const (
	gelID   = "prf_20260923_072144_2ad720"
	rekorID = "prf_20260303_161853_4d0904" // the 2.0 proof, whose entry the stand-in serves
)

func fetcher(srv *httptest.Server, dir string) *fetch.Fetcher {
	return &fetch.Fetcher{
		Client: srv.Client(), TrustLayer: srv.URL, Rekor: srv.URL, Dir: dir,
		UserAgent: fetch.UserAgent("v1.2.3"), Attempts: 3, Backoff: time.Millisecond,
	}
}

func TestFetchKeepsWhatCannotChange(t *testing.T) {
	s, srv := newStandIn(t)
	dir := t.TempDir()
	ids := []string{}
	for id := range s.views {
		ids = append(ids, id)
	}
	r, err := fetcher(srv, dir).Fetch(context.Background(), ids)
	require.NoError(t, err)
	// The 3.1 and 1.2 proofs' entries are not public: each is named.
	require.Len(t, r.Errors, 2)
	for _, e := range r.Errors {
		assert.Regexp(t, `^Rekor entry [0-9a-f]{80}: GET /api/v1/log/entries/[0-9a-f]{80}: 404 Not Found$`, e.Error())
	}
	assert.Equal(t, 3, r.Read)
	assert.Equal(t, 1, r.EntriesRead, "the 2.0 proof's entry; the 3.1 one is not served, the 1.2 one names none")
	for id, want := range s.views {
		got, err := os.ReadFile(proofs.ViewFile(dir, id))
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), "a view is kept as served")
	}

	// Again: nothing anchored is read twice.
	r, err = fetcher(srv, dir).Fetch(context.Background(), ids)
	require.NoError(t, err)
	assert.Equal(t, 0, r.Read)
	assert.Equal(t, 3, r.Kept)
	assert.Equal(t, 1, r.EntriesKept)
	for id := range s.views {
		assert.Equal(t, 1, s.asked[id], id)
	}
}

func TestFetchReadsPendingAgain(t *testing.T) {
	s, srv := newStandIn(t)
	var v map[string]any
	require.NoError(t, json.Unmarshal(s.views[gelID], &v))
	v["batch_anchor"] = map[string]any{"status": "pending"}
	pending, _ := json.Marshal(v)
	s.views[gelID] = pending
	dir := t.TempDir()
	for range 2 {
		r, err := fetcher(srv, dir).Fetch(context.Background(), []string{gelID})
		require.NoError(t, err)
		assert.Equal(t, []string{gelID}, r.Pending)
	}
	assert.Equal(t, 2, s.asked[gelID])
}

func TestFetchErrors(t *testing.T) {
	tests := []struct {
		name     string
		ids      []string
		failures int
		want     []string // each error's text holds this
	}{
		{"retried until it answers", []string{gelID}, 2, []string{"Rekor entry 108e9186e8c5677ad7fdd0e1b86b5fc6d178f40d929314428c77f5b35847ef4c10045def8277e795: GET /api/v1/log/entries/108e9186e8c5677ad7fdd0e1b86b5fc6d178f40d929314428c77f5b35847ef4c10045def8277e795: 404 Not Found"}},
		{"retries are bounded", []string{gelID}, 3, []string{gelID + ": POST /v1/proofs: 503"}},
		{"an unknown proof", []string{"prf_20260101_000000_abcdef"}, 0, []string{"prf_20260101_000000_abcdef: Trust Layer knows no such proof"}},
		{"not a proof id", []string{"../../etc/passwd"}, 0, []string{`"../../etc/passwd" is not a proof id`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, srv := newStandIn(t)
			s.failures = tt.failures
			r, err := fetcher(srv, t.TempDir()).Fetch(context.Background(), tt.ids)
			require.NoError(t, err)
			require.Len(t, r.Errors, len(tt.want))
			for i, w := range tt.want {
				assert.Contains(t, r.Errors[i].Error(), w)
			}
		})
	}
}

func TestFetchAsksFiftyAtATime(t *testing.T) {
	s, srv := newStandIn(t)
	var ids []string
	for i := range 120 {
		ids = append(ids, fmt.Sprintf("prf_20260101_000000_%06x", i))
	}
	r, err := fetcher(srv, t.TempDir()).Fetch(context.Background(), ids)
	require.NoError(t, err)
	assert.Len(t, r.Errors, 120)
	assert.Equal(t, []int{50, 50, 20}, s.batches)
}
