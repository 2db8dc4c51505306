package untrusted

import (
	"strings"
	"unicode/utf8"
)

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

// maxMarks is the most combining marks matching skips in a row; real text
// has a few on a letter at most, and the bound keeps matching cheap.
const maxMarks = 8

// text is a skeleton, as a string or as the stack removeMarkers builds.
type text interface{ ~string | ~[]byte }

// hasMarker reports whether a role marker ends anywhere in sk.
func hasMarker(sk string) bool {
	for i := 0; ; i++ {
		j := strings.IndexAny(sk[i:], ":]>")
		if j < 0 {
			return false
		}
		i += j
		if markerStart(sk, i) >= 0 {
			return true
		}
	}
}

// removeMarkers removes the role markers from a clean text out whose
// skeleton is sk, each replaced by a space, and returns the text and its
// skeleton. It reads the text once, left to right, pushing each rune on a
// stack; when a rune that can end a marker (':', ']' or '>') completes
// one on the stack, the marker is popped and a space pushed. A marker
// left in the result would have been seen when its last rune was pushed,
// since nothing under that rune changed afterwards, so none is left, not
// even one assembled from the pieces around a removed one; and the work
// is linear, however deep markers are nested.
func removeMarkers(out, sk string) (string, string) {
	ob := make([]byte, 0, len(out))
	sb := make([]byte, 0, len(sk))
	sizes := make([]uint8, 0, len(sk)) // bytes of each rune on the stack
	i := 0
	for k := 0; k < len(sk); k++ {
		size := 1
		if out[i] >= utf8.RuneSelf {
			_, size = utf8.DecodeRuneInString(out[i:])
		}
		c := sk[k]
		if c == ' ' && (len(sb) == 0 || sb[len(sb)-1] == ' ') {
			i += size // a space after a removal, or at the start
			continue
		}
		ob = append(ob, out[i:i+size]...)
		sb = append(sb, c)
		sizes = append(sizes, uint8(size))
		i += size
		if c != ':' && c != ']' && c != '>' {
			continue
		}
		start := markerStart(sb, len(sb)-1)
		if start < 0 {
			continue
		}
		n := 0
		for _, z := range sizes[start:] {
			n += int(z)
		}
		ob, sb, sizes = ob[:len(ob)-n], sb[:start], sizes[:start]
		if len(sb) > 0 && sb[len(sb)-1] != ' ' {
			ob, sb, sizes = append(ob, ' '), append(sb, ' '), append(sizes, 1)
		}
	}
	for len(sb) > 0 && sb[len(sb)-1] == ' ' {
		ob, sb = ob[:len(ob)-1], sb[:len(sb)-1]
	}
	return string(ob), string(sb)
}

// markerStart returns where the role marker that ends at sk[end] starts,
// or -1: a token [INST], [/INST], <<SYS>>, <</SYS>> (any case) or
// <|name|> (a name of up to 20 letters and '_'), or a label of labels
// (with single spaces allowed between its letters and before its colon).
func markerStart[S text](sk S, end int) int {
	switch sk[end] {
	case ']':
		if s := matchBack(sk, end, "[inst]", true, false); s >= 0 {
			return s
		}
		return matchBack(sk, end, "[/inst]", true, false)
	case '>':
		if s := matchBack(sk, end, "<<sys>>", true, false); s >= 0 {
			return s
		}
		if s := matchBack(sk, end, "<</sys>>", true, false); s >= 0 {
			return s
		}
		j := matchBack(sk, end, "|>", false, false)
		if j < 0 {
			return -1
		}
		for n := 0; ; n++ {
			j = skipMarksBack(sk, j-1)
			if s := matchBack(sk, j, "<|", false, false); s >= 0 {
				return s
			}
			if n == 20 || j < 0 || !isNameByte(sk[j]) {
				return -1
			}
		}
	case ':':
		for _, l := range labels {
			if s := matchBack(sk, end, l, false, true); s >= 0 {
				return s
			}
		}
	}
	return -1
}

// matchBack matches pat so that it ends at sk[end] and returns where the
// match starts, or -1; the options are those of match.
func matchBack[S text](sk S, end int, pat string, lower, spaced bool) int {
	j := end
	for k := len(pat) - 1; k >= 0; k-- {
		if k < len(pat)-1 {
			j = skipMarksBack(sk, j-1)
			if next := pat[k+1]; spaced && j >= 0 && sk[j] == ' ' && (isLetter(next) || next == ':') {
				j = skipMarksBack(sk, j-1)
			}
		}
		if j < 0 || !same(sk[j], pat[k], lower) {
			return -1
		}
	}
	return j
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
// -1. Up to maxMarks transparent bytes (combining marks) are skipped
// between the bytes of pat. With lower, sk is compared in lower case (pat
// must be lower case). With spaced, one space may stand before each
// letter of pat but the first, and before a colon.
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
		if i >= len(sk) || !same(sk[i], p, lower) {
			return -1
		}
		i++
	}
	return i
}

// same compares a skeleton byte with a pattern byte.
func same(c, p byte, lower bool) bool {
	if lower && 'A' <= c && c <= 'Z' {
		c += 'a' - 'A'
	}
	return c == p
}

// skipMarks returns the index of the first byte at or after i that is not
// transparent, skipping at most maxMarks.
func skipMarks(sk string, i int) int {
	for n := 0; n < maxMarks && i < len(sk) && sk[i] == transparent; n++ {
		i++
	}
	return i
}

// skipMarksBack returns the index of the last byte at or before i that is
// not transparent, skipping at most maxMarks (or -1).
func skipMarksBack[S text](sk S, i int) int {
	for n := 0; n < maxMarks && i >= 0 && sk[i] == transparent; n++ {
		i--
	}
	return i
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isNameByte(c byte) bool { return isLetter(c) || c == '_' }

func isWordByte(c byte) bool { return isNameByte(c) || '0' <= c && c <= '9' }
