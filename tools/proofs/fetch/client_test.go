package fetch_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/proofs/fetch"
)

// unknownIDs are n proof ids the stand-in knows nothing of.
func unknownIDs(n int) []string {
	var ids []string
	for i := range n {
		ids = append(ids, fmt.Sprintf("prf_20260101_000000_%06x", i))
	}
	return ids
}

func errorTexts(r *fetch.Report) []string {
	var out []string
	for _, e := range r.Errors {
		out = append(out, e.Error())
	}
	return out
}

func TestUserAgent(t *testing.T) {
	tests := []struct{ version, want string }{
		{"v1.2.3", "proveit/v1.2.3 (+https://corpus.arkforge.tech)"},
		{"0e4e351-dirty", "proveit/0e4e351-dirty (+https://corpus.arkforge.tech)"},
		{"(devel)", "proveit/devel (+https://corpus.arkforge.tech)"},
		{"v0.0.0-20261205-0e4e351 => ../proveit-corpus", "proveit/v0.0.0-20261205-0e4e351 (+https://corpus.arkforge.tech)"},
		{"\x1b[31mv1", "proveit/31mv1 (+https://corpus.arkforge.tech)"},
		{"", "proveit/unknown (+https://corpus.arkforge.tech)"},
	}
	for _, tt := range tests {
		t.Run(tt.version, func(t *testing.T) {
			assert.Equal(t, tt.want, fetch.UserAgent(tt.version))
		})
	}
}

// Every request names the tool, so that Trust Layer's edge, which answers
// Go's own client name with a bare 403, lets the fetch through; with no
// name given, the fetch still names itself.
func TestFetchNamesItself(t *testing.T) {
	s, srv := newStandIn(t)
	resp, err := srv.Client().Post(srv.URL+"/v1/proofs", "application/json", strings.NewReader(`{"proof_ids":["`+gelID+`"]}`))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusForbidden, resp.StatusCode, "the stand-in's edge refuses Go's default name")

	for _, agent := range []string{fetch.UserAgent("v1.2.3"), ""} {
		f := fetcher(srv, t.TempDir())
		f.UserAgent = agent
		r, err := f.Fetch(context.Background(), []string{rekorID})
		require.NoError(t, err)
		assert.Empty(t, r.Errors)
		assert.Equal(t, 1, r.Read)
		assert.Equal(t, 1, r.EntriesRead)
	}
	assert.Equal(t, []string{
		defaultAgent + "1.1",
		"proveit/v1.2.3 (+https://corpus.arkforge.tech)", "proveit/v1.2.3 (+https://corpus.arkforge.tech)",
		"proveit/unknown (+https://corpus.arkforge.tech)", "proveit/unknown (+https://corpus.arkforge.tech)",
	}, s.agents)
}

var fetchAgain = regexp.MustCompile(`fetch again after (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)$`)

