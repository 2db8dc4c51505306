package report

import (
	"math"
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
	// NotRecordedBy names the agent whose transcripts do not record this
	// figure (then Enough is false).
	NotRecordedBy string `json:"not_recorded_by,omitempty"`
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
	for i := range diffs {
		diffs[i] = resampledMedian(with, rng) - resampledMedian(without, rng)
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
// sorted, drawn in constant time: a resample's value of rank k (1-based)
// is sorted[floor(n*U)], where U is the k-th smallest of n uniform draws,
// and that order statistic is Beta(k, n+1-k); the next order statistic
// is the smallest of the n-k draws above it. This is the same
// distribution as drawing n indices and taking their median, without the
// n draws.
func resampledMedian(sorted []float64, rng *rand.Rand) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	k := (n-1)/2 + 1 // the rank of the lower median
	u := betaVariate(float64(k), float64(n+1-k), rng)
	a := sorted[index(u, n)]
	if n%2 == 1 {
		return a
	}
	// The (k+1)-th smallest: u plus the smallest of n-k uniforms on (u, 1).
	v := u + (1-u)*(1-math.Pow(1-rng.Float64(), 1/float64(n-k)))
	return (a + sorted[index(v, n)]) / 2
}

// index is the position of a uniform draw u in [0, 1) among n values.
func index(u float64, n int) int {
	return min(max(int(u*float64(n)), 0), n-1)
}

// betaVariate draws from Beta(a, b), a and b at least 1, as X/(X+Y) of
// two gamma variates.
func betaVariate(a, b float64, rng *rand.Rand) float64 {
	x := gammaVariate(a, rng)
	return x / (x + gammaVariate(b, rng))
}

// gammaVariate draws from Gamma(a, 1), a at least 1 (Marsaglia and
// Tsang's method).
func gammaVariate(a float64, rng *rand.Rand) float64 {
	d := a - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}

// newRNG is the report's seeded generator.
func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }
