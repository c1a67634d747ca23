package corpushandler

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/harness/trustlayer"
)

// seasonNow is inside season 1's dates.
var seasonNow = time.Date(2026, 10, 2, 9, 0, 0, 0, time.UTC)

// writeReceiptKey writes an Ed25519 key as openssl genpkey does, PKCS #8
// in PEM, and returns its file and public half.
func writeReceiptKey(t *testing.T) (string, ed25519.PublicKey) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "recus.pem")
	require.NoError(t, os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600))
	return path, pub
}

// seasonSetup is a season handler's surroundings: a Trust Layer stand-in
// on loopback, a receipt key, a catalogue file, a database path.
type seasonSetup struct {
	tl        *trustlayer.TrustLayer
	tlURL     string
	keyFile   string
	pub       ed25519.PublicKey
	database  string
	catalogue string
}

func newSeasonSetup(t *testing.T) *seasonSetup {
	t.Helper()
	s := &seasonSetup{database: filepath.Join(t.TempDir(), "saison.db")}
	var err error
	s.tl, err = trustlayer.New(trustlayer.Options{})
	require.NoError(t, err)
	server := httptest.NewServer(s.tl.Handler())
	t.Cleanup(server.Close)
	s.tlURL = server.URL
	s.keyFile, s.pub = writeReceiptKey(t)
	s.catalogue = filepath.Join(t.TempDir(), "catalogue.json")
	require.NoError(t, os.WriteFile(s.catalogue, []byte(`{"catalogue": "conformite"}`), 0o644))
	return s
}

func (s *seasonSetup) handler() *SeasonHandler {
	return &SeasonHandler{
		Database:   s.database,
		TrustLayer: s.tlURL,
		Seasons: []SeasonSettings{{Number: 1, ReceiptKey: s.keyFile, Tracks: []SeasonTrack{
			{Track: "conformite", Files: []SeasonFile{{Name: "catalogue.json", Path: s.catalogue}}},
			{Track: "generique"},
		}}},
		now: func() time.Time { return seasonNow },
	}
}

// provisionSeason provisions h as Caddy does, cleaning it up on failure.
func provisionSeason(t *testing.T, h *SeasonHandler) error {
	t.Helper()
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	t.Cleanup(cancel)
	if err := h.Provision(ctx); err != nil {
		require.NoError(t, h.Cleanup())
		return err
	}
	return h.Validate()
}

