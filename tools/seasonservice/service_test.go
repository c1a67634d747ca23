package seasonservice_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/tools/index"
	"github.com/arkforge/proveit-corpus/tools/season"
	"github.com/arkforge/proveit-corpus/tools/seasonservice"
	"github.com/arkforge/proveit-corpus/tools/seasonstore"
)

// TestState: GET /v1/season/{n} computes whether each track is open from
// its record at each call, bounds included, counts the enrollments, names
// the receipt key, and says nothing else: no score, ever.
func TestState(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db backend) {
		f := newFixture(t, db, options{})
		pub := base64.StdEncoding.EncodeToString(f.receiptKey.Public().(ed25519.PublicKey))
		f.enrolled(f.newParticipant(), "generique")
		f.enrolled(f.newParticipant(), "generique")
		f.enrolled(f.newParticipant(), "conformite")

		for _, tt := range []struct {
			name string
			at   time.Time
			open bool
		}{
			{"a second before the opening", opening.Add(-time.Second), false},
			{"at the opening", opening, true},
			{"during", during, true},
			{"at the close", closing, true},
			{"within the close's second", closing.Add(999 * time.Millisecond), true},
			{"a second after the close", closing.Add(time.Second), false},
		} {
			t.Run(tt.name, func(t *testing.T) {
				f.clock.set(tt.at)
				a := f.do("GET", "/v1/season/1", nil, nil)
				require.Equal(t, http.StatusOK, a.status, string(a.body))
				assertJSONHeaders(t, a)
				v := a.json(t)
				assert.Len(t, v, 4)
				assert.Equal(t, float64(1), v["saison"])
				assert.Equal(t, tt.open, v["ouverte"])
				assert.Equal(t, pub, v["cle_recus"])
				tracks := v["pistes"].(map[string]any)
				require.Len(t, tracks, 2)
				for name, count := range map[string]float64{"conformite": 1, "generique": 2} {
					track := tracks[name].(map[string]any)
					assert.Len(t, track, 6, "ouverte, ouverture, cloture, taches_sha256, manifest_sha256, inscriptions")
					assert.Equal(t, tt.open, track["ouverte"])
					assert.Equal(t, "2026-10-01T00:00:00Z", track["ouverture"])
					assert.Equal(t, "2026-12-31T23:59:59Z", track["cloture"])
					assert.Equal(t, sha256Hex(f.files[name][seasonservice.TasksFile]), track["taches_sha256"])
					assert.NotEmpty(t, track["manifest_sha256"])
					assert.Equal(t, count, track["inscriptions"])
				}
			})
		}
	})
}

// TestPublishedFiles: the record at any time, the statements and the
// catalogue from the opening, the manifest and the salt after the close,
// each its exact bytes with the no-cache headers.
func TestPublishedFiles(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db backend) {
		f := newFixture(t, db, options{})
		for _, track := range []string{"conformite", "generique"} {
			for _, tt := range []struct {
				name        string
				afterClose  bool
				contentType string
			}{
				{seasonservice.RecordFile, false, "application/json; charset=utf-8"},
				{seasonservice.TasksFile, false, "application/json; charset=utf-8"},
				{"catalogue.json", false, "application/json; charset=utf-8"},
				{"catalogue.md", false, "text/markdown; charset=utf-8"},
				{"manifest.json", true, "application/json; charset=utf-8"},
				{"sel", true, "text/plain; charset=utf-8"},
			} {
				t.Run(track+"/"+tt.name, func(t *testing.T) {
					path := "/v1/season/1/" + track + "/" + tt.name
					for _, at := range []time.Time{opening.Add(-time.Second), opening, closing, closing.Add(time.Second)} {
						f.clock.set(at)
						a := f.do("GET", path, nil, nil)
						// The record is public before the opening: its anchoring reads it.
						published := (tt.name == seasonservice.RecordFile || !at.Before(opening)) && (!tt.afterClose || at.After(closing))
						if !published {
							assertRefusal(t, a, http.StatusNotFound, "pas_encore_publie")
							continue
						}
						require.Equal(t, http.StatusOK, a.status, "%s at %s: %s", path, at, a.body)
						assert.Equal(t, f.files[track][tt.name], a.body, "byte for byte")
						assert.Equal(t, tt.contentType, a.header.Get("Content-Type"))
						assertNoCache(t, a)
					}
				})
			}
		}
		f.clock.set(during)
		assertRefusal(t, f.do("GET", "/v1/season/1/conformite/cle.json", nil, nil), http.StatusNotFound, "fichier_inconnu")
		assertRefusal(t, f.do("GET", "/v1/season/1/artistique/taches.json", nil, nil), http.StatusNotFound, "piste_inconnue")
		assertRefusal(t, f.do("GET", "/v1/season/2/conformite/taches.json", nil, nil), http.StatusNotFound, "saison_inconnue")
		a := f.do("POST", "/v1/season/1/conformite/taches.json", []byte("{}"), nil)
		assertRefusal(t, a, http.StatusMethodNotAllowed, "methode_non_admise")
		assert.Equal(t, "GET", a.header.Get("Allow"))
		head := f.do("HEAD", "/v1/season/1/conformite/taches.json", nil, nil)
		assert.Equal(t, http.StatusOK, head.status)
	})
}

// TestNotFound: every address outside the service's answers the fixed
// 404 in JSON, never a page. The paths alone decide: no store is asked,
// so one backend is enough.
func TestNotFound(t *testing.T) {
	f := newFixture(t, sqliteBackend, options{})
	for _, tt := range []struct{ path, code string }{
		{"/", "introuvable"},
		{"/v1/season", "introuvable"},
		{"/v1/seasons/1", "introuvable"},
		{"/v1/season/", "saison_inconnue"},
		{"/v1/season/x", "saison_inconnue"},
		{"/v1/season/-1", "saison_inconnue"},
		{"/v1/season/1/", "introuvable"},
		{"/v1/season/1/inscriptions", "introuvable"},
		{"/v1/season/1/conformite/taches.json/x", "introuvable"},
		{"/v1/season/1/conformite/%74aches.json", "introuvable"},
		{"/v1/season/1/conformite/taches%2Fx", "introuvable"},
	} {
		t.Run(tt.path, func(t *testing.T) {
			assertRefusal(t, f.do("GET", tt.path, nil, nil), http.StatusNotFound, tt.code)
		})
	}
}

// TestRateLimits: per key and per address, a 429 with Retry-After once the
// bucket is empty, before anything else is done; another key or address
// is not held back.
func TestRateLimits(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db backend) {
		t.Run("enroll per key", func(t *testing.T) {
			f := newFixture(t, db, options{limits: seasonservice.Limits{EnrollPerKey: seasonservice.Rate{PerMinute: 1, Burst: 2}, EnrollPerAddress: seasonservice.Rate{PerMinute: -1}}})
			p := f.newParticipant()
			assert.Equal(t, http.StatusCreated, f.enroll(p, "conformite").status)
			assert.Equal(t, http.StatusConflict, f.enroll(p, "conformite").status)
			a := f.enroll(p, "generique")
			assertRefusal(t, a, http.StatusTooManyRequests, "trop_de_requetes")
			assert.Equal(t, "60", a.header.Get("Retry-After"))
			f.clock.set(during.Add(30 * time.Second))
			a = f.enroll(p, "generique")
			assertRefusal(t, a, http.StatusTooManyRequests, "trop_de_requetes")
			assert.Equal(t, "30", a.header.Get("Retry-After"))
			assert.Equal(t, http.StatusCreated, f.enroll(f.newParticipant(), "generique").status, "another key")
			f.clock.set(during.Add(time.Minute))
			assert.Equal(t, http.StatusCreated, f.enroll(p, "generique").status, "refilled")
		})
		t.Run("enroll per address", func(t *testing.T) {
			f := newFixture(t, db, options{limits: seasonservice.Limits{EnrollPerAddress: seasonservice.Rate{PerMinute: 2, Burst: 1}, EnrollPerKey: seasonservice.Rate{PerMinute: -1}}})
			assert.Equal(t, http.StatusCreated, f.enroll(f.newParticipant(), "conformite").status)
			a := f.enroll(f.newParticipant(), "conformite")
			assertRefusal(t, a, http.StatusTooManyRequests, "trop_de_requetes")
			assert.Equal(t, "30", a.header.Get("Retry-After"))
			out, _ := f.export("conformite")
			assert.Len(t, out.Enrollments.Enrollments, 1, "nothing recorded")
		})
		t.Run("submit per key and per address", func(t *testing.T) {
			f := newFixture(t, db, options{limits: seasonservice.Limits{SubmitPerKey: seasonservice.Rate{PerMinute: 60, Burst: 2}, SubmitPerAddress: seasonservice.Rate{PerMinute: 600, Burst: 4}}})
			p := f.newParticipant()
			_, token := f.enrolled(p, "conformite")
			_, other := f.enrolled(f.newParticipant(), "generique")
			for i := range 2 {
				assert.Equal(t, http.StatusOK, f.submit(token, submission(p.did, "conf-0"+strconv.Itoa(i+1), "x")).status)
			}
			a := f.submit(token, submission(p.did, "conf-03", "x"))
			assertRefusal(t, a, http.StatusTooManyRequests, "trop_de_requetes")
			assert.Equal(t, "1", a.header.Get("Retry-After"))
			// Another token from the address: its fourth call is allowed (three
			// spent, the refused one too), its fifth not.
			assert.NotEqual(t, http.StatusTooManyRequests, f.submit(other, []byte("{}")).status)
			a = f.submit(other, []byte("{}"))
			assertRefusal(t, a, http.StatusTooManyRequests, "trop_de_requetes")
			_, counted := f.export("conformite")
			assert.Len(t, counted, 2, "nothing recorded by a refused call")
		})
	})
}

// panicking is a store whose state read panics, for the service's last
// resort.
type panicking struct{ seasonstore.Store }

