// Package typed is cairn's one table of entry types: each type's name as
// the log stores it, the typed-line prefix an agent writes for it
// (LEARNED:, DECISION:, FACT:, PATTERN:, INVESTIGATION:, DEVIATION:,
// MUST-CHECK:) and the other spellings accepted for that prefix. The
// entry model validates against it, the capture parsers match prefixes
// with it, and the injected instructions list its prefixes.
//
// It depends on nothing but strings, so the capture hook's reject path
// ([MightContain]) can use it before the rest of the program starts.
package typed

import "strings"

// Type is one entry type.
type Type struct {
	// Name is the type as the log stores it and commands take it, e.g.
	// "must-check".
	Name string
	// Prefix is the canonical typed-line prefix, without its colon, that
	// instructions show, e.g. "MUST-CHECK".
	Prefix string
	// Spellings are other prefixes accepted for the type, e.g.
	// "MUST CHECK" and "MUST_CHECK".
	Spellings []string
}

// MustCheck is the name of the type that recall always shows, first.
const MustCheck = "must-check"

// table is the entry types in the order they are documented. Every prefix
// and spelling is upper-case ASCII letters with '-', ' ' or '_' inside,
// and none starts another (TestTable).
var table = [...]Type{
	{Name: "learned", Prefix: "LEARNED"},
	{Name: "decision", Prefix: "DECISION"},
	{Name: "fact", Prefix: "FACT"},
	{Name: "pattern", Prefix: "PATTERN"},
	{Name: "investigation", Prefix: "INVESTIGATION"},
	{Name: "deviation", Prefix: "DEVIATION"},
	{Name: MustCheck, Prefix: "MUST-CHECK", Spellings: []string{"MUST CHECK", "MUST_CHECK"}},
}

// PrefixList is the canonical prefixes with their colons in table order,
// for text that tells an agent what to write ("start a line with one of
// " + PrefixList). It is a constant so that such text can stay one;
// TestPrefixList holds it to the table.
const PrefixList = "LEARNED:, DECISION:, FACT:, PATTERN:, INVESTIGATION:, DEVIATION: or MUST-CHECK:"

// word is one accepted prefix (a canonical one or another spelling) and
// the name of its type.
type word struct{ text, name string }

// maxWords bounds the number of prefixes: one bit each in byFirst and
// byLast.
const maxWords = 32

var (
	// words[:nwords] is every accepted prefix, canonical ones first in
	// table order.
	words  [maxWords]word
	nwords int
	// byFirst and byLast index words by their first and last byte: bit i
	// of byFirst[c] is set when words[i] starts with c. They make
	// MightContain and Match cost one load for a byte no prefix has.
	byFirst, byLast [256]uint32
)

func init() {
	add := func(text, name string) {
		words[nwords] = word{text, name} // panics past maxWords
		byFirst[text[0]] |= 1 << nwords
		byLast[text[len(text)-1]] |= 1 << nwords
		nwords++
	}
	for _, t := range table {
		add(t.Prefix, t.Name)
	}
	for _, t := range table {
		for _, s := range t.Spellings {
			add(s, t.Name)
		}
	}
}

// Names returns the type names in the order they are documented.
func Names() []string {
	out := make([]string, len(table))
	for i, t := range table {
		out[i] = t.Name
	}
	return out
}

// Valid reports whether name is a type's name, exactly ("must-check", not
// "MUST-CHECK").
func Valid(name string) bool {
	for _, t := range table {
		if t.Name == name {
			return true
		}
	}
	return false
}

// Lookup returns the name of the type that s names or spells, ignoring
// ASCII case: a name ("must-check"), a prefix ("MUST-CHECK") or another
// spelling ("Must_Check", "must check"). Colons and blanks are not
// trimmed.
func Lookup(s string) (name string, ok bool) {
	for _, w := range words[:nwords] {
		if equalFoldASCII(s, w.text) {
			return w.name, true
		}
	}
	return "", false
}

// equalFoldASCII reports whether a and b are equal under ASCII case
// folding (and only that: the Kelvin sign is not a K).
func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if lowerASCII(a[i]) != lowerASCII(b[i]) {
			return false
		}
	}
	return true
}

// lowerASCII returns c in lower case when it is an ASCII letter.
func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// Match reports whether s starts with an accepted prefix, as written (upper
// case, without its colon), and returns its type's name and the prefix's
// length; n is 0 when it does not. What follows the prefix is not looked
// at. It does not allocate.
func Match(s string) (name string, n int) {
	if s == "" {
		return "", 0
	}
	for i, m := 0, byFirst[s[0]]; m != 0; i, m = i+1, m>>1 {
		if m&1 != 0 && strings.HasPrefix(s, words[i].text) {
			return words[i].name, len(words[i].text)
		}
	}
	return "", 0
}

// MightContain reports cheaply whether s could contain a typed prefix at all
// (the hook's reject path). It looks at every ':' and checks whether one of
// the accepted prefixes (optionally followed by up to two '*' or '_')
// ends right before it. It does not allocate.
func MightContain(s string) bool {
	for {
		i := strings.IndexByte(s, ':')
		if i < 0 {
			return false
		}
		if prefixEnds(s[:i]) {
			return true
		}
		s = s[i+1:]
	}
}

// prefixEnds reports whether s ends with an accepted prefix, allowing up to
// two trailing emphasis characters ('*' or '_').
func prefixEnds(s string) bool {
	for k := 0; k < 2 && len(s) > 0 && (s[len(s)-1] == '*' || s[len(s)-1] == '_'); k++ {
		s = s[:len(s)-1]
	}
	if s == "" {
		return false
	}
	for i, m := 0, byLast[s[len(s)-1]]; m != 0; i, m = i+1, m>>1 {
		if m&1 != 0 && strings.HasSuffix(s, words[i].text) {
			return true
		}
	}
	return false
}
