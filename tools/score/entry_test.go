package score_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/tools/score"
	"github.com/arkforge/proveit-corpus/tools/season"
	_ "github.com/arkforge/proveit-corpus/tools/tracks/all"
)

// TestEntryCheck: the entry check the season service calls refuses what
// the replay reports rejected at entry, each with its pointer and rule.
func TestEntryCheck(t *testing.T) {
	track, err := corpus.TrackNamed("conformite")
	require.NoError(t, err)
	name, data := season.EmbeddedTasks(track)
	tasks, err := season.DecodeTasks(name, data)
	require.NoError(t, err)
	check, err := score.NewEntryCheck(tasks)
	require.NoError(t, err)

	assertion := func(id, value string) string {
		return `{"id":"` + id + `","claim":{"resource":"/agrements/AGR-4417","field":"/statut","value":"` + value + `"},"proof_ids":["prf_1"]}`
	}
	submission := func(season, track, task, verdict string, assertions ...string) string {
		return `{"season":` + season + `,"track":"` + track + `","task_id":"` + task + `","agent_did":"did:key:z6MkA","verdict":"` + verdict +
			`","assertions":[` + strings.Join(assertions, ",") + `],"disclosures":{"prf_1":{"request_hash":{"nonce":"n","value":"v"},"response_hash":{"nonce":"n","value":"v"}}}}`
	}
	for _, c := range []struct {
		name, body, pointer string
	}{
		{"accepted", submission("1", "conformite", "conf-01", "conforme", assertion("a1", "x")), ""},
		{"not JSON", `{"season":`, "/season"},
		{"unknown member", `{"saison":1}`, "/saison"},
		{"another season", submission("2", "conformite", "conf-01", "conforme", assertion("a1", "x")), "/season"},
		{"another track", submission("1", "generique", "gen-01", "conforme", assertion("a1", "x")), "/track"},
		{"unknown task", submission("1", "conformite", "conf-99", "conforme", assertion("a1", "x")), "/task_id"},
		{"verdict", submission("1", "conformite", "conf-01", "peut-etre", assertion("a1", "x")), "/verdict"},
		{"ceiling", submission("1", "conformite", "conf-01", "conforme",
			assertion("a1", "1"), assertion("a2", "2"), assertion("a3", "3"), assertion("a4", "4"), assertion("a5", "5")), "/assertions"},
		{"same triplet twice", submission("1", "conformite", "conf-01", "conforme", assertion("a1", "x"), assertion("a2", "x")), "/assertions/1/claim"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := check.Check("s.json", []byte(c.body))
			if c.pointer == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			pointer, rule, ok := score.EntryRefusal(err)
			require.True(t, ok, "%v", err)
			assert.Equal(t, c.pointer, pointer)
			assert.NotEmpty(t, rule)
		})
	}
	_, _, ok := score.EntryRefusal(assert.AnError)
	assert.False(t, ok)
}
