package rank

import (
	"math"

	"github.com/cairn-dev/cairn/helpers/internal/index"
	"github.com/cairn-dev/cairn/helpers/internal/relevance"
)

// The confidence gate: a query answers only when one of its GateHits best
// matches holds, within GateWindow words, at least GateShare of the
// weight of the query's words (see [Knobs]), each word weighing by its
// rarity in the log (see [GateWord]). A question about something the log
// does not cover still shares common words with it (error, test, driver,
// build), often spread over a long note's unrelated topics; its
// distinctive words, the heavy ones, are in no entry. An answer holds the
// rare words of its question, in one place. GateDFCap bounds the count of
// a word's entries: past it a word is common, and counting on costs time
// without changing the verdict.

// Gate is the confidence gate's verdict on a query.
type Gate struct {
	Passed bool `json:"passed"`
	// Words are the query's words the gate weighed (the parts of a joined
	// identifier weigh as they do apart).
	Words []GateWord `json:"words"`
	// By is the key of the first of the best hits that holds enough of
	// the weight ("" when none does); Share is the most any of them holds
	// and Need the share it takes.
	By    string  `json:"by,omitempty"`
	Share float64 `json:"share"`
	Need  float64 `json:"need"`
	Why   string  `json:"why"`
}

// GateWord is a word of the query and its weight: (ln(1 + N/(df+1)))² for
// a word in df of the N entries (df counts the word's synonyms too, and
// stops at GateDFCap). Squared, one rare word outweighs several common ones.
type GateWord struct {
	Word   string  `json:"word"`
	DF     int     `json:"df"`
	Weight float64 `json:"weight"`
}

// gate weighs terms (the query's words without its joined identifiers,
// see [relevance.GateTerms]) by their rarity in the cache and checks the
// best GateHits of hits against them. A term is held where an entry's
// word has its stem or a synonym's (see [relevance.Positions]). Unless
// weigh is set (for explain), the words are counted in the cache only
// when the verdict needs their weights: a best hit that holds every word
// in one window passes, and one that holds fewer than two words (of a
// longer query) fails, whatever they weigh. A context (see
// [Query.Context]) passes when one of the best hits holds two words.
func gate(ix *index.Index, hits []Hit, terms []string, weigh, context bool) (Gate, error) {
	k := Default
	g := Gate{Need: k.GateShare, Words: []GateWord{}}
	if len(hits) == 0 {
		g.Why = "nothing matches"
		return g, nil
	}
	type heldWords struct {
		pos  []int
		held [][]int
	}
	best := hits[:min(k.GateHits, len(hits))]
	found := make([]heldWords, len(best))
	ones := make([]float64, len(terms))
	for i := range ones {
		ones[i] = 1
	}
	all, some := "", false
	for i, h := range best {
		found[i].pos, found[i].held = relevance.Positions(h.Entry, terms, true)
		if int(relevance.BestWindow(found[i].pos, found[i].held, ones, math.MaxInt)) >= min(k.GateWords, len(terms)) {
			some = true
			if all == "" && int(relevance.BestWindow(found[i].pos, found[i].held, ones, k.GateWindow)) == len(terms) {
				all = h.Entry.Key
			}
		}
	}
	if context {
		g.Passed = some
		if some {
			g.By, g.Share = best[0].Entry.Key, 1
		}
		g.Why = "a session's context: " + verdict(g.Passed, len(terms))
		return g, nil
	}
	if !weigh && (all != "" || !some) {
		g.By, g.Passed = all, all != ""
		if g.Passed {
			g.Share = 1
		}
		g.Why = verdict(g.Passed, len(terms))
		return g, nil
	}
	n, err := ix.Count()
	if err != nil {
		return g, err
	}
	weights := make([]float64, len(terms))
	var total float64
	for i, t := range terms {
		df, err := ix.DocFreq(t, k.GateDFCap)
		if err != nil {
			return g, err
		}
		for _, s := range relevance.Synonyms(t) {
			sdf, err := ix.DocFreq(s, k.GateDFCap)
			if err != nil {
				return g, err
			}
			df = max(df, sdf)
		}
		w := math.Log(1 + float64(max(n, df))/float64(df+1))
		weights[i] = w * w
		g.Words = append(g.Words, GateWord{Word: t, DF: df, Weight: weights[i]})
		total += weights[i]
	}
	for i, h := range best {
		if total == 0 {
			break
		}
		share := relevance.BestWindow(found[i].pos, found[i].held, weights, k.GateWindow) / total
		words := relevance.BestWindow(found[i].pos, found[i].held, ones, math.MaxInt)
		g.Share = max(g.Share, share)
		if g.By == "" && share >= k.GateShare && int(words) >= min(k.GateWords, len(terms)) {
			g.By = h.Entry.Key
		}
	}
	g.Passed = g.By != ""
	g.Why = verdict(g.Passed, len(terms))
	return g, nil
}

// verdict is the gate's reason, in words.
func verdict(passed bool, terms int) string {
	switch {
	case passed:
		return "a best hit holds enough of the query's rare words together"
	case terms == 0:
		return "the query has no word to weigh"
	}
	return "no best hit holds enough of the query's rare words together"
}
