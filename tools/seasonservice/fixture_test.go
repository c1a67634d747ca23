package seasonservice_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/harness/pgtest"
	"github.com/arkforge/proveit-corpus/harness/trustlayer"
	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/seasonservice"
	"github.com/arkforge/proveit-corpus/tools/seasonstore"
	_ "github.com/arkforge/proveit-corpus/tools/tracks/all"
)

// The season 1 records' dates (corpus/saison-1/preenregistrement*.json).
var (
	opening = time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	closing = time.Date(2026, 12, 31, 23, 59, 59, 0, time.UTC)
	during  = time.Date(2026, 10, 2, 9, 0, 0, 0, time.UTC)
)

// clock is a time a test sets, read by the service from any goroutine.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

// TestMain stops the PostgreSQL server the tests share, once all have run.
func TestMain(m *testing.M) {
	m.Run()
	pgtest.Stop()
}

// backend makes a test's fresh database of one kind, named as
// seasonstore.Open takes it: a file's path or a postgres:// URL.
type backend struct {
	name     string
	database func(t *testing.T) string
}

// The backends the service runs on: embedded SQLite, a file in the test's
// temporary folder, and PostgreSQL, a database of its own on the server
// the package's tests share.
var (
	sqliteBackend   = backend{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "saison.db") }}
	postgresBackend = backend{"postgres", func(t *testing.T) string { return pgtest.Database(t) }}
	backends        = []backend{sqliteBackend, postgresBackend}
)

// forEachBackend runs test once on each backend, as a subtest named after
// it: the service answers alike whichever store it is given.
func forEachBackend(t *testing.T, test func(t *testing.T, db backend)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { test(t, b) })
	}
}

// fixture is a service on loopback over a real store, on a fresh database
// of its own, asking the real Trust Layer stand-in on loopback.
type fixture struct {
	t          *testing.T
	database   string // the store's, as seasonstore.Open takes it
	store      seasonstore.Store
	tl         *trustlayer.TrustLayer
	tlURL      string
	clock      *clock
	receiptKey ed25519.PrivateKey
	url        string
	logs       *observer.ObservedLogs
	files      map[string]map[string][]byte // track → published name → bytes
}

// options adjust a fixture's configuration before the service is built.
type options struct {
	limits     seasonservice.Limits
	trustLayer *seasonservice.TrustLayer
	wrap       func(seasonstore.Store) seasonstore.Store
	seasons    func(*seasonservice.Config)
	// database, if set, is another fixture's: a replica of its service.
	database string
}

// noLimits sets no rate limit at all.
var noLimits = seasonservice.Limits{
	EnrollPerKey: seasonservice.Rate{PerMinute: -1}, EnrollPerAddress: seasonservice.Rate{PerMinute: -1},
	SubmitPerKey: seasonservice.Rate{PerMinute: -1}, SubmitPerAddress: seasonservice.Rate{PerMinute: -1},
}

// newFixture starts a service over a store on a fresh database of b, or
// on o.database.
func newFixture(t *testing.T, b backend, o options) *fixture {
	t.Helper()
	f := &fixture{t: t, database: o.database, clock: &clock{now: during}, files: map[string]map[string][]byte{}}
	if f.database == "" {
		f.database = b.database(t)
	}
	f.store = f.openStore()
	var err error
	f.tl, err = trustlayer.New(trustlayer.Options{})
	require.NoError(t, err)
	tlServer := httptest.NewServer(f.tl.Handler())
	t.Cleanup(tlServer.Close)
	f.tlURL = tlServer.URL
	_, f.receiptKey, err = ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)

	season1 := seasonservice.Season{Number: 1, ReceiptKey: f.receiptKey}
	for _, track := range corpus.Tracks {
		_, record := season.EmbeddedRecord(track)
		_, tasks := season.EmbeddedTasks(track)
		catalogue := []byte(`{"piste": "` + track.Name + `", "catalogue": "é"}`)
		manifest := []byte(`{"manifeste": "` + track.Name + `"}` + "\n")
		f.files[track.Name] = map[string][]byte{
			seasonservice.RecordFile: record, seasonservice.TasksFile: tasks,
			"catalogue.json": catalogue, "catalogue.md": []byte("# Catalogue\n"),
			"manifest.json": manifest, "sel": []byte("0011\n"),
		}
		season1.Tracks = append(season1.Tracks, seasonservice.Track{Record: record, Tasks: tasks, Files: []seasonservice.File{
			{Name: "catalogue.json", Data: catalogue},
			{Name: "catalogue.md", Data: []byte("# Catalogue\n")},
			{Name: "manifest.json", Data: manifest, AfterClose: true},
			{Name: "sel", Data: []byte("0011\n"), AfterClose: true},
		}})
	}
	core, logs := observer.New(zap.DebugLevel)
	f.logs = logs
	store := f.store
	if o.wrap != nil {
		store = o.wrap(store)
	}
	cfg := seasonservice.Config{
		Store:      store,
		Seasons:    []seasonservice.Season{season1},
		TrustLayer: seasonservice.TrustLayer{URL: f.tlURL, Timeout: 2 * time.Second},
		Limits:     o.limits,
		Clock:      f.clock.Now,
		Logger:     zap.New(core),
	}
	if o.trustLayer != nil {
		cfg.TrustLayer = *o.trustLayer
	}
	if o.seasons != nil {
		o.seasons(&cfg)
	}
	svc, err := seasonservice.New(cfg)
	require.NoError(t, err)
	server := httptest.NewServer(svc)
	t.Cleanup(server.Close)
	f.url = server.URL
	return f
}

// openStore opens a store on the fixture's database, closed when the test
// ends: the service's own, or another handle on the same database, as a
// replica or a restarted service has.
func (f *fixture) openStore() seasonstore.Store {
	f.t.Helper()
	store, err := seasonstore.Open(context.Background(), f.database, seasonstore.Options{})
	require.NoError(f.t, err)
	f.t.Cleanup(func() { _ = store.Close() })
	return store
}

// participant is a Trust Layer key and the did:key bound to it.
type participant struct {
	key string
	did string
}

var participants struct {
	sync.Mutex
	n int
}

// newParticipant registers a key with the stand-in and binds a fresh
// did:key to it (history: the DIDs bound before, oldest first).
func (f *fixture) newParticipant(history ...string) participant {
	f.t.Helper()
	participants.Lock()
	participants.n++
	key := fmt.Sprintf("mcp_test_%d_%s", participants.n, hex.EncodeToString(randomBytes(8)))
	participants.Unlock()
	f.tl.RegisterKey(key)
	for _, did := range history {
		require.NoError(f.t, f.tl.BindDID(key, did, trustlayer.MethodChallenge))
	}
	did, _ := trustlayer.NewDIDKey()
	require.NoError(f.t, f.tl.BindDID(key, did, trustlayer.MethodChallenge))
	return participant{key: key, did: did}
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}

// answer is an HTTP answer read whole.
type answer struct {
	status int
	header http.Header
	body   []byte
}

func (a answer) json(t *testing.T) map[string]any {
	t.Helper()
	var v map[string]any
	require.NoError(t, json.Unmarshal(a.body, &v), string(a.body))
	return v
}

func (f *fixture) do(method, path string, body []byte, header map[string]string) answer {
	f.t.Helper()
	return do(f.t, method, f.url+path, body, header)
}

func do(t *testing.T, method, url string, body []byte, header map[string]string) answer {
	t.Helper()
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, url, r)
	require.NoError(t, err)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return answer{status: resp.StatusCode, header: resp.Header, body: data}
}

func enrollBody(track string) []byte {
	return []byte(`{"piste": "` + track + `", "agent": "Agent Zoé", "stack": "Go 1.26, un modèle", "lien_preuves": "https://example.org/preuves"}`)
}

func (f *fixture) enroll(p participant, track string) answer {
	f.t.Helper()
	return f.do("POST", "/v1/season/1/enroll", enrollBody(track), map[string]string{"X-Api-Key": p.key})
}

// enrolled enrolls p on track and returns the enrollment's id and token.
func (f *fixture) enrolled(p participant, track string) (id, token string) {
	f.t.Helper()
	a := f.enroll(p, track)
	require.Equal(f.t, http.StatusCreated, a.status, string(a.body))
	v := a.json(f.t)
	return v["id"].(string), v["jeton"].(string)
}

func (f *fixture) submit(token string, body []byte) answer {
	f.t.Helper()
	return f.do("POST", "/v1/season/1/submit", body, map[string]string{"Authorization": "Bearer " + token})
}

// submission is a conformity submission that passes the entry check;
// value varies its bytes.
func submission(did, task, value string) []byte {
	return submissionOf("1", "conformite", task, did, "conforme", 1, value)
}

func submissionOf(seasonNumber, track, task, did, verdict string, assertions int, value string) []byte {
	var list []string
	for i := range assertions {
		list = append(list, fmt.Sprintf(`{"id": "a%d", "claim": {"resource": "/agrements/AGR-4417", "field": "/statut", "value": "%s-%d"}, "proof_ids": ["prf_20261002_090000_abcdef"]}`, i, value, i))
	}
	return []byte(`{"season": ` + seasonNumber + `, "track": "` + track + `", "task_id": "` + task + `", "agent_did": "` + did + `", "verdict": "` + verdict +
		`", "assertions": [` + strings.Join(list, ", ") + `], "disclosures": {"prf_20261002_090000_abcdef": {"request_hash": {"nonce": "00", "value": "11"}, "response_hash": {"nonce": "22", "value": "33"}}}, "narrative": "récit"}`)
}

// export reads a track of the service's store as the close would export
// it.
func (f *fixture) export(track string) (*seasonstore.Export, []seasonstore.Counted) {
	f.t.Helper()
	return exportOf(f.t, f.store, track)
}

// exportOf reads a track of season 1 from store as the close would export
// it: the export and its counted submissions, in order.
func exportOf(t *testing.T, store seasonstore.Store, track string) (*seasonstore.Export, []seasonstore.Counted) {
	t.Helper()
	var counted []seasonstore.Counted
	out, err := store.Export(context.Background(), 1, track, func(c seasonstore.Counted) error {
		counted = append(counted, c)
		return nil
	})
	require.NoError(t, err)
	return out, counted
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// assertNoSecret fails if any log record holds one of the secrets.
func (f *fixture) assertNoSecret(secrets ...string) {
	f.t.Helper()
	for _, entry := range f.logs.All() {
		text := entry.Message
		for k, v := range entry.ContextMap() {
			text += " " + k + "=" + fmt.Sprint(v)
		}
		for _, s := range secrets {
			if s != "" && strings.Contains(text, s) {
				f.t.Errorf("a log record holds a secret (record %q)", entry.Message)
			}
		}
	}
}
