package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/arkforge/proveit-corpus/corpus"
	"github.com/arkforge/proveit-corpus/tools/index"
	"github.com/arkforge/proveit-corpus/tools/season"
)

// What the hurried player writes instead of what it read: always another
// value of the same kind, never one it could not guess.
func TestAssumedValue(t *testing.T) {
	tests := []struct {
		read, assumed string
		ok            bool
	}{
		{`true`, `false`, true},
		{`"2026-09-29"`, `"2027-09-29"`, true},
		{`"retire"`, `"valide"`, true},
		{`"valide"`, `"actif"`, true},
		{`["/agrements/AGR-1"]`, ``, false},
		{`{"a": 1}`, ``, false},
		{`null`, ``, false},
		{`not json`, ``, false},
	}
	for _, tt := range tests {
		t.Run(tt.read, func(t *testing.T) {
			got, ok := assumedValue(json.RawMessage(tt.read))
			assert.Equal(t, tt.ok, ok)
			if ok {
				assert.JSONEq(t, tt.assumed, string(got))
				assert.NotEqual(t, tt.read, string(got))
			}
		})
	}
}

// The guess is the key's most frequent verdict, the first in order on a
// tie; the season's tracks have one such verdict each.
func TestMostFrequentVerdict(t *testing.T) {
	key := func(verdicts ...string) *season.Key {
		k := &season.Key{}
		for _, v := range verdicts {
			k.Tasks = append(k.Tasks, season.KeyTask{Verdict: v})
		}
		return k
	}
	assert.Equal(t, "b", mostFrequentVerdict(key("a", "b", "b", "c")))
	assert.Equal(t, "a", mostFrequentVerdict(key("c", "a", "c", "a")), "a tie: the first in order")
	assert.Equal(t, "", mostFrequentVerdict(key()))
}

// Each track's players: five, in enrollment order, the reference run alone
// on its board with the four reference members; the second enrollment of
// the careful operator is refused on the conformity track (the same key)
// and enrolled on the other (a second key).
func TestPlayers(t *testing.T) {
	for _, track := range corpus.Tracks {
		list := players(track)
		var roles []string
		for _, p := range list {
			roles = append(roles, p.role)
			reference := p.Table == index.TableReference
			assert.Equal(t, reference, p.Model != nil && p.Version != nil && p.Framework != nil && p.Prompt != nil, p.role)
			assert.NotNil(t, p.strategy)
			assert.NotNil(t, p.identify)
			assert.Empty(t, p.ID, "the service gives the ids")
		}
		assert.Equal(t, []string{"reference", "prudente", "pressee", "devine", "prudente-bis"}, roles)
		if track == corpus.Conformity {
			assert.Equal(t, "deja_inscrite", list[4].refusedAs, track.Name)
		} else {
			assert.Empty(t, list[4].refusedAs, track.Name)
		}
	}
}