func serveSeason(h *SeasonHandler, method, target, body string, header map[string]string) *httptest.ResponseRecorder {
	var r *http.Request
	if body != "" {
		r = httptest.NewRequest(method, target, strings.NewReader(body))
	} else {
		r = httptest.NewRequest(method, target, nil)
	}
	for k, v := range header {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	if err := h.ServeHTTP(w, r, nil); err != nil {
		panic(err) // never: the handler answers everything itself
	}
	return w
}

// bindKey registers a key with the stand-in and binds a did:key to it.
func (s *seasonSetup) bindKey(t *testing.T, key string) string {
	t.Helper()
	s.tl.RegisterKey(key)
	did, _ := trustlayer.NewDIDKey()
	require.NoError(t, s.tl.BindDID(key, did, trustlayer.MethodChallenge))
	return did
}

func seasonSubmission(did, task string) string {
	return `{"season": 1, "track": "conformite", "task_id": "` + task + `", "agent_did": "` + did + `", "verdict": "conforme",
		"assertions": [{"id": "a1", "claim": {"resource": "/agrements/AGR-4417", "field": "/statut", "value": "x"}, "proof_ids": ["prf_1"]}],
		"disclosures": {"prf_1": {"request_hash": {"nonce": "0", "value": "1"}, "response_hash": {"nonce": "2", "value": "3"}}}}`
}

// TestSeasonHandler: provisioned from its settings, the handler serves the
// season service: the state with the receipt key read from its PEM file,
// an enrollment through Trust Layer, a submission and its receipt, a
// published file; every answer JSON, Caddy's error never reached.
func TestSeasonHandler(t *testing.T) {
	s := newSeasonSetup(t)
	h := s.handler()
	require.NoError(t, provisionSeason(t, h))
	t.Cleanup(func() { _ = h.Cleanup() })

	w := serveSeason(h, "GET", "/v1/season/1", "", nil)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	var state map[string]any
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &state))
	assert.Equal(t, base64.StdEncoding.EncodeToString(s.pub), state["cle_recus"])
	assert.Equal(t, true, state["ouverte"])

	did := s.bindKey(t, "mcp_test_caddy")
	w = serveSeason(h, "POST", "/v1/season/1/enroll", `{"piste": "conformite", "agent": "a", "stack": "s", "lien_preuves": "https://example.org"}`,
		map[string]string{"X-Api-Key": "mcp_test_caddy"})
	require.Equal(t, http.StatusCreated, w.Code, w.Body.String())
	var enrolled struct{ Jeton string }
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &enrolled))

	w = serveSeason(h, "POST", "/v1/season/1/submit", seasonSubmission(did, "conf-01"), map[string]string{"Authorization": "Bearer " + enrolled.Jeton})
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	var accepted struct {
		Recu struct {
			Signature string `json:"signature"`
		} `json:"recu"`
	}
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &accepted))
	assert.NotEmpty(t, accepted.Recu.Signature)

	w = serveSeason(h, "GET", "/v1/season/1/conformite/catalogue.json", "", nil)
	require.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, `{"catalogue": "conformite"}`, w.Body.String())

	for _, target := range []string{"/", "/v1/season/7", "/v1/season/1/conformite/cle.json"} {
		w = serveSeason(h, "GET", target, "", nil)
		assert.Equal(t, http.StatusNotFound, w.Code)
		assert.Equal(t, "application/json; charset=utf-8", w.Header().Get("Content-Type"))
	}
}

