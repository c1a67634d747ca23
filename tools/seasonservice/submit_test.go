package seasonservice_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/tools/receipt"
	"github.com/arkforge/proveit-corpus/tools/seasonservice"
	"github.com/arkforge/proveit-corpus/tools/seasonstore"
)

// accepted is a 200's body.
type accepted struct {
	Recorded bool            `json:"enregistree"`
	Replaces bool            `json:"remplace"`
	Receipt  json.RawMessage `json:"recu"`
}

func readAccepted(t *testing.T, a answer) (accepted, receipt.Receipt) {
	t.Helper()
	require.Equal(t, http.StatusOK, a.status, string(a.body))
	assertJSONHeaders(t, a)
	assert.Len(t, a.json(t), 3, "exactly enregistree, remplace, recu: nothing hints at a score")
	var acc accepted
	require.NoError(t, json.Unmarshal(a.body, &acc))
	var r receipt.Receipt
	dec := json.NewDecoder(bytes.NewReader(acc.Receipt))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&r))
	var members map[string]any
	require.NoError(t, json.Unmarshal(acc.Receipt, &members))
	assert.Len(t, members, 8, string(acc.Receipt))
	return acc, r
}

// TestSubmit: a submission is recorded with its receipt; another version
// of the task replaces it (remplace); the same bytes sent again answer the
// same receipt and record nothing; the export holds the last accepted
// bytes exactly, with the receipt issued for them.
func TestSubmit(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db backend) {
		f := newFixture(t, db, options{})
		p := f.newParticipant()
		id, token := f.enrolled(p, "conformite")
		pub := f.receiptKey.Public().(ed25519.PublicKey)

		first := submission(p.did, "conf-01", "premiere")
		acc, r := readAccepted(t, f.submit(token, first))
		assert.True(t, acc.Recorded)
		assert.False(t, acc.Replaces)
		assert.Equal(t, receipt.Receipt{Season: 1, Track: "conformite", Enrollment: id, TaskID: "conf-01", SHA256: sha256Hex(first),
			ReceivedAt: "2026-10-02T09:00:00Z", Replaces: false, Signature: r.Signature}, r)
		assert.True(t, receipt.Verify(pub, r))

		f.clock.set(during.Add(90 * time.Second))
		second := submission(p.did, "conf-01", "seconde")
		acc2, r2 := readAccepted(t, f.submit(token, second))
		assert.True(t, acc2.Replaces)
		assert.True(t, r2.Replaces)
		assert.Equal(t, "2026-10-02T09:01:30Z", r2.ReceivedAt)
		assert.True(t, receipt.Verify(pub, r2))

		// A resend after a cut: the same receipt, nothing recorded.
		f.clock.set(during.Add(time.Hour))
		acc3, _ := readAccepted(t, f.submit(token, second))
		assert.Equal(t, string(acc2.Receipt), string(acc3.Receipt))
		assert.True(t, acc3.Replaces)

		// The first bytes again are a new version: they replace the second.
		acc4, r4 := readAccepted(t, f.submit(token, first))
		assert.True(t, acc4.Replaces)
		assert.NotEqual(t, string(acc.Receipt), string(acc4.Receipt))
		assert.Equal(t, "2026-10-02T10:00:00Z", r4.ReceivedAt)

		other, _ := readAccepted(t, f.submit(token, submission(p.did, "conf-02", "x")))
		assert.False(t, other.Replaces)

		out, counted := f.export("conformite")
		require.Len(t, out.Receipts, 4, "a resend adds no receipt")
		assert.JSONEq(t, string(acc.Receipt), string(out.Receipts[0]))
		assert.JSONEq(t, string(acc4.Receipt), string(out.Receipts[2]))
		require.Len(t, counted, 2)
		assert.Equal(t, "conf-01", counted[0].TaskID)
		assert.Equal(t, first, counted[0].Body, "the bytes kept are exactly those received")
		assert.JSONEq(t, string(acc4.Receipt), string(counted[0].Receipt))
		assert.Equal(t, "conf-02", counted[1].TaskID)

		state := f.do("GET", "/v1/season/1", nil, nil).json(t)
		assert.NotContains(t, state, "score")
		f.assertNoSecret(p.key, token)
	})
}

// An enrollment's token is known to the service that recorded it: its
// submissions never ask the store who holds it. Another replica's service
// asks once.
func TestSubmitAfterEnrollmentAsksNoLookUp(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db backend) {
		var counting *seasonservice.CountingStore
		f := newFixture(t, db, options{wrap: func(s seasonstore.Store) seasonstore.Store {
			counting = &seasonservice.CountingStore{Store: s}
			return counting
		}})
		p := f.newParticipant()
		_, token := f.enrolled(p, "conformite")
		for _, task := range []string{"conf-01", "conf-02"} {
			readAccepted(t, f.submit(token, submission(p.did, task, "x")))
		}
		assert.Equal(t, 0, counting.Lookups(), "the service that enrolled it asks no store")

		replica := newFixture(t, db, options{wrap: func(s seasonstore.Store) seasonstore.Store {
			counting = &seasonservice.CountingStore{Store: s}
			return counting
		}, database: f.database})
		for _, task := range []string{"conf-03", "conf-04"} {
			readAccepted(t, replica.submit(token, submission(p.did, task, "x")))
		}
		assert.Equal(t, 1, counting.Lookups(), "a replica asks its store once")
	})
}

// TestSubmitRefusals: each refusal of a submission, its status and fixed
// body (pointer and rule for a 422), and nothing recorded.
func TestSubmitRefusals(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db backend) {
		f := newFixture(t, db, options{limits: noLimits})
		p := f.newParticipant()
		id, token := f.enrolled(p, "conformite")
		_, genToken := f.enrolled(f.newParticipant(), "generique")
		// One version of conf-01 recorded before: resending it stays possible
		// after the close.
		kept := submission(p.did, "conf-01", "gardee")
		readAccepted(t, f.submit(token, kept))
		bearer := func(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }
		unknown := base64.RawURLEncoding.EncodeToString(bytes.Repeat([]byte{7}, 32))
		huge := submission(p.did, "conf-02", strings.Repeat("x", 1<<20))

		tests := []struct {
			name    string
			path    string
			body    []byte
			header  map[string]string
			at      time.Time
			status  int
			code    string
			pointer string
		}{
			{"no Authorization", "", submission(p.did, "conf-02", "x"), nil, during, 401, "jeton_inconnu", ""},
			{"not Bearer", "", submission(p.did, "conf-02", "x"), map[string]string{"Authorization": "Basic " + token}, during, 400, "requete_invalide", ""},
			{"token not one the service issues", "", submission(p.did, "conf-02", "x"), bearer("abc"), during, 401, "jeton_inconnu", ""},
			{"unknown token", "", submission(p.did, "conf-02", "x"), bearer(unknown), during, 401, "jeton_inconnu", ""},
			{"unknown season", "/v1/season/9/submit", submission(p.did, "conf-02", "x"), bearer(token), during, 404, "saison_inconnue", ""},
			{"over 1 MiB", "", huge, bearer(token), during, 413, "trop_volumineux", ""},
			{"not JSON", "", []byte(`{"season": 1,`), bearer(token), during, 422, "rejetee_entree", ""},
			{"unknown member", "", bytes.Replace(submission(p.did, "conf-02", "x"), []byte(`"narrative"`), []byte(`"score"`), 1), bearer(token), during, 422, "rejetee_entree", "/score"},
			{"duplicate member", "", bytes.Replace(submission(p.did, "conf-02", "x"), []byte(`{"season": 1,`), []byte(`{"season": 1, "season": 1,`), 1), bearer(token), during, 422, "rejetee_entree", "/season"},
			{"another season", "", submissionOf("2", "conformite", "conf-02", p.did, "conforme", 1, "x"), bearer(token), during, 422, "rejetee_entree", "/season"},
			{"another track", "", submissionOf("1", "generique", "gen-01", p.did, "aucune_option_valide", 1, "x"), bearer(token), during, 422, "rejetee_entree", "/track"},
			{"another track's enrollment", "", submission(p.did, "conf-02", "x"), bearer(genToken), during, 422, "rejetee_entree", "/track"},
			{"unknown task", "", submission(p.did, "conf-99", "x"), bearer(token), during, 422, "rejetee_entree", "/task_id"},
			{"verdict", "", submissionOf("1", "conformite", "conf-02", p.did, "peut-etre", 1, "x"), bearer(token), during, 422, "rejetee_entree", "/verdict"},
			{"over the ceiling", "", submissionOf("1", "conformite", "conf-01", p.did, "conforme", 5, "x"), bearer(token), during, 422, "rejetee_entree", "/assertions"},
			{"undisclosed proof", "", bytes.Replace(submission(p.did, "conf-02", "x"), []byte(`"disclosures": {"prf_20261002_090000_abcdef"`), []byte(`"disclosures": {"prf_other"`), 1), bearer(token), during, 422, "rejetee_entree", "/assertions/0/proof_ids/0"},
			{"another DID", "", submission("did:key:z6MkSomeoneElse", "conf-02", "x"), bearer(token), during, 422, "rejetee_entree", "/agent_did"},
			{"after the close", "", submission(p.did, "conf-02", "x"), bearer(token), closing.Add(time.Second), 409, "piste_fermee", ""},
			{"a new version after the close", "", submission(p.did, "conf-01", "nouvelle"), bearer(token), closing.Add(time.Second), 409, "piste_fermee", ""},
			{"before the opening", "", submission(p.did, "conf-02", "x"), bearer(token), opening.Add(-time.Second), 409, "piste_fermee", ""},
			{"GET", "", nil, bearer(token), during, 405, "methode_non_admise", ""},
		}
		before, _ := f.export("conformite")
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				f.clock.set(tt.at)
				defer f.clock.set(during)
				path, method := tt.path, "POST"
				if path == "" {
					path = "/v1/season/1/submit"
				}
				if tt.name == "GET" {
					method = "GET"
				}
				a := f.do(method, path, tt.body, tt.header)
				assertRefusal(t, a, tt.status, tt.code)
				if tt.status == http.StatusUnprocessableEntity {
					v := a.json(t)
					assert.Equal(t, tt.pointer, v["pointeur"], string(a.body))
					assert.NotEmpty(t, v["regle"])
				}
				if tt.status == http.StatusUnauthorized {
					assert.NotEmpty(t, a.header.Get("WWW-Authenticate"))
				}
				after, _ := f.export("conformite")
				assert.Equal(t, before.Receipts, after.Receipts, "nothing recorded")
			})
		}

		// Resending the last accepted bytes after the close answers their
		// receipt: they are in the export already.
		f.clock.set(closing.Add(time.Hour))
		acc, r := readAccepted(t, f.submit(token, kept))
		assert.Equal(t, id, r.Enrollment)
		assert.JSONEq(t, string(before.Receipts[0]), string(acc.Receipt))
		f.assertNoSecret(p.key, token, genToken)
	})
}