func (panicking) TrackState(context.Context, int, string) (seasonstore.TrackState, error) {
	panic("the store broke")
}

// failing is a store that fails every write, as a database gone away.
type failing struct{ seasonstore.Store }

func (failing) Enroll(context.Context, seasonstore.NewEnrollment) (index.Enrollment, error) {
	return index.Enrollment{}, errors.New("database is locked")
}

func (failing) Submit(context.Context, seasonstore.NewSubmission, seasonstore.ReceiptFunc) (seasonstore.Accepted, error) {
	return seasonstore.Accepted{}, errors.New("database is locked")
}

// TestFaults: a panic or a store failing answers the fixed 503 in JSON.
func TestFaults(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db backend) {
		f := newFixture(t, db, options{wrap: func(s seasonstore.Store) seasonstore.Store { return panicking{s} }})
		assertRefusal(t, f.do("GET", "/v1/season/1", nil, nil), http.StatusServiceUnavailable, "indisponible")
		assert.NotEmpty(t, f.logs.FilterMessage("season service panic").All())

		f = newFixture(t, db, options{wrap: func(s seasonstore.Store) seasonstore.Store { return failing{s} }})
		p := f.newParticipant()
		assertRefusal(t, f.enroll(p, "conformite"), http.StatusServiceUnavailable, "indisponible")
		// Enrolled on the store itself, the submission fails to be recorded.
		raw := randomBytes(32)
		_, err := f.store.Enroll(context.Background(), seasonstore.NewEnrollment{Season: 1, Track: "conformite", TokenSHA256: sha256.Sum256(raw),
			Enrollment: index.Enrollment{Agent: "a", DID: p.did, Key: sha256Hex([]byte(p.key)), EnrolledAt: "2026-10-02T09:00:00Z",
				Table: index.TableCommunity, Stack: "s", ProofsLink: "https://example.org"}})
		require.NoError(t, err)
		token := base64.RawURLEncoding.EncodeToString(raw)
		assertRefusal(t, f.submit(token, submission(p.did, "conf-01", "x")), http.StatusServiceUnavailable, "indisponible")
		_, counted := f.export("conformite")
		assert.Empty(t, counted)
		f.assertNoSecret(p.key)
	})
}

// TestNew: a configuration the service cannot serve honestly is refused at
// start.
func TestNew(t *testing.T) {
	ctx := context.Background()
	store, err := seasonstore.OpenSQLite(ctx, t.TempDir()+"/s.db", seasonstore.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = store.Close() })
	_, key, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	track, err := corpus.TrackNamed("conformite")
	require.NoError(t, err)
	_, record := season.EmbeddedRecord(track)
	_, tasks := season.EmbeddedTasks(track)
	good := func() seasonservice.Config {
		return seasonservice.Config{Store: store, TrustLayer: seasonservice.TrustLayer{URL: "https://trust.arkforge.tech"},
			Seasons: []seasonservice.Season{{Number: 1, ReceiptKey: key, Tracks: []seasonservice.Track{{Record: record, Tasks: tasks}}}}}
	}
	_, err = seasonservice.New(good())
	require.NoError(t, err)
	for _, tt := range []struct {
		name   string
		change func(*seasonservice.Config)
		want   string
	}{
		{"no store", func(c *seasonservice.Config) { c.Store = nil }, "no store"},
		{"no season", func(c *seasonservice.Config) { c.Seasons = nil }, "no season"},
		{"no Trust Layer", func(c *seasonservice.Config) { c.TrustLayer.URL = "" }, "Trust Layer URL"},
		{"no receipt key", func(c *seasonservice.Config) { c.Seasons[0].ReceiptKey = nil }, "receipt key"},
		{"another season's files", func(c *seasonservice.Config) { c.Seasons[0].Number = 2 }, "/saison"},
		{"statements the record does not anchor", func(c *seasonservice.Config) {
			c.Seasons[0].Tracks[0].Tasks = []byte(strings.Replace(string(tasks), "conf-01", "conf-01", 1) + " ")
		}, "taches_sha256"},
		{"a track twice", func(c *seasonservice.Config) {
			c.Seasons[0].Tracks = append(c.Seasons[0].Tracks, c.Seasons[0].Tracks[0])
		}, "twice"},
		{"a season twice", func(c *seasonservice.Config) { c.Seasons = append(c.Seasons, c.Seasons[0]) }, "twice"},
		{"a file name out of form", func(c *seasonservice.Config) {
			c.Seasons[0].Tracks[0].Files = []seasonservice.File{{Name: "../cle.json"}}
		}, "name"},
		{"the statements published twice", func(c *seasonservice.Config) {
			c.Seasons[0].Tracks[0].Files = []seasonservice.File{{Name: seasonservice.TasksFile}}
		}, "twice"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := good()
			c.Seasons[0].Tracks = append([]seasonservice.Track(nil), c.Seasons[0].Tracks...)
			tt.change(&c)
			_, err := seasonservice.New(c)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
