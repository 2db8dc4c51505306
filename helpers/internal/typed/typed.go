// Package typed recognises cairn's typed-line prefixes (LEARNED:,
// DECISION:, FACT:, PATTERN:, INVESTIGATION:, DEVIATION:, MUST-CHECK:)
// at the lowest cost: it depends on nothing but strings, so the capture
// hook's reject path can use it before the rest of the program starts.
package typed

import "strings"

// MightContain reports cheaply whether s could contain a typed prefix at all
// (the hook's reject path). It looks at every ':' and checks whether one of
// the type words (optionally followed by "**" or "__") ends right before it.
// It does not allocate.
func MightContain(s string) bool {
	for {
		i := strings.IndexByte(s, ':')
		if i < 0 {
			return false
		}
		if typeWordEnds(s[:i]) {
			return true
		}
		s = s[i+1:]
	}
}

// typeWordEnds reports whether s ends with a type word, allowing up to two
// trailing emphasis characters ('*' or '_').
func typeWordEnds(s string) bool {
	for k := 0; k < 2 && len(s) > 0 && (s[len(s)-1] == '*' || s[len(s)-1] == '_'); k++ {
		s = s[:len(s)-1]
	}
	if len(s) < 4 {
		return false
	}
	switch s[len(s)-1] {
	case 'D':
		return strings.HasSuffix(s, "LEARNED")
	case 'N':
		return strings.HasSuffix(s, "DECISION") || strings.HasSuffix(s, "PATTERN") ||
			strings.HasSuffix(s, "INVESTIGATION") || strings.HasSuffix(s, "DEVIATION")
	case 'T':
		return strings.HasSuffix(s, "FACT")
	case 'K':
		if len(s) < 10 || !strings.HasSuffix(s, "CHECK") || !strings.HasSuffix(s[:len(s)-6], "MUST") {
			return false
		}
		sep := s[len(s)-6]
		return sep == '-' || sep == ' ' || sep == '_'
	}
	return false
}
