package redact

import "sort"

// An invisible character that normalize removes can split a secret
// ("ghp_abc\u200bdef..."), which the rules see whole once it is gone; but
// it can also stand between a secret and the word before or after it
// ("key\u200bAKIA...", "0\u200bmysql -pS3cret"), and gone, it glues them.
// So when normalize removed something, redactJoined looks at the text
// as it is, at the tokens that start where a removal was even though
// they are glued to the word before them, and at the text with a blank
// where each removal was (the split view); and it redacts the union of
// what the rules find.

// span is a secret found by a rule: its kind and byte range.
type span struct {
	kind       string
	start, end int
}

// redactJoined redacts in s, the result of normalize, what the rules find
// in s or in its split view (joins are the offsets of the removals,
// increasing), adding the kinds to *counts.
func redactJoined(s string, joins []int, counts *map[string]int) string {
	if len(joins) == 0 {
		return s
	}
	spans := detect(s)
	findTokens(escapeView(s), joins, func(kind string, start, end int) {
		spans = append(spans, span{kind, start, end})
	})
	split := make([]byte, 0, len(s)+len(joins))
	last := 0
	for _, j := range joins {
		split = append(split, s[last:j]...)
		split = append(split, ' ')
		last = j
	}
	split = append(split, s[last:]...)
	// An offset in the split view, less the blanks inserted before it, is
	// an offset in s.
	toS := func(i int) int { return i - sort.Search(len(joins), func(k int) bool { return joins[k]+k >= i }) }
	for _, sp := range detect(string(split)) {
		spans = append(spans, span{sp.kind, toS(sp.start), toS(sp.end)})
	}
	if len(spans) == 0 {
		return s
	}
	// The union, in order; where spans overlap, the kind of the one that
	// starts first (or, at the same start, of the earlier rule).
	sort.SliceStable(spans, func(a, b int) bool { return spans[a].start < spans[b].start })
	merged := spans[:1]
	for _, sp := range spans[1:] {
		last := &merged[len(merged)-1]
		if sp.start < last.end {
			last.end = max(last.end, sp.end)
			continue
		}
		merged = append(merged, sp)
	}
	r := rule{fn: func(_ string, emit func(string, int, int)) {
		for _, sp := range merged {
			emit(sp.kind, sp.start, sp.end)
		}
	}}
	_, s, _ = r.apply(s, s, counts)
	return s
}

// detect returns what every rule finds in s (its escape view), each rule
// reading s as it is rather than what an earlier rule left of it.
func detect(s string) []span {
	view := escapeView(s)
	var spans []span
	for i := range rules {
		r := &rules[i]
		emit := func(kind string, start, end int) {
			if start < end && end <= len(view) {
				spans = append(spans, span{kind, start, end})
			}
		}
		if r.fn != nil {
			r.fn(view, emit)
		} else {
			r.find(view, emit)
		}
	}
	return spans
}
