package untrusted

import "strings"

// Role markers are found in the skeleton of a text (see skeleton), so that
// look-alike letters, colons and brackets match their ASCII forms.

// labels are the speaker labels a model reads as a change of speaker,
// removed wherever they appear. Only upper and title case: "postgres
// user: admin" in prose is left alone.
var labels = []string{"SYSTEM:", "System:", "HUMAN:", "Human:", "ASSISTANT:", "Assistant:", "USER:", "DEVELOPER:"}

// prefixes are the role prefixes an entry must not start with, in any
// case.
var prefixes = []string{"system:", "human:", "assistant:", "user:", "developer:", "tool:"}

// headingWords are the words of the markdown headings an entry must not
// start with ("### Instruction").
var headingWords = []string{"system", "instruction", "human", "assistant"}

// mightHaveMarker reports cheaply whether markers could find one: every
// marker holds '[', '<' or ':'.
func mightHaveMarker(sk string) bool {
	return strings.ContainsAny(sk, "[<:")
}

// markers returns the spans [start, end) of the skeleton sk that are role
// markers, leftmost first, not overlapping.
func markers(sk string) [][2]int {
	var spans [][2]int
	for i := 0; i < len(sk); i++ {
		if end := markerAt(sk, i); end > i {
			spans = append(spans, [2]int{i, end})
			i = end - 1
		}
	}
	return spans
}

// markerAt returns the end of the marker that starts at sk[i], or -1.
func markerAt(sk string, i int) int {
	switch sk[i] {
	case '[':
		// [INST] and [/INST], any case.
		if e := match(sk, i, "[inst]", true, false); e > 0 {
			return e
		}
		return match(sk, i, "[/inst]", true, false)
	case '<':
		// <<SYS>> and <</SYS>>, any case.
		if e := match(sk, i, "<<sys>>", true, false); e > 0 {
			return e
		}
		if e := match(sk, i, "<</sys>>", true, false); e > 0 {
			return e
		}
		// <|name|> with a name of up to 20 letters and '_', as in
		// <|im_start|>.
		j := match(sk, i, "<|", false, false)
		if j < 0 {
			return -1
		}
		for n := 0; ; n++ {
			j = skipMarks(sk, j)
			if e := match(sk, j, "|>", false, false); e > 0 {
				return e
			}
			if n == 20 || j >= len(sk) || !isNameByte(sk[j]) {
				return -1
			}
			j++
		}
	case 'S', 'H', 'A', 'U', 'D':
		for _, l := range labels {
			if l[0] == sk[i] {
				if e := match(sk, i, l, false, true); e > 0 {
					return e
				}
			}
		}
	}
	return -1
}

// prefixLen returns the length of the role prefix sk starts with, or 0.
func prefixLen(sk string) int {
	if sk == "" {
		return 0
	}
	if sk[0] != '#' {
		for _, p := range prefixes {
			if e := match(sk, 0, p, true, true); e > 0 {
				return e
			}
		}
		return 0
	}
	// A markdown heading: one to six '#', a space or none, one of
	// headingWords as a whole word, and a colon or none.
	j := 0
	for j < len(sk) && sk[j] == '#' {
		j++
	}
	if j > 6 {
		return 0
	}
	if j < len(sk) && sk[j] == ' ' {
		j++
	}
	for _, w := range headingWords {
		e := match(sk, j, w, true, true)
		if e < 0 {
			continue
		}
		if k := skipMarks(sk, e); k < len(sk) && isWordByte(sk[k]) {
			continue
		}
		if c := match(sk, e, " :", false, false); c > 0 {
			return c
		}
		if c := match(sk, e, ":", false, false); c > 0 {
			return c
		}
		return e
	}
	return 0
}

// match matches pat at sk[i:] and returns the index after the match, or
// -1. Transparent bytes (combining marks) are skipped between the bytes of
// pat. With lower, sk is compared in lower case (pat must be lower case).
// With spaced, one space may stand before each letter of pat but the
// first, and before a colon.
func match(sk string, i int, pat string, lower, spaced bool) int {
	for k := 0; k < len(pat); k++ {
		p := pat[k]
		if k > 0 {
			i = skipMarks(sk, i)
			if spaced && i < len(sk) && sk[i] == ' ' && (isLetter(p) || p == ':') {
				// A space never matches a letter or a colon, so taking
				// the optional space whenever it is there loses nothing.
				i = skipMarks(sk, i+1)
			}
		}
		if i >= len(sk) {
			return -1
		}
		c := sk[i]
		if lower && 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != p {
			return -1
		}
		i++
	}
	return i
}

// skipMarks returns the index of the first byte at or after i that is not
// transparent.
func skipMarks(sk string, i int) int {
	for i < len(sk) && sk[i] == transparent {
		i++
	}
	return i
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isNameByte(c byte) bool { return isLetter(c) || c == '_' }

func isWordByte(c byte) bool { return isNameByte(c) || '0' <= c && c <= '9' }
