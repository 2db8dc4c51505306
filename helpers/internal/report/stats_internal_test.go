package report

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// naiveResampledMedian draws n indices with replacement and takes the
// median of their values: the bootstrap by its definition.
func naiveResampledMedian(sorted []float64, rng *rand.Rand) float64 {
	n := len(sorted)
	draw := make([]float64, n)
	for i := range draw {
		draw[i] = sorted[rng.IntN(n)]
	}
	slices.Sort(draw)
	return median(draw)
}

// The constant-time resampled median has the distribution of the
// bootstrap's definition: for odd and even groups, with ties and without,
// the two empirical distributions of 20,000 draws differ by less than 0.02
// at every value (a Kolmogorov-Smirnov distance).
func TestResampledMedianMatchesDefinition(t *testing.T) {
	data := rand.New(rand.NewPCG(5, 5))
	for _, n := range []int{10, 11, 30, 31, 120} {
		for _, ties := range []bool{false, true} {
			sorted := make([]float64, n)
			for i := range sorted {
				sorted[i] = 30 * math.Exp(0.5*data.NormFloat64())
				if ties {
					sorted[i] = math.Round(sorted[i] / 5)
				}
			}
			slices.Sort(sorted)
			const draws = 20000
			fast := make([]float64, draws)
			slow := make([]float64, draws)
			rf := rand.New(rand.NewPCG(uint64(n), 1))
			rs := rand.New(rand.NewPCG(uint64(n), 2))
			for i := range draws {
				fast[i] = resampledMedian(sorted, rf)
				slow[i] = naiveResampledMedian(sorted, rs)
			}
			if d := ksDistance(fast, slow); d > 0.02 {
				t.Errorf("n=%d ties=%v: distance %.4f between the fast and the defining resample", n, ties, d)
			}
		}
	}
}

// ksDistance is the largest difference of two samples' empirical
// distribution functions.
func ksDistance(a, b []float64) float64 {
	slices.Sort(a)
	slices.Sort(b)
	var i, j int
	d := 0.0
	for i < len(a) && j < len(b) {
		x := min(a[i], b[j])
		for i < len(a) && a[i] == x {
			i++
		}
		for j < len(b) && b[j] == x {
			j++
		}
		d = max(d, math.Abs(float64(i)/float64(len(a))-float64(j)/float64(len(b))))
	}
	return d
}
