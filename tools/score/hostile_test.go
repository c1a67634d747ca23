package score

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A submission is read in time linear in its size, up to the most it may
// hold, and refused past it (before, a 2 MB one took 42 s).
func TestSubmissionOfMostSize(t *testing.T) {
	s, _ := newScorer(t)
	valid := string(submission(t, s, "conf-01", "conforme", conf01Facts))
	fill := func(old, repeat, then string) string {
		var b strings.Builder
		for i := 0; b.Len()+len(valid)+64 < int(SubmissionLimit.Bytes); i++ {
			fmt.Fprintf(&b, repeat, i)
		}
		out := strings.Replace(valid, old, old+b.String()+then, 1)
		require.NotEqual(t, valid, out)
		return out
	}
	tests := []struct {
		name, doc, pointer, rule string
	}{
		{"disclosures of many proofs", fill(`"disclosures":{`, `"p%d":{},`, ""), "/disclosures/p0", `champ "request_hash" manquant`},
		{"many keys in a claim", fill(`"claim":{`, `"k%d":0,`, ""), "/assertions/0/claim/k0", "champ inconnu"},
		{"many proofs cited", fill(`"proof_ids":[`, `"p%d",`, ""), "/assertions/0/proof_ids/0", "est citée mais /disclosures n'a pas d'entrée"},
		{"a key repeated at the end of many", fill(`"disclosures":{`, `"p%d":{},`, `"p7":{},`), "/disclosures/p7", "duplicate key"},
		{"one byte over its size", valid + strings.Repeat(" ", int(SubmissionLimit.Bytes)+1-len(valid)), "(root)", "1048577 octets, au-delà des 1048576 qu'une soumission peut contenir"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, err := ParseSubmission("sub.json", []byte(tt.doc))
			t.Logf("%d bytes read in %v", len(tt.doc), time.Since(start))
			var entry *entryError
			require.ErrorAs(t, err, &entry)
			assert.True(t, strings.HasPrefix(err.Error(), tt.pointer+":"), "%v", err)
			assert.Contains(t, err.Error(), tt.rule)
		})
	}
}

// The table shows what a submission wrote (its task id, an assertion id,
// a reason quoting it) printable: no escape sequence, no forged line.
func TestTextReportPrintable(t *testing.T) {
	forged := "\x1b[2J\nconf-01  rendue"
	r := &Report{Tasks: []TaskReport{{TaskID: forged, Status: Rendered, Reason: &forged, Verdict: &forged,
		Assertions: []AssertionReport{{ID: forged, Status: Unsupported, Cause: ptr(Cause("preuve_invalide"))}}}}}
	text := r.Text()
	assert.Contains(t, text, `\x1b[2J\nconf-01  rendue`)
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		assert.False(t, strings.HasPrefix(line, "conf-01"), "a forged line: %q", line)
		for _, r := range line {
			assert.True(t, unicode.IsGraphic(r), "%q in %q", r, line)
		}
	}
}
