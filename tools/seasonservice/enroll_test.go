package seasonservice_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/harness/trustlayer"
	"github.com/arkforge/proveit-corpus/tools/index"
	"github.com/arkforge/proveit-corpus/tools/seasonservice"
)

// assertJSONHeaders checks the headers of every answer: JSON in UTF-8,
// the no-cache headers of the contract's section 2, the exact length.
func assertJSONHeaders(t *testing.T, a answer) {
	t.Helper()
	assert.Equal(t, "application/json; charset=utf-8", a.header.Get("Content-Type"))
	assertNoCache(t, a)
}

func assertNoCache(t *testing.T, a answer) {
	t.Helper()
	assert.Equal(t, "no-store, no-cache, must-revalidate, max-age=0", a.header.Get("Cache-Control"))
	assert.Equal(t, "no-cache", a.header.Get("Pragma"))
	assert.Equal(t, "0", a.header.Get("Expires"))
	assert.Equal(t, "nosniff", a.header.Get("X-Content-Type-Options"))
	assert.Equal(t, len(a.body), atoi(t, a.header.Get("Content-Length")))
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	require.NoError(t, json.Unmarshal([]byte(s), &n), s)
	return n
}

// assertRefusal checks a refusal's status and fixed shape: exactly
// {"erreur", "message"}.
func assertRefusal(t *testing.T, a answer, status int, code string) {
	t.Helper()
	assert.Equal(t, status, a.status, string(a.body))
	assertJSONHeaders(t, a)
	v := a.json(t)
	assert.Equal(t, code, v["erreur"], string(a.body))
	assert.NotEmpty(t, v["message"])
	if status == http.StatusUnprocessableEntity {
		assert.Len(t, v, 4, string(a.body))
		assert.Contains(t, v, "pointeur")
		assert.Contains(t, v, "regle")
	} else {
		assert.Len(t, v, 2, string(a.body))
	}
}

// TestEnroll: a bound key enrolls once per track: 201 with exactly {id,
// piste, did, jeton, taches}, a drawn id, a 256-bit token, the statements
// as published; kept, exactly an inscriptions.json entry with the key's
// SHA-256 and the DID history, the key nowhere.
func TestEnroll(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db backend) {
		f := newFixture(t, db, options{})
		old1, _ := trustlayer.NewDIDKey()
		old2, _ := trustlayer.NewDIDKey()
		p := f.newParticipant(old1, old2)

		a := f.enroll(p, "conformite")
		require.Equal(t, http.StatusCreated, a.status, string(a.body))
		assertJSONHeaders(t, a)
		var got struct {
			ID    string          `json:"id"`
			Track string          `json:"piste"`
			DID   string          `json:"did"`
			Token string          `json:"jeton"`
			Tasks json.RawMessage `json:"taches"`
		}
		require.NoError(t, json.Unmarshal(a.body, &got))
		assert.Len(t, a.json(t), 5)
		assert.Regexp(t, regexp.MustCompile(`^[a-z0-9-]{1,40}$`), got.ID)
		assert.Equal(t, "conformite", got.Track)
		assert.Equal(t, p.did, got.DID)
		token, err := base64.RawURLEncoding.DecodeString(got.Token)
		require.NoError(t, err)
		assert.Len(t, token, 32)
		assert.JSONEq(t, string(f.files["conformite"][seasonservice.TasksFile]), string(got.Tasks))
		assert.NotContains(t, string(a.body), p.key)

		// The same participant enrolls on the other track: two competitions.
		b := f.enroll(p, "generique")
		require.Equal(t, http.StatusCreated, b.status, string(b.body))
		assert.NotEqual(t, got.ID, b.json(t)["id"])

		out, _ := f.export("conformite")
		require.Len(t, out.Enrollments.Enrollments, 1)
		e := out.Enrollments.Enrollments[0]
		assert.Equal(t, index.Enrollment{
			ID: got.ID, Agent: "Agent Zoé", DID: p.did, Key: sha256Hex([]byte(p.key)),
			DIDHistory: []string{old1, old2, p.did}, EnrolledAt: "2026-10-02T09:00:00Z", Table: index.TableCommunity,
			Stack: "Go 1.26, un modèle", ProofsLink: "https://example.org/preuves",
		}, e)
		exported, err := json.Marshal(out)
		require.NoError(t, err)
		assert.NotContains(t, string(exported), p.key)
		f.assertNoSecret(p.key, got.Token)
	})
}

