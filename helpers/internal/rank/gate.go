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
// rare words of its question, in one place. A hit that holds the share
// but not every word in one window must also say the question in one
// sentence (GateSentence of the weight), or hold words so rare that at most
// GateChance entries would hold them all by chance: an off-topic
// question's common words, met in different sentences of a long note,
// are neither. GateDFCap bounds the count of a word's entries: past it a
// word is common, and counting on costs time without changing the
// verdict (a capped count makes a word look rarer than it is, so the
// chance test only ever lets more through on a big log, never less).

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
	// Sentence is the most of the weight one sentence of a best hit
	// holds, and Chance the fewest entries expected to hold, by chance,
	// the words a best hit holds (see [Knobs] GateSentence, GateChance;
	// set only when the words were weighed).
	Sentence float64 `json:"sentence"`
	Chance   float64 `json:"chance"`
	Why      string  `json:"why"`
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
		g.Why = "a session's context: no best hit holds two of its words"
		if g.Passed {
			g.Why = "a session's context: a best hit holds two of its words"
		}
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
	rarity := make([]float64, len(terms)) // ln(N/df): how unlikely an entry holds the word by chance
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
		rarity[i] = math.Log(float64(max(n, df, 1)) / max(float64(df), 0.5))
		g.Words = append(g.Words, GateWord{Word: t, DF: df, Weight: weights[i]})
		total += weights[i]
	}
	g.Chance = float64(n)
	for i, h := range best {
		if total == 0 {
			break
		}
		share := relevance.BestWindow(found[i].pos, found[i].held, weights, k.GateWindow) / total
		words := relevance.BestWindow(found[i].pos, found[i].held, ones, math.MaxInt)
		sentence := relevance.BestSentence(found[i].pos, found[i].held, weights, relevance.SentenceStarts(h.Entry.Content)) / total
		// The entries expected to hold the words this hit holds, were
		// each word in df of the n entries independently of the others.
		chance := float64(n) * math.Exp(-relevance.BestWindow(found[i].pos, found[i].held, rarity, math.MaxInt))
		g.Share, g.Sentence, g.Chance = max(g.Share, share), max(g.Sentence, sentence), min(g.Chance, chance)
		if g.By != "" {
			continue
		}
		held := share >= k.GateShare && int(words) >= min(k.GateWords, len(terms))
		switch {
		case h.Entry.Key == all:
			g.By, g.Why = all, verdict(true, len(terms))
		case held && sentence >= k.GateSentence:
			g.By, g.Why = h.Entry.Key, "a best hit holds enough of the query's rare words together, in one sentence"
		case held && chance <= k.GateChance:
			g.By, g.Why = h.Entry.Key, "a best hit holds enough of the query's rare words together, too rare to meet by chance"
		case held:
			g.Why = "a best hit holds enough of the query's rare words together, but neither in one sentence nor too rare to meet by chance"
		}
	}
	g.Passed = g.By != ""
	if g.Why == "" {
		g.Why = verdict(g.Passed, len(terms))
	}
	return g, nil
}

// verdict is the gate's reason, in words, when it looked no further than
// the words a best hit holds in one window.
func verdict(passed bool, terms int) string {
	switch {
	case passed:
		return "a best hit holds every word of the query together"
	case terms == 0:
		return "the query has no word to weigh"
	}
	return "no best hit holds enough of the query's rare words together"
}
