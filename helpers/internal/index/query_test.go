package index

import (
	"slices"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

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
		if got := hitKeys(search(t, ix, testQuery{Text: tc.query})); !slices.Equal(got, tc.want) {
			t.Errorf("search %q = %v, want %v", tc.query, got, tc.want)
		}
	}
}
