// Package eval measures retrieval quality: precision and recall at k, mean
// reciprocal rank and nDCG@10 over labelled queries, for any search
// function, and a naive grep baseline to compare against.
package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// Query is one labelled query. Extra fields in the file are ignored.
type Query struct {
	Query        string   `json:"query"`
	RelevantKeys []string `json:"relevant_keys"`
	Kind         string   `json:"kind,omitempty"`
}

// ReadQueries parses a JSONL file of queries; blank lines are skipped and
// the first bad line is an error naming its number.
func ReadQueries(data []byte) ([]Query, error) {
	var qs []Query
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var q Query
		if err := json.Unmarshal(line, &q); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if strings.TrimSpace(q.Query) == "" {
			return nil, fmt.Errorf("line %d: empty query", n)
		}
		qs = append(qs, q)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read queries: %w", err)
	}
	return qs, nil
}

// Metrics are the averages over the queries that have relevant keys, and
// for the negatives (no relevant key) how many returned anything.
type Metrics struct {
	Queries              int     `json:"queries"`
	PAtK                 float64 `json:"p_at_k"`
	RAtK                 float64 `json:"r_at_k"`
	MRR                  float64 `json:"mrr"`
	NDCG10               float64 `json:"ndcg_at_10"`
	Negatives            int     `json:"negatives"`
	NegativesWithResults int     `json:"negatives_with_results"`
}

// Result is the overall metrics and the same per query kind.
type Result struct {
	Metrics
	ByKind map[string]Metrics `json:"by_kind,omitempty"`
}

// Searcher returns the keys found for a query, best first.
type Searcher func(query string, limit int) ([]string, error)

// Run evaluates search over queries with cut-off k (nDCG always at 10).
func Run(queries []Query, k int, search Searcher) (Result, error) {
	if k <= 0 {
		k = 5
	}
	limit := max(k, 10)
	type acc struct {
		m               Metrics
		p, r, mrr, ndcg float64
	}
	all := &acc{}
	kinds := map[string]*acc{}
	for _, q := range queries {
		got, err := search(q.Query, limit)
		if err != nil {
			return Result{}, fmt.Errorf("query %q: %w", q.Query, err)
		}
		targets := []*acc{all}
		if q.Kind != "" {
			if kinds[q.Kind] == nil {
				kinds[q.Kind] = &acc{}
			}
			targets = append(targets, kinds[q.Kind])
		}
		if len(q.RelevantKeys) == 0 {
			for _, a := range targets {
				a.m.Negatives++
				if len(got) > 0 {
					a.m.NegativesWithResults++
				}
			}
			continue
		}
		rel := map[string]bool{}
		for _, key := range q.RelevantKeys {
			rel[key] = true
		}
		p, r, mrr, ndcg := score(got, rel, k)
		for _, a := range targets {
			a.m.Queries++
			a.p += p
			a.r += r
			a.mrr += mrr
			a.ndcg += ndcg
		}
	}
	finish := func(a *acc) Metrics {
		m := a.m
		if m.Queries > 0 {
			n := float64(m.Queries)
			m.PAtK, m.RAtK, m.MRR, m.NDCG10 = round(a.p/n), round(a.r/n), round(a.mrr/n), round(a.ndcg/n)
		}
		return m
	}
	res := Result{Metrics: finish(all), ByKind: map[string]Metrics{}}
	for kind, a := range kinds {
		res.ByKind[kind] = finish(a)
	}
	return res, nil
}

func round(x float64) float64 { return math.Round(x*10000) / 10000 }

// score computes one query's P@k, R@k, reciprocal rank and nDCG@10 with
// binary relevance.
func score(got []string, rel map[string]bool, k int) (p, r, rr, ndcg float64) {
	hits := 0
	seen := map[string]bool{}
	var dcg float64
	for i, key := range got {
		if seen[key] {
			continue
		}
		seen[key] = true
		if !rel[key] {
			continue
		}
		if i < k {
			hits++
		}
		if rr == 0 {
			rr = 1 / float64(i+1)
		}
		if i < 10 {
			dcg += 1 / math.Log2(float64(i+2))
		}
	}
	var ideal float64
	for i := 0; i < min(len(rel), 10); i++ {
		ideal += 1 / math.Log2(float64(i+2))
	}
	return float64(hits) / float64(k), float64(hits) / float64(len(rel)), rr, dcg / ideal
}

// Grep is the naive baseline: an entry matches when its content or tags
// contain any word of the query as a case-insensitive substring; entries
// are ranked by how many distinct query words they contain, then newest
// first. It is what `grep -i -e w1 -e w2 knowledge.jsonl` does, ranked.
func Grep(entries []knowledge.Entry) Searcher {
	type doc struct {
		key  string
		text string
		ts   int64
	}
	docs := make([]doc, len(entries))
	for i, e := range entries {
		docs[i] = doc{e.Key, strings.ToLower(e.Content + " " + strings.Join(e.Tags, " ")), e.TS}
	}
	return func(query string, limit int) ([]string, error) {
		var words []string
		seen := map[string]bool{}
		for _, w := range strings.FieldsFunc(strings.ToLower(query), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '.' && r != '/' && r != '-'
		}) {
			if !seen[w] {
				seen[w] = true
				words = append(words, w)
			}
		}
		type hit struct {
			n   int
			doc doc
		}
		var hits []hit
		for _, d := range docs {
			n := 0
			for _, w := range words {
				if len(w) >= 2 && strings.Contains(d.text, w) {
					n++
				}
			}
			if n > 0 {
				hits = append(hits, hit{n, d})
			}
		}
		sort.SliceStable(hits, func(a, b int) bool {
			if hits[a].n != hits[b].n {
				return hits[a].n > hits[b].n
			}
			if hits[a].doc.ts != hits[b].doc.ts {
				return hits[a].doc.ts > hits[b].doc.ts
			}
			return hits[a].doc.key < hits[b].doc.key
		})
		var keys []string
		for i := 0; i < len(hits) && i < limit; i++ {
			keys = append(keys, hits[i].doc.key)
		}
		return keys, nil
	}
}
