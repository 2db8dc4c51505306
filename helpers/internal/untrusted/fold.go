package untrusted

import (
	"strings"
	"unicode"
)

// The skeleton of a text is what role-marker detection reads: one byte per
// rune of the text, so that a byte's index in the skeleton is the index of
// its rune in the text. ASCII stands for itself; a rune that looks like an
// ASCII character (a full-width or mathematical letter, a Greek or
// Cyrillic look-alike, a look-alike colon or bracket) stands for that
// character; a combining mark is transparent (matching skips it); any
// other rune is opaque and matches nothing. The skeleton is used only to
// find markers: what is removed is cut from the text itself, and the rest
// of the text is kept as written.
const (
	opaque      = 0x00
	transparent = 0x01
)

// skeleton returns the skeleton of s, which must be valid UTF-8 with no
// control characters (as clean leaves it). ascii says s is all ASCII; the
// skeleton is then s itself.
func skeleton(s string, ascii bool) string {
	if ascii {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		b.WriteByte(skel(r))
	}
	return b.String()
}

// skel is the skeleton byte of one rune.
func skel(r rune) byte {
	if r < 0x80 {
		return byte(r)
	}
	if c := foldRune(r); c != 0 {
		return c
	}
	if isMark(r) {
		return transparent
	}
	return opaque
}

// isMark is unicode.Is(unicode.Mn, r), quicker for the runes of common
// scripts: the ranges tested first hold no other non-spacing mark
// (TestPredicates checks every rune).
func isMark(r rune) bool {
	switch {
	case r < 0x300, r >= 0x370 && r < 0x483, r >= 0xAC00 && r < 0xFB1E:
		return false
	case r >= 0x2E00 && r < 0xA66F:
		return r >= 0x302A && r <= 0x302D || r == 0x3099 || r == 0x309A
	}
	return unicode.Is(unicode.Mn, r)
}

// latin1Letters folds U+00C0..U+00FF to their base letters ('.' for × ÷ ß
// þ Þ æ Æ, which have none).
const latin1Letters = "AAAAAA.CEEEEIIIIDNOOOOO.OUUUUY.." + "aaaaaa.ceeeeiiiidnooooo.ouuuuy.y"

// foldRune returns the ASCII character r looks like, or 0. It is a
// detection aid, not a normalisation: it covers full-width forms,
// mathematical alphanumerics, letter-like and enclosed letters, small
// capitals and modifier letters, Latin-1 accented letters, Greek,
// Cyrillic and Armenian letters that look like Latin ones, and look-alikes
// of ':', '#', '[', ']', '|', '/', '<' and '>'.
func foldRune(r rune) byte {
	switch {
	case r < 0xC0, r >= 0x3040 && r < 0xA4D0, r >= 0xAC00 && r < 0xD7A4:
		// Nothing folds here (TestPredicates checks every rune): kana,
		// CJK ideographs, Yi, Hangul syllables.
		return 0
	case r <= 0xFF:
		if c := latin1Letters[r-0xC0]; c != '.' {
			return c
		}
		return 0
	case r >= 0xFF01 && r <= 0xFF5E: // full-width ASCII
		return byte(r - 0xFEE0)
	case r >= 0x1D400 && r <= 0x1D6A3: // mathematical Latin letters
		i := (r - 0x1D400) % 52
		if i < 26 {
			return byte('A' + i)
		}
		return byte('a' + i - 26)
	case r >= 0x1D6A8 && r <= 0x1D7C9: // mathematical Greek letters
		switch i := (r - 0x1D6A8) % 58; {
		case i < 25:
			return foldRune(0x391 + i)
		case i >= 26 && i <= 50:
			return foldRune(0x3B1 + i - 26)
		}
		return 0
	case r >= 0x1D7CE && r <= 0x1D7FF: // mathematical digits
		return byte('0' + (r-0x1D7CE)%10)
	case r >= 0x24B6 && r <= 0x24CF: // circled capitals
		return byte('A' + r - 0x24B6)
	case r >= 0x24D0 && r <= 0x24E9: // circled small letters
		return byte('a' + r - 0x24D0)
	case r >= 0x1F130 && r <= 0x1F149: // squared capitals
		return byte('A' + r - 0x1F130)
	case r >= 0x1F150 && r <= 0x1F169: // negative circled capitals
		return byte('A' + r - 0x1F150)
	case r >= 0x1F170 && r <= 0x1F189: // negative squared capitals
		return byte('A' + r - 0x1F170)
	case r >= 0x1F1E6 && r <= 0x1F1FF: // regional indicators
		return byte('A' + r - 0x1F1E6)
	}
	if isBracket(r) {
		if isLeftBracket(r) {
			return '<'
		}
		return '>'
	}
	return foldTable(r)
}

// foldTable holds the single look-alikes; a switch on constants compiles
// to a binary search.
func foldTable(r rune) byte {
	switch r {
	// Latin letters without a decomposition that look like ASCII ones.
	case 0x0131: // ı dotless i
		return 'i'
	case 0x017F: // ſ long s (folds with s under Unicode case folding)
		return 's'
	case 0x0237: // ȷ dotless j
		return 'j'
	case 0x0251: // ɑ Latin alpha
		return 'a'
	case 0x0261: // ɡ script g
		return 'g'
	case 0x01C0: // ǀ dental click
		return '|'

	// Small capitals: they read as upper case.
	case 0x1D00:
		return 'A'
	case 0x0299:
		return 'B'
	case 0x1D04:
		return 'C'
	case 0x1D05:
		return 'D'
	case 0x1D07:
		return 'E'
	case 0xA730:
		return 'F'
	case 0x0262:
		return 'G'
	case 0x029C:
		return 'H'
	case 0x026A:
		return 'I'
	case 0x1D0A:
		return 'J'
	case 0x1D0B:
		return 'K'
	case 0x029F:
		return 'L'
	case 0x1D0D:
		return 'M'
	case 0x0274:
		return 'N'
	case 0x1D0F:
		return 'O'
	case 0x1D18:
		return 'P'
	case 0x0280:
		return 'R'
	case 0xA731:
		return 'S'
	case 0x1D1B:
		return 'T'
	case 0x1D1C:
		return 'U'
	case 0x1D20:
		return 'V'
	case 0x1D21:
		return 'W'
	case 0x028F:
		return 'Y'
	case 0x1D22:
		return 'Z'

	// Modifier (superscript) letters.
	case 0x1D2C:
		return 'A'
	case 0x1D2E:
		return 'B'
	case 0x1D30:
		return 'D'
	case 0x1D31:
		return 'E'
	case 0x1D33:
		return 'G'
	case 0x1D34:
		return 'H'
	case 0x1D35:
		return 'I'
	case 0x1D36:
		return 'J'
	case 0x1D37:
		return 'K'
	case 0x1D38:
		return 'L'
	case 0x1D39:
		return 'M'
	case 0x1D3A:
		return 'N'
	case 0x1D3C:
		return 'O'
	case 0x1D3E:
		return 'P'
	case 0x1D3F:
		return 'R'
	case 0x1D40:
		return 'T'
	case 0x1D41:
		return 'U'
	case 0x2C7D:
		return 'V'
	case 0x1D42:
		return 'W'
	case 0x1D43:
		return 'a'
	case 0x1D47:
		return 'b'
	case 0x1D9C:
		return 'c'
	case 0x1D48:
		return 'd'
	case 0x1D49:
		return 'e'
	case 0x1DA0:
		return 'f'
	case 0x1D4D:
		return 'g'
	case 0x02B0:
		return 'h'
	case 0x2071:
		return 'i'
	case 0x02B2:
		return 'j'
	case 0x1D4F:
		return 'k'
	case 0x02E1:
		return 'l'
	case 0x1D50:
		return 'm'
	case 0x207F:
		return 'n'
	case 0x1D52:
		return 'o'
	case 0x1D56:
		return 'p'
	case 0x02B3:
		return 'r'
	case 0x02E2:
		return 's'
	case 0x1D57:
		return 't'
	case 0x1D58:
		return 'u'
	case 0x1D5B:
		return 'v'
	case 0x02B7:
		return 'w'
	case 0x02E3:
		return 'x'
	case 0x02B8:
		return 'y'
	case 0x1DBB:
		return 'z'

	// Letter-like symbols, among them the letters missing from the
	// mathematical alphabets.
	case 0x2102, 0x212D: // ℂ ℭ
		return 'C'
	case 0x210A: // ℊ
		return 'g'
	case 0x210B, 0x210C, 0x210D: // ℋ ℌ ℍ
		return 'H'
	case 0x210E: // ℎ
		return 'h'
	case 0x2110, 0x2111: // ℐ ℑ
		return 'I'
	case 0x2112: // ℒ
		return 'L'
	case 0x2115: // ℕ
		return 'N'
	case 0x2119: // ℙ
		return 'P'
	case 0x211A: // ℚ
		return 'Q'
	case 0x211B, 0x211C, 0x211D: // ℛ ℜ ℝ
		return 'R'
	case 0x2124, 0x2128: // ℤ ℨ
		return 'Z'
	case 0x212A: // K Kelvin sign
		return 'K'
	case 0x212B: // Å Angstrom sign
		return 'A'
	case 0x212C: // ℬ
		return 'B'
	case 0x212F: // ℯ
		return 'e'
	case 0x2130: // ℰ
		return 'E'
	case 0x2131: // ℱ
		return 'F'
	case 0x2133: // ℳ
		return 'M'
	case 0x2134: // ℴ
		return 'o'
	case 0x2160: // Roman numerals
		return 'I'
	case 0x2164:
		return 'V'
	case 0x2169:
		return 'X'
	case 0x216C:
		return 'L'
	case 0x216D:
		return 'C'
	case 0x216E:
		return 'D'
	case 0x216F:
		return 'M'
	case 0x2170:
		return 'i'
	case 0x2174:
		return 'v'
	case 0x2179:
		return 'x'
	case 0x217C:
		return 'l'
	case 0x217D:
		return 'c'
	case 0x217E:
		return 'd'
	case 0x217F:
		return 'm'

	// Greek.
	case 0x0391: // Α
		return 'A'
	case 0x0392: // Β
		return 'B'
	case 0x0395: // Ε
		return 'E'
	case 0x0396: // Ζ
		return 'Z'
	case 0x0397: // Η
		return 'H'
	case 0x0399: // Ι
		return 'I'
	case 0x039A: // Κ
		return 'K'
	case 0x039C: // Μ
		return 'M'
	case 0x039D: // Ν
		return 'N'
	case 0x039F: // Ο
		return 'O'
	case 0x03A1: // Ρ
		return 'P'
	case 0x03A4: // Τ
		return 'T'
	case 0x03A5, 0x03D2: // Υ ϒ
		return 'Y'
	case 0x03A7: // Χ
		return 'X'
	case 0x037F: // Ϳ
		return 'J'
	case 0x03F9: // Ϲ lunate sigma
		return 'C'
	case 0x03B1: // α
		return 'a'
	case 0x03B5: // ε
		return 'e'
	case 0x03B9: // ι
		return 'i'
	case 0x03BA: // κ
		return 'k'
	case 0x03BD: // ν
		return 'v'
	case 0x03BF: // ο
		return 'o'
	case 0x03C1: // ρ
		return 'p'
	case 0x03C5: // υ
		return 'u'
	case 0x03C7: // χ
		return 'x'
	case 0x03F2: // ϲ
		return 'c'
	case 0x03F3: // ϳ
		return 'j'

	// Cyrillic. The lower-case в к м н т look like small capitals.
	case 0x0410: // А
		return 'A'
	case 0x0412: // В
		return 'B'
	case 0x0415, 0x0401: // Е Ё
		return 'E'
	case 0x041A: // К
		return 'K'
	case 0x041C: // М
		return 'M'
	case 0x041D: // Н
		return 'H'
	case 0x041E: // О
		return 'O'
	case 0x0420: // Р
		return 'P'
	case 0x0421: // С
		return 'C'
	case 0x0422: // Т
		return 'T'
	case 0x0423, 0x04AE: // У Ү
		return 'Y'
	case 0x0425: // Х
		return 'X'
	case 0x0405: // Ѕ
		return 'S'
	case 0x0406, 0x0407, 0x04C0: // І Ї Ӏ
		return 'I'
	case 0x0408: // Ј
		return 'J'
	case 0x051A: // Ԛ
		return 'Q'
	case 0x051C: // Ԝ
		return 'W'
	case 0x0430: // а
		return 'a'
	case 0x0432: // в
		return 'B'
	case 0x0433: // г
		return 'r'
	case 0x0435, 0x0451: // е ё
		return 'e'
	case 0x043A: // к
		return 'K'
	case 0x043C: // м
		return 'M'
	case 0x043D: // н
		return 'H'
	case 0x043E: // о
		return 'o'
	case 0x043F: // п
		return 'n'
	case 0x0440: // р
		return 'p'
	case 0x0441: // с
		return 'c'
	case 0x0442: // т
		return 'T'
	case 0x0443, 0x04AF: // у ү
		return 'y'
	case 0x0445: // х
		return 'x'
	case 0x0455: // ѕ
		return 's'
	case 0x0456, 0x0457: // і ї
		return 'i'
	case 0x0458: // ј
		return 'j'
	case 0x04BB: // һ
		return 'h'
	case 0x04CF: // ӏ
		return 'l'
	case 0x0501: // ԁ
		return 'd'
	case 0x051B: // ԛ
		return 'q'
	case 0x051D: // ԝ
		return 'w'

	// Armenian.
	case 0x054F: // Տ
		return 'S'
	case 0x0555: // Օ
		return 'O'
	case 0x0566: // զ
		return 'q'
	case 0x0570: // հ
		return 'h'
	case 0x0578: // ո
		return 'n'
	case 0x057D: // ս
		return 'u'
	case 0x0581: // ց
		return 'g'
	case 0x0585: // օ
		return 'o'

	// Colons.
	case 0x02D0, // ː modifier letter triangular colon
		0x02F8, // ˸ modifier letter raised colon
		0x0589, // ։ Armenian full stop
		0x05C3, // ׃ Hebrew sof pasuq
		0x0703, // ܃ Syriac supralinear colon
		0x0704, // ܄ Syriac sublinear colon
		0x0903, // ः Devanagari visarga
		0x0A83, // ઃ Gujarati visarga
		0x1361, // ፡ Ethiopic wordspace
		0x16EC, // ᛬ runic multiple punctuation
		0x1804, // ᠄ Mongolian colon
		0x205A, // ⁚ two dot punctuation
		0x2236, // ∶ ratio
		0x2982, // ⦂ Z notation type colon
		0xA4FD, // ꓽ Lisu letter tone mya jeu
		0xA789, // ꞉ modifier letter colon
		0xFE13, // ︓ presentation form for vertical colon
		0xFE30, // ︰ presentation form for vertical two dot leader
		0xFE55: // ﹕ small colon
		return ':'

	// Other punctuation of markers.
	case 0xFE5F, 0x266F: // ﹟ ♯
		return '#'
	case 0x27E6: // ⟦
		return '['
	case 0x27E7: // ⟧
		return ']'
	case 0x05C0, 0x2223, 0x2502, 0x23D0, 0xFFE8: // ׀ ∣ │ ⏐ ￨
		return '|'
	case 0x2044, 0x2215, 0x29F8: // ⁄ ∕ ⧸
		return '/'
	}
	return 0
}

// isBracket reports the look-alikes of '<' and '>', quickly for the runes
// outside the ranges they lie in.
func isBracket(r rune) bool {
	switch {
	case r < 0x2C2, r > 0x2F2 && r < 0x1433, r > 0x16B2 && r < 0x2039, r > 0x29FD && r < 0x3008,
		r > 0x300B && r < 0xFE64, r > 0xFF1E:
		return false
	}
	return isLeftBracket(r) || isRightBracket(r)
}

// isLeftBracket reports the look-alikes of '<' that ForAgent replaces
// with '(' (and the skeleton reads as '<').
func isLeftBracket(r rune) bool {
	switch r {
	case 0x02C2, // ˂ modifier letter left arrowhead
		0x02F1, // ˱ modifier letter low left arrowhead
		0x1438, // ᐸ Canadian syllabics pa
		0x16B2, // ᚲ runic letter kauna
		0x2039, // ‹ single left-pointing angle quotation mark
		0x226A, // ≪ much less-than
		0x227A, // ≺ precedes
		0x22D6, // ⋖ less-than with dot
		0x2329, // 〈 left-pointing angle bracket
		0x276C, // ❬ medium left-pointing angle bracket ornament
		0x276E, // ❮ heavy left-pointing angle quotation mark ornament
		0x2770, // ❰ heavy left-pointing angle bracket ornament
		0x27E8, // ⟨ mathematical left angle bracket
		0x27EA, // ⟪ mathematical left double angle bracket
		0x2991, // ⦑ left angle bracket with dot
		0x29FC, // ⧼ left-pointing curved angle bracket
		0x3008, // 〈 left angle bracket
		0x300A, // 《 left double angle bracket
		0xFE64, // ﹤ small less-than sign
		0xFF1C: // ＜ full-width less-than sign
		return true
	}
	return false
}

