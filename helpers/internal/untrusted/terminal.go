package untrusted

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Newline is how ForTerminal shows a line break: U+23CE RETURN SYMBOL.
const Newline = "⏎"

// ForTerminal makes untrusted text safe to print on one line of a
// terminal, keeping visible whatever was odd in it, so that a reviewer
// sees that something is there:
//
//   - a line break ("\n", "\r\n", U+2028, U+2029) is shown as ⏎ (Newline);
//   - every other control character (C0 including tab and a lone carriage
//     return, DEL, C1 U+0080..U+009F) and every invisible or reordering
//     character (ESC starts escape sequences; bidi marks, embeddings,
//     overrides and isolates; zero-width characters and joiners; the BOM,
//     the soft hyphen, Hangul fillers, tag characters and any other format
//     character) is shown as the Go escape strconv.Quote would write for
//     it, such as \x1b, \a, \b, \r, \t, \x7f, \u009b, \u202e or \U000e0041;
//   - each byte of invalid UTF-8 is shown as \xff-style;
//   - a zero-width joiner between two emoji (as in 👩‍💻) is kept.
//
// Everything else, accented letters, CJK and emoji included, is kept as
// it is, and a text with nothing to change is returned as it is, without
// allocating. The result holds no byte below 0x20 and no DEL, and
// ForTerminal(ForTerminal(x)) == ForTerminal(x). Note that a text can
// contain the characters \x1b or ⏎ literally; ForTerminal shows them as
// they are.
func ForTerminal(s string) string {
	i := firstUnsafe(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	prev := rune(-1) // the rune before, for joiners between emoji
	if i > 0 {
		prev, _ = utf8.DecodeLastRuneInString(s[:i])
	}
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x7F {
			b.WriteByte(c)
			prev = rune(c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			writeEscape(&b, 'x', rune(c), 2)
			r = -1 // shown as ASCII: no emoji to join
		case r == '\r' && i+1 < len(s) && s[i+1] == '\n':
			b.WriteString(Newline)
			size = 2
		case r == '\n' || r == 0x2028 || r == 0x2029:
			b.WriteString(Newline)
		case r == 0x200D && emojiJoin(prev, s[i+size:]):
			b.WriteRune(r)
		case termUnsafe(r):
			writeRuneEscape(&b, r)
		default:
			b.WriteRune(r)
		}
		prev = r
		i += size
	}
	return b.String()
}

// firstUnsafe returns the index of the first byte ForTerminal must change,
// or -1.
func firstUnsafe(s string) int {
	prev := rune(-1)
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7F {
			prev = rune(c)
			i++
			continue
		}
		if c < 0x80 {
			return i
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == 0x2028 || r == 0x2029 {
			return i
		}
		if termUnsafe(r) && !(r == 0x200D && emojiJoin(prev, s[i+size:])) {
			return i
		}
		prev = r
		i += size
	}
	return -1
}

// termUnsafe reports the runes ForTerminal escapes: controls and the
// invisible characters of invisible.
func termUnsafe(r rune) bool {
	return invisible(r)
}

// emojiJoin reports whether a zero-width joiner after prev and before
// rest joins two emoji: prev is a symbol, a skin-tone modifier or the
// emoji variation selector, and rest starts with a symbol.
func emojiJoin(prev rune, rest string) bool {
	next, size := utf8.DecodeRuneInString(rest)
	if next == utf8.RuneError && size <= 1 {
		return false // invalid UTF-8 is shown as ASCII
	}
	return emojiPart(prev) && next >= 0x80 && unicode.Is(unicode.So, next)
}

func emojiPart(r rune) bool {
	return r == 0xFE0F || r >= 0x1F3FB && r <= 0x1F3FF || r >= 0x80 && unicode.Is(unicode.So, r)
}

// writeRuneEscape writes r as strconv.Quote escapes it.
func writeRuneEscape(b *strings.Builder, r rune) {
	switch r {
	case '\a':
		b.WriteString(`\a`)
	case '\b':
		b.WriteString(`\b`)
	case '\f':
		b.WriteString(`\f`)
	case '\r':
		b.WriteString(`\r`)
	case '\t':
		b.WriteString(`\t`)
	case '\v':
		b.WriteString(`\v`)
	default:
		switch {
		case r < 0x80:
			writeEscape(b, 'x', r, 2)
		case r <= 0xFFFF:
			writeEscape(b, 'u', r, 4)
		default:
			writeEscape(b, 'U', r, 8)
		}
	}
}

// writeEscape writes a backslash, kind and v in digits lower-case hex
// digits.
func writeEscape(b *strings.Builder, kind byte, v rune, digits int) {
	const hex = "0123456789abcdef"
	b.WriteByte('\\')
	b.WriteByte(kind)
	for shift := 4 * (digits - 1); shift >= 0; shift -= 4 {
		b.WriteByte(hex[v>>uint(shift)&0xF])
	}
}

// Line is untrusted text on one terminal line (see ForTerminal), cut to n
// runes (see CutRunes).
func Line(s string, n int) string { return CutRunes(ForTerminal(s), n) }

// CutRunes is s cut to n runes, the last three "..." when it was longer.
func CutRunes(s string, n int) string {
	if rs := []rune(s); len(rs) > n {
		return string(rs[:n-3]) + "..."
	}
	return s
}
