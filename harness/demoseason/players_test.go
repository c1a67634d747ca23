package main

import (
	"encoding/json"
	"slices"
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
// on its board with the four reference members, every key a fingerprint,
// and the second enrollment bound to the first by one key or by the key's
// DID history.
func TestPlayers(t *testing.T) {
	for _, track := range corpus.Tracks {
		list := players(track)
		var ids []string
		for _, p := range list {
			ids = append(ids, p.ID)
			reference := p.Table == index.TableReference
			assert.Equal(t, reference, p.Model != nil && p.Version != nil && p.Framework != nil && p.Prompt != nil, p.ID)
			assert.Len(t, p.Key, 64)
			assert.Contains(t, p.DIDHistory, p.DID)
			assert.NotNil(t, p.strategy)
		}
		assert.Equal(t, []string{"reference", "prudente", "pressee", "devine", "prudente-bis"}, ids)
		careful, twin := list[1], list[4]
		sameKey := careful.Key == twin.Key
		assert.True(t, sameKey || slices.Contains(twin.DIDHistory, careful.DID), track.Name)
		assert.Equal(t, track == corpus.Conformity, sameKey, track.Name)
	}
}