// isRightBracket reports the look-alikes of '>' that ForAgent replaces
// with ')' (and the skeleton reads as '>').
func isRightBracket(r rune) bool {
	switch r {
	case 0x02C3, // ˃ modifier letter right arrowhead
		0x02F2, // ˲ modifier letter low right arrowhead
		0x1433, // ᐳ Canadian syllabics po
		0x203A, // › single right-pointing angle quotation mark
		0x226B, // ≫ much greater-than
		0x227B, // ≻ succeeds
		0x22D7, // ⋗ greater-than with dot
		0x232A, // 〉 right-pointing angle bracket
		0x276D, // ❭ medium right-pointing angle bracket ornament
		0x276F, // ❯ heavy right-pointing angle quotation mark ornament
		0x2771, // ❱ heavy right-pointing angle bracket ornament
		0x27E9, // ⟩ mathematical right angle bracket
		0x27EB, // ⟫ mathematical right double angle bracket
		0x2992, // ⦒ right angle bracket with dot
		0x29FD, // ⧽ right-pointing curved angle bracket
		0x3009, // 〉 right angle bracket
		0x300B, // 》 right double angle bracket
		0xFE65, // ﹥ small greater-than sign
		0xFF1E: // ＞ full-width greater-than sign
		return true
	}
	return false
}