// A 429 or a 503 with a Retry-After, in seconds or as an HTTP date, is
// tried again no sooner than it asks; one asking past MaxWait is not
// waited for: its error, and that of every request left for the same
// service, says when to fetch again, and nothing more is sent there.
func TestFetchHonoursRetryAfter(t *testing.T) {
	tests := []struct {
		name       string
		status     int
		retryAfter func(now time.Time) string
		wantWait   time.Duration // at least, when the fetch succeeds
		wantAgain  time.Duration // the fetch-again time, from now, when it does not
	}{
		{"seconds", http.StatusTooManyRequests, func(time.Time) string { return "1" }, time.Second, 0},
		{"an HTTP date", http.StatusServiceUnavailable, func(now time.Time) string {
			return now.Add(2 * time.Second).UTC().Format(http.TimeFormat)
		}, time.Second, 0},
		{"past the bound, in seconds", http.StatusTooManyRequests, func(time.Time) string { return "3600" }, 0, time.Hour},
		{"past the bound, as a date", http.StatusTooManyRequests, func(now time.Time) string {
			return now.Add(2 * time.Hour).UTC().Format(http.TimeFormat)
		}, 0, 2 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, srv := newStandIn(t)
			ids := s.synthetic(t, fetch.BatchSize+1) // two batches
			s.intercept = func(w http.ResponseWriter, r *http.Request, n int) bool {
				if n > 1 {
					return false
				}
				w.Header().Set("Retry-After", tt.retryAfter(time.Now()))
				w.WriteHeader(tt.status)
				return true
			}
			f := fetcher(srv, t.TempDir())
			f.MaxWait = 5 * time.Second
			start := time.Now()
			r, err := f.Fetch(context.Background(), ids)
			elapsed := time.Since(start)
			require.NoError(t, err)
			if tt.wantAgain == 0 {
				assert.Empty(t, r.Errors)
				assert.Equal(t, 51, r.Read)
				assert.GreaterOrEqual(t, elapsed, tt.wantWait, "waited as asked")
				assert.Less(t, elapsed, tt.wantWait+3*time.Second)
				return
			}
			assert.Less(t, elapsed, 2*time.Second, "not waited for")
			assert.Equal(t, 1, s.count(), "nothing more sent to Trust Layer")
			require.Len(t, r.Errors, 51)
			for i, e := range errorTexts(r) {
				prefix := ids[i] + ": POST /v1/proofs: "
				if i >= fetch.BatchSize {
					prefix = ids[i] + ": not sent: POST /v1/proofs: "
				}
				assert.True(t, strings.HasPrefix(e, prefix+strconv.Itoa(tt.status)+" "+http.StatusText(tt.status)+"; fetch again after "), e)
				m := fetchAgain.FindStringSubmatch(e)
				require.NotNil(t, m, e)
				again, err := time.Parse(time.RFC3339, m[1])
				require.NoError(t, err)
				assert.WithinRange(t, again, start.Add(tt.wantAgain-time.Second), start.Add(tt.wantAgain+elapsed+time.Second))
			}
		})
	}
}

// A fetch that would read Trust Layer's views more times than its budget
// is refused before anything is sent; views kept and settled are not
// counted; a retry spends the budget too, and is not sent past it.
func TestFetchKeepsWithinItsBudget(t *testing.T) {
	tests := []struct {
		name      string
		ids       []string
		kept      bool // the 2.0 proof's view is in the folder already
		budget    int
		failures  int
		wantErr   *fetch.BudgetError
		wantSent  int      // POST /v1/proofs that reached the stand-in
		wantError []string // each proof's error holds this
	}{
		{"over a budget named", unknownIDs(120), false, 2, 0, &fetch.BudgetError{Views: 120, Reads: 3, Budget: 2}, 0, nil},
		{"over the default budget", unknownIDs(5001), false, 0, 0, &fetch.BudgetError{Views: 5001, Reads: 101, Budget: 100}, 0, nil},
		{"a kept view is not read again, nor counted", append(unknownIDs(5000), rekorID), true, 0, 0, nil, 100, nil},
		{"a retry past the budget is not sent", []string{gelID}, false, 1, 1, nil, 0, []string{
			gelID + ": POST /v1/proofs: not sent: this fetch's budget of 1 reads of Trust Layer is spent (retries count)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, srv := newStandIn(t)
			s.failures = tt.failures
			dir := t.TempDir()
			if tt.kept {
				_, err := fetcher(srv, dir).Fetch(context.Background(), []string{rekorID})
				require.NoError(t, err)
				s.batches = nil
			}
			f := fetcher(srv, dir)
			f.Budget = tt.budget
			r, err := f.Fetch(context.Background(), tt.ids)
			assert.Len(t, s.batches, tt.wantSent)
			if tt.wantErr != nil {
				var over *fetch.BudgetError
				require.ErrorAs(t, err, &over)
				assert.Equal(t, tt.wantErr, over)
				assert.Contains(t, err.Error(), fmt.Sprintf("%d views to read take %d reads of Trust Layer (50 views a read), over this fetch's budget of %d: "+
					"Trust Layer blocks an address past 100 view reads an hour (specification 10)", tt.wantErr.Views, tt.wantErr.Reads, tt.wantErr.Budget))
				assert.Zero(t, s.count(), "refused before anything is sent")
				return
			}
			require.NoError(t, err)
			if tt.wantError != nil {
				assert.Equal(t, tt.wantError, errorTexts(r))
				assert.Equal(t, 1, s.count(), "the first try only")
				return
			}
			assert.Equal(t, 1, r.Kept)
			assert.Len(t, r.Errors, 5000, "the unknown proofs")
		})
	}
}

