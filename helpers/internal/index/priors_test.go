package index

import (
	"math"
	"slices"
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
		if got := prior(e, tc.effect); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("prior(status %q, effect %q, type %s) = %v, want %v", tc.status, tc.effect, tc.typ, got, tc.want)
		}
	}
}

// Three entries that match a query equally: curation's canonical one
// first, the plain one next, the one under review last.
func TestStatusPriorsOrderEqualMatches(t *testing.T) {
	s := newStore(t)
	es := []knowledge.Entry{
		{Key: "fact-quokka-a-aaaaaa", Type: "fact", Content: "quokka feeding runs at noon", TS: 100},
		{Key: "fact-quokka-b-bbbbbb", Type: "fact", Content: "quokka feeding runs at dusk", TS: 100},
		{Key: "fact-quokka-c-cccccc", Type: "fact", Content: "quokka feeding runs at dawn", TS: 100},
	}
	if _, err := s.Insert(es); err != nil {
		t.Fatal(err)
	}
	review, canon := es[0], es[2]
	review.TS, review.Status, review.ReviewReason = 200, knowledge.StatusNeedsReview, "stale"
	canon.TS, canon.Status, canon.MergedFrom = 200, knowledge.StatusCanonical, []string{"fact-quokka-x-dddddd"}
	if err := s.InsertLines([][]byte{mkLine(review), mkLine(canon)}); err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t, s)
	mustSync(t, ix)
	got := hitKeys(search(t, ix, Query{Text: "quokka feeding"}))
	want := []string{canon.Key, es[1].Key, review.Key}
	if !slices.Equal(got, want) {
		t.Errorf("order = %v, want %v", got, want)
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
		if got := prefixed(tc.term); got != tc.want {
			t.Errorf("prefixed(%q) = %v, want %v", tc.term, got, tc.want)
		}
	}
}

func TestQuoteTermsPrefix(t *testing.T) {
	for _, tc := range []struct {
		terms []string
		op    string
		want  string
	}{
		{[]string{"health", "db"}, "OR", `"health"* OR "db"`},
		{[]string{"running", "webhook"}, "AND", `"running" AND "webhook"*`},
		{[]string{`a"b`}, "OR", `"a""b"`},
		{[]string{`sneaky"quote`}, "OR", `"sneaky""quote"*`},
	} {
		if got := quoteTerms(tc.terms, tc.op); got != tc.want {
			t.Errorf("quoteTerms(%q, %s) = %s, want %s", tc.terms, tc.op, got, tc.want)
		}
	}
}

// A long term finds the identifiers it starts; a term whose stem is short
// does not reach unrelated words.
func TestSearchPrefix(t *testing.T) {
	s := newStore(t)
	es := []knowledge.Entry{
		{Key: "pattern-probes-aaaaaa", Type: "pattern", Content: "Liveness probes hit /healthz, which only checks that the process responds", TS: 10},
		{Key: "fact-secret-bbbbbb", Type: "fact", Content: "The ledger reads LEDGER_WEBHOOKSECRET from the environment at startup", TS: 11},
		{Key: "fact-runtime-cccccc", Type: "fact", Content: "The edge runtime has no Node crypto module", TS: 12},
	}
	if _, err := s.Insert(es); err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t, s)
	mustSync(t, ix)
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"health", []string{"pattern-probes-aaaaaa"}},
		{"webhook", []string{"fact-secret-bbbbbb"}},
		{"running", nil},
	} {
		if got := hitKeys(search(t, ix, Query{Text: tc.query})); !slices.Equal(got, tc.want) {
			t.Errorf("search %q = %v, want %v", tc.query, got, tc.want)
		}
	}
}
