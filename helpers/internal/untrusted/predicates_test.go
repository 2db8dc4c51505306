package untrusted

import (
	"testing"
	"unicode"
)

// TestPredicates checks every rune: the quick predicates agree with the
// definitions they shortcut.
func TestPredicates(t *testing.T) {
	invisibleRef := func(r rune) bool {
		switch {
		case unicode.IsControl(r):
			return true
		case r >= 0x200B && r <= 0x200F, r >= 0x202A && r <= 0x202E, r >= 0x2060 && r <= 0x206F,
			r == 0xFEFF, r == 0x061C, r == 0x180E, r == 0x00AD, r >= 0xE0000 && r <= 0xE007F,
			r >= 0xFFF9 && r <= 0xFFFB, r == 0x115F, r == 0x1160, r == 0x3164, r == 0xFFA0:
			return true
		}
		return unicode.Is(unicode.Cf, r)
	}
	bad := 0
	for r := rune(0); r <= unicode.MaxRune && bad < 10; r++ {
		if got, want := invisible(r), invisibleRef(r); got != want {
			t.Errorf("invisible(%U) = %v, want %v", r, got, want)
			bad++
		}
		if got, want := isSpace(r), unicode.IsSpace(r); got != want {
			t.Errorf("isSpace(%U) = %v, want %v", r, got, want)
			bad++
		}
		if got, want := isMark(r), unicode.Is(unicode.Mn, r); got != want {
			t.Errorf("isMark(%U) = %v, want %v", r, got, want)
			bad++
		}
		if got, want := isBracket(r), isLeftBracket(r) || isRightBracket(r); got != want {
			t.Errorf("isBracket(%U) = %v, want %v", r, got, want)
			bad++
		}
		if r >= 0x3040 && r < 0xA4D0 || r >= 0xAC00 && r < 0xD7A4 {
			if foldTable(r) != 0 || isBracket(r) {
				t.Errorf("%U folds, but foldRune skips it", r)
				bad++
			}
		}
		if isLeftBracket(r) && isRightBracket(r) {
			t.Errorf("%U is a left and a right bracket", r)
			bad++
		}
	}
}
