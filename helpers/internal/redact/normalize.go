package redact

import (
	"strings"
	"unicode/utf8"
)

// normalize returns s without the characters that a terminal or an editor
// does not show but that can split a secret so that no rule sees it whole.
// [String] applies it before it looks for secrets, and its result is what
// String redacts and returns. It removes:
//
//   - C0 control characters except newline, tab and carriage return (which
//     are kept: they already separate words), DEL, and C1 controls
//     (U+0080 to U+009F);
//   - ANSI/VT escape sequences: CSI (ESC [ parameters, intermediates, final
//     byte, or the 8-bit U+009B form), OSC and the other string sequences
//     (ESC ], ESC P, ESC X, ESC ^, ESC _ up to BEL or ESC \), nF sequences
//     such as ESC ( B, and a lone ESC with the one printable ASCII
//     character after it (a blank after it stays);
//   - zero-width and other invisible format characters: U+200B to U+200D,
//     U+2060 to U+2064, U+FEFF, U+180E, U+034F and the soft hyphen U+00AD;
//   - bidirectional controls: U+200E, U+200F, U+061C, U+202A to U+202E and
//     U+2066 to U+206F;
//   - Unicode tag characters (U+E0000 to U+E007F) and the interlinear
//     annotation characters U+FFF9 to U+FFFB.
//
// Everything else, including a literal two-character "\n", "\t" or "\r"
// (which the rules read as a separator without changing the text), is kept
// byte for byte. When there is nothing to remove, s itself is returned
// after one scan of its bytes and nothing is allocated. When there is,
// invalid UTF-8 in s is first replaced by U+FFFD so that a removal cannot
// join stray bytes into a new invisible character: normalize is idempotent,
// and its result is valid UTF-8 whenever s was or whenever it changed s.
// It also returns the offsets in its result where it removed something
// (increasing, each once).
func normalize(s string) (string, []int) {
	i := firstRemovable(s)
	if i < 0 {
		return s, nil
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
		if i = firstRemovable(s); i < 0 {
			return s, nil
		}
	}
	var joins []int
	b := make([]byte, 0, len(s))
	b = append(b, s[:i]...)
	for i < len(s) {
		if suspect[s[i]] {
			if n := removableAt(s, i); n > 0 {
				if len(joins) == 0 || joins[len(joins)-1] != len(b) {
					joins = append(joins, len(b))
				}
				i += n
				continue
			}
		}
		b = append(b, s[i])
		i++
	}
	return string(b), joins
}

// firstRemovable returns the offset of the first sequence normalize
// removes, or -1.
func firstRemovable(s string) int {
	for i := 0; i < len(s); i++ {
		if suspect[s[i]] && removableAt(s, i) > 0 {
			return i
		}
	}
	return -1
}

// suspect marks the bytes that can start a sequence normalize removes: the
// control bytes, and the lead bytes of the UTF-8 encodings of the invisible
// characters it removes (C2 for C1 controls and U+00AD, CD for U+034F, D8
// for U+061C, E1 for U+180E, E2 for U+200B to U+206F, EF for U+FEFF and
// U+FFF9 to U+FFFB, F3 for the tags).
var suspect = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = c != '\n' && c != '\t' && c != '\r'
	}
	for _, c := range []byte{0x7f, 0xc2, 0xcd, 0xd8, 0xe1, 0xe2, 0xef, 0xf3} {
		t[c] = true
	}
	return t
}()

