// Package rank owns how cairn orders what it finds: a query's text is read
// into terms (package relevance), the search cache (package index) returns
// the entries that match them with their BM25 scores and the audit's
// verdicts, and rank scales each score by the entry's priors (curation
// status, sanitize's flag), keeps the best, fills up from the terms'
// synonyms when too few match, and gates the answer on the confidence
// floor. Every reader of knowledge by relevance (the CLI, the hooks, MCP,
// eval) searches through it.
package rank

import (
	"container/heap"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/index"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/relevance"
)

// DefaultLimit is how many hits a query without a Limit returns.
const DefaultLimit = 10

// Query selects entries.
type Query struct {
	Text     string // free text; empty lists entries newest first
	Type     string // only this type
	All      bool   // include the archive
	Inactive bool   // include retracted and superseded entries, and those sanitize removed
	Limit    int    // at most this many (DefaultLimit when 0)
	Skip     int    // after the first Skip hits: a later page of the same answer
	Floor    bool   // answer only if the confidence gate passes (see [Gate])
	// Context marks Text as a session's context (its branch, commits and
	// files), not a question: many unrelated words, of which an entry
	// matters if it holds two. The gate then asks only that one of the
	// best hits hold two of the words.
	Context     bool
	NewestFirst bool // order by ts instead of relevance
	// Narrow keeps only the entries that match each of its fields set
	// (see [index.Narrow]); the ranking is the same.
	Narrow index.Narrow
	// Older and Newer page a listing from a place in it (see
	// [index.Filter]): the entries after Older, or the Limit before Newer.
	Older, Newer *index.Place
}

func (q Query) filter() index.Filter {
	return index.Filter{Type: q.Type, All: q.All, Inactive: q.Inactive, Narrow: q.Narrow, Weights: Default.Columns, Older: q.Older, Newer: q.Newer}
}

// Hit is one entry found, with its relevance (higher is better; 0 when the
// query had no text).
type Hit struct {
	Entry knowledge.Entry
	// Score is the entry's BM25 times its [Prior]; the BM25 alone for a
	// query ordered newest first.
	Score    float64
	Archived bool
	// Effect is sanitize's verdict on the entry's line on this machine
	// (see [audit.EffectFlagged]; "" when none), which the score's
	// priors took into account.
	Effect string
	// Proximity is the factor the query's words standing together in the
	// entry gave its score (see [proximity]); 1 when they do not. Phrase
	// is its part for the words within a phrase (1 when none are), the
	// rest is for words side by side.
	Proximity float64
	Phrase    float64
	// Synonym is set when the entry came in with the query's synonyms,
	// after every match of its words as written.
	Synonym bool
}

// Search runs a query against the cache. Text with no usable term finds
// nothing rather than everything. A cache SQLite finds damaged is rebuilt
// from the log, once, and asked again (see [index.Index.Read]); any other
// failure returns no hits.
func Search(ix *index.Index, q Query) ([]Hit, error) {
	if q.Limit <= 0 {
		q.Limit = DefaultLimit
	}
	var hits []Hit
	err := ix.Read(func() error {
		var err error
		hits, err = search(ix, q)
		return err
	})
	if err != nil {
		return nil, err
	}
	return hits, nil
}

// SearchStore runs q against the store's cache, synced with the log
// first.
func SearchStore(s *knowledge.Store, q Query) ([]Hit, error) {
	ix, _, err := index.OpenSynced(s)
	if err != nil {
		return nil, err
	}
	defer ix.Close()
	return Search(ix, q)
}

// Total counts the entries q selects, of which Search answers a page:
// with no text, every entry its filter selects; with text, those matching
// a term as written (ordered newest first, exactly what Search pages
// through; ranked, the synonyms may add a few, and the confidence floor
// may answer none).
func Total(ix *index.Index, q Query) (int, error) {
	var terms []string
	if strings.TrimSpace(q.Text) != "" {
		if terms = relevance.Terms(q.Text); len(terms) == 0 {
			return 0, nil
		}
	}
	var n int
	err := ix.Read(func() error {
		var err error
		n, err = ix.Selected(terms, q.filter())
		return err
	})
	return n, err
}

