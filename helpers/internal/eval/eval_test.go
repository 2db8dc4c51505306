package eval_test

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/eval"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

func TestReadQueries(t *testing.T) {
	data := "\n" +
		`{"query":"oauth redirect","relevant_keys":["k1","k2"],"kind":"exact","notes":"extra","n":3}` + "\n" +
		"   \n" +
		`{"query":"nothing here","relevant_keys":[]}` + "\r\n" +
		"\t\n" +
		`{"query":"no keys field","kind":"negative","extra":{"nested":[1,2]}}` + "\n" +
		`  {"relevant_keys":["k3"],"query":"  padded  "}  ` // no final newline
	got, err := eval.ReadQueries([]byte(data))
	if err != nil {
		t.Fatalf("ReadQueries: %v", err)
	}
	want := []eval.Query{
		{Query: "oauth redirect", RelevantKeys: []string{"k1", "k2"}, Kind: "exact"},
		{Query: "nothing here", RelevantKeys: []string{}},
		{Query: "no keys field", Kind: "negative"},
		{Query: "  padded  ", RelevantKeys: []string{"k3"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ReadQueries =\n%#v\nwant\n%#v", got, want)
	}
}

func TestReadQueriesEmpty(t *testing.T) {
	for _, in := range []string{"", "\n\n", "  \r\n\t\n"} {
		got, err := eval.ReadQueries([]byte(in))
		if err != nil || len(got) != 0 {
			t.Errorf("ReadQueries(%q) = %v, %v; want none", in, got, err)
		}
	}
}

func TestReadQueriesErrors(t *testing.T) {
	good := `{"query":"a","relevant_keys":["k"]}`
	cases := []struct {
		name string
		data string
		line int
	}{
		{"invalid JSON", good + "\n" + good + "\n{\"query\": \n" + good, 3},
		{"after blank lines", "\n\n" + good + "\n\nnot json\n", 5},
		{"wrong type", good + "\n" + `{"query":5,"relevant_keys":[]}`, 2},
		{"keys not a list", `{"query":"a","relevant_keys":"k1"}`, 1},
		{"empty query", good + "\n" + `{"query":"","relevant_keys":["k"]}`, 2},
		{"blank query", good + "\n" + good + "\n" + `{"query":"  \t ","relevant_keys":["k"]}`, 3},
		{"missing query", `{"relevant_keys":["k"]}`, 1},
		{"array line", good + "\n[1,2]", 2},
	}
	for _, tc := range cases {
		qs, err := eval.ReadQueries([]byte(tc.data))
		if err == nil {
			t.Errorf("%s: ReadQueries = %v, want an error", tc.name, qs)
			continue
		}
		if want := fmt.Sprintf("line %d", tc.line); !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %q does not name %q", tc.name, err, want)
		}
	}
}

// fixed is a searcher with canned answers that records the limits asked.
type fixed struct {
	results map[string][]string
	limits  []int
}

func (f *fixed) search(q string, limit int) ([]string, error) {
	f.limits = append(f.limits, limit)
	r := f.results[q]
	if len(r) > limit {
		r = r[:limit]
	}
	return r, nil
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-4 }

// dcg is the discounted gain of a hit at 1-based rank r.
func dcg(r int) float64 { return 1 / math.Log2(float64(r)+1) }

func TestScores(t *testing.T) {
	cases := []struct {
		name            string
		got             []string
		rel             []string
		k               int
		p, r, mrr, ndcg float64
	}{
		{"perfect single", []string{"a"}, []string{"a"}, 1, 1, 1, 1, 1},
		{"perfect single at k 5", []string{"a"}, []string{"a"}, 5, 0.2, 1, 1, 1},
		{"no results", nil, []string{"a"}, 5, 0, 0, 0, 0},
		{"no hits", []string{"x", "y", "z"}, []string{"a"}, 5, 0, 0, 0, 0},
		{"hits at 2 and 4 of 3 relevant", []string{"x", "a", "y", "b"}, []string{"a", "b", "c"}, 5,
			0.4, 2.0 / 3, 0.5, (dcg(2) + dcg(4)) / (dcg(1) + dcg(2) + dcg(3))},
		{"k cuts precision and recall, not nDCG", []string{"x", "a", "b"}, []string{"a", "b"}, 2,
			0.5, 0.5, 0.5, (dcg(2) + dcg(3)) / (dcg(1) + dcg(2))},
		{"hit past k counts for MRR and nDCG", []string{"x", "y", "z", "a"}, []string{"a"}, 3,
			0, 0, 0.25, dcg(4)},
		{"hit past 10 counts for MRR only", []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "a"}, []string{"a"}, 20,
			0.05, 1, 1.0 / 11, 0},
		{"more than 10 relevant: ideal is 10 hits", []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"},
			[]string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"}, 10, 1, 10.0 / 12, 1, 1},
		{"duplicate relevant counted once", []string{"a", "a", "a"}, []string{"a", "b"}, 3,
			1.0 / 3, 0.5, 1, dcg(1) / (dcg(1) + dcg(2))},
		{"duplicate relevant keys in labels", []string{"a"}, []string{"a", "a"}, 1, 1, 1, 1, 1},
		{"duplicates mixed", []string{"a", "b", "a", "b", "c"}, []string{"a", "b"}, 5,
			0.4, 1, 1, 1},
	}
	for _, tc := range cases {
		f := &fixed{results: map[string][]string{"q": tc.got}}
		res, err := eval.Run([]eval.Query{{Query: "q", RelevantKeys: tc.rel}}, tc.k, f.search)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		m := res.Metrics
		if m.Queries != 1 || m.Negatives != 0 {
			t.Errorf("%s: queries %d, negatives %d", tc.name, m.Queries, m.Negatives)
		}
		if !near(m.PAtK, tc.p) || !near(m.RAtK, tc.r) || !near(m.MRR, tc.mrr) || !near(m.NDCG10, tc.ndcg) {
			t.Errorf("%s: P@k %.4f R@k %.4f MRR %.4f nDCG %.4f; want %.4f %.4f %.4f %.4f",
				tc.name, m.PAtK, m.RAtK, m.MRR, m.NDCG10, tc.p, tc.r, tc.mrr, tc.ndcg)
		}
		for _, v := range []float64{m.PAtK, m.RAtK, m.MRR, m.NDCG10} {
			if v < 0 || v > 1 {
				t.Errorf("%s: metric %v out of [0, 1]", tc.name, v)
			}
		}
	}
}

func TestRunLimitAndDefaultK(t *testing.T) {
	for _, tc := range []struct{ k, limit, denom int }{{0, 10, 5}, {-3, 10, 5}, {1, 10, 1}, {5, 10, 5}, {10, 10, 10}, {25, 25, 25}} {
		f := &fixed{results: map[string][]string{"q": {"a"}}}
		res, err := eval.Run([]eval.Query{{Query: "q", RelevantKeys: []string{"a"}}}, tc.k, f.search)
		if err != nil {
			t.Fatal(err)
		}
		if len(f.limits) != 1 || f.limits[0] != tc.limit {
			t.Errorf("k %d: searcher asked for %v, want limit %d", tc.k, f.limits, tc.limit)
		}
		if !near(res.PAtK, 1/float64(tc.denom)) {
			t.Errorf("k %d: P@k %v, want 1/%d", tc.k, res.PAtK, tc.denom)
		}
	}
}

func TestRunAggregates(t *testing.T) {
	queries := []eval.Query{
		{Query: "q1", RelevantKeys: []string{"a"}, Kind: "exact"},      // hit at 1
		{Query: "q2", RelevantKeys: []string{"b", "c"}, Kind: "exact"}, // one of two, at 2
		{Query: "q3", RelevantKeys: []string{"d"}, Kind: "paraphrase"}, // miss
		{Query: "q4", Kind: "negative"},                                // negative, results
		{Query: "q5", RelevantKeys: []string{}, Kind: "negative"},      // negative, empty results
		{Query: "q6"}, // negative, no kind, nil results
		{Query: "q7", RelevantKeys: []string{"e"}},                           // hit at 1, no kind
		{Query: "q8", RelevantKeys: []string{"f"}, Kind: "paraphrase"},       // hit at 3
		{Query: "q9", Kind: "paraphrase"},                                    // negative, results
		{Query: "q10", RelevantKeys: []string{"g", "h", "i"}, Kind: "exact"}, // no results
	}
	f := &fixed{results: map[string][]string{
		"q1": {"a", "x"},
		"q2": {"x", "b"},
		"q3": {"x", "y"},
		"q4": {"x"},
		"q5": {},
		"q7": {"e"},
		"q8": {"x", "y", "f"},
		"q9": {"z"},
	}}
	res, err := eval.Run(queries, 5, f.search)
	if err != nil {
		t.Fatal(err)
	}
	type per struct{ p, r, mrr, ndcg float64 }
	scores := map[string]per{
		"q1":  {0.2, 1, 1, 1},
		"q2":  {0.2, 0.5, 0.5, dcg(2) / (dcg(1) + dcg(2))},
		"q3":  {0, 0, 0, 0},
		"q7":  {0.2, 1, 1, 1},
		"q8":  {0.2, 1, 1.0 / 3, dcg(3)},
		"q10": {0, 0, 0, 0},
	}
	avg := func(qs ...string) eval.Metrics {
		var m eval.Metrics
		for _, q := range qs {
			s := scores[q]
			m.PAtK += s.p / float64(len(qs))
			m.RAtK += s.r / float64(len(qs))
			m.MRR += s.mrr / float64(len(qs))
			m.NDCG10 += s.ndcg / float64(len(qs))
		}
		m.Queries = len(qs)
		return m
	}
	check := func(name string, got, want eval.Metrics) {
		t.Helper()
		if got.Queries != want.Queries || got.Negatives != want.Negatives || got.NegativesWithResults != want.NegativesWithResults ||
			!near(got.PAtK, want.PAtK) || !near(got.RAtK, want.RAtK) || !near(got.MRR, want.MRR) || !near(got.NDCG10, want.NDCG10) {
			t.Errorf("%s:\n got %+v\nwant %+v", name, got, want)
		}
	}
	all := avg("q1", "q2", "q3", "q7", "q8", "q10")
	all.Negatives, all.NegativesWithResults = 4, 2
	check("overall", res.Metrics, all)

	exact := avg("q1", "q2", "q10")
	check("exact", res.ByKind["exact"], exact)
	para := avg("q3", "q8")
	para.Negatives, para.NegativesWithResults = 1, 1
	check("paraphrase", res.ByKind["paraphrase"], para)
	neg := eval.Metrics{Negatives: 2, NegativesWithResults: 1}
	check("negative", res.ByKind["negative"], neg)
	if len(res.ByKind) != 3 {
		t.Errorf("ByKind has %d kinds, want 3: %v", len(res.ByKind), res.ByKind)
	}
	if len(f.limits) != len(queries) {
		t.Errorf("searcher called %d times for %d queries", len(f.limits), len(queries))
	}
}

func TestRunNoQueries(t *testing.T) {
	res, err := eval.Run(nil, 5, (&fixed{}).search)
	if err != nil {
		t.Fatal(err)
	}
	if res.Metrics != (eval.Metrics{}) || len(res.ByKind) != 0 {
		t.Errorf("Run(nil) = %+v", res)
	}
}

func TestRunSearchError(t *testing.T) {
	boom := errors.New("boom")
	calls := 0
	_, err := eval.Run([]eval.Query{{Query: "ok", RelevantKeys: []string{"a"}}, {Query: "bad"}, {Query: "never"}}, 5,
		func(q string, limit int) ([]string, error) {
			calls++
			if q == "bad" {
				return nil, boom
			}
			return nil, nil
		})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "bad") {
		t.Errorf("Run error = %v, want boom naming the query", err)
	}
	if calls != 2 {
		t.Errorf("searcher called %d times, want it to stop at the error (2)", calls)
	}
}

