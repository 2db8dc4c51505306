package rank

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/audit"
	"github.com/cairn-dev/cairn/helpers/internal/index"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/relevance"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/synthlog"
)

func newStore(t testing.TB, es ...knowledge.Entry) *knowledge.Store {
	t.Helper()
	s := knowledge.Open(t.TempDir())
	if err := s.Provision(); err != nil {
		t.Fatal(err)
	}
	if len(es) > 0 {
		if _, err := s.Insert(es); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// openSynced opens the store's cache, current with the log.
func openSynced(t testing.TB, s *knowledge.Store) *index.Index {
	t.Helper()
	ix, _, err := index.OpenSynced(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

func keys(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Entry.Key)
	}
	return out
}

func mustSearch(t testing.TB, ix *index.Index, q Query) []Hit {
	t.Helper()
	hits, err := Search(ix, q)
	if err != nil {
		t.Fatalf("search %+v: %v", q, err)
	}
	return hits
}

func mkLine(e knowledge.Entry) []byte {
	b, err := knowledge.Marshal(&e)
	if err != nil {
		panic(err)
	}
	return b
}

// writeAudit writes an audit of actions with a summary for the log as it
// is now.
func writeAudit(t *testing.T, s *knowledge.Store, acts ...audit.Action) {
	t.Helper()
	log, err := s.ReadLog()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, a := range append(acts, audit.Action{Action: audit.ActSummary, Summary: &audit.Summary{LogSHA256: knowledge.Sum(log)}}) {
		line, _ := json.Marshal(a)
		b.Write(append(line, '\n'))
	}
	if err := os.MkdirAll(s.CachePath(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(audit.Path(s.CachePath()), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Three entries that match a query equally: curation's canonical one
// first, the plain one next, the one under review last.
func TestStatusPriorsOrderEqualMatches(t *testing.T) {
	es := []knowledge.Entry{
		{Key: "fact-quokka-a-aaaaaa", Type: "fact", Content: "quokka feeding runs at noon", TS: 100},
		{Key: "fact-quokka-b-bbbbbb", Type: "fact", Content: "quokka feeding runs at dusk", TS: 100},
		{Key: "fact-quokka-c-cccccc", Type: "fact", Content: "quokka feeding runs at dawn", TS: 100},
	}
	s := newStore(t, es...)
	review, canon := es[0], es[2]
	review.TS, review.Status, review.ReviewReason = 200, knowledge.StatusNeedsReview, "stale"
	canon.TS, canon.Status, canon.MergedFrom = 200, knowledge.StatusCanonical, []string{"fact-quokka-x-dddddd"}
	if err := s.InsertLines([][]byte{mkLine(review), mkLine(canon)}); err != nil {
		t.Fatal(err)
	}
	got := keys(mustSearch(t, openSynced(t, s), Query{Text: "quokka feeding"}))
	want := []string{canon.Key, es[1].Key, review.Key}
	if !slices.Equal(got, want) {
		t.Errorf("order = %v, want %v", got, want)
	}
}

// Sanitize's verdicts shape the answer: the removed entry is gone, the
// flagged one ranks after the plain one though it matches better, on the
// fast path and on the joined one (a typed query) alike.
func TestVerdictsRankFlaggedLower(t *testing.T) {
	s := newStore(t,
		knowledge.Entry{Key: "fact-kiwi-noise-aaaaaa", Type: "fact", Content: "kiwi deploy pasted output", TS: 100},
		knowledge.Entry{Key: "fact-kiwi-doubt-bbbbbb", Type: "fact", Content: "kiwi deploy runs in internal/deploy/kiwi.go with the kiwi deploy flag", TS: 100},
		knowledge.Entry{Key: "fact-kiwi-plain-cccccc", Type: "fact", Content: "kiwi deploy needs the staging token", TS: 100},
	)
	ix := openSynced(t, s)
	if got := keys(mustSearch(t, ix, Query{Text: "kiwi deploy"})); len(got) != 3 || got[0] != "fact-kiwi-doubt-bbbbbb" {
		t.Fatalf("before any audit: %v (the doubtful entry should match best on its words)", got)
	}
	writeAudit(t, s,
		audit.Action{Action: audit.ActNoise, Key: "fact-kiwi-noise-aaaaaa", TS: 100, Effect: audit.EffectRemoved, Reason: "pasted command"},
		audit.Action{Action: audit.ActAnchor, Key: "fact-kiwi-doubt-bbbbbb", TS: 100, Effect: audit.EffectFlagged, Reason: "needs review: not found in the repository: internal/deploy/kiwi.go"},
	)
	if _, err := ix.Sync(); err != nil {
		t.Fatal(err)
	}
	for _, q := range []Query{{Text: "kiwi deploy"}, {Text: "kiwi deploy", Type: "fact"}} {
		hits := mustSearch(t, ix, q)
		if got := strings.Join(keys(hits), " "); got != "fact-kiwi-plain-cccccc fact-kiwi-doubt-bbbbbb" {
			t.Fatalf("%+v: %v, want the plain entry first, the flagged one after, the noise gone", q, got)
		}
		if hits[1].Effect != audit.EffectFlagged || !strings.HasPrefix(hits[1].Entry.Note, "needs review: ") {
			t.Errorf("flagged hit: %+v", hits[1])
		}
	}
}

// Too few matches for the words as written fill up from their synonyms,
// marked and after every direct match; the floor answers nothing to a
// question the log does not cover.
func TestSynonymFillAndFloor(t *testing.T) {
	s := newStore(t,
		knowledge.Entry{Key: "fact-db-aaaaaa", Type: "fact", Content: "the db pool holds twenty connections", TS: 100},
		knowledge.Entry{Key: "fact-database-bbbbbb", Type: "fact", Content: "the database runs on port 5433", TS: 101},
	)
	ix := openSynced(t, s)
	hits := mustSearch(t, ix, Query{Text: "db", Limit: 5})
	if got := keys(hits); !slices.Equal(got, []string{"fact-db-aaaaaa", "fact-database-bbbbbb"}) {
		t.Fatalf("db: %v", got)
	}
	if hits[0].Synonym || !hits[1].Synonym {
		t.Errorf("synonym marks: %v, %v", hits[0].Synonym, hits[1].Synonym)
	}
	if got := mustSearch(t, ix, Query{Text: "db", Limit: 1}); len(got) != 1 || got[0].Synonym {
		t.Errorf("a full answer takes no synonym: %v", keys(got))
	}
	if got := mustSearch(t, ix, Query{Text: "kubernetes ingress the", Floor: true}); len(got) != 0 {
		t.Errorf("floor: %v", keys(got))
	}
	if got := mustSearch(t, ix, Query{Text: "the of"}); len(got) != 0 {
		t.Errorf("no usable term: %v", keys(got))
	}
	if got := mustSearch(t, ix, Query{Text: "  "}); len(got) != 2 {
		t.Errorf("a blank text lists: %v", keys(got))
	}
}

// The early stop of best (candidates read best BM25 first, until the
// greatest prior cannot lift the next into view) keeps exactly the hits a
// ranking of every candidate keeps, whatever the priors and filters.
func TestBestEqualsRankingEveryCandidate(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	var lines [][]byte
	var acts []audit.Action
	for i := range 600 {
		e := synthlog.Entry(rng, i)
		switch rng.IntN(8) {
		case 0:
			e.Status = knowledge.StatusCanonical
		case 1:
			e.Status = knowledge.StatusNeedsReview
		case 2:
			e.Status = knowledge.StatusRetracted
		}
		switch rng.IntN(6) {
		case 0:
			acts = append(acts, audit.Action{Key: e.Key, TS: e.TS, Effect: audit.EffectFlagged, Reason: "needs review"})
		case 1:
			acts = append(acts, audit.Action{Key: e.Key, TS: e.TS, Effect: audit.EffectRemoved, Reason: "noise"})
		}
		lines = append(lines, mkLine(e))
	}
	s := newStore(t)
	if err := s.InsertLines(lines); err != nil {
		t.Fatal(err)
	}
	writeAudit(t, s, acts...)
	ix := openSynced(t, s)
	for k := range 12 {
		topic := synthlog.Topics[k%len(synthlog.Topics)]
		for _, q := range []Query{
			{Text: topic[0] + " " + topic[1], Limit: 1 + k%7},
			{Text: topic[2], Limit: 5, Type: knowledge.Types[k%len(knowledge.Types)]},
			{Text: topic[3] + " " + topic[4], Limit: 3, Inactive: true, All: true},
		} {
			got, err := best(ix, relevance.Terms(q.Text), q)
			if err != nil {
				t.Fatal(err)
			}
			var all []Hit
			err = ix.Matches(relevance.Terms(q.Text), q.filter(), q.Limit, candidates(q.Limit), func(float64) bool { return true },
				func(c index.Candidate) {
					all = append(all, Hit{Entry: c.Entry, Score: c.BM25 * Prior(c.Entry, c.Effect)})
				})
			if err != nil {
				t.Fatal(err)
			}
			sortHits(all)
			want := all[:min(len(all), q.Limit)]
			if fmt.Sprint(scores(got)) != fmt.Sprint(scores(want)) {
				t.Errorf("%+v:\n got %v\nwant %v", q, scores(got), scores(want))
			}
		}
	}
}

func scores(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, fmt.Sprintf("%s=%.6g", h.Entry.Key[:12], h.Score))
	}
	return out
}

// benchStore writes a log of n synthetic entries and a current cache.
func benchStore(b *testing.B, n int) *index.Index {
	b.Helper()
	s := knowledge.Open(b.TempDir())
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		b.Fatal(err)
	}
	lines := synthlog.Log(0, n, 1)
	if err := os.WriteFile(s.LogPath(), append(bytes.Join(lines, []byte("\n")), '\n'), 0o644); err != nil {
		b.Fatal(err)
	}
	ix, err := index.Open(s)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	if res, err := ix.Sync(); err != nil || res.Entries != n {
		b.Fatalf("initial sync: %+v, %v", res, err)
	}
	return ix
}

// BenchmarkSearch is a recall's search: three words of one subject, as a
// user types them, ranked, at 10k and 100k entries.
func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("entries=%dk", n/1000), func(b *testing.B) {
			ix := benchStore(b, n)
			var queries []string
			for k := range 4 {
				t := synthlog.Topics[k*7%len(synthlog.Topics)]
				queries = append(queries, t[0]+" "+t[1]+" "+t[2])
			}
			// How many entries a query matches drives its cost: report it.
			matched := 0
			for _, q := range queries {
				hits, err := Search(ix, Query{Text: q, Limit: 1 << 30})
				if err != nil {
					b.Fatal(err)
				}
				matched += len(hits)
			}
			i := 0
			for b.Loop() {
				hits, err := Search(ix, Query{Text: queries[i%len(queries)], Limit: 10})
				i++
				if err != nil || len(hits) == 0 {
					b.Fatalf("search: %d hits, %v", len(hits), err)
				}
			}
			b.ReportMetric(float64(matched)/float64(len(queries)), "matches/query")
		})
	}
}