// Standing is [Total] for a query without text, with how many of the
// entries it selects come before at in the newest-first order (see
// [index.Index.Standing]); q's own places are left out.
func Standing(ix *index.Index, q Query, at *index.Place) (total, before int, err error) {
	q.Older, q.Newer = nil, nil
	err = ix.Read(func() error {
		var err error
		total, before, err = ix.Standing(q.filter(), at)
		return err
	})
	return total, before, err
}

// ExplainStore is [SearchStore] that also says, for each hit, which of
// terms matched in which field (see [index.Index.Fields]), and what the
// confidence gate made of the query (nil when q has no gate: no Floor, or
// no text to weigh). A query the gate stopped has no hits and a gate that
// says why.
func ExplainStore(s *knowledge.Store, q Query, terms []string) ([]Hit, []map[string][]string, *Gate, error) {
	ix, _, err := index.OpenSynced(s)
	if err != nil {
		return nil, nil, nil, err
	}
	defer ix.Close()
	if q.Limit <= 0 {
		q.Limit = DefaultLimit
	}
	var hits []Hit
	var g *Gate
	err = ix.Read(func() error {
		var err error
		hits, g, err = searchGate(ix, q, true)
		return err
	})
	if err != nil {
		return nil, nil, nil, err
	}
	keys := make([]string, len(hits))
	for i, h := range hits {
		keys[i] = h.Entry.Key
	}
	fields, err := ix.Fields(keys, terms)
	return hits, fields, g, err
}

// search answers q, whose Limit is set, from the cache as it is (see
// [searchGate]).
func search(ix *index.Index, q Query) ([]Hit, error) {
	hits, _, err := searchGate(ix, q, false)
	return hits, err
}

// searchGate answers q, whose Limit is set, from the cache as it is: a
// listing without text; with text, the matches of its terms reordered by
// the proximity bonus, filled up from their synonyms when too few, and,
// with Floor, gated by the confidence gate, whose verdict it returns
// (with every word's weight when explain is set). A later page of a
// ranked answer (Skip) is the best Skip+Limit less the first Skip:
// ranking needs them all.
func searchGate(ix *index.Index, q Query, explain bool) ([]Hit, *Gate, error) {
	if q.Skip > 0 && strings.TrimSpace(q.Text) != "" && !q.NewestFirst {
		skip := q.Skip
		q.Limit, q.Skip = skip+q.Limit, 0
		hits, g, err := searchGate(ix, q, explain)
		return hits[min(skip, len(hits)):], g, err
	}
	if strings.TrimSpace(q.Text) == "" {
		hits, err := newest(ix, nil, q)
		return hits, nil, err
	}
	terms := relevance.Terms(q.Text)
	if len(terms) == 0 {
		return nil, nil, nil // no usable term: nothing, rather than everything
	}
	if q.NewestFirst {
		hits, err := newest(ix, terms, q)
		return hits, nil, err
	}
	wide := q
	wide.Limit = max(q.Limit, Default.ProximityPool)
	hits, err := best(ix, terms, wide)
	if err != nil {
		return nil, nil, err
	}
	words := relevance.GateTerms(q.Text)
	hits = proximity(hits, words, q.Limit)
	expanded := relevance.Expand(terms)
	if len(hits) < q.Limit && len(expanded) > len(terms) {
		// Too few matches for the words as written: fill up with what
		// the abbreviations and their spellings out find (parse -> pkg,
		// db -> database), ranked after every direct match.
		more, err := best(ix, relevance.Terms(strings.Join(expanded[len(terms):], " ")), q)
		if err != nil {
			return nil, nil, err
		}
		hits = fill(hits, more, q.Limit)
	}
	if !q.Floor {
		return hits, nil, nil
	}
	g, err := gate(ix, hits, words, explain, q.Context)
	if err != nil || !g.Passed {
		return nil, &g, err
	}
	return hits, &g, nil
}

// newest lists the entries q selects (with terms, those matching one),
// newest first, unranked.
func newest(ix *index.Index, terms []string, q Query) ([]Hit, error) {
	cands, err := ix.Newest(terms, q.filter(), q.Skip, q.Limit)
	if err != nil {
		return nil, err
	}
	hits := make([]Hit, 0, len(cands))
	for _, c := range cands {
		hits = append(hits, Hit{Entry: c.Entry, Score: c.BM25, Archived: c.Archived, Effect: c.Effect})
	}
	return hits, nil
}