func grepCorpus() []knowledge.Entry {
	return []knowledge.Entry{
		{Key: "both-old", Type: "learned", Content: "OAuth redirect URI must match exactly", TS: 100},
		{Key: "oauth-new", Type: "fact", Content: "oauth tokens expire after an hour", TS: 300},
		{Key: "redirect-mid", Type: "fact", Content: "Redirect loops come from the proxy", TS: 200},
		{Key: "both-tags", Type: "decision", Content: "misc", Tags: []string{"OAUTH", "Redirect"}, TS: 50},
		{Key: "unrelated", Type: "fact", Content: "the build uses make", Tags: []string{"build"}, TS: 999},
		{Key: "tag-only", Type: "pattern", Content: "table driven tests", Tags: []string{"oauth"}, TS: 250},
	}
}

func TestGrep(t *testing.T) {
	search := eval.Grep(grepCorpus())
	cases := []struct {
		query string
		limit int
		want  []string
	}{
		// Two words: entries with both first (newest first), then one.
		{"OAuth redirect", 10, []string{"both-old", "both-tags", "oauth-new", "tag-only", "redirect-mid"}},
		{"oauth REDIRECT", 10, []string{"both-old", "both-tags", "oauth-new", "tag-only", "redirect-mid"}},
		{"OAuth redirect", 3, []string{"both-old", "both-tags", "oauth-new"}},
		// Tags match.
		{"build", 10, []string{"unrelated"}},
		// Substrings match; punctuation splits words.
		{"redir; tok", 10, []string{"oauth-new", "redirect-mid", "both-old", "both-tags"}},
		{"table-driven", 10, nil},
		// Nothing.
		{"kubernetes", 10, nil},
		{"", 10, nil},
		// Single letters are ignored.
		{"a e i", 10, nil},
	}
	for _, tc := range cases {
		got, err := search(tc.query, tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Grep(%q, %d) = %q, want %q", tc.query, tc.limit, got, tc.want)
		}
	}
}

func TestGrepTiesByKey(t *testing.T) {
	search := eval.Grep([]knowledge.Entry{
		{Key: "c", Content: "cache", TS: 5},
		{Key: "a", Content: "cache", TS: 5},
		{Key: "b", Content: "cache", TS: 5},
	})
	got, _ := search("cache", 10)
	if want := []string{"a", "b", "c"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Grep ties = %q, want %q", got, want)
	}
}

// TestGrepDistinctWords: a word repeated in the query counts once, so an
// entry matching one word twice does not outrank a newer one that matches
// a single other word.
func TestGrepDistinctWords(t *testing.T) {
	search := eval.Grep([]knowledge.Entry{
		{Key: "oauth-old", Type: "fact", Content: "OAuth tokens expire", TS: 100},
		{Key: "redirect-new", Type: "fact", Content: "redirect loops come from the proxy", TS: 200},
	})
	want := []string{"redirect-new", "oauth-old"}
	for _, q := range []string{"oauth redirect", "oauth oauth redirect", "OAuth oauth OAUTH redirect"} {
		got, err := search(q, 10)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Grep(%q) = %q, want %q (one distinct word each, newest first)", q, got, want)
		}
	}
}
