package bashcmd

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// quoters are the ways a word can be written so that bash reads it back
// unchanged; ok is false when the style cannot carry the word.
var quoters = []func(w string) (q string, ok bool){
	// '...' with '\'' for quotes.
	func(w string) (string, bool) { return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'", true },
	// "..." with \ before \ " $ and `.
	func(w string) (string, bool) {
		return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`").Replace(w) + `"`, true
	},
	// $'...' with every byte outside printable ASCII as \xHH.
	func(w string) (string, bool) {
		var b strings.Builder
		b.WriteString("$'")
		for i := 0; i < len(w); i++ {
			switch c := w[i]; {
			case c == '\\' || c == '\'':
				b.WriteByte('\\')
				b.WriteByte(c)
			case c < ' ' || c > '~':
				fmt.Fprintf(&b, `\x%02x`, c)
			default:
				b.WriteByte(c)
			}
		}
		b.WriteByte('\'')
		return b.String(), true
	},
	// Unquoted, a backslash before every byte but newline (which would be
	// a line continuation), which goes in '...'.
	func(w string) (string, bool) {
		if w == "" {
			return "", false
		}
		var b strings.Builder
		for i := 0; i < len(w); i++ {
			if w[i] == '\n' {
				b.WriteString("'\n'")
				continue
			}
			b.WriteByte('\\')
			b.WriteByte(w[i])
		}
		return b.String(), true
	},
	// "$(cat <<'E' ...)": a substitution strips trailing newlines, and a
	// line that is the delimiter (or starts with it and a ')') ends it.
	func(w string) (string, bool) {
		if strings.HasSuffix(w, "\n") {
			return "", false
		}
		for _, l := range strings.Split(w, "\n") {
			if strings.HasPrefix(l, "E") {
				return "", false
			}
		}
		return "\"$(cat <<'E'\n" + w + "\nE\n)\"", true
	},
	// "$(printf %s '...')".
	func(w string) (string, bool) {
		if strings.HasSuffix(w, "\n") {
			return "", false
		}
		return `"$(printf %s '` + strings.ReplaceAll(w, "'", `'\''`) + `')"`, true
	},
}

// FuzzWordsRoundTrip quotes words (the input split at 0x1f) each in a
// style the input picks, and checks that Parse reads them back.
func FuzzWordsRoundTrip(f *testing.F) {
	f.Add("a\x1fb c\x1f", byte(0))
	f.Add("it's \"$HOME\" `x` \\\x1f\n\x1fé\xff\x00", byte(7))
	f.Add("EOF)\x1f-n\x1f%s\\x41", byte(42))
	f.Add("#x\x1f!\x1f{a,b}\x1f~\x1f*", byte(3))
	f.Fuzz(func(t *testing.T, in string, styles byte) {
		words := strings.Split(in, "\x1f")
		var quoted []string
		for i, w := range words {
			k := (int(styles) + i*7) % len(quoters)
			q, ok := quoters[k](w)
			for !ok {
				k = (k + 1) % len(quoters)
				q, ok = quoters[k](w)
			}
			quoted = append(quoted, q)
		}
		src := "rec " + strings.Join(quoted, " ")
		cmds := Parse(src)
		var got []string
		if len(cmds) > 0 {
			got = cmds[len(cmds)-1].Words
		}
		if want := append([]string{"rec"}, words...); !reflect.DeepEqual(got, want) {
			t.Fatalf("Parse(%q):\n got  %q\n want %q", src, got, want)
		}
	})
}

// FuzzParse checks what must hold for any input: no panic, the same result
// twice, nesting within bounds (MaxDepth substitutions or subshells within
// each of at most MaxDepth nested scripts) and derived text within bounds:
// no command's words are longer than (MaxDepth+2) times the input plus
// the budget.
func FuzzParse(f *testing.F) {
	for _, tc := range parseCases {
		f.Add(tc.src)
	}
	f.Add(typicalCommand)
	f.Add(strings.Repeat("$(", 40) + "x" + strings.Repeat(")", 40))
	f.Add(strings.Repeat("eval ", 40) + "x")
	f.Add("x \"$(printf '%s%s%s%s' $(printf '%s ' 1 2 3 4 5 6 7 8))\"")
	f.Add("cat <<E | " + strings.Repeat("cat | ", 70) + "x\nE\n")
	f.Add("x <<'E\n`\n$(\n\"\nE")
	f.Fuzz(func(t *testing.T, src string) {
		a := flatten(Parse(src))
		if b := flatten(Parse(src)); !reflect.DeepEqual(a, b) {
			t.Fatalf("Parse(%q) differs between runs:\n%q\n%q", src, a, b)
		}
		limit := (MaxDepth+2)*len(src) + baseBudget
		var walk func(cmds []*Command, level int)
		walk = func(cmds []*Command, level int) {
			if level > (MaxDepth+1)*(MaxDepth+1) {
				t.Fatalf("Parse(%q): commands %d levels deep", src, level)
			}
			for _, c := range cmds {
				n := 0
				for _, w := range c.Words {
					n += len(w)
				}
				if n > limit {
					t.Fatalf("Parse(%q): a command of %d bytes", src, n)
				}
				walk(c.Nested, level+1)
				walk(c.Script(), level+1)
			}
		}
		walk(Parse(src), 0)
	})
}
