package relevance

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
		{knowledge.StatusCanonical, "", "learned", priorCanonical},
		{knowledge.StatusNeedsReview, "", "learned", priorNeedsReview},
		{"", audit.EffectFlagged, "learned", priorNeedsReview},
		{knowledge.StatusCanonical, audit.EffectFlagged, "learned", priorCanonical * priorNeedsReview},
		{knowledge.StatusNeedsReview, audit.EffectFlagged, "learned", priorNeedsReview * priorNeedsReview},
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

func TestPrefixed(t *testing.T) {
	for _, tc := range []struct {
		term string
		want bool
	}{
		{"health", true},      // finds healthz
		{"service", true},     // stem servic: finds serviceaccount
		{"webhook", true},     // finds webhooksecret
		{"connections", true}, // stem connect
		{"stripe", false},     // stem strip
		{"running", false},    // stem runn; FTS5 would search run*
		{"caching", false},    // stem cach
		{"pgx", false},        // short
		{"idempotency", true}, // long
		{"deadlock", true},    // no suffix to strip
		{"db", false},         // short
		{"authentication", true},
	} {
		if got := Prefixed(tc.term); got != tc.want {
			t.Errorf("Prefixed(%q) = %v, want %v", tc.term, got, tc.want)
		}
	}
}