// TestEnrollThroughTrustLayer: a participant goes the whole way a season
// goes, over HTTP: free signup, bind-did and its Ed25519 challenge over a
// did:key, then the enrollment.
func TestEnrollThroughTrustLayer(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db backend) {
		f := newFixture(t, db, options{})
		a := do(t, "POST", f.tlURL+"/v1/keys/free-signup", []byte(`{"email": "agent@example.org"}`), nil)
		require.Equal(t, http.StatusOK, a.status, string(a.body))
		key := a.json(t)["api_key"].(string)

		// Signed up, not bound yet: no DID to enroll.
		assertRefusal(t, f.enroll(participant{key: key}, "conformite"), http.StatusForbidden, "did_non_lie")

		did, priv := trustlayer.NewDIDKey()
		a = do(t, "POST", f.tlURL+"/v1/keys/bind-did", []byte(`{"did": "`+did+`"}`), map[string]string{"X-Api-Key": key})
		require.Equal(t, http.StatusOK, a.status, string(a.body))
		challenge := a.json(t)["challenge"].(string)
		confirm, err := json.Marshal(map[string]string{"challenge": challenge, "signature": trustlayer.SignChallenge(priv, challenge)})
		require.NoError(t, err)
		a = do(t, "POST", f.tlURL+"/v1/keys/bind-did/confirm", confirm, map[string]string{"X-Api-Key": key})
		require.Equal(t, http.StatusOK, a.status, string(a.body))

		a = f.enroll(participant{key: key}, "conformite")
		require.Equal(t, http.StatusCreated, a.status, string(a.body))
		assert.Equal(t, did, a.json(t)["did"])
	})
}

