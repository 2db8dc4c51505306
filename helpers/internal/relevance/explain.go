package relevance

import (
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/audit"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// Where a query term came from (see [Term]).
const (
	FromQuery   = "query"   // a word as written
	FromSplit   = "split"   // a part of an identifier of the query (parseConfig -> parse)
	FromSynonym = "synonym" // a synonym of another term (db -> database)
)

// Term is one search term of an analysed query.
type Term struct {
	Term   string `json:"term"`
	Origin string `json:"origin"`       // FromQuery, FromSplit or FromSynonym
	Of     string `json:"of,omitempty"` // the identifier split, or the term a synonym stands for
	// Prefix is set when the search also finds words the term starts
	// (see [Prefixed]).
	Prefix bool `json:"prefix,omitempty"`
}

// Analysis is how a query is read: its terms in the order the search
// uses them ([Terms]), the synonyms added after them ([Expand]), and the
// words left out (stop words, one-letter words).
type Analysis struct {
	Terms    []Term   `json:"terms"`
	Synonyms []Term   `json:"synonyms"`
	Dropped  []string `json:"dropped"`
}

// Analyse reads text as a search does. Its terms are [Terms](text) and its
// synonyms the rest of [Expand] of them, in the same order.
func Analyse(text string) Analysis {
	a := Analysis{Terms: []Term{}, Synonyms: []Term{}, Dropped: []string{}}
	var plain []string
	dropped := map[string]bool{}
	walkTerms(text, func(t, from string) {
		origin := FromQuery
		if from != "" {
			origin = FromSplit
		}
		a.Terms = append(a.Terms, Term{Term: t, Origin: origin, Of: from, Prefix: Prefixed(t)})
		plain = append(plain, t)
	}, func(w string) {
		if !dropped[w] {
			dropped[w] = true
			a.Dropped = append(a.Dropped, w)
		}
	})
	walkSynonyms(plain, func(s, of string) {
		a.Synonyms = append(a.Synonyms, Term{Term: s, Origin: FromSynonym, Of: of, Prefix: Prefixed(s)})
	})
	return a
}

// Factor is one prior of a match's score: its name, what of the entry it
// looked at, and the factor it applied (1 when it moved nothing).
type Factor struct {
	Name   string  `json:"name"`
	Value  string  `json:"value"`
	Factor float64 `json:"factor"`
	Why    string  `json:"why"`
}

// Factors are the priors [Prior] weighs for e with the audit's verdict
// effect, one by one, including those that moved nothing; their product
// is Prior(e, effect).
func Factors(e knowledge.Entry, effect string) []Factor {
	status := Factor{Name: "status", Value: e.Status, Factor: 1, Why: "no curation status"}
	switch e.Status {
	case knowledge.StatusCanonical:
		status.Factor, status.Why = priorCanonical, "curation kept it for its cluster of duplicates"
	case knowledge.StatusNeedsReview:
		status.Factor, status.Why = priorNeedsReview, "curation marked it for review"
	case "":
		status.Value = "active"
	default:
		status.Why = "no prior for this status"
	}
	verdict := Factor{Name: "verdict", Value: "none", Factor: 1, Why: "sanitize has no verdict on its line"}
	if effect != "" {
		verdict.Value, verdict.Why = effect, "sanitize's verdict on this machine"
	}
	if effect == audit.EffectFlagged {
		verdict.Factor, verdict.Why = priorNeedsReview, "sanitize doubts it, and a flag ranks lower"
	}
	return []Factor{
		status,
		verdict,
		{Name: "type", Value: e.Type, Factor: 1, Why: "not a prior: a boost for must-check and decision entries cost recall@5"},
		{Name: "recency", Value: "", Factor: 1, Why: "not a prior: a boost for newer entries cost recall@5"},
		{Name: "anchors", Value: strings.Join(e.Files, ", "), Factor: 1, Why: "not a prior of the search (anchors steer the per-file notes)"},
	}
}

// All is the analysis's terms and then its synonyms, as [Expand] lists
// them.
func (a Analysis) All() []string {
	out := make([]string, 0, len(a.Terms)+len(a.Synonyms))
	for _, t := range a.Terms {
		out = append(out, t.Term)
	}
	for _, t := range a.Synonyms {
		out = append(out, t.Term)
	}
	return out
}
