package frontal

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/harness/participant"
	"github.com/arkforge/proveit-corpus/harness/seasonload"
	"github.com/arkforge/proveit-corpus/harness/servertest"
	"github.com/arkforge/proveit-corpus/tools/seasonservice"
	"github.com/arkforge/proveit-corpus/tools/seasonstore"
)

// badSubmission is one bad call of the submission endpoint and the
// refusal it must get.
type badSubmission struct {
	name    string
	header  map[string]string // Authorization and the like; nil: none
	body    []byte
	chunked bool // sent without a Content-Length
	status  int
	code    string
	pointer string // a 422's pointeur
}

// TestSeasonServiceBadInput sends the season service, through bin/caddy,
// bad submissions: malformed JSON, over 1 MiB (with and without a
// Content-Length), the wrong track, the wrong DID, an unknown, a malformed
// or no token, then the same good bytes twice, and, the service restarted
// past its record's close, a new version and an enrollment. Each bad call,
// sent twice, gets the same fixed JSON refusal with its status; the good
// bytes sent twice get one receipt; nothing else is recorded: the store's
// export is the same after each phase, and the close's export holds the
// one submission acknowledged, with its one receipt.
func TestSeasonServiceBadInput(t *testing.T) {
	rig := newSeasonRig(t)
	database := filepath.Join(t.TempDir(), "saison.db")
	svc := rig.service(database, servertest.FreePort(t))
	server := rig.start(t, svc, 0)
	client := seasonClient(svc.URL(), 1)
	conformity, err := seasonload.Enroll(rig.tl, client, corpus.Conformity.Name, 1, 1)
	require.NoError(t, err)
	purchasing, err := seasonload.Enroll(rig.tl, client, corpus.Purchasing.Name, 1, 1)
	require.NoError(t, err)
	a, b := &conformity[0], &purchasing[0]
	good := seasonload.Submission{Entrant: a, Task: "conf-01", Body: seasonload.Body(a.DID, "conf-01", seasonNarrative)}
	first, err := client.Submit(a.Token, good.Body)
	require.NoError(t, err)
	server.Stop()
	before := storeSnapshot(t, database)

	// The bad calls, the service open.
	server = rig.start(t, svc, server.Port)
	bearer := func(token string) map[string]string { return map[string]string{"Authorization": "Bearer " + token} }
	unknown := make([]byte, 32)
	_, err = rand.Read(unknown)
	require.NoError(t, err)
	oversized := append(seasonload.Body(a.DID, "conf-02", int(seasonservice.SubmissionLimit)), ' ')
	wrongTrack := bytes.Replace(seasonload.Body(a.DID, "conf-02", 0), []byte(`"track":"conformite"`), []byte(`"track":"generique"`), 1)
	var rows []seasonInputRow
	for _, c := range []badSubmission{
		{name: "malformed JSON", header: bearer(a.Token), body: []byte(`{"season": 1, "track": "conformite",`), status: 422, code: "rejetee_entree", pointer: ""},
		{name: "over 1 MiB, with its Content-Length", header: bearer(a.Token), body: oversized, status: 413, code: "trop_volumineux"},
		{name: "over 1 MiB, chunked", header: bearer(a.Token), body: oversized, chunked: true, status: 413, code: "trop_volumineux"},
		{name: "another track's submission", header: bearer(a.Token), body: wrongTrack, status: 422, code: "rejetee_entree", pointer: "/track"},
		{name: "a submission on a track the enrollment is not on", header: bearer(b.Token), body: seasonload.Body(b.DID, "conf-02", 0), status: 422, code: "rejetee_entree", pointer: "/track"},
		{name: "another DID than the enrollment's", header: bearer(a.Token), body: seasonload.Body(b.DID, "conf-02", 0), status: 422, code: "rejetee_entree", pointer: "/agent_did"},
		{name: "a token never issued", header: bearer(base64.RawURLEncoding.EncodeToString(unknown)), body: seasonload.Body(a.DID, "conf-02", 0), status: 401, code: "jeton_inconnu"},
		{name: "a malformed token", header: bearer(a.Token + "x"), body: seasonload.Body(a.DID, "conf-02", 0), status: 401, code: "jeton_inconnu"},
		{name: "no token", body: seasonload.Body(a.DID, "conf-02", 0), status: 401, code: "jeton_inconnu"},
	} {
		rows = append(rows, sendBad(t, svc.URL(), c))
	}
	again, err := client.Submit(a.Token, good.Body)
	require.NoError(t, err)
	require.Equal(t, first, again, "the same bytes twice: the same answer, the same receipt")
	server.Stop()
	require.Equal(t, before, storeSnapshot(t, database), "the bad calls recorded nothing")

	// Past the record's close: a new version and an enrollment are refused,
	// the same bytes still answer their receipt.
	closed := filepath.Join(t.TempDir(), "preenregistrement.json")
	require.NoError(t, seasonload.Seal(servertest.RepoRoot(t), seasonload.Track, closed, filepath.Join(t.TempDir(), "sel"), seasonload.ClosedWindow(time.Now())))
	svc.Records = map[string]string{seasonload.Track.Name: closed}
	server = rig.start(t, svc, server.Port)
	rows = append(rows, sendBad(t, svc.URL(), badSubmission{name: "a new version after the close", header: bearer(a.Token),
		body: seasonload.Body(a.DID, "conf-02", 0), status: 409, code: "piste_fermee"}))
	late, err := seasonload.Enroll(rig.tl, client, seasonload.Track.Name, 1, 1)
	var refusal *participant.Refusal
	require.ErrorAs(t, err, &refusal, "an enrollment after the close: %v", late)
	require.Equal(t, http.StatusConflict, refusal.Status)
	require.Equal(t, "piste_fermee", refusal.Code)
	rows = append(rows, seasonInputRow{Request: "an enrollment after the close", Status: refusal.Status, Code: refusal.Code})
	resent, err := client.Submit(a.Token, good.Body)
	require.NoError(t, err)
	require.Equal(t, first, resent, "the bytes acknowledged before the close: the same receipt after it")
	server.Stop()
	require.Equal(t, before, storeSnapshot(t, database), "nothing recorded after the close")

	export := t.TempDir()
	require.NoError(t, seasonload.Export(context.Background(), database, seasonload.Track.Name, rig.publicKey(), export))
	audit, err := seasonload.CheckExport(export, seasonload.Track.Name, rig.publicKey(), []seasonload.Submission{good},
		[]seasonload.Outcome{{Status: 200, Accepted: first}})
	require.NoError(t, err)
	require.Equal(t, seasonload.Audit{Exported: 1, Receipts: 1, Acknowledged: 1}, audit)
	// Each bad submission twice, the enrollment once, the good bytes three times.
	figures.addSeason(seasonFault{Name: "bad input", Store: "SQLite", Topology: "Caddy alone", Submissions: 2*(len(rows)-1) + 3,
		Acknowledged: 3, Exported: audit.Exported, Figures: rows})
}

