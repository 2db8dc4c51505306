package search

import (
	"fmt"
	"io"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/entryjson"
	"github.com/cairn-dev/cairn/helpers/internal/rank"
	"github.com/cairn-dev/cairn/helpers/internal/recall"
	"github.com/cairn-dev/cairn/helpers/internal/relevance"
	"github.com/cairn-dev/cairn/helpers/internal/untrusted"
)

// Explanation is `cairn recall --explain`: how the query was read, then
// recall's hits in recall's order, each with why it is there.
type Explanation struct {
	Query    string             `json:"query"`
	Analysis relevance.Analysis `json:"analysis"`
	// Order is how the hits are ordered: "score" (bm25 times the priors)
	// or "newest" (--recent: by time, the priors unused).
	Order string         `json:"order"`
	Hits  []explainedHit `json:"hits"`
	// Gate is the confidence gate's verdict: which hit let the query
	// through, or why nothing did (absent for --recent).
	Gate *rank.Gate `json:"gate,omitempty"`
	// Knobs are the values ranking ran with (see [rank.Knobs]).
	Knobs []rank.Knob `json:"knobs"`
}

// explainedHit is one hit and why: the entry in the form of every --json
// (package entryjson), then how its score was made.
type explainedHit struct {
	Rank int `json:"rank"`
	entryjson.Entry
	BM25  float64 `json:"bm25"`  // the full-text score before the priors
	Prior float64 `json:"prior"` // the product of the priors' factors
	// Proximity is the bonus for the query's words standing together in
	// the entry (1 when they do not).
	Proximity float64 `json:"proximity"`
	// Phrase is the part of Proximity for the query's words standing
	// within a phrase (see [rank.Knobs] ProximityPhrase); the rest is for
	// words side by side.
	Phrase float64 `json:"phrase"`
	// Via says which search found it: "terms" (the query's words and
	// their identifier parts) or "synonyms" (ranked after every match of
	// the terms, filling up a short answer).
	Via     string        `json:"via"`
	Matched []termMatch   `json:"matched"`
	Priors  []rank.Factor `json:"priors"`
}

// termMatch is one term of the query an entry matched, and where.
type termMatch struct {
	relevance.Term
	Fields []string `json:"fields"`
}

// explain says why each of hits, the answer to q (read as a), is there,
// in their order; fields[i] are the fields of hits[i] each term matched
// (see [index.Index.Fields]).
func explain(q rank.Query, a relevance.Analysis, hits []rank.Hit, fields []map[string][]string, g *rank.Gate) Explanation {
	x := Explanation{Query: q.Text, Analysis: a, Order: "score", Hits: []explainedHit{}, Gate: g, Knobs: rank.Default.List()}
	if q.NewestFirst {
		x.Order = "newest"
	}
	terms := append(append([]relevance.Term{}, a.Terms...), a.Synonyms...)
	for i, h := range hits {
		e := h.Entry
		prior := rank.Prior(e, h.Effect)
		bm, prox, phrase := h.Score, h.Proximity, h.Phrase
		if x.Order != "score" || prox == 0 {
			prox, phrase = 1, 1
		}
		if x.Order == "score" && prior != 0 {
			bm = h.Score / prior / prox
		}
		via := "terms"
		if h.Synonym {
			via = "synonyms"
		}
		xh := explainedHit{
			Rank: i + 1, Entry: entryjson.New(e, h.Score, h.Archived),
			BM25: entryjson.RoundScore(bm), Prior: entryjson.RoundScore(prior), Proximity: entryjson.RoundScore(prox), Phrase: entryjson.RoundScore(phrase),
			Via: via, Matched: []termMatch{}, Priors: rank.Factors(e, h.Effect),
		}
		for _, t := range terms {
			if f := fields[i][t.Term]; len(f) > 0 {
				xh.Matched = append(xh.Matched, termMatch{Term: t, Fields: f})
			}
		}
		x.Hits = append(x.Hits, xh)
	}
	return x
}

