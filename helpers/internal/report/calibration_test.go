package report_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/report"
)

// synthetic draws n sessions' tool calls: a log-normal count around
// median 30, times factor (recall's effect), rounded as a count is.
func synthetic(rng *rand.Rand, n int, factor float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = math.Round(factor * 30 * math.Exp(0.5*rng.NormFloat64()))
	}
	return out
}

// The interval is calibrated: with a planted effect (20% fewer tool
// calls with recall, a true difference of medians of -6), it covers the
// effect in at least 90 of 100 seeded runs; with no effect it excludes
// zero in at most 10.
func TestCalibration(t *testing.T) {
	const runs = 100
	covered, falseAlarms := 0, 0
	for run := range runs {
		data := rand.New(rand.NewPCG(uint64(run), 1))
		boot := rand.New(rand.NewPCG(uint64(run), 2))
		c := report.Compare(synthetic(data, 120, 0.8), synthetic(data, 30, 1), boot)
		if !c.Enough {
			t.Fatal("not enough sessions")
		}
		if c.Low <= -6 && -6 <= c.High {
			covered++
		}
		n := report.Compare(synthetic(data, 120, 1), synthetic(data, 30, 1), boot)
		if n.Low > 0 || n.High < 0 {
			falseAlarms++
		}
	}
	t.Logf("effect covered in %d of %d runs; no effect called one in %d", covered, runs, falseAlarms)
	if covered < 90 {
		t.Errorf("the interval covered the true effect in %d of %d runs, want at least 90", covered, runs)
	}
	if falseAlarms > 10 {
		t.Errorf("with no effect the interval excluded zero in %d of %d runs, want at most 10", falseAlarms, runs)
	}
}