// A redirect is followed within the origin asked only: a 307 or 308 to
// another origin is refused, the POST never sent there, and https never
// falls to http.
func TestFetchRefusesRedirectsElsewhere(t *testing.T) {
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		w.Write([]byte(`{"proofs":{}}`))
	}))
	t.Cleanup(other.Close)

	tests := []struct {
		name    string
		tls     bool
		status  int
		to      func(self string) string // where POST /v1/proofs is sent on
		wantErr string                   // empty: the redirect is followed
	}{
		{"307 to another origin", false, http.StatusTemporaryRedirect, func(string) string { return other.URL + "/v1/proofs" },
			`POST /v1/proofs: a redirect to "` + other.URL + `" refused: only within the origin asked`},
		{"308 to another origin", false, http.StatusPermanentRedirect, func(string) string { return other.URL + "/v1/proofs" },
			`POST /v1/proofs: a redirect to "` + other.URL + `" refused: only within the origin asked`},
		{"from https to http", true, http.StatusTemporaryRedirect, func(string) string { return other.URL + "/v1/proofs" },
			`POST /v1/proofs: a redirect from https to "` + other.URL + `" refused: never to plain http`},
		{"within the origin", false, http.StatusTemporaryRedirect, func(self string) string { return self + "/v1/proofs?moved" }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			elsewhere.Store(0)
			s, srv := newStandIn(t)
			if tt.tls {
				srv = httptest.NewUnstartedServer(srv.Config.Handler)
				srv.StartTLS()
				t.Cleanup(srv.Close)
			}
			s.intercept = func(w http.ResponseWriter, r *http.Request, n int) bool {
				if r.URL.RawQuery == "moved" || r.Method != http.MethodPost {
					return false
				}
				w.Header().Set("Location", tt.to(srv.URL))
				w.WriteHeader(tt.status)
				return true
			}
			r, err := fetcher(srv, t.TempDir()).Fetch(context.Background(), []string{rekorID})
			require.NoError(t, err)
			assert.Zero(t, elsewhere.Load(), "nothing sent to another origin")
			if tt.wantErr == "" {
				assert.Empty(t, r.Errors)
				assert.Equal(t, 1, r.Read)
				assert.Equal(t, 3, s.count(), "the POST, the POST again at the new place, the entry")
				return
			}
			assert.Equal(t, []string{rekorID + ": " + tt.wantErr}, errorTexts(r))
			assert.Equal(t, 1, s.count(), "a refused redirect is not tried again")
		})
	}
}

// A stalled Trust Layer costs at most the fetch's deadline, whatever the
// timeout of each request, and at most its tries' timeouts without one:
// the batches after are not sent.
func TestFetchStopsOnAStalledServer(t *testing.T) {
	tests := []struct {
		name      string
		timeout   time.Duration // each request's
		deadline  time.Duration // the whole fetch's
		wantSent  int
		wantFirst string // the first batch's error holds this
		wantRest  string // the next batches' errors hold this
	}{
		{"the deadline", 30 * time.Second, 300 * time.Millisecond, 1,
			"POST /v1/proofs: the fetch's deadline of 300ms passed; fetch again for the rest",
			"POST /v1/proofs: the fetch's deadline of 300ms passed; fetch again for the rest"},
		{"each request's timeout", 100 * time.Millisecond, 0, 3, "Client.Timeout exceeded", "not sent: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, srv := newStandIn(t)
			s.intercept = func(w http.ResponseWriter, r *http.Request, n int) bool {
				stall(r)
				return true
			}
			f := fetcher(srv, t.TempDir())
			f.Client = &http.Client{Timeout: tt.timeout}
			f.Deadline = tt.deadline
			ids := unknownIDs(3 * fetch.BatchSize)
			start := time.Now()
			r, err := f.Fetch(context.Background(), ids)
			require.NoError(t, err)
			assert.Less(t, time.Since(start), 3*time.Second)
			assert.Equal(t, tt.wantSent, s.count())
			require.Len(t, r.Errors, len(ids))
			for i, e := range errorTexts(r) {
				want := tt.wantRest
				if i < fetch.BatchSize {
					want = tt.wantFirst
				}
				assert.Contains(t, e, want)
				assert.True(t, strings.HasPrefix(e, ids[i]+": "), e)
			}
		})
	}
}

// An answer longer than what it may hold is refused, named with its cap,
// whether its length is announced or not, and not asked for again.
func TestFetchCapsAnswers(t *testing.T) {
	batchCap := proofs.MaxViewSize + 256 // one view and its framing
	tests := []struct {
		name     string
		path     string // the endpoint answering too much
		size     int
		announce bool // a Content-Length
		want     string
	}{
		{"a batch of one view, announced", "/v1/proofs", batchCap + 1, true,
			fmt.Sprintf("%s: POST /v1/proofs: an answer over %d bytes, more than one view may hold", rekorID, batchCap)},
		{"a batch of one view, streamed", "/v1/proofs", batchCap + 1, false,
			fmt.Sprintf("%s: POST /v1/proofs: an answer over %d bytes, more than one view may hold", rekorID, batchCap)},
		{"a Rekor entry, announced", "/api/v1/log/entries/", proofs.MaxEntrySize + 1, true,
			fmt.Sprintf("GET /api/v1/log/entries/%[1]s: an answer over %[2]d bytes, more than a Rekor entry may hold", rekorUUID, proofs.MaxEntrySize)},
		{"a Rekor entry, streamed", "/api/v1/log/entries/", proofs.MaxEntrySize + 1, false,
			fmt.Sprintf("GET /api/v1/log/entries/%[1]s: an answer over %[2]d bytes, more than a Rekor entry may hold", rekorUUID, proofs.MaxEntrySize)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, srv := newStandIn(t)
			s.intercept = func(w http.ResponseWriter, r *http.Request, n int) bool {
				if !strings.HasPrefix(r.URL.Path, tt.path) {
					return false
				}
				if tt.announce {
					w.Header().Set("Content-Length", strconv.Itoa(tt.size))
				}
				body := []byte(`{"proofs":{"` + rekorID + `":"` + strings.Repeat("a", tt.size) + `"}}`)[:tt.size]
				for chunk := range pieces(body, 64<<10) {
					if _, err := w.Write(chunk); err != nil {
						break
					}
					w.(http.Flusher).Flush()
				}
				return true
			}
			r, err := fetcher(srv, t.TempDir()).Fetch(context.Background(), []string{rekorID})
			require.NoError(t, err)
			require.Len(t, r.Errors, 1)
			assert.Contains(t, r.Errors[0].Error(), tt.want)
			assert.True(t, strings.HasSuffix(r.Errors[0].Error(), tt.want), r.Errors[0].Error())
			if tt.path == "/v1/proofs" {
				assert.Equal(t, 1, s.count(), "not asked for again")
			} else {
				assert.Equal(t, 2, s.count(), "the view, then the entry once")
			}
		})
	}
}

// pieces cuts data into pieces of at most n bytes.
func pieces(data []byte, n int) func(func([]byte) bool) {
	return func(yield func([]byte) bool) {
		for len(data) > 0 {
			piece := data[:min(n, len(data))]
			data = data[len(piece):]
			if !yield(piece) {
				return
			}
		}
	}
}

// rekorUUID is the uuid of the entry the 2.0 proof names.
const rekorUUID = "108e9186e8c5677a5692ebcc5fe5239da7cf482276e45e805ea3f32d197c1af75f3e7f85e93337b0"

// Nothing is written outside the views folder: a rekor folder that is a
// link, or not a folder, is refused before anything is sent, and a view
// that is a link is read again and replaced, its target untouched.
func TestFetchWritesInsideTheFolderOnly(t *testing.T) {
	tests := []struct {
		name    string
		plant   func(t *testing.T, dir, outside string) // what is in the folder before the fetch
		wantErr string
	}{
		{"rekor, a link to a folder outside", func(t *testing.T, dir, outside string) {
			symlink(t, outside, filepath.Join(dir, "rekor"))
		}, "rekor: a link or a file, not a folder; refused, as fetch writes inside the views folder only"},
		{"rekor, a link to a folder inside", func(t *testing.T, dir, outside string) {
			require.NoError(t, os.Mkdir(filepath.Join(dir, "entries"), 0o755))
			symlink(t, "entries", filepath.Join(dir, "rekor"))
		}, "rekor: a link or a file, not a folder"},
		{"rekor, a file", func(t *testing.T, dir, outside string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "rekor"), nil, 0o644))
		}, "rekor: a link or a file, not a folder"},
		{"a view, a link to a file outside", func(t *testing.T, dir, outside string) {
			target := filepath.Join(outside, "view.json")
			require.NoError(t, os.WriteFile(target, []byte("outside"), 0o644))
			symlink(t, target, proofs.ViewFile(dir, rekorID))
		}, ""},
		{"an entry, a link to a file outside", func(t *testing.T, dir, outside string) {
			target := filepath.Join(outside, "entry.json")
			require.NoError(t, os.WriteFile(target, []byte("outside"), 0o644))
			require.NoError(t, os.Mkdir(filepath.Join(dir, "rekor"), 0o755))
			symlink(t, target, proofs.EntryFile(dir, rekorUUID))
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, srv := newStandIn(t)
			dir, outside := filepath.Join(t.TempDir(), "views"), t.TempDir()
			require.NoError(t, os.Mkdir(dir, 0o755))
			tt.plant(t, dir, outside)
			before := listTree(t, outside)
			r, err := fetcher(srv, dir).Fetch(context.Background(), []string{rekorID})
			assert.Equal(t, before, listTree(t, outside), "nothing written outside the folder")
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.Zero(t, s.count(), "refused before anything is sent")
				return
			}
			require.NoError(t, err)
			assert.Empty(t, r.Errors)
			assert.Equal(t, 1, r.Read)
			assert.Equal(t, 1, r.EntriesRead)
			for _, file := range []string{proofs.ViewFile(dir, rekorID), proofs.EntryFile(dir, rekorUUID)} {
				info, err := os.Lstat(file)
				require.NoError(t, err)
				assert.True(t, info.Mode().IsRegular(), "%s is a file of the folder now", file)
			}
		})
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
}

// listTree is every file under dir, with its content.
func listTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		out[path] = string(data)
		return err
	}))
	return out
}

// A fetch interrupted at any request leaves every file of the folder
// whole and no temporary file; the next fetch reads only what is missing,
// and each view and entry is read once in all.
func TestFetchResumesAfterAnInterruption(t *testing.T) {
	// 55 views in two batches, then their one entry: three requests.
	for at, wantRead := range map[int]int{1: 0, 2: fetch.BatchSize, 3: 55} {
		t.Run(fmt.Sprintf("at request %d", at), func(t *testing.T) {
			s, srv := newStandIn(t)
			ids := s.synthetic(t, 55)
			dir := t.TempDir()
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			interrupted := errors.New("interrupted")
			s.intercept = func(w http.ResponseWriter, r *http.Request, n int) bool {
				if n != at {
					return false
				}
				cancel(interrupted)
				stall(r)
				return true
			}
			r, err := fetcher(srv, dir).Fetch(ctx, ids)
			require.NoError(t, err)
			require.NotEmpty(t, r.Errors)
			for _, e := range r.Errors {
				assert.ErrorIs(t, e, interrupted)
			}
			firstRead := r.Read
			assert.Equal(t, wantRead, firstRead)
			assertWhole(t, dir)

			s.intercept = nil
			r, err = fetcher(srv, dir).Fetch(context.Background(), ids)
			require.NoError(t, err)
			assert.Empty(t, r.Errors)
			assert.Equal(t, 55, r.Read+r.Kept)
			assert.Equal(t, firstRead, r.Kept)
			assert.Equal(t, 1, r.EntriesRead)
			assertWhole(t, dir)
			for _, id := range append(ids, rekorUUID) {
				assert.Equal(t, 1, s.asked[id], "%s read once in all", id)
			}
		})
	}
}

// assertWhole checks every file of a views folder: a view or an entry that
// parses, named for what it holds, and nothing else.
func assertWhole(t *testing.T, dir string) {
	t.Helper()
	for path, data := range listTree(t, dir) {
		name := filepath.Base(path)
		id := strings.TrimSuffix(name, ".json")
		switch {
		case filepath.Dir(path) == filepath.Join(dir, "rekor"):
			uuid, err := proofs.ParseRekorEntry([]byte(data))
			assert.NoError(t, err, path)
			assert.Equal(t, id, uuid)
		case filepath.Dir(path) == dir && proofs.ValidProofID(id):
			v, err := proofs.ParseView(path, []byte(data))
			assert.NoError(t, err, path)
			assert.Equal(t, id, v.ProofID)
		default:
			t.Errorf("%s: not a view nor an entry", path)
		}
	}
}
