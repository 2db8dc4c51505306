// Package relevance owns how cairn reads a question and whether an entry
// covers it, apart from any storage: the terms of a text (stop words
// dropped, identifiers split, at most MaxTerms), their synonyms, which
// terms also find the words they start, the crude stemming that tells
// whether an entry covers a term, and the confidence test of an answer.
// The search cache (package index) turns terms into its SQL; package rank
// orders and gates what it finds; recall and the hooks use the terms
// directly. It imports nothing but the entry model.
package relevance

import (
	"strings"
	"sync"
	"unicode"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// MaxTerms caps how many terms of a query reach the search, so a pasted
// page of text cannot make a query slow.
const MaxTerms = 16

// stopWords are dropped from queries: they match nearly every entry and
// add cost, not meaning. Built on first use, not at init: every hook
// process initialises this package, most never read a query.
var stopWords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be because been
before being below between both but by can could did do does doing down during each few for from further had has
have having he her here hers herself him himself his how i if in into is it its itself just let me more most my
myself no nor not now of off on once only or other our ours ourselves out over own same she should so some such
than that the their theirs them themselves then there these they this those through to too under until up very
was we were what when where which while who whom why will with would you your yours yourself yourselves also
get got use used using via per vs etc ie eg`) {
		m[w] = true
	}
	return m
})

// Terms splits text into the lower-case search terms a query uses: runs of
// letters and digits, stop words and one-letter words dropped, duplicates
// removed, at most MaxTerms.
func Terms(text string) []string {
	var terms []string
	walkTerms(text, func(t, _ string) { terms = append(terms, t) }, nil)
	return terms
}

// walkTerms calls term for each of text's terms in the order [Terms]
// lists them, with the identifier it was split from ("" for a word as
// written), and dropped (when not nil) for each stop word or one-letter
// word left out.
func walkTerms(text string, term func(t, from string), dropped func(w string)) {
	n := 0
	seen := map[string]bool{}
	add := func(f, from string) bool {
		if len([]rune(f)) < 2 || stopWords()[f] || seen[f] {
			if dropped != nil && !seen[f] {
				dropped(f)
			}
			return n < MaxTerms
		}
		seen[f] = true
		n++
		term(f, from)
		return n < MaxTerms
	}
	for _, f := range strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if !add(strings.ToLower(f), "") {
			break
		}
		// parseConfig also searches for parse and config.
		for _, p := range SplitIdent(f) {
			if !add(p, f) {
				return
			}
		}
	}
}

// SplitIdent splits an identifier at case changes and between letters and
// digits: parseConfig -> parse config, HTTPServer -> http server,
// OAuth2Client -> o auth 2 client is avoided by keeping an upper-case run
// with the capital that starts the next word (OAuth -> o auth is not split
// because "O" alone is a single letter and is merged back). It returns the
// lower-case parts, or nil when the word has no inner boundary.
func SplitIdent(word string) []string {
	rs := []rune(word)
	var parts []string
	start := 0
	for i := 1; i < len(rs); i++ {
		prev, cur := rs[i-1], rs[i]
		var next rune
		if i+1 < len(rs) {
			next = rs[i+1]
		}
		boundary := (unicode.IsLower(prev) && unicode.IsUpper(cur)) ||
			(unicode.IsUpper(prev) && unicode.IsUpper(cur) && unicode.IsLower(next)) ||
			(unicode.IsLetter(prev) && unicode.IsDigit(cur)) ||
			(unicode.IsDigit(prev) && unicode.IsLetter(cur))
		if boundary {
			parts = append(parts, string(rs[start:i]))
			start = i
		}
	}
	if len(parts) == 0 {
		return nil
	}
	parts = append(parts, string(rs[start:]))
	// A one-letter head (OAuth, iPhone, eTag) is part of the word, not a
	// word of its own.
	var out []string
	for _, p := range parts {
		if len(out) > 0 && len([]rune(out[len(out)-1])) == 1 && !unicode.IsDigit([]rune(out[len(out)-1])[0]) {
			out[len(out)-1] += p
			continue
		}
		out = append(out, p)
	}
	if len(out) < 2 {
		return nil
	}
	for i := range out {
		out[i] = strings.ToLower(out[i])
	}
	return out
}

// Idents is the text of an entry's split identifiers, indexed in a column
// of its own so "parse config" finds parseConfig.
func Idents(text string) string {
	var parts []string
	for _, f := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		parts = append(parts, SplitIdent(f)...)
	}
	return strings.Join(parts, " ")
}

// synonymGroups are developer abbreviations and their spellings out; a
// query term from a group also searches for the others.
var synonymGroups = [][]string{
	{"auth", "authentication", "authenticate", "authn"},
	{"authz", "authorization", "authorize"},
	{"db", "database"},
	{"postgres", "postgresql", "pg"},
	{"config", "configuration", "cfg", "conf"},
	{"repo", "repository"},
	{"env", "environment"},
	{"envs", "environments"},
	{"k8s", "kubernetes"},
	{"perf", "performance"},
	{"deps", "dependencies", "dependency"},
	{"msg", "message"},
	{"err", "error"},
	{"req", "request"},
	{"resp", "response"},
	{"js", "javascript"},
	{"ts", "typescript"},
	{"py", "python"},
	{"tf", "terraform"},
	{"dir", "directory"},
	{"docs", "documentation"},
	{"impl", "implementation"},
	{"prod", "production"},
	{"dev", "development"},
	{"stg", "staging"},
	{"app", "application"},
	{"async", "asynchronous"},
	{"param", "parameter"},
	{"params", "parameters"},
	{"arg", "argument"},
	{"args", "arguments"},
	{"func", "function", "fn"},
	{"conn", "connection"},
	{"conns", "connections"},
	{"tx", "transaction"},
	{"mem", "memory"},
	{"pkg", "package"},
	{"lib", "library"},
	{"spec", "specification"},
	{"ms", "milliseconds"},
	{"img", "image"},
	{"ci", "pipeline"},
	{"gh", "github"},
	{"ssl", "tls"},
	{"cert", "certificate"},
	{"certs", "certificates"},
	{"creds", "credentials"},
	{"tmp", "temporary"},
	{"max", "maximum"},
	{"min", "minimum"},
	{"init", "initialize", "initialise", "initialization"},
	{"sync", "synchronize", "synchronise"},
	{"ui", "frontend"},
	{"backend", "server"},
	{"cache", "caching", "cached"},
	{"migration", "migrations", "migrate"},
}

// synonyms maps each word of a group to the others, built on first use.
var synonyms = sync.OnceValue(func() map[string][]string {
	m := map[string][]string{}
	for _, g := range synonymGroups {
		for _, w := range g {
			for _, o := range g {
				if o != w {
					m[w] = append(m[w], o)
				}
			}
		}
	}
	return m
})

// maxExpanded caps a query's terms after synonyms are added.
const maxExpanded = MaxTerms + 8

// Expand adds the synonyms of terms, after them, up to maxExpanded terms.
func Expand(terms []string) []string {
	out := append([]string{}, terms...)
	walkSynonyms(terms, func(s, _ string) { out = append(out, s) })
	return out
}

// walkSynonyms calls syn for each synonym [Expand] adds to terms, in its
// order, with the term it is a synonym of.
func walkSynonyms(terms []string, syn func(s, of string)) {
	n := len(terms)
	seen := map[string]bool{}
	for _, t := range terms {
		seen[t] = true
	}
	for _, t := range terms {
		for _, s := range synonyms()[t] {
			if n == maxExpanded {
				return
			}
			if !seen[s] {
				seen[s] = true
				n++
				syn(s, t)
			}
		}
	}
}

// Coverage is how many of the query terms an entry contains, and their
// share: a term counts when a word of the entry's content or tags has the
// same crude stem (see stem), so "authenticate" meets "authentication".
func Coverage(e knowledge.Entry, terms []string) (matched int, share float64) {
	if len(terms) == 0 {
		return 0, 0
	}
	stems := map[string]bool{}
	for _, w := range strings.FieldsFunc(e.Content+" "+strings.Join(e.Tags, " "), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		stems[stem(strings.ToLower(w))] = true
		for _, p := range SplitIdent(w) {
			stems[stem(p)] = true
		}
	}
	for _, t := range terms {
		ts := stem(t)
		if stems[ts] {
			matched++
			continue
		}
		for w := range stems {
			if sameStem(ts, w) {
				matched++
				break
			}
		}
	}
	return matched, float64(matched) / float64(len(terms))
}

// Confident reports whether an entry matches enough of a query to be shown
// when nothing better exists: a one-term query needs its term, a longer
// one at least two of its terms. Matching a single common word of a
// longer query is what a query about something the log does not cover
// looks like.
func Confident(e knowledge.Entry, terms []string) bool {
	matched, _ := Coverage(e, terms)
	return matched >= min(2, len(terms))
}

// minPrefixStem is the shortest stem a query term searches as a prefix.
const minPrefixStem = 6

// Prefixed reports whether a query term also finds the words it starts
// (health finds healthz, config finds configmap, service finds
// serviceaccount): when its stem keeps six letters or more, the length at
// which Coverage already takes a prefix for the same word (see sameStem).
// FTS5 stems a prefix too (running* searches run*), so a term with a
// shorter stem would match unrelated words.
func Prefixed(term string) bool { return len(stem(term)) >= minPrefixStem }

// sameStem reports whether two stems are one word's: equal, or one a
// prefix of the other when both have six letters or more
// (authenticat/authentic, configur/configuration).
func sameStem(a, b string) bool {
	if len(a) < minPrefixStem || len(b) < minPrefixStem {
		return a == b
	}
	return strings.HasPrefix(a, b) || strings.HasPrefix(b, a)
}

// suffixes are stripped, longest first, by stem.
var suffixes = []string{"ations", "ation", "ings", "ing", "ions", "ion", "ers", "er", "ies", "es", "ed", "ly", "s", "e"}

// stem strips one common English suffix, keeping at least three letters: a
// cheap stand-in for the porter stemmer the index uses, good enough to
// tell whether a word of the query is in an entry.
func stem(w string) string {
	for _, suf := range suffixes {
		if len(w)-len(suf) >= 3 && strings.HasSuffix(w, suf) {
			if suf == "ies" {
				return w[:len(w)-3] + "y"
			}
			return w[:len(w)-len(suf)]
		}
	}
	return w
}
