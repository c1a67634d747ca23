package score

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/arkforge/proveit-corpus/tools/proofs"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// The table names the failed checks of each proof an unsupported
// assertion cites, and writes values as people read them: UTF-8, one line.
func TestTextReport(t *testing.T) {
	fact := func(value string) season.Fact {
		return season.Fact{Resource: "/beneficiaires/ENT-6021", Field: "/entrees/0/prenoms", Value: json.RawMessage(value)}
	}
	tests := []struct {
		name      string
		task      TaskReport
		want      []string
		wantNotIn []string
	}{
		{
			name: "the failed checks of each proof, by name",
			task: TaskReport{TaskID: "conf-01", Status: Rendered, Assertions: []AssertionReport{{ID: "a1", Status: Unsupported, Cause: ptr(InvalidProof),
				Failures: map[string][]proofs.Check{
					"prf_20260923_072144_bbbbbb": {proofs.CheckSignature},
					"prf_20260923_072144_aaaaaa": {proofs.CheckResponsePair, proofs.CheckRekorSET},
				}}}},
			want: []string{
				"         assertion a1: non_etayee (preuve_invalide)\n" +
					"           preuve prf_20260923_072144_aaaaaa: paire_response_hash, rekor_set\n" +
					"           preuve prf_20260923_072144_bbbbbb: signature\n",
			},
		},
		{
			name: "a name in UTF-8",
			task: TaskReport{TaskID: "conf-06", Status: Rendered, MissingFacts: []season.Fact{fact(`"H\u00e9l\u00e8ne"`)}},
			want: []string{`fait manquant: /beneficiaires/ENT-6021 /entrees/0/prenoms = "Hélène"` + "\n"}, wantNotIn: []string{`\u00e9`},
		},
		{
			name: "a list on one line",
			task: TaskReport{TaskID: "conf-06", Status: Rendered, MissingFacts: []season.Fact{fact("[\n  \"Zo\\u00e9\",\n  \"Ana\\u00efs\"\n]")}},
			want: []string{`= ["Zoé", "Anaïs"]` + "\n"},
		},
		{
			name: "a value that would reorder the line, escaped",
			task: TaskReport{TaskID: "conf-06", Status: Rendered, MissingFacts: []season.Fact{fact(`"abc\u202edef"`)}},
			want: []string{`= \"abc\u202edef\"` + "\n"}, wantNotIn: []string{"\u202e"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := (&Report{Tasks: []TaskReport{tt.task}}).Text()
			for _, want := range tt.want {
				assert.Contains(t, text, want)
			}
			for _, not := range tt.wantNotIn {
				assert.NotContains(t, text, not)
			}
		})
	}
}
