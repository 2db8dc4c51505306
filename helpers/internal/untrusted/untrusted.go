// Package untrusted makes untrusted text from the shared log harmless to
// print to a terminal or to place before an agent.
//
// Entries in .cairn/knowledge.jsonl come from whoever pushed, so their text
// (contents, keys, authors, tags, notes) is data written by a stranger.
// ForAgent prepares it for an injection block that wraps it as untrusted:
// nothing in it can close or fake the wrapper, pose as a chat role, or hide
// behind invisible characters. ForTerminal prepares it for a terminal:
// nothing in it can move the cursor, retitle the window, erase a line or
// reorder what a reviewer reads, and whatever was odd stays visible.
//
// Lengths for the agent are counted as Claude Code counts them: in UTF-16
// code units (the length of a JavaScript string), see Units.
package untrusted

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Units returns the length of s in UTF-16 code units, the length a
// JavaScript string holding s would have: runes above U+FFFF count two,
// every other rune (and every byte of invalid UTF-8, which becomes U+FFFD)
// counts one.
func Units(s string) int {
	n := 0
	for _, r := range s {
		n += units(r)
	}
	return n
}

// units is the UTF-16 length of one rune.
func units(r rune) int {
	if r > 0xFFFF {
		return 2
	}
	return 1
}

// ForAgent makes untrusted text safe to place inside an injection block
// that wraps it as untrusted data, and cuts it to maxUnits UTF-16 code
// units (no cut when maxUnits <= 0). In order, it:
//
//   - drops invalid UTF-8 and invisible characters: controls (C0, DEL, C1),
//     zero-width characters and joiners, bidi marks, embeddings,
//     overrides and isolates, the BOM, soft hyphens, Hangul fillers,
//     interlinear annotation marks, Unicode tag characters and any other
//     format character (Cf); they go first, so they cannot hide a marker;
//   - folds white space to single spaces (the result is one line);
//   - removes chat-role markers wherever they appear: the tokens [INST],
//     [/INST], <<SYS>>, <</SYS>> and <|name|> (any case), and the speaker
//     labels SYSTEM:, System:, HUMAN:, Human:, ASSISTANT:, Assistant:,
//     USER: and DEVELOPER:, also when written with look-alike letters or
//     colons (full-width, mathematical, circled, small capital and
//     superscript letters, Greek, Cyrillic and Armenian look-alikes,
//     Latin-1 accented letters; ：, ꞉, ∶, ︓, ﹕ and others), with single
//     spaces between the letters or before the colon, or with up to eight
//     combining marks on each; lower-case prose such as "postgres user:
//     admin" is left alone;
//   - removes leading role prefixes in any case (system:, human:,
//     assistant:, user:, developer:, tool:, and markdown headings # to
//     ###### naming system, instruction, human or assistant), with the
//     same look-alikes;
//   - replaces '<' and '>' with &lt; and &gt;, and the characters that
//     look like them with '(' and ')': ‹ › ＜ ＞ 〈 〉 (U+2329, U+232A)
//     〈 〉 (U+3008, U+3009) ﹤ ﹥ ˂ ˃ ˱ ˲ ⟨ ⟩ ⟪ ⟫ 《 》 ❬ ❭ ❮ ❯ ❰ ❱ ⦑ ⦒
//     ⧼ ⧽ ≪ ≫ ≺ ≻ ⋖ ⋗ and the letters ᐸ ᐳ ᚲ (Canadian syllabics and
//     runic text lose them), so no tag can be closed or faked and no
//     bracket can be read as one; « and », quotation marks in much prose,
//     are kept;
//   - cuts the text to maxUnits on a rune boundary, "..." included (when
//     maxUnits < 4 the text is cut without "...").
//
// Text with none of these is returned unchanged: German, Japanese or
// Russian prose keeps its letters. ForAgent(ForAgent(x, n), n) ==
// ForAgent(x, n).
func ForAgent(s string, maxUnits int) string {
	// Bound the work: no more of a long text is read than its cut can
	// show, with room for what sanitizing removes.
	if maxUnits > 0 && maxUnits < len(s)/8 {
		if limit := 8*maxUnits + 1024; len(s) > limit {
			s = s[:limit]
		}
	}
	out := settle(s)
	if maxUnits > 0 && Units(out) > maxUnits {
		// A cut keeps the start of a text that has no marker, so it
		// has none either, but it can complete a heading prefix
		// ("### Systematic" cut to "### System..."): settle again.
		out = settle(cut(out, maxUnits))
	}
	return out
}