// TestSeasonPublishedFolders: every regular file of a track's published
// folder is served from the opening, each of its after-close folder only
// once the record's cloture has passed; a subfolder is not published, a
// link or an absent folder is refused at provisioning.
func TestSeasonPublishedFolders(t *testing.T) {
	s := newSeasonSetup(t)
	dir := t.TempDir()
	after := filepath.Join(dir, "apres-cloture")
	require.NoError(t, os.MkdirAll(after, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "catalogue.json"), []byte(`{"catalogue": 1}`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(after, "sel"), []byte("0011"), 0o644))
	var now time.Time
	h := s.handler()
	h.now = func() time.Time { return now }
	h.Seasons[0].Tracks[1] = SeasonTrack{Track: "generique", Published: dir, PublishedAfterClose: after}
	require.NoError(t, provisionSeason(t, h))
	t.Cleanup(func() { _ = h.Cleanup() })

	for _, tt := range []struct {
		at     time.Time
		target string
		status int
		body   string
	}{
		{seasonNow, "/v1/season/1/generique/catalogue.json", http.StatusOK, `{"catalogue": 1}`},
		{seasonNow, "/v1/season/1/generique/sel", http.StatusNotFound, ""},
		{seasonNow, "/v1/season/1/generique/apres-cloture", http.StatusNotFound, ""},
		{time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), "/v1/season/1/generique/sel", http.StatusOK, "0011"},
	} {
		now = tt.at
		w := serveSeason(h, "GET", tt.target, "", nil)
		assert.Equal(t, tt.status, w.Code, tt.target)
		if tt.body != "" {
			assert.Equal(t, tt.body, w.Body.String(), tt.target)
		}
	}

	linked := t.TempDir()
	require.NoError(t, os.Symlink(filepath.Join(dir, "catalogue.json"), filepath.Join(linked, "catalogue.json")))
	for _, tt := range []struct {
		name, folder, want string
	}{
		{"absent folder", filepath.Join(dir, "absent"), "published"},
		{"a link in the folder", linked, "not a regular file"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := s.handler()
			h.Database = filepath.Join(t.TempDir(), "saison.db")
			h.Seasons[0].Tracks[1].Published = tt.folder
			err := provisionSeason(t, h)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestSeasonHandlerReload: a new configuration on the same database takes
// the handle the old one holds; cleaning the old one up leaves the new one
// serving on it; the last one gone, the database is closed.
func TestSeasonHandlerReload(t *testing.T) {
	s := newSeasonSetup(t)
	old := s.handler()
	require.NoError(t, provisionSeason(t, old))
	key := storeKey{database: s.database}
	refs, ok := seasonStores.References(key)
	require.True(t, ok)
	assert.Equal(t, 1, refs)

	renewed := s.handler()
	renewed.TrustLayerTimeout = caddy.Duration(3 * time.Second)
	require.NoError(t, provisionSeason(t, renewed))
	refs, _ = seasonStores.References(key)
	assert.Equal(t, 2, refs, "one handle, two configurations")

	require.NoError(t, old.Cleanup())
	require.NoError(t, old.Cleanup(), "a second cleanup hands nothing back twice")
	refs, _ = seasonStores.References(key)
	assert.Equal(t, 1, refs)

	// The handle survived the old configuration: the new one enrolls on it.
	s.bindKey(t, "mcp_test_reload")
	w := serveSeason(renewed, "POST", "/v1/season/1/enroll", `{"piste": "generique", "agent": "a", "stack": "s", "lien_preuves": "https://example.org"}`,
		map[string]string{"X-Api-Key": "mcp_test_reload"})
	require.Equal(t, http.StatusCreated, w.Code, w.Body.String())

	require.NoError(t, renewed.Cleanup())
	_, ok = seasonStores.References(key)
	assert.False(t, ok, "the last configuration gone, the database is closed")

	// Opened again, the database holds what was recorded.
	again := s.handler()
	require.NoError(t, provisionSeason(t, again))
	t.Cleanup(func() { _ = again.Cleanup() })
	w = serveSeason(again, "GET", "/v1/season/1", "", nil)
	require.Equal(t, http.StatusOK, w.Code)
	assert.Contains(t, w.Body.String(), `"inscriptions":1`)
}

// TestSeasonHandlerProvisionErrors: a setting the service cannot serve is
// refused at provisioning, naming the setting and never a byte of a key,
// and leaves no database handle behind.
func TestSeasonHandlerProvisionErrors(t *testing.T) {
	s := newSeasonSetup(t)
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "not.pem")
	require.NoError(t, os.WriteFile(notPEM, []byte("secret-bytes-of-a-key"), 0o600))
	rsaKey, err := rsa.GenerateKey(rand.Reader, 1024)
	require.NoError(t, err)
	der, err := x509.MarshalPKCS8PrivateKey(rsaKey)
	require.NoError(t, err)
	rsaFile := filepath.Join(dir, "rsa.pem")
	require.NoError(t, os.WriteFile(rsaFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600))
	badRecord := filepath.Join(dir, "preenregistrement.json")
	require.NoError(t, os.WriteFile(badRecord, []byte(`{"piste": "conformite"}`), 0o644))

	for _, tt := range []struct {
		name   string
		change func(*SeasonHandler)
		want   string
	}{
		{"no database", func(h *SeasonHandler) { h.Database = "" }, "database"},
		{"database placeholder empty", func(h *SeasonHandler) { h.Database = "{env.PROVEIT_TEST_UNSET_DATABASE}" }, "database"},
		{"unreachable PostgreSQL", func(h *SeasonHandler) { h.Database = "postgres://u:hunter2@127.0.0.1:1/x?connect_timeout=1" }, "database"},
		{"no Trust Layer", func(h *SeasonHandler) { h.TrustLayer = "" }, "Trust Layer"},
		{"no season", func(h *SeasonHandler) { h.Seasons = nil }, "no season"},
		{"no receipt key", func(h *SeasonHandler) { h.Seasons[0].ReceiptKey = filepath.Join(dir, "absent.pem") }, "receipt_key"},
		{"receipt key not PEM", func(h *SeasonHandler) { h.Seasons[0].ReceiptKey = notPEM }, "PRIVATE KEY"},
		{"receipt key not Ed25519", func(h *SeasonHandler) { h.Seasons[0].ReceiptKey = rsaFile }, "not an Ed25519 key"},
		{"unknown track", func(h *SeasonHandler) { h.Seasons[0].Tracks[0].Track = "artistique" }, "artistique"},
		{"record out of form", func(h *SeasonHandler) { h.Seasons[0].Tracks[0].Record = badRecord }, "preenregistrement.json"},
		{"published file absent", func(h *SeasonHandler) {
			h.Seasons[0].Tracks[0].Files = []SeasonFile{{Name: "manifest.json", Path: filepath.Join(dir, "absent.json"), AfterClose: true}}
		}, "file manifest.json"},
		{"season 2 with season 1's files", func(h *SeasonHandler) { h.Seasons[0].Number = 2 }, "/saison"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := s.handler()
			h.Database = filepath.Join(t.TempDir(), "saison.db")
			tt.change(h)
			err := provisionSeason(t, h)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.NotContains(t, err.Error(), "secret-bytes-of-a-key")
			assert.NotContains(t, err.Error(), "hunter2")
			_, held := seasonStores.References(storeKey{database: h.Database})
			assert.False(t, held, "no database handle left behind")
		})
	}
}