// TestEnrollRefusals: each refusal of an enrollment, its status and fixed
// body, and nothing recorded.
func TestEnrollRefusals(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db backend) {
		f := newFixture(t, db, options{limits: noLimits})
		enrolled := f.newParticipant()
		f.enrolled(enrolled, "conformite")
		fresh := f.newParticipant()
		sameDID := f.newParticipant()
		require.NoError(t, f.tl.BindDID(sameDID.key, enrolled.did, trustlayer.MethodChallenge))
		unbound := "mcp_test_unbound"
		f.tl.RegisterKey(unbound)
		key := func(k string) map[string]string { return map[string]string{"X-Api-Key": k} }

		tests := []struct {
			name   string
			path   string
			body   string
			header map[string]string
			at     time.Time
			status int
			code   string
		}{
			{"malformed JSON", "", `{"piste": "conformite",`, key(fresh.key), during, 400, "requete_invalide"},
			{"not an object", "", `["conformite"]`, key(fresh.key), during, 400, "requete_invalide"},
			{"unknown member", "", `{"piste": "conformite", "agent": "a", "stack": "s", "lien_preuves": "https://x.org", "id": "moi"}`, key(fresh.key), during, 400, "requete_invalide"},
			{"duplicate member", "", `{"piste": "conformite", "piste": "generique", "agent": "a", "stack": "s", "lien_preuves": "https://x.org"}`, key(fresh.key), during, 400, "requete_invalide"},
			{"missing member", "", `{"piste": "conformite", "agent": "a", "stack": "s"}`, key(fresh.key), during, 400, "requete_invalide"},
			{"member not a string", "", `{"piste": "conformite", "agent": 7, "stack": "s", "lien_preuves": "https://x.org"}`, key(fresh.key), during, 400, "requete_invalide"},
			{"control character", "", `{"piste": "conformite", "agent": "a\u0007", "stack": "s", "lien_preuves": "https://x.org"}`, key(fresh.key), during, 400, "requete_invalide"},
			{"proofs link not a URL", "", `{"piste": "conformite", "agent": "a", "stack": "s", "lien_preuves": "chez moi"}`, key(fresh.key), during, 400, "requete_invalide"},
			{"key header malformed", "", string(enrollBody("conformite")), key("clé avec espace"), during, 400, "requete_invalide"},
			{"key header too long", "", string(enrollBody("conformite")), key(strings.Repeat("k", 257)), during, 400, "requete_invalide"},
			{"no key", "", string(enrollBody("conformite")), nil, during, 401, "cle_inconnue"},
			{"key unknown to Trust Layer", "", string(enrollBody("conformite")), key("mcp_free_unknown"), during, 401, "cle_inconnue"},
			{"key with no DID", "", string(enrollBody("conformite")), key(unbound), during, 403, "did_non_lie"},
			{"unknown season", "/v1/season/2/enroll", string(enrollBody("conformite")), key(fresh.key), during, 404, "saison_inconnue"},
			{"season 0", "/v1/season/01/enroll", string(enrollBody("conformite")), key(fresh.key), during, 404, "saison_inconnue"},
			{"unknown track", "", string(enrollBody("conformite-2")), key(fresh.key), during, 404, "piste_inconnue"},
			{"key already enrolled", "", string(enrollBody("conformite")), key(enrolled.key), during, 409, "deja_inscrite"},
			{"DID already enrolled", "", string(enrollBody("conformite")), key(sameDID.key), during, 409, "deja_inscrite"},
			{"before the opening", "", string(enrollBody("conformite")), key(fresh.key), opening.Add(-time.Second), 409, "piste_fermee"},
			{"after the close", "", string(enrollBody("conformite")), key(fresh.key), closing.Add(time.Second), 409, "piste_fermee"},
			{"over 16 KiB", "", `{"piste": "conformite", "agent": "a", "stack": "` + strings.Repeat("s", 16<<10) + `", "lien_preuves": "https://x.org"}`, key(fresh.key), during, 413, "trop_volumineux"},
			{"GET", "", "", key(fresh.key), during, 405, "methode_non_admise"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				f.clock.set(tt.at)
				defer f.clock.set(during)
				path, method := tt.path, "POST"
				if path == "" {
					path = "/v1/season/1/enroll"
				}
				if tt.name == "GET" {
					method = "GET"
				}
				var body []byte
				if tt.body != "" {
					body = []byte(tt.body)
				}
				a := f.do(method, path, body, tt.header)
				assertRefusal(t, a, tt.status, tt.code)
				if tt.status == 405 {
					assert.Equal(t, "POST", a.header.Get("Allow"))
				}
				state, err := f.store.TrackState(context.Background(), 1, "conformite")
				require.NoError(t, err)
				assert.Equal(t, 1, state.Enrollments, "nothing recorded")
			})
		}
		f.assertNoSecret(enrolled.key, fresh.key, sameDID.key, unbound)
	})
}

