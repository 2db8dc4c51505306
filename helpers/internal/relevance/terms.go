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
	"slices"
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
// removed, at most MaxTerms. A branch-name prefix (fix/, feat:) is left out
// (see [StripBranchPrefix]); an identifier is also searched split
// (parseConfig -> parse, config) and, when written with - or _, joined
// (max_ack_pending -> maxackpending).
func Terms(text string) []string {
	var terms []string
	walkTerms(text, func(t, _, _ string) { terms = append(terms, t) }, nil)
	return terms
}

// GateTerms are the terms of text a confidence test weighs: [Terms]
// without the joined identifiers, whose parts are among them.
func GateTerms(text string) []string {
	var terms []string
	walkTerms(text, func(t, _, origin string) {
		if origin != FromJoin {
			terms = append(terms, t)
		}
	}, nil)
	return terms
}

// branchPrefixes are the kinds of change a branch name or a commit title
// starts with (fix/eta-flapping, feat(api): ..., chore: ...): they say what
// the work is, not what it is about, and match notes about any fix.
var branchPrefixes = map[string]bool{
	"fix": true, "feat": true, "feature": true, "chore": true, "bugfix": true, "hotfix": true,
	"refactor": true, "wip": true, "perf": true, "docs": true, "test": true, "ci": true, "build": true, "style": true,
}

// StripBranchPrefix removes a leading branch-name or commit-title prefix:
// "fix/", "feat/", "chore: ", "feat(api): ". A word before "/" is a prefix
// only for the kinds that name branches (not docs/, test/ or build/, which
// are also folders).
func StripBranchPrefix(text string) string {
	t := strings.TrimLeft(text, " \t")
	i := strings.IndexAny(t, "/:(!")
	if i <= 0 || !branchPrefixes[strings.ToLower(t[:i])] {
		return text
	}
	word, rest := strings.ToLower(t[:i]), t[i:]
	if rest[0] == '(' { // a conventional commit's scope: feat(api): ...
		j := strings.Index(rest, ")")
		if j < 0 {
			return text
		}
		rest = rest[j+1:]
	}
	rest = strings.TrimPrefix(rest, "!")
	switch {
	case strings.HasPrefix(rest, ":"):
		return rest[1:]
	case strings.HasPrefix(rest, "/") && word != "docs" && word != "test" && word != "build" && word != "ci" && word != "style":
		return rest[1:]
	}
	return text
}

// walkTerms calls term for each of text's terms in the order [Terms]
// lists them, with the identifier it was split from or joined from ("" for
// a word as written) and its origin ([FromQuery], [FromSplit], [FromJoin]),
// and dropped (when not nil) for each stop word or one-letter word left
// out.
func walkTerms(text string, term func(t, from, origin string), dropped func(w string)) {
	n := 0
	seen := map[string]bool{}
	add := func(f, from, origin string) bool {
		if len([]rune(f)) < 2 || stopWords()[f] || seen[f] {
			if dropped != nil && !seen[f] && origin != FromJoin {
				dropped(f)
			}
			return n < MaxTerms
		}
		seen[f] = true
		n++
		term(f, from, origin)
		return n < MaxTerms
	}
	for _, chunk := range strings.FieldsFunc(StripBranchPrefix(text), notIdentRune) {
		words := strings.FieldsFunc(chunk, notWordRune)
		for _, f := range words {
			if !add(strings.ToLower(f), "", FromQuery) {
				return
			}
			// parseConfig also searches for parse and config.
			for _, p := range SplitIdent(f) {
				if !add(p, f, FromSplit) {
					return
				}
			}
		}
		// max_ack_pending also searches for maxackpending.
		if j := joined(words); j != "" && !add(j, chunk, FromJoin) {
			return
		}
	}
}

// notWordRune separates the words of a text: anything but a letter or a
// digit.
func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

// notIdentRune separates the identifiers of a text: words joined by - or
// _ (idempotency-key, max_ack_pending) are one.
func notIdentRune(r rune) bool { return notWordRune(r) && r != '-' && r != '_' }

// joined is the lower-case join of an identifier's words (Idempotency-Key
// -> idempotencykey), or "" for a single word.
func joined(words []string) string {
	if len(words) < 2 {
		return ""
	}
	return strings.ToLower(strings.Join(words, ""))
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

// Idents is the text of an entry's identifiers, split (parseConfig ->
// parse config) and joined (max_ack_pending -> maxackpending), indexed in
// a column of its own so "parse config" finds parseConfig and
// "idempotencykey" finds Idempotency-Key.
func Idents(text string) string {
	var parts []string
	for _, chunk := range strings.FieldsFunc(text, notIdentRune) {
		words := strings.FieldsFunc(chunk, notWordRune)
		for _, f := range words {
			parts = append(parts, SplitIdent(f)...)
		}
		if j := joined(words); j != "" {
			parts = append(parts, j)
		}
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
	for _, c := range Covered(e, terms) {
		if c {
			matched++
		}
	}
	return matched, float64(matched) / float64(len(terms))
}

// Covered says, for each of terms, whether the entry contains it as
// [Coverage] counts.
func Covered(e knowledge.Entry, terms []string) []bool {
	out := make([]bool, len(terms))
	if len(terms) == 0 {
		return out
	}
	stems := map[string]bool{}
	for _, w := range strings.FieldsFunc(e.Content+" "+strings.Join(e.Tags, " "), notWordRune) {
		stems[stem(strings.ToLower(w))] = true
		for _, p := range SplitIdent(w) {
			stems[stem(p)] = true
		}
	}
	for i, t := range terms {
		ts := stem(t)
		if stems[ts] {
			out[i] = true
			continue
		}
		for w := range stems {
			if sameStem(ts, w) {
				out[i] = true
				break
			}
		}
	}
	return out
}

// Synonyms is the other words of t's synonym group (db -> database), nil
// when it has none.
func Synonyms(t string) []string { return synonyms()[t] }

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

// Positions lists, for each word of an entry's content in order, the
// indexes of terms it holds (as [Covered] counts a term held, stop words
// holding none; a term's
// group of synonyms counts as the term when synonyms is set), and after
// them, as one more position, those its tags hold. Words that hold no
// term are left out; pos is each listed word's place in the content.
func Positions(e knowledge.Entry, terms []string, synonyms bool) (pos []int, held [][]int) {
	groups := make([][]string, len(terms))
	for i, t := range terms {
		groups[i] = []string{stem(t)}
		if synonyms {
			for _, s := range Synonyms(t) {
				groups[i] = append(groups[i], stem(s))
			}
		}
	}
	match := func(w string) []int {
		var out []int
		ws := stem(strings.ToLower(w))
		parts := SplitIdent(w)
		for i, g := range groups {
		group:
			for _, ts := range g {
				if sameStem(ts, ws) {
					out = append(out, i)
					break
				}
				for _, p := range parts {
					if sameStem(ts, stem(p)) {
						out = append(out, i)
						break group
					}
				}
			}
		}
		return out
	}
	n := 0
	for _, w := range strings.FieldsFunc(e.Content, notWordRune) {
		// A stop word holds no term, as the index never matches one to a
		// query's word: the crude stem would make "them" hold "theme".
		if stopWords()[strings.ToLower(w)] {
			n++
			continue
		}
		if m := match(w); m != nil {
			pos = append(pos, n)
			held = append(held, m)
		}
		n++
	}
	var tags []int
	for _, w := range strings.FieldsFunc(strings.Join(e.Tags, " "), notWordRune) {
		tags = append(tags, match(w)...)
	}
	if tags != nil {
		pos = append(pos, n+1<<20) // apart from every word of the content
		held = append(held, tags)
	}
	return pos, held
}

// BestWindow is the most weight of distinct terms that stand within
// window words of each other in an entry, from [Positions]' pos and
// held, with weights[i] the weight of term i.
func BestWindow(pos []int, held [][]int, weights []float64, window int) float64 {
	count := make([]int, len(weights))
	var cur, best float64
	lo := 0
	for hi := range pos {
		for _, t := range held[hi] {
			if count[t] == 0 {
				cur += weights[t]
			}
			count[t]++
		}
		for pos[hi]-pos[lo] >= window {
			for _, t := range held[lo] {
				count[t]--
				if count[t] == 0 {
					cur -= weights[t]
				}
			}
			lo++
		}
		best = max(best, cur)
	}
	return best
}

// SentenceStarts lists the places, as [Positions] counts an entry's
// content words, where a sentence of content begins after the first: the
// word after a '.', '!', '?' or ';' that a space, a tab, a line's end or
// the text's end follows, or after a line break. A dot inside a word
// (1.24, openapi.yaml) ends nothing.
func SentenceStarts(content string) []int {
	var starts []int
	n, inWord, ended := 0, false, false
	for i, r := range content {
		if !notWordRune(r) {
			if !inWord {
				if ended && n > 0 {
					starts = append(starts, n)
				}
				inWord, ended = true, false
				n++
			}
			continue
		}
		inWord = false
		switch r {
		case '\n':
			ended = true
		case '.', '!', '?', ';':
			if next := content[i+1:]; next == "" || next[0] == ' ' || next[0] == '\t' || next[0] == '\n' || next[0] == '\r' {
				ended = true
			}
		}
	}
	return starts
}

// BestSentence is the most weight of distinct terms that one sentence of
// an entry's content holds, from [Positions]' pos and held and
// [SentenceStarts]' starts, with weights[i] the weight of term i. The
// tags are no sentence.
func BestSentence(pos []int, held [][]int, weights []float64, starts []int) float64 {
	count := make([]bool, len(weights))
	var cur, best float64
	s := 0 // the sentence of the word at pos[i]: starts[s-1] <= pos[i] < starts[s]
	for i, p := range pos {
		if p >= 1<<20 {
			break // the tags
		}
		next := s
		for next < len(starts) && starts[next] <= p {
			next++
		}
		if next != s || i == 0 {
			clear(count)
			cur, s = 0, next
		}
		for _, t := range held[i] {
			if !count[t] {
				count[t] = true
				cur += weights[t]
			}
		}
		best = max(best, cur)
	}
	return best
}

// Together counts the places where two different terms stand at most gap
// words apart in an entry's content, from [Positions]' pos and held: the
// query's words read together (load board, signed URL), not scattered
// over a long note's topics.
func Together(pos []int, held [][]int, gap int) int {
	n := 0
	for i := 1; i < len(pos); i++ {
		if pos[i]-pos[i-1] <= gap && !slices.Equal(held[i], held[i-1]) {
			n++
		}
	}
	return n
}
