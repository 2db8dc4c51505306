package index

import (
	"slices"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

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
