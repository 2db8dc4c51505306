package rank

import (
	"math"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/audit"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

func TestPrior(t *testing.T) {
	for _, tc := range []struct {
		status, effect, typ string
		want                float64
	}{
		{"", "", "learned", 1},
		{knowledge.StatusCanonical, "", "learned", Default.PriorCanonical},
		{knowledge.StatusNeedsReview, "", "learned", Default.PriorNeedsReview},
		{"", audit.EffectFlagged, "learned", Default.PriorFlagged},
		{knowledge.StatusCanonical, audit.EffectFlagged, "learned", Default.PriorCanonical * Default.PriorFlagged},
		{knowledge.StatusNeedsReview, audit.EffectFlagged, "learned", Default.PriorNeedsReview * Default.PriorFlagged},
		// The type of an entry does not move it.
		{"", "", "must-check", 1},
		{"", "", "decision", 1},
	} {
		e := knowledge.Entry{Key: "k", Type: tc.typ, Status: tc.status, TS: 1}
		if got := Prior(e, tc.effect); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("Prior(status %q, effect %q, type %s) = %v, want %v", tc.status, tc.effect, tc.typ, got, tc.want)
		}
	}
}

func TestFactorsMultiplyToPrior(t *testing.T) {
	for _, status := range []string{"", knowledge.StatusCanonical, knowledge.StatusNeedsReview, knowledge.StatusSuperseded} {
		for _, effect := range []string{"", audit.EffectFlagged, audit.EffectRemoved} {
			e := knowledge.Entry{Key: "k", Type: "decision", Status: status, TS: 1}
			f := 1.0
			for _, x := range Factors(e, effect) {
				f *= x.Factor
			}
			if want := Prior(e, effect); math.Abs(f-want) > 1e-12 {
				t.Errorf("status %q effect %q: factors give %v, Prior %v", status, effect, f, want)
			}
		}
	}
}