// WriteExplanation writes x for a person: the query's reading, then each
// hit, its texts made inert as recall's are (see printHits).
func WriteExplanation(w io.Writer, x Explanation) {
	inert := func(s string) string { return untrusted.ForAgent(s, 0) }
	fmt.Fprintf(w, "query: %s\n", inert(x.Query))
	fmt.Fprintf(w, "  terms: %s\n", orNone(termList(x.Analysis.Terms)))
	fmt.Fprintf(w, "  synonyms: %s\n", orNone(termList(x.Analysis.Synonyms)))
	fmt.Fprintf(w, "  dropped: %s\n", orNone(inert(strings.Join(x.Analysis.Dropped, ", "))))
	if x.Order == "newest" {
		fmt.Fprintln(w, "  order: newest first (--recent); the priors do not apply")
	} else {
		c := rank.Default.Columns
		fmt.Fprintf(w, "  order: score = bm25 (content x%g, tags x%g, identifiers x%g, type x%g) x priors x proximity\n", c.Content, c.Tags, c.Idents, c.Type)
	}
	var ks []string
	for _, k := range x.Knobs {
		ks = append(ks, k.Name+"="+k.Value)
	}
	fmt.Fprintf(w, "  knobs: %s\n", strings.Join(ks, " "))
	if g := x.Gate; g != nil {
		verdict := "stopped the query"
		if g.Passed {
			verdict = "let it through by " + inert(g.By)
		}
		fmt.Fprintf(w, "  gate: %s: %s (best share %.2f, needs %.2f", verdict, g.Why, g.Share, g.Need)
		if len(g.Words) > 0 {
			k := rank.Default
			fmt.Fprintf(w, "; best sentence %.2f, needs %.2f; or by chance in %.2g entries, needs at most %.2g", g.Sentence, k.GateSentence, g.Chance, k.GateChance)
		}
		fmt.Fprintln(w, ")")
		var ws []string
		for _, gw := range g.Words {
			ws = append(ws, fmt.Sprintf("%s %.2f (in %d)", inert(gw.Word), gw.Weight, gw.DF))
		}
		fmt.Fprintf(w, "  gate weights: %s\n", orNone(strings.Join(ws, ", ")))
	}
	if len(x.Hits) == 0 {
		fmt.Fprintln(w, "nothing matches")
		return
	}
	fmt.Fprintln(w, recall.OpenTag)
	for _, h := range x.Hits {
		fmt.Fprintf(w, "%d. %s  score %.4g = bm25 %.4g x prior %.4g x proximity %.4g", h.Rank, inert(h.Key), h.Score, h.BM25, h.Prior, h.Proximity)
		if h.Phrase > 1 {
			fmt.Fprintf(w, " (side by side x%.4g, within a phrase x%.4g)", h.Proximity/h.Phrase, h.Phrase)
		}
		if h.Via == "synonyms" {
			fmt.Fprint(w, "  (found by synonyms, after every direct match)")
		}
		if h.Archived {
			fmt.Fprint(w, "  (archived)")
		}
		fmt.Fprintf(w, "\n   [%s] %s\n", inert(h.Type), inert(untrusted.ForAgent(h.Content, 160)))
		var m []string
		for _, t := range h.Matched {
			m = append(m, termLabel(t.Term)+" in "+strings.Join(t.Fields, ", "))
		}
		fmt.Fprintf(w, "   matched: %s\n", orNone(strings.Join(m, "; ")))
		var moved, still []string
		for _, f := range h.Priors {
			if f.Factor != 1 {
				moved = append(moved, fmt.Sprintf("%s %s x%.2f (%s)", f.Name, inert(f.Value), f.Factor, f.Why))
			} else {
				still = append(still, f.Name)
			}
		}
		fmt.Fprintf(w, "   priors: %s; unmoved by %s\n", orNone(strings.Join(moved, "; ")), strings.Join(still, ", "))
		if h.Note != "" {
			fmt.Fprintf(w, "   note: %s\n", inert(h.Note))
		}
	}
	fmt.Fprintln(w, recall.CloseTag)
}

// termList writes terms with where each came from.
func termList(terms []relevance.Term) string {
	out := make([]string, len(terms))
	for i, t := range terms {
		out[i] = termLabel(t)
	}
	return strings.Join(out, ", ")
}

// termLabel is a term as explain prints it: parse (split from
// parseConfig), database (synonym of db), config* (a prefix).
func termLabel(t relevance.Term) string {
	s := untrusted.ForAgent(t.Term, 0)
	if t.Prefix {
		s += "*"
	}
	switch t.Origin {
	case relevance.FromSplit:
		s += " (split from " + untrusted.ForAgent(t.Of, 0) + ")"
	case relevance.FromJoin:
		s += " (joined from " + untrusted.ForAgent(t.Of, 0) + ")"
	case relevance.FromSynonym:
		s += " (synonym of " + untrusted.ForAgent(t.Of, 0) + ")"
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