// TestReceiptCanonicalPython: the receipt's signed bytes are the canonical
// JSON Python writes (json.dumps with sort_keys, separators (",", ":") and
// ensure_ascii), recomputed by python3 from the receipt as answered; the
// signature verifies over Python's bytes with cle_recus.
func TestReceiptCanonicalPython(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	forEachBackend(t, func(t *testing.T, db backend) {
		f := newFixture(t, db, options{})
		p := f.newParticipant()
		_, token := f.enrolled(p, "conformite")
		acc, _ := readAccepted(t, f.submit(token, submission(p.did, "conf-03", "é😀\u2028")))

		state := f.do("GET", "/v1/season/1", nil, nil).json(t)
		pub, err := base64.StdEncoding.DecodeString(state["cle_recus"].(string))
		require.NoError(t, err)

		// Also a receipt whose text is not ASCII, signed the same way: the
		// canonical form escapes it as Python does.
		wide := receipt.Receipt{Season: 1, Track: "piste-é", Enrollment: "id", TaskID: "t\u007f", SHA256: "00", ReceivedAt: "2026-10-02T09:00:00Z"}
		const script = `
import json, sys
for line in sys.stdin:
    receipt = json.loads(line)
    receipt.pop("signature", None)
    sys.stdout.write(json.dumps(receipt, sort_keys=True, separators=(",", ":")) + "\n")
`
		var in bytes.Buffer
		in.Write(acc.Receipt)
		in.WriteString("\n")
		wideJSON, err := json.Marshal(wide)
		require.NoError(t, err)
		in.Write(wideJSON)
		in.WriteString("\n")
		cmd := exec.Command(python, "-c", script)
		cmd.Stdin = &in
		out, err := cmd.Output()
		require.NoError(t, err)
		lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		require.Len(t, lines, 2)

		var r receipt.Receipt
		require.NoError(t, json.Unmarshal(acc.Receipt, &r))
		assert.Equal(t, lines[0], string(receipt.Payload(r)))
		sig, err := base64.StdEncoding.DecodeString(r.Signature)
		require.NoError(t, err)
		assert.True(t, ed25519.Verify(pub, []byte(lines[0]), sig), "the signature is over Python's canonical bytes")
		assert.Equal(t, lines[1], string(receipt.Payload(wide)))
		assert.Contains(t, lines[1], `"piste":"piste-\u00e9"`)

		// The receipt as kept is itself canonical: the bytes answered are the
		// bytes exported.
		exported, _ := f.export("conformite")
		require.Len(t, exported.Receipts, 1)
		assert.Equal(t, string(acc.Receipt), string(exported.Receipts[0]))

		// A receipt altered anywhere no longer verifies.
		r.Replaces = true
		assert.False(t, receipt.Verify(pub, r))
	})
}

// TestSubmitStoreAcknowledgesOnDisk: an acknowledged submission is
// committed: another store opened on the same database, as a replica or
// the service restarted opens it, finds its enrollment by the token and
// exports its exact bytes.
func TestSubmitStoreAcknowledgesOnDisk(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db backend) {
		f := newFixture(t, db, options{})
		p := f.newParticipant()
		id, token := f.enrolled(p, "conformite")
		body := submission(p.did, "conf-04", "x")
		readAccepted(t, f.submit(token, body))

		afresh := f.openStore()
		raw, err := base64.RawURLEncoding.DecodeString(token)
		require.NoError(t, err)
		en, err := afresh.EnrollmentByToken(context.Background(), sha256.Sum256(raw))
		require.NoError(t, err)
		assert.Equal(t, id, en.Enrollment.ID)
		_, err = afresh.EnrollmentByToken(context.Background(), [32]byte{})
		assert.ErrorIs(t, err, seasonstore.ErrUnknownToken)
		_, counted := exportOf(t, afresh, "conformite")
		require.Len(t, counted, 1)
		assert.Equal(t, id, counted[0].EnrollmentID)
		assert.Equal(t, body, counted[0].Body)
	})
}
