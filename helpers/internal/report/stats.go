package report

import (
	"math/rand/v2"
	"slices"
)

// Resamples is how many bootstrap resamples an interval is drawn from.
const Resamples = 2000

// MinSessions is the fewest sessions each group needs before a figure is
// given a difference and an interval.
const MinSessions = 10

// Seed seeds the bootstrap, so that one report of the same sessions is
// the same report every time.
const Seed = 38

// Compared is one figure of one agent's sessions: each group's median,
// the difference (with recall minus without) and its 95% bootstrap
// interval.
type Compared struct {
	With    Group `json:"with_recall"`
	Without Group `json:"without_recall"`
	// Enough is false when a group has fewer than MinSessions sessions:
	// no difference, no interval.
	Enough     bool    `json:"enough"`
	Difference float64 `json:"difference"`
	Low        float64 `json:"low"`
	High       float64 `json:"high"`
}

// Group is one group's sessions for one figure.
type Group struct {
	N      int     `json:"n"`
	Median float64 `json:"median"`
	// Values, sorted, for the picture and the bootstrap (not exported).
	Values []float64 `json:"-"`
}

// Compare compares two groups' values (either may be reordered) with a
// percentile bootstrap of the difference of medians, drawn from rng.
func Compare(with, without []float64, rng *rand.Rand) Compared {
	slices.Sort(with)
	slices.Sort(without)
	c := Compared{
		With:    Group{N: len(with), Median: median(with), Values: with},
		Without: Group{N: len(without), Median: median(without), Values: without},
	}
	if len(with) < MinSessions || len(without) < MinSessions {
		return c
	}
	c.Enough = true
	c.Difference = c.With.Median - c.Without.Median
	diffs := make([]float64, Resamples)
	cw := make([]int32, len(with))
	co := make([]int32, len(without))
	for i := range diffs {
		diffs[i] = resampledMedian(with, cw, rng) - resampledMedian(without, co, rng)
	}
	slices.Sort(diffs)
	c.Low = diffs[int(0.025*Resamples)]
	c.High = diffs[int(0.975*Resamples)-1]
	return c
}

// median of sorted values (0 for none).
func median(sorted []float64) float64 {
	n := len(sorted)
	switch {
	case n == 0:
		return 0
	case n%2 == 1:
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// resampledMedian is the median of a resample with replacement of
// sorted, in O(n) and without sorting: the resample is counted per index
// of sorted (counts is scratch of its length), and the median read off the
// running total.
func resampledMedian(sorted []float64, counts []int32, rng *rand.Rand) float64 {
	n := len(sorted)
	clear(counts)
	for range n {
		counts[rng.IntN(n)]++
	}
	// The values at ranks lo and hi (0-based) of the resample.
	lo, hi := (n-1)/2, n/2
	var a, b float64
	seen := 0
	found := false
	for i, c := range counts {
		if c == 0 {
			continue
		}
		next := seen + int(c)
		if !found && lo < next {
			a, found = sorted[i], true
		}
		if hi < next {
			b = sorted[i]
			break
		}
		seen = next
	}
	return (a + b) / 2
}

// newRNG is the report's seeded generator.
func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }
