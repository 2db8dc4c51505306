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
	Text        string // free text; empty lists entries newest first
	Type        string // only this type
	All         bool   // include the archive
	Inactive    bool   // include retracted and superseded entries, and those sanitize removed
	Limit       int    // at most this many (DefaultLimit when 0)
	Skip        int    // after the first Skip hits: a later page of the same answer
	Floor       bool   // answer only if a match is confident (see [relevance.Confident])
	NewestFirst bool   // order by ts instead of relevance
	// Narrow keeps only the entries that match each of its fields set
	// (see [index.Narrow]); the ranking is the same.
	Narrow index.Narrow
}

func (q Query) filter() index.Filter {
	return index.Filter{Type: q.Type, All: q.All, Inactive: q.Inactive, Narrow: q.Narrow}
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

// ExplainStore is [SearchStore] that also says, for each hit, which of
// terms matched in which field (see [index.Index.Fields]).
func ExplainStore(s *knowledge.Store, q Query, terms []string) ([]Hit, []map[string][]string, error) {
	ix, _, err := index.OpenSynced(s)
	if err != nil {
		return nil, nil, err
	}
	defer ix.Close()
	hits, err := Search(ix, q)
	if err != nil {
		return nil, nil, err
	}
	keys := make([]string, len(hits))
	for i, h := range hits {
		keys[i] = h.Entry.Key
	}
	fields, err := ix.Fields(keys, terms)
	return hits, fields, err
}

// search answers q, whose Limit is set, from the cache as it is: a listing
// without text; with text, the matches of its terms, filled up from their
// synonyms when too few, and gated by the confidence floor.
func search(ix *index.Index, q Query) ([]Hit, error) {
	if q.Skip > 0 && strings.TrimSpace(q.Text) != "" && !q.NewestFirst {
		// A later page of a ranked answer: the best Skip+Limit, less the
		// first Skip (ranking needs them all).
		skip := q.Skip
		q.Limit, q.Skip = skip+q.Limit, 0
		hits, err := search(ix, q)
		return hits[min(skip, len(hits)):], err
	}
	if strings.TrimSpace(q.Text) == "" {
		return newest(ix, nil, q)
	}
	terms := relevance.Terms(q.Text)
	if len(terms) == 0 {
		return nil, nil // no usable term: nothing, rather than everything
	}
	if q.NewestFirst {
		return newest(ix, terms, q)
	}
	hits, err := best(ix, terms, q)
	if err != nil {
		return nil, err
	}
	expanded := relevance.Expand(terms)
	if len(hits) < q.Limit && len(expanded) > len(terms) {
		// Too few matches for the words as written: fill up with what
		// the abbreviations and their spellings out find (parse -> pkg,
		// db -> database), ranked after every direct match.
		more, err := best(ix, relevance.Terms(strings.Join(expanded[len(terms):], " ")), q)
		if err != nil {
			return nil, err
		}
		hits = fill(hits, more, q.Limit)
	}
	if q.Floor && !confident(hits, terms, expanded) {
		return nil, nil
	}
	return hits, nil
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
	wanted := func(bm25 float64) bool {
		if len(hits) < q.Limit {
			return true
		}
		sortHits(hits)
		return bm25*MaxPrior >= hits[q.Limit-1].Score
	}
	err := ix.Matches(terms, q.filter(), q.Limit, candidates(q.Limit), wanted, func(c index.Candidate) {
		hits = append(hits, Hit{Entry: c.Entry, Score: c.BM25 * Prior(c.Entry, c.Effect), Archived: c.Archived, Effect: c.Effect})
	})
	if err != nil {
		return nil, err
	}
	sortHits(hits)
	return hits[:min(len(hits), q.Limit)], nil
}

// candidates is how many of the best BM25 matches are read for a query
// that shows limit: enough for the priors to lift a lower match into view.
func candidates(limit int) int { return limit*3 + 20 }

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

// confident is the confidence floor: a query answers only if at least one
// of its best matches is confident (see [relevance.Confident]) for its
// terms or, when it has synonyms, for them too. Gating the whole answer,
// rather than filtering each match, keeps the entries that share one rare
// word with a real question while a question about something the log does
// not cover gets no answer.
func confident(hits []Hit, terms, expanded []string) bool {
	for _, h := range hits {
		if relevance.Confident(h.Entry, terms) || (len(expanded) > len(terms) && relevance.Confident(h.Entry, expanded)) {
			return true
		}
	}
	return false
}
