package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// proveit key derives each track's key from its design, byte for byte the
// checked-in one, and fails naming the task where the corpus does not bear
// the design out.
func TestKeyCommand(t *testing.T) {
	inRepoRoot(t)
	code, out, errOut := runCLI("key", "-check")
	require.Equal(t, 0, code, out+errOut)
	for _, track := range corpus.Tracks {
		assert.Contains(t, out, "OK "+season.KeyFile(track)+" is the key "+season.DesignFile(track)+" derives")
	}

	dir := t.TempDir()
	written := filepath.Join(dir, "cle.json")
	code, out, errOut = runCLI("key", "-track", "conformite", "-key", written)
	require.Equal(t, 0, code, out+errOut)
	want, err := os.ReadFile(season.KeyFile(corpus.Conformity))
	require.NoError(t, err)
	got, err := os.ReadFile(written)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))

	require.NoError(t, os.WriteFile(written, []byte(strings.Replace(string(got), `"P2"`, `"P3"`, 1)), 0o644))
	code, out, _ = runCLI("key", "-track", "conformite", "-key", written, "-check")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "FAIL "+written+" is not the key")

	design, err := season.ReadDesign(season.DesignFile(corpus.Conformity), "conformite")
	require.NoError(t, err)
	design.Tasks[1].Verdict = "indeterminable"
	altered := filepath.Join(dir, "conception.json")
	writeJSON(t, altered, design)
	code, out, _ = runCLI("key", "-track", "conformite", "-design", altered, "-key", filepath.Join(dir, "other.json"))
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "FAIL conf-02: the design says indeterminable, the rules applied to the corpus give non_conforme (rule: derivation)")
	assert.NoFileExists(t, filepath.Join(dir, "other.json"), "a design that fails writes no key")

	// A design the corpus bears out, whose key leaves no room: refused.
	design, err = season.ReadDesign(season.DesignFile(corpus.Conformity), "conformite")
	require.NoError(t, err)
	design.Tasks[0].Alternatives = append(design.Tasks[0].Alternatives, []season.Place{
		{Resource: "/agrements/AGR-4417", Field: "/activite"}, {Resource: "/agrements/AGR-4417", Field: "/date_debut"}, {Resource: "/agrements/AGR-4417", Field: "/date_fin_validite"}})
	writeJSON(t, altered, design)
	code, out, _ = runCLI("key", "-track", "conformite", "-design", altered, "-key", filepath.Join(dir, "other.json"))
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "takes 3 assertions, want at most its assertions_min 2 (rule: room)")
	assert.NoFileExists(t, filepath.Join(dir, "other.json"), "a key that breaks a rule is not written")
	code, _, errOut = runCLI("key", "-design", altered)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "-design names one track's file: say which with -track")
	code, _, errOut = runCLI("key", "-track", "generique", "-design", altered)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `/piste: "conformite", want "generique"`)
}

// proveit solve fails on a sealed key whose formula lacks an alternative
// the rules allow, an equivalent form, or room, naming the task and rule.
func TestSolveFailsOnAlteredKeys(t *testing.T) {
	inRepoRoot(t)
	code, out, errOut := runCLI("solve")
	require.Equal(t, 0, code, out+errOut)

	tests := []struct {
		name  string
		alter func(k *season.Key)
		want  string
	}{
		{"a missing alternative", func(k *season.Key) { k.Tasks[8].Founding = k.Tasks[8].Founding.Any[0] },
			"FAIL conf-09: the formula lacks an alternative the rules allow: the case R4, by /entites/ENT-9012 /attestations"},
		{"a missing equivalent form", func(k *season.Key) { k.Tasks[1].Founding.All[0].Fact.EquivalentForms = nil },
			`FAIL conf-02: fact 0 (/entites/ENT-2231 /agrements/0): lacks the equivalent form /entites/ENT-2231 /agrements = ["/agrements/AGR-5120"] (rule: forms)`},
		{"no room", func(k *season.Key) {
			start := season.Fact{Resource: "/agrements/AGR-4417", Field: "/date_debut", Value: json.RawMessage(`"2022-03-01"`)}
			activity := season.Fact{Resource: "/agrements/AGR-4417", Field: "/activite", Value: json.RawMessage(`"change-manuel"`)}
			k.Tasks[0].Founding = season.AllOf(k.Tasks[0].Founding, season.FactOf(start), season.FactOf(activity))
		}, "FAIL conf-01: the smallest set of facts that founds the verdict has 3 facts, want at most 2 (the control task's assertions_min 2) (rule: room)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key, err := season.ReadKey(season.KeyFile(corpus.Conformity))
			require.NoError(t, err)
			tt.alter(key)
			data, err := key.Encode()
			require.NoError(t, err)
			file := filepath.Join(t.TempDir(), "cle.json")
			require.NoError(t, os.WriteFile(file, data, 0o644))
			code, out, errOut := runCLI("solve", "-track", "conformite", "-key", file)
			assert.Equal(t, 1, code, errOut)
			assert.Contains(t, out, tt.want)
		})
	}
}