// TestEnrollTrustLayerUnavailable: Trust Layer down, slow, answering an
// error or off-shape: 503 with the fixed body, nothing recorded.
func TestEnrollTrustLayerUnavailable(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db backend) {
		const did = `"did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp"`
		valid := `{"verified_did": ` + did + `, "verified_did_method": "challenge_response", "verified_did_bound_at": "2026-10-01T10:00:00+00:00", "verified_did_history": []}`
		release := make(chan struct{})
		t.Cleanup(func() { close(release) })
		tests := []struct {
			name   string
			status int
			body   string
			slow   bool
			down   bool
		}{
			{"down", 0, "", false, true},
			{"slow", 200, valid, true, false},
			{"server error", 500, `{"error": {"code": "internal"}}`, false, false},
			{"rate limited", 429, `{"error": {"code": "rate_limited"}}`, false, false},
			{"redirect", 302, ``, false, false},
			{"not JSON", 200, `<html>`, false, false},
			{"a member more", 200, strings.TrimSuffix(valid, "}") + `, "plan": "free"}`, false, false},
			{"a member less", 200, `{"verified_did": ` + did + `, "verified_did_method": "challenge_response", "verified_did_bound_at": "x"}`, false, false},
			{"duplicate member", 200, strings.TrimSuffix(valid, "}") + `, "verified_did": null}`, false, false},
			{"DID without its method", 200, `{"verified_did": ` + did + `, "verified_did_method": null, "verified_did_bound_at": null, "verified_did_history": []}`, false, false},
			{"unknown method", 200, `{"verified_did": ` + did + `, "verified_did_method": "self", "verified_did_bound_at": "x", "verified_did_history": []}`, false, false},
			{"DID not a DID", 200, `{"verified_did": "me", "verified_did_method": "challenge_response", "verified_did_bound_at": "x", "verified_did_history": []}`, false, false},
			{"history entry off-shape", 200, `{"verified_did": ` + did + `, "verified_did_method": "challenge_response", "verified_did_bound_at": "x", "verified_did_history": [{"did": "did:key:z1"}]}`, false, false},
			{"history not an array", 200, `{"verified_did": ` + did + `, "verified_did_method": "challenge_response", "verified_did_bound_at": "x", "verified_did_history": {}}`, false, false},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if tt.slow {
						select {
						case <-release:
						case <-r.Context().Done():
						}
					}
					if tt.status == 302 {
						http.Redirect(w, r, "https://elsewhere.example/", http.StatusFound)
						return
					}
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(tt.status)
					_, _ = w.Write([]byte(tt.body))
				}))
				url := server.URL
				if tt.down {
					server.Close()
				} else {
					t.Cleanup(server.Close)
				}
				f := newFixture(t, db, options{trustLayer: &seasonservice.TrustLayer{URL: url, Timeout: 200 * time.Millisecond}})
				started := time.Now()
				a := f.do("POST", "/v1/season/1/enroll", enrollBody("conformite"), map[string]string{"X-Api-Key": "mcp_free_someone"})
				assertRefusal(t, a, http.StatusServiceUnavailable, "trust_layer_indisponible")
				assert.Less(t, time.Since(started), 5*time.Second, "the timeout bounds the wait")
				out, _ := f.export("conformite")
				assert.Empty(t, out.Enrollments.Enrollments, "nothing recorded")
				f.assertNoSecret("mcp_free_someone")
			})
		}
	})
}

// TestEnrollHistoryOrder: the history's DIDs are kept oldest first, by
// their binding time, whatever order Trust Layer lists them in; then the
// current DID.
func TestEnrollHistoryOrder(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db backend) {
		const current = "did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp"
		body := `{"verified_did": "` + current + `", "verified_did_method": "oatr_delegation", "verified_did_bound_at": "2026-09-03T00:00:00+00:00", "verified_did_history": [
		{"did": "did:key:zSecond", "bound_at": "2026-09-02T00:00:00+00:00", "method": "challenge_response", "unbound_at": "2026-09-03T00:00:00+00:00"},
		{"did": "did:key:zFirst", "bound_at": "2026-09-01T00:00:00.5+00:00", "method": null, "unbound_at": null}]}`
		server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("X-Api-Key") != "mcp_free_history" || r.URL.Path != "/v1/keys/identity" {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			_, _ = w.Write([]byte(body))
		}))
		t.Cleanup(server.Close)
		f := newFixture(t, db, options{trustLayer: &seasonservice.TrustLayer{URL: server.URL}})
		a := f.do("POST", "/v1/season/1/enroll", enrollBody("generique"), map[string]string{"X-Api-Key": "mcp_free_history"})
		require.Equal(t, http.StatusCreated, a.status, string(a.body))
		out, _ := f.export("generique")
		require.Len(t, out.Enrollments.Enrollments, 1)
		assert.Equal(t, []string{"did:key:zFirst", "did:key:zSecond", current}, out.Enrollments.Enrollments[0].DIDHistory)
	})
}