// ForAgentAll is [ForAgent] of every text of list, lengths kept; never
// nil, so an empty list encodes as [] in JSON.
func ForAgentAll(list []string) []string {
	out := make([]string, 0, len(list))
	for _, s := range list {
		out = append(out, ForAgent(s, 0))
	}
	return out
}

// settle is ForAgent without the cut.
func settle(s string) string {
	out, f := clean(s)
	if out == "" {
		return ""
	}
	sk := skeleton(out, f&nonASCII == 0)
	if hasMarker(sk) {
		out, sk = removeMarkers(out, sk)
	}
	for {
		n := prefixLen(sk)
		if n == 0 {
			break
		}
		// The skeleton has one byte per rune: skip n runes.
		i := 0
		for range n {
			_, size := utf8.DecodeRuneInString(out[i:])
			i += size
		}
		out = strings.TrimLeft(out[i:], " ")
		sk = strings.TrimLeft(sk[n:], " ")
	}
	if f&angles != 0 {
		out = escape(out)
	}
	return out
}

// cut returns the longest start of s that fits maxUnits with "..."
// appended (without it when maxUnits < 4), never splitting a rune.
func cut(s string, maxUnits int) string {
	room, ell := maxUnits-3, "..."
	if maxUnits < 4 {
		room, ell = maxUnits, ""
	}
	n := 0
	for i, r := range s {
		if n += units(r); n > room {
			return strings.TrimRight(s[:i], " ") + ell
		}
	}
	return s
}

// flags describe a cleaned text.
type flags uint8

const (
	nonASCII flags = 1 << iota // some rune is not ASCII
	angles                     // some rune is '<', '>' or a look-alike
)

// clean drops invalid UTF-8 and invisible runes, folds each run of white
// space to one space and trims the ends. It returns s itself when there
// is nothing to change.
func clean(s string) (string, flags) {
	var f flags
	ok := true // s is already clean
	space := true
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			i++
			switch {
			case b == ' ':
				if space {
					ok = false
				}
				space = true
				continue
			case b < 0x20 || b == 0x7F:
				ok = false
			case b == '<' || b == '>':
				f |= angles
			}
			space = false
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		f |= nonASCII
		switch {
		case r == utf8.RuneError && size == 1, isSpace(r), invisible(r):
			ok = false
		case isBracket(r):
			f |= angles
		}
		space = false
	}
	if ok && !space || s == "" {
		return s, f
	}
	b := make([]byte, 0, len(s))
	pending := false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
		case isSpace(r):
			pending = len(b) > 0
		case invisible(r):
		default:
			if pending {
				b = append(b, ' ')
				pending = false
			}
			b = utf8.AppendRune(b, r)
		}
	}
	return string(b), f
}

// invisible reports characters that render as nothing or reorder text:
// controls (C0, DEL, C1), zero-width characters and joiners, bidi marks,
// embeddings, overrides and isolates, the BOM, the soft hyphen, Hangul
// fillers, interlinear annotation marks, Unicode tag characters, and any
// other format character (category Cf). The ranges tested first hold no
// format character (TestPredicates checks every rune).
func invisible(r rune) bool {
	switch {
	case r < 0x20 || r >= 0x7F && r <= 0x9F:
		return true
	case r < 0x600:
		return r == 0xAD
	case r >= 0x2070 && r < 0xFEFF:
		return r == 0x3164
	case r >= 0x200B && r <= 0x200F, r >= 0x202A && r <= 0x202E, r >= 0x2060 && r <= 0x206F,
		r == 0xFEFF, r == 0x061C, r == 0x180E, r >= 0xE0000 && r <= 0xE007F,
		r >= 0xFFF9 && r <= 0xFFFB, r == 0x115F, r == 0x1160, r == 0xFFA0:
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// isSpace is unicode.IsSpace, quicker for most runes: above Latin-1 there
// is no white space below U+1680 or above U+3000.
func isSpace(r rune) bool {
	if r < 0x1680 {
		return r == ' ' || r >= '\t' && r <= '\r' || r == 0x85 || r == 0xA0
	}
	return r <= 0x3000 && unicode.IsSpace(r)
}

// escape replaces '<' and '>' with &lt; and &gt;, and their look-alikes
// with '(' and ')'.
func escape(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 16)
	for _, r := range s {
		switch {
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r < 0x80:
			b.WriteByte(byte(r))
		case !isBracket(r):
			b.WriteRune(r)
		case isLeftBracket(r):
			b.WriteByte('(')
		case isRightBracket(r):
			b.WriteByte(')')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