// best returns the q.Limit matches of terms that score best: each
// candidate's BM25 times its prior, among the candidates(q.Limit) best by
// BM25 alone. Candidates come best BM25 first, so once the next one,
// lifted by the greatest prior, cannot reach the top q.Limit, none can.
func best(ix *index.Index, terms []string, q Query) ([]Hit, error) {
	var hits []Hit
	// The best q.Limit scores so far, the least first: what the next
	// candidate must reach (the hits are sorted once, at the end).
	var top scoreHeap
	wanted := func(bm25 float64) bool {
		return len(top) < q.Limit || bm25*MaxPrior() >= top[0]
	}
	err := ix.Matches(terms, q.filter(), q.Limit, candidates(q.Limit), wanted, func(c index.Candidate) {
		h := Hit{Entry: c.Entry, Score: c.BM25 * Prior(c.Entry, c.Effect), Archived: c.Archived, Effect: c.Effect}
		hits = append(hits, h)
		switch {
		case len(top) < q.Limit:
			heap.Push(&top, h.Score)
		case h.Score > top[0]:
			top[0] = h.Score
			heap.Fix(&top, 0)
		}
	})
	if err != nil {
		return nil, err
	}
	sortHits(hits)
	return hits[:min(len(hits), q.Limit)], nil
}

// scoreHeap is a min-heap of scores (container/heap's).
type scoreHeap []float64

func (s scoreHeap) Len() int           { return len(s) }
func (s scoreHeap) Less(i, j int) bool { return s[i] < s[j] }
func (s scoreHeap) Swap(i, j int)      { s[i], s[j] = s[j], s[i] }
func (s *scoreHeap) Push(x any)        { *s = append(*s, x.(float64)) }
func (s *scoreHeap) Pop() any {
	old := *s
	x := old[len(old)-1]
	*s = old[:len(old)-1]
	return x
}

// candidates is how many of the best BM25 matches are read for a query
// that shows limit: enough for the priors to lift a lower match into view.
func candidates(limit int) int { return limit*Default.CandidatesPer + Default.CandidatesMore }

// sortHits orders hits best first; equal scores keep their order.
func sortHits(hits []Hit) {
	slices.SortStableFunc(hits, func(a, b Hit) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return 0
	})
}

// fill appends to hits those of more it does not hold, up to limit.
func fill(hits, more []Hit, limit int) []Hit {
	seen := map[string]bool{}
	for _, h := range hits {
		seen[h.Entry.Key] = true
	}
	for _, h := range more {
		if len(hits) == limit {
			break
		}
		if !seen[h.Entry.Key] {
			seen[h.Entry.Key] = true
			h.Synonym = true
			hits = append(hits, h)
		}
	}
	return hits
}

// proximity lifts each of hits by how often two of terms stand together in
// its content (see [relevance.Together]; [Knobs] ProximityGap, over the
// best ProximityPool matches): up to 1+ProximityBonus when there are as
// many such places as terms less one; and by how many of terms stand
// within ProximityPhrase words (see [relevance.BestWindow]): up to
// 1+ProximityPhraseBonus when all do. A long note that holds the query's
// words in different topics falls behind the one that says them in one
// place. It returns the best limit.
func proximity(hits []Hit, terms []string, limit int) []Hit {
	if len(terms) > 1 {
		k := Default
		ones := make([]float64, len(terms))
		for i := range ones {
			ones[i] = 1
		}
		for i := range hits {
			pos, held := relevance.Positions(hits[i].Entry, terms, false)
			f := 1 + k.ProximityBonus*min(1, float64(relevance.Together(pos, held, k.ProximityGap))/float64(len(terms)-1))
			phrase := 1.0
			if w := relevance.BestWindow(pos, held, ones, k.ProximityPhrase); w >= 2 {
				phrase = 1 + k.ProximityPhraseBonus*(w-1)/float64(len(terms)-1)
			}
			hits[i].Score *= f * phrase
			hits[i].Proximity, hits[i].Phrase = f*phrase, phrase
		}
		sortHits(hits)
	}
	return hits[:min(len(hits), limit)]
}
