package capture

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/helpers/internal/typed"
)

// Item is one typed knowledge line found in agent output.
type Item struct {
	Type    string // lowercase type, e.g. "learned", "must-check"
	Content string // the text after the prefix, trimmed, unescaped, whitespace-collapsed to one line
	Bead    string // the bead id for `bd comments add ID ...`, else ""
}

// MaxContentRunes is the longest Content an Item can have; longer content
// is cut at a rune boundary.
const MaxContentRunes = 2000

// typeSkip is matchTyped's type for a SKIP: line, a suppressor that is
// never an item; skipWord is its prefix. The entry types' prefixes come
// from package typed.
const (
	typeSkip = "skip"
	skipWord = "SKIP"
)

// MightContain reports cheaply whether s could contain a typed prefix at all
// (the hook's reject path): [typed.MightContain]. It does not allocate.
// When it returns false, FromCommand(s) and FromReply(s) both return
// nothing.
func MightContain(s string) bool { return typed.MightContain(s) }

// matchTyped reports whether line is a typed line and returns its type
// (possibly "skip") and the raw text after the prefix.
func matchTyped(line string) (typ, rest string, ok bool) {
	s := trimBlanks(line)
	// One list marker: "- ", "* ", "+ ", "12. ", "12) ".
	if len(s) >= 2 && (s[0] == '-' || s[0] == '*' || s[0] == '+') && (s[1] == ' ' || s[1] == '\t') {
		s = trimBlanks(s[2:])
	} else if n := leadingDigits(s); n > 0 && n <= 9 && len(s) > n+1 &&
		(s[n] == '.' || s[n] == ')') && (s[n+1] == ' ' || s[n+1] == '\t') {
		s = trimBlanks(s[n+2:])
	}
	bold := ""
	if strings.HasPrefix(s, "**") || strings.HasPrefix(s, "__") {
		bold = s[:2]
		s = s[2:]
	}
	typ, n := typed.Match(s)
	if n == 0 && strings.HasPrefix(s, skipWord) {
		typ, n = typeSkip, len(skipWord)
	}
	if n == 0 {
		return "", "", false
	}
	after := s[n:]
	switch {
	case bold != "" && strings.HasPrefix(after, bold+":"):
		// **LEARNED**: text
		return typ, after[len(bold)+1:], true
	case strings.HasPrefix(after, ":"):
		rest = after[1:]
		if bold != "" {
			if strings.HasPrefix(rest, bold) {
				// **LEARNED:** text
				rest = rest[len(bold):]
			} else {
				// **LEARNED: text**
				rest = strings.TrimSuffix(strings.TrimRight(rest, " \t"), bold)
			}
		}
		return typ, rest, true
	}
	return "", "", false
}

// trimBlanks drops leading spaces and tabs.
func trimBlanks(s string) string {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return s[i:]
}

// leadingDigits returns how many ASCII digits s starts with.
func leadingDigits(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// normalize makes s valid UTF-8, collapses white space runs (newlines
// included) to one space, trims it and cuts it to MaxContentRunes runes.
func normalize(s string) string {
	s = strings.Trim(s, " ") // cheap, and often enough for isNormal
	if isNormal(s) {
		return s
	}
	var b strings.Builder
	b.Grow(min(len(s), MaxContentRunes*utf8.UTFMax))
	runes := 0
	space := false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if isSpace(r) {
			space = true
			continue
		}
		need := 1
		if space && b.Len() > 0 {
			need = 2
		}
		if runes+need > MaxContentRunes {
			break
		}
		if need == 2 {
			b.WriteByte(' ')
		}
		b.WriteRune(r) // U+FFFD for an invalid byte
		runes += need
		space = false
	}
	return b.String()
}

// isNormal reports whether normalize(s) == s, for the common case of short
// ASCII text that is already one clean line.
func isNormal(s string) bool {
	if s == "" || len(s) > MaxContentRunes || s[0] == ' ' || s[len(s)-1] == ' ' {
		return s == ""
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || c <= '\r' && c >= '\t' || c == ' ' && s[i+1] == ' ' {
			return false
		}
	}
	return true
}

// isSpace reports whether r is white space (ASCII or Unicode).
func isSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || '\t' <= r && r <= '\r'
	}
	return unicode.IsSpace(r)
}

// parseBody turns one comment body into items (see the package comment).
func parseBody(body, bead string) []Item {
	var items []Item
	started := false
	typ := ""
	var content strings.Builder
	flush := func() {
		if typ == "" {
			return
		}
		if c := normalize(content.String()); c != "" {
			items = append(items, Item{Type: typ, Content: c, Bead: bead})
		}
		content.Reset()
	}
	for rest := body; rest != ""; {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		t, text, ok := matchTyped(line)
		if !started {
			if strings.TrimSpace(line) == "" {
				continue
			}
			if !ok {
				return nil
			}
			started = true
		}
		if ok && t == typeSkip {
			return nil
		}
		if ok {
			flush()
			typ = t
			content.WriteString(text)
			continue
		}
		content.WriteByte(' ')
		content.WriteString(line)
	}
	flush()
	return items
}

// FromReply extracts typed lines from an assistant's final message (the
// last_assistant_message of Stop and SubagentStop). See the package comment
// for the rules.
func FromReply(text string) []Item {
	if !MightContain(text) {
		return nil
	}
	var items []Item
	var fenceChar byte
	fenceLen := 0 // > 0 while inside a fenced code block
	for rest := text; rest != ""; {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		line = strings.TrimSuffix(line, "\r")
		trimmed := trimBlanks(line)
		if fenceLen > 0 {
			if n := fenceRun(trimmed, fenceChar); n >= fenceLen && strings.TrimSpace(trimmed[n:]) == "" {
				fenceLen = 0
			}
			continue
		}
		if strings.HasPrefix(trimmed, ">") {
			continue
		}
		if len(trimmed) >= 3 && (trimmed[0] == '`' || trimmed[0] == '~') {
			if n := fenceRun(trimmed, trimmed[0]); n >= 3 &&
				(trimmed[0] == '~' || !strings.Contains(trimmed[n:], "`")) {
				fenceChar, fenceLen = trimmed[0], n
				continue
			}
		}
		typ, content, ok := matchTyped(line)
		if !ok || typ == typeSkip {
			continue
		}
		if c := normalize(content); c != "" {
			items = append(items, Item{Type: typ, Content: c})
		}
	}
	return items
}

// fenceRun returns how many times c repeats at the start of s.
func fenceRun(s string, c byte) int {
	n := 0
	for n < len(s) && s[n] == c {
		n++
	}
	return n
}
