package index

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// One participant per key: the same key, or DIDs that meet in a key's
// history, join enrollments; the earliest is ranked, then the export's
// order.
func TestRank(t *testing.T) {
	en := func(id, key, did, at string, history ...string) Enrollment {
		return Enrollment{ID: id, Agent: id, DID: did, Key: key, DIDHistory: history, EnrolledAt: at}
	}
	tests := []struct {
		name      string
		in        []Enrollment
		ranked    []string
		notRanked []Unranked
	}{
		{"distinct keys and DIDs", []Enrollment{en("a", "k1", "did:a", "2026-03-10T00:00:00Z"), en("b", "k2", "did:b", "2026-03-10T00:00:00Z")},
			[]string{"a", "b"}, nil},
		{"one key, the earlier ranked", []Enrollment{en("a", "k1", "did:a", "2026-03-11T00:00:00Z"), en("b", "k1", "did:b", "2026-03-10T00:00:00Z")},
			[]string{"b"}, []Unranked{{ID: "a", Agent: "a", DID: "did:a", Reason: SameKey, RankedAs: "b"}}},
		{"a DID in another key's history", []Enrollment{en("a", "k1", "did:a", "2026-03-10T00:00:00Z", "did:a"), en("b", "k2", "did:b", "2026-03-12T00:00:00Z", "did:a", "did:b")},
			[]string{"a"}, []Unranked{{ID: "b", Agent: "b", DID: "did:b", Reason: SameKey, RankedAs: "a"}}},
		{"joined through a third", []Enrollment{
			en("a", "k1", "did:a", "2026-03-10T00:00:00Z"), en("c", "k3", "did:c", "2026-03-09T00:00:00Z"),
			en("b", "k1", "did:b", "2026-03-12T00:00:00Z", "did:c")},
			[]string{"c"}, []Unranked{{ID: "a", Agent: "a", DID: "did:a", Reason: SameKey, RankedAs: "c"}, {ID: "b", Agent: "b", DID: "did:b", Reason: SameKey, RankedAs: "c"}}},
		{"a tie on time: the export's order", []Enrollment{en("z", "k1", "did:z", "2026-03-10T00:00:00Z"), en("a", "k1", "did:a", "2026-03-10T00:00:00Z")},
			[]string{"z"}, []Unranked{{ID: "a", Agent: "a", DID: "did:a", Reason: SameKey, RankedAs: "z"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := (&Enrollments{Enrollments: tt.in}).Rank()
			var ranked []string
			for _, e := range r.Ranked {
				ranked = append(ranked, e.ID)
			}
			assert.Equal(t, tt.ranked, ranked)
			assert.Equal(t, tt.notRanked, r.NotRanked)
		})
	}
}

// Rows read success first, then overclaim at equal success (none last),
// then the id; equal figures share a rank.
func TestSortAndRanks(t *testing.T) {
	rate := func(f float64) *float64 { return &f }
	row := func(id string, founded int, r *float64) Row {
		return Row{ID: id, Success: Success{Founded: founded, OutOf: 10}, Overclaim: Overclaim{Rate: r}}
	}
	rows := []Row{row("e", 5, nil), row("d", 5, rate(0.1)), row("c", 9, rate(0.5)), row("b", 5, rate(0.1)), row("a", 5, rate(0))}
	sortRows(rows)
	var ids []string
	for _, r := range rows {
		ids = append(ids, r.ID)
	}
	assert.Equal(t, []string{"c", "a", "b", "d", "e"}, ids)
	assert.Equal(t, []int{1, 2, 3, 3, 5}, ranks(rows))
}

func TestPointLabel(t *testing.T) {
	assert.Equal(t, "1,2", pointLabel([]string{"1", "2"}))
	assert.Equal(t, "1,2,3,4,5… (7 lignes)", pointLabel([]string{"1", "2", "3", "4", "5", "6", "7"}))
}

func TestPercent(t *testing.T) {
	assert.Equal(t, "0\u00a0%", percent(0))
	assert.Equal(t, "12,5\u00a0%", percent(0.125))
	assert.Equal(t, "30,3\u00a0%", percent(10.0/33))
	assert.Equal(t, "100\u00a0%", percent(1))
}
