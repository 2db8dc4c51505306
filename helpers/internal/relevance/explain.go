package relevance

// Where a query term came from (see [Term]).
const (
	FromQuery   = "query"   // a word as written
	FromSplit   = "split"   // a part of an identifier of the query (parseConfig -> parse)
	FromSynonym = "synonym" // a synonym of another term (db -> database)
	FromJoin    = "join"    // an identifier of the query written with - or _, joined (max_ack_pending -> maxackpending)
)

// Term is one search term of an analysed query.
type Term struct {
	Term   string `json:"term"`
	Origin string `json:"origin"`       // FromQuery, FromSplit, FromJoin or FromSynonym
	Of     string `json:"of,omitempty"` // the identifier split or joined, or the term a synonym stands for
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
	walkTerms(text, func(t, from, origin string) {
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