// removableAt returns the length of the sequence normalize removes at s[i],
// or 0 when the character there is kept.
func removableAt(s string, i int) int {
	c := s[i]
	switch {
	case c == 0x1b:
		return escapeLen(s, i)
	case c < 0x20:
		if c == '\n' || c == '\t' || c == '\r' {
			return 0
		}
		return 1
	case c == 0x7f:
		return 1
	case c < 0x80:
		return 0
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && n <= 1 {
		return 0 // a stray byte: kept
	}
	if r == 0x9b { // 8-bit CSI
		return n + csiBodyLen(s, i+n)
	}
	if invisibleRune(r) {
		return n
	}
	return 0
}

// invisibleRune reports whether normalize removes r.
func invisibleRune(r rune) bool {
	switch {
	case 0x80 <= r && r <= 0x9f, r == 0xad, r == 0x34f, r == 0x61c, r == 0x180e:
		return true
	case 0x200b <= r && r <= 0x200f, 0x202a <= r && r <= 0x202e, 0x2060 <= r && r <= 0x2064,
		0x2066 <= r && r <= 0x206f:
		return true
	case r == 0xfeff, 0xfff9 <= r && r <= 0xfffb, 0xe0000 <= r && r <= 0xe007f:
		return true
	}
	return false
}

// escapeLen returns the length of the escape sequence starting with the
// ESC at s[i].
func escapeLen(s string, i int) int {
	if i+1 >= len(s) {
		return 1
	}
	switch c := s[i+1]; {
	case c == '[':
		return 2 + csiBodyLen(s, i+2)
	case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
		// A string sequence, up to BEL or ST (ESC \). Unterminated, only
		// the introducer goes: the rest stays visible to the rules.
		for j := i + 2; j < len(s); j++ {
			switch {
			case s[j] == 0x07:
				return j + 1 - i
			case s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\':
				return j + 2 - i
			}
		}
		return 2
	case 0x21 <= c && c <= 0x2f:
		// nF: an intermediate, then a final byte ("ESC ( B"). One
		// intermediate only, and not a blank (which separates words,
		// whatever a terminal makes of it): "ESC )-----BEGIN" loses ")".
		j := i + 2
		if j < len(s) && 0x30 <= s[j] && s[j] <= 0x7e && s[j] != '\\' {
			j++
		}
		return j - i
	case 0x30 <= c && c <= 0x7e && c != '\\':
		return 2
	}
	// Before a blank, a control or a non-ASCII character, ESC goes alone;
	// before a backslash too: no sequence takes a backslash as its final
	// byte here (a lone ST ends nothing, and the backslash may start a
	// literal "\n").
	return 1
}

// csiBodyLen returns the length of the parameters, intermediate and final
// byte of a control sequence whose body starts at s[j]. Real sequences
// have one intermediate at most; more would swallow text ("ESC [-----").
func csiBodyLen(s string, j int) int {
	k := j
	for k < len(s) && 0x30 <= s[k] && s[k] <= 0x3f {
		k++
	}
	if k < len(s) && 0x20 <= s[k] && s[k] <= 0x2f { // one intermediate at most
		k++
	}
	if k < len(s) && 0x40 <= s[k] && s[k] <= 0x7e && s[k] != '\\' {
		k++
	}
	return k - j
}

// escapeView returns s with the letter of every literal "\n", "\t" and
// "\r" (a backslash and the letter, as in JSON or shell text) replaced by
// the control character it stands for. The view has the same length as s,
// byte for byte, so the rules run on it and their spans apply to s: a
// token glued to a literal "\n" starts a word in the view. "\\n" counts
// too (text escaped twice).
func escapeView(s string) string {
	var b []byte
	for i := strings.IndexByte(s, '\\'); i >= 0 && i+1 < len(s); i = nextBackslash(s, i+1) {
		var c byte
		switch s[i+1] {
		case 'n':
			c = '\n'
		case 't':
			c = '\t'
		case 'r':
			c = '\r'
		default:
			continue
		}
		if b == nil {
			b = []byte(s)
		}
		b[i+1] = c
	}
	if b == nil {
		return s
	}
	return string(b)
}

// nextBackslash returns the offset of the next backslash at or after i, or
// -1.
func nextBackslash(s string, i int) int {
	if i >= len(s) {
		return -1
	}
	if j := strings.IndexByte(s[i:], '\\'); j >= 0 {
		return i + j
	}
	return -1
}
