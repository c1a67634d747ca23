package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMedianRound(t *testing.T) {
	round := func(service, store float64) *seasonRow { return &seasonRow{Rate: service, StoreRate: store} }
	tests := []struct {
		name       string
		rows       []*seasonRow
		keep       int
		wantRounds []float64
	}{
		{"one round", []*seasonRow{round(80, 100)}, 0, []float64{0.8}},
		{"the middle of three, wherever it ran", []*seasonRow{round(90, 100), round(50, 100), round(70, 100)}, 2, []float64{0.9, 0.5, 0.7}},
		{"the lower middle of four", []*seasonRow{round(90, 100), round(60, 100), round(85, 100), round(70, 100)}, 3, []float64{0.9, 0.6, 0.85, 0.7}},
		{"a store that did not run counts as 0", []*seasonRow{round(90, 100), round(90, 0), round(70, 100)}, 2, []float64{0.9, 0, 0.7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			kept := medianRound(tt.rows)
			assert.Same(t, tt.rows[tt.keep], kept)
			assert.InDeltaSlice(t, tt.wantRounds, kept.Rounds, 1e-9, "every round's ratio, in the order they ran")
		})
	}
}