// TestSeasonCaddy: the module runs inside Caddy, from a JSON configuration
// on loopback; a reload keeps the database open and what it holds; every
// answer is the service's JSON.
func TestSeasonCaddy(t *testing.T) {
	s := newSeasonSetup(t)
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := listener.Addr().String()
	require.NoError(t, listener.Close())
	config := func(timeout string) []byte {
		return []byte(fmt.Sprintf(`{
			"admin": {"disabled": true, "config": {"persist": false}},
			"apps": {"http": {"servers": {"season": {
				"listen": [%q],
				"automatic_https": {"disable": true},
				"routes": [{"handle": [{"handler": "proveit_season", "database": %q, "trust_layer": %q, "trust_layer_timeout": %q,
					"seasons": [{"number": 1, "receipt_key": %q}]}]}]
			}}}}
		}`, addr, s.database, s.tlURL, timeout, s.keyFile))
	}
	require.NoError(t, caddy.Load(config("5s"), true))
	t.Cleanup(func() { _ = caddy.Stop() })

	// A connection per request, and a GET sent again on a connection the
	// reload cut: a reload closes the old server's connections, the idle
	// ones and one it accepted as it stopped, which a client reads as EOF
	// or a reset, and sends its GET again on a new one.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
	get := func(path string) (int, string, string) {
		resp, err := client.Get("http://" + addr + path)
		for attempt := 1; err != nil && attempt < 5; attempt++ {
			time.Sleep(50 * time.Millisecond)
			resp, err = client.Get("http://" + addr + path)
		}
		require.NoError(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, resp.Header.Get("Content-Type"), string(body)
	}
	status, contentType, body := get("/v1/season/1")
	require.Equal(t, http.StatusOK, status, body)
	assert.Equal(t, "application/json; charset=utf-8", contentType)
	assert.Contains(t, body, base64.StdEncoding.EncodeToString(s.pub))

	key := storeKey{database: s.database}
	refs, ok := seasonStores.References(key)
	require.True(t, ok)
	assert.Equal(t, 1, refs)

	// A reload with another setting: the same handle, still one user.
	require.NoError(t, caddy.Load(config("4s"), true))
	refs, ok = seasonStores.References(key)
	require.True(t, ok)
	assert.Equal(t, 1, refs)
	status, contentType, body = get("/nowhere")
	assert.Equal(t, http.StatusNotFound, status)
	assert.Equal(t, "application/json; charset=utf-8", contentType)
	assert.Contains(t, body, `"erreur":"introuvable"`)

	require.NoError(t, caddy.Stop())
	_, ok = seasonStores.References(key)
	assert.False(t, ok, "stopped, the database is closed")
}

// TestSeasonCaddyfile: the Caddyfile's syntax, each setting once.
func TestSeasonCaddyfile(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  SeasonHandler
		err   string
	}{
		{
			name: "every subdirective",
			input: `proveit_season {
				database {env.SEASON_DATABASE}
				max_conns 8
				trust_layer https://trust.arkforge.tech
				trust_layer_timeout 3s
				season 1 {
					receipt_key {file./etc/proveit/season-key-path}
					track conformite {
						record /srv/conformite/preenregistrement.json
						tasks /srv/conformite/taches.json
						file catalogue.json /srv/conformite/catalogue.json
						file manifest.json /srv/conformite/manifest.json after_close
						published /srv/conformite/ouverture
						published_after_close /srv/conformite/cloture
					}
					track generique
				}
				limit enroll_per_key 6 5
				limit submit_per_address -1 1
				limit_entries 1000
			}`,
			want: SeasonHandler{
				Database: "{env.SEASON_DATABASE}", MaxConns: 8, TrustLayer: "https://trust.arkforge.tech", TrustLayerTimeout: caddy.Duration(3 * time.Second),
				Seasons: []SeasonSettings{{Number: 1, ReceiptKey: "{file./etc/proveit/season-key-path}", Tracks: []SeasonTrack{
					{Track: "conformite", Record: "/srv/conformite/preenregistrement.json", Tasks: "/srv/conformite/taches.json", Files: []SeasonFile{
						{Name: "catalogue.json", Path: "/srv/conformite/catalogue.json"},
						{Name: "manifest.json", Path: "/srv/conformite/manifest.json", AfterClose: true},
					}, Published: "/srv/conformite/ouverture", PublishedAfterClose: "/srv/conformite/cloture"},
					{Track: "generique"},
				}}},
				Limits: SeasonLimits{EnrollPerKey: &SeasonRate{PerMinute: 6, Burst: 5}, SubmitPerAddress: &SeasonRate{PerMinute: -1, Burst: 1}, Entries: 1000},
			},
		},
		{name: "empty block", input: "proveit_season", want: SeasonHandler{}},
		{name: "argument on the directive", input: "proveit_season x", err: "wrong argument count"},
		{name: "unknown subdirective", input: "proveit_season {\n listen :80\n}", err: `unrecognized subdirective "listen"`},
		{name: "database twice", input: "proveit_season {\n database a\n database b\n}", err: "database: already specified"},
		{name: "database without value", input: "proveit_season {\n database\n}", err: "wrong argument count"},
		{name: "timeout not a duration", input: "proveit_season {\n trust_layer_timeout soon\n}", err: "not a duration"},
		{name: "max_conns not a number", input: "proveit_season {\n max_conns many\n}", err: "not a positive integer"},
		{name: "season not a number", input: "proveit_season {\n season one\n}", err: "not a season's number"},
		{name: "season twice", input: "proveit_season {\n season 1\n season 1\n}", err: "season 1: already specified"},
		{name: "receipt key twice", input: "proveit_season {\n season 1 {\n receipt_key a\n receipt_key b\n }\n}", err: "receipt_key: already specified"},
		{name: "track twice", input: "proveit_season {\n season 1 {\n track conformite\n track conformite\n }\n}", err: "track conformite: already specified"},
		{name: "published twice", input: "proveit_season {\n season 1 {\n track conformite {\n published /a\n published /b\n }\n }\n}", err: "published: already specified"},
		{name: "file twice", input: "proveit_season {\n season 1 {\n track conformite {\n file a /a\n file a /b\n }\n }\n}", err: "file a: already specified"},
		{name: "file with a bad flag", input: "proveit_season {\n season 1 {\n track conformite {\n file a /a later\n }\n }\n}", err: "wrong argument count"},
		{name: "unknown track subdirective", input: "proveit_season {\n season 1 {\n track conformite {\n root /a\n }\n }\n}", err: `unrecognized subdirective "root"`},
		{name: "unknown limit", input: "proveit_season {\n limit everything 1 1\n}", err: "unknown limit"},
		{name: "limit twice", input: "proveit_season {\n limit enroll_per_key 1 1\n limit enroll_per_key 2 2\n}", err: "limit enroll_per_key: already specified"},
		{name: "limit without burst", input: "proveit_season {\n limit enroll_per_key 1\n}", err: "wrong argument count"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h SeasonHandler
			err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(tt.input))
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, h)
		})
	}
}
