package main

import (
	"slices"
)

// The serving goals compare the corpus server with the `respond` floor. Run
// one after the other, minutes apart, the two closed-loop runs of the serving
// table see a virtual machine whose speed drifts by more than the goal's
// margin. The paired runs below start both servers and drive them in turn,
// in short runs, so that each round's ratio compares the two at the same
// moment; the goals read the median of the rounds' ratios.

// pairedRound is one run of each server, back to back.
type pairedRound struct {
	Corpus, Floor *closedResult
	CorpusFirst   bool
}

// pairedRun is the rounds of one corpus.
type pairedRun struct {
	Rounds []pairedRound
	Error  string // why the paired runs did not complete
}

// RPSRatio and P99Ratio are the round's ratios of the corpus server to the
// floor.
func (r pairedRound) RPSRatio() float64 { return r.Corpus.RPS() / r.Floor.RPS() }
func (r pairedRound) P99Ratio() float64 {
	return float64(r.Corpus.P99US) / float64(r.Floor.P99US)
}

// rounds is how many rounds were run, 0 without paired runs.
func (p *pairedRun) rounds() int {
	if p == nil {
		return 0
	}
	return len(p.Rounds)
}

// MedianRPSRatio and MedianP99Ratio are the medians the serving goals read.
func (p *pairedRun) MedianRPSRatio() float64 { return p.medianOf(pairedRound.RPSRatio) }
func (p *pairedRun) MedianP99Ratio() float64 { return p.medianOf(pairedRound.P99Ratio) }

// medianOf returns the median of what each round gives (the lower middle one
// of an even count), or 0 without rounds.
func (p *pairedRun) medianOf(of func(pairedRound) float64) float64 {
	if p.rounds() == 0 {
		return 0
	}
	values := make([]float64, len(p.Rounds))
	for i, r := range p.Rounds {
		values[i] = of(r)
	}
	return lowerMedian(values)
}

// lowerMedian is the median of values, the lower middle one of an even
// count, so that it is always one of them; values is sorted in place.
func lowerMedian(values []float64) float64 {
	slices.Sort(values)
	return values[(len(values)-1)/2]
}

// pairedLoop starts the corpus server and the floor side by side on the
// server CPU, warms both, then drives them in turn for b.pairs rounds of
// b.pairDuration each, alternating which goes first so that a drift within a
// round favours neither.
func (b *bench) pairedLoop(c *corpusSet, mix string) *pairedRun {
	run := &pairedRun{}
	fail := func(err error) *pairedRun {
		run.Error = err.Error()
		b.log("%s: paired runs: %v", c.Name, err)
		return run
	}
	var servers [2]*server
	for i, key := range []string{keyCorpus, keyRespond} {
		s, err := b.startServer(c, setupOf(key))
		if err != nil {
			return fail(err)
		}
		defer s.Stop()
		if _, err := b.runWrk(s, mix, b.warmup); err != nil {
			return fail(err)
		}
		servers[i] = s
	}
	for round := range b.pairs {
		r := pairedRound{CorpusFirst: round%2 == 0}
		order := []int{0, 1}
		if !r.CorpusFirst {
			order = []int{1, 0}
		}
		for _, i := range order {
			res, err := b.runWrk(servers[i], mix, b.pairDuration)
			if err != nil {
				return fail(err)
			}
			if i == 0 {
				r.Corpus = res
			} else {
				r.Floor = res
			}
		}
		run.Rounds = append(run.Rounds, r)
	}
	return run
}

// setupOf returns the setup of a key.
func setupOf(key string) setup {
	for _, s := range setups() {
		if s.Key == key {
			return s
		}
	}
	panic("bench: no setup " + key)
}