// seasonInputRow is one bad call and the refusal it got, for the report.
type seasonInputRow struct {
	Request string
	Status  int
	Code    string
}

// sendBad sends a bad call twice and requires the refusal it must get,
// the same bytes both times: a fixed JSON body of exactly the refusal's
// members.
func sendBad(t *testing.T, url string, c badSubmission) seasonInputRow {
	t.Helper()
	var bodies [][]byte
	for range 2 {
		var body io.Reader = bytes.NewReader(c.body)
		if c.chunked {
			body = io.MultiReader(body) // no length: sent chunked
		}
		req, err := http.NewRequest(http.MethodPost, fmt.Sprintf("%s/v1/season/%d/submit", url, seasonload.Number), body)
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		for k, v := range c.header {
			req.Header.Set(k, v)
		}
		resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
		require.NoError(t, err, c.name)
		data, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err, c.name)
		require.Equal(t, c.status, resp.StatusCode, "%s: %s", c.name, data)
		require.Equal(t, "application/json; charset=utf-8", resp.Header.Get("Content-Type"), c.name)
		var refusal map[string]string
		require.NoError(t, json.Unmarshal(data, &refusal), "%s: %s", c.name, data)
		members := []string{"erreur", "message"}
		if c.status == http.StatusUnprocessableEntity {
			members = append(members, "pointeur", "regle")
			require.Equal(t, c.pointer, refusal["pointeur"], "%s: %s", c.name, data)
		}
		got := make([]string, 0, len(refusal))
		for k := range refusal {
			got = append(got, k)
		}
		require.ElementsMatch(t, members, got, "%s: %s", c.name, data)
		require.Equal(t, c.code, refusal["erreur"], c.name)
		require.NotEmpty(t, refusal["message"], c.name)
		bodies = append(bodies, data)
	}
	require.Equal(t, string(bodies[0]), string(bodies[1]), "%s: the same refusal twice", c.name)
	request := c.name
	if c.pointer != "" {
		request += " (pointeur " + c.pointer + ")"
	}
	return seasonInputRow{Request: request, Status: c.status, Code: c.code}
}

// storeSnapshot is what the store at database holds of each track, as its
// export reads it, the service stopped: the enrollments, every receipt,
// each counted submission's bytes.
func storeSnapshot(t *testing.T, database string) string {
	t.Helper()
	ctx := context.Background()
	store, err := seasonstore.Open(ctx, database, seasonstore.Options{})
	require.NoError(t, err)
	defer store.Close()
	var b strings.Builder
	for _, track := range corpus.Tracks {
		var counted []seasonstore.Counted
		export, err := store.Export(ctx, seasonload.Number, track.Name, func(c seasonstore.Counted) error {
			counted = append(counted, c)
			return nil
		})
		require.NoError(t, err)
		data, err := json.Marshal(struct {
			Export  *seasonstore.Export
			Counted []seasonstore.Counted
		}{export, slices.Clip(counted)})
		require.NoError(t, err)
		b.Write(data)
		b.WriteByte('\n')
	}
	return b.String()
}
