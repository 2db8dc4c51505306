package capture

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/helpers/internal/typed"
)

func it(typ, content, bead string) Item { return Item{Type: typ, Content: content, Bead: bead} }

type replyCase struct {
	name string
	text string
	want []Item
}

var replyCases = []replyCase{
	{"two typed lines (real payload)", "Summary of the fix.\n\nDECISION: Keep redirect URIs in config/oauth.toml so staging and prod cannot drift.\nPATTERN: Every OAuth provider gets a table-driven test of its redirect URI.",
		[]Item{it("decision", "Keep redirect URIs in config/oauth.toml so staging and prod cannot drift.", ""),
			it("pattern", "Every OAuth provider gets a table-driven test of its redirect URI.", "")}},
	{"following prose is not appended (real payload)", "LEARNED: exponential backoff must cap at 30s or the CI job times out.\nThat should fix it.",
		[]Item{it("learned", "exponential backoff must cap at 30s or the CI job times out.", "")}},
	{"nothing typed (real payload)", "Sure - the retry loop lives in internal/net/retry.go.", nil},
	{"leading spaces", "   FACT: indented", []Item{it("fact", "indented", "")}},
	{"indented code is not special", "    FACT: four spaces", []Item{it("fact", "four spaces", "")}},
	{"list markers", "- LEARNED: a\n* FACT: b\n+ PATTERN: c\n1. DECISION: d\n12) DEVIATION: e\n  - INVESTIGATION: f",
		[]Item{it("learned", "a", ""), it("fact", "b", ""), it("pattern", "c", ""), it("decision", "d", ""), it("deviation", "e", ""), it("investigation", "f", "")}},
	{"bold forms", "**LEARNED:** a\n**LEARNED**: b\n- **FACT:** c\n__PATTERN:__ d\n**DECISION: whole line**",
		[]Item{it("learned", "a", ""), it("learned", "b", ""), it("fact", "c", ""), it("pattern", "d", ""), it("decision", "whole line", "")}},
	{"must-check spellings", "MUST-CHECK: a\nMUST CHECK: b\n**MUST_CHECK**: c",
		[]Item{it("must-check", "a", ""), it("must-check", "b", ""), it("must-check", "c", "")}},
	{"not at line start", "We LEARNED: nothing\nNote: FACT: no", nil},
	{"heading is not a typed line", "## LEARNED: heading", nil},
	{"italics are not typed lines", "*LEARNED:* x\n_FACT:_ y", nil},
	{"upper case only", "Learned: a\nlearned: b\nDecision: c", nil},
	{"prefix needs its colon", "FACTS: a\nFACT : b\nLEARNED a", nil},
	{"empty content", "LEARNED:\nFACT:   ", nil},
	{"skip lines ignored, others kept", "SKIP: nothing to log\nFACT: kept", []Item{it("fact", "kept", "")}},
	{"fenced code ignored", "```go\n// LEARNED: in code\n```\nLEARNED: after\n~~~\nFACT: in tilde fence\n~~~\nFACT: after tilde",
		[]Item{it("learned", "after", ""), it("fact", "after tilde", "")}},
	{"fence closes only with the same char and length", "````\n```\nLEARNED: still code\n~~~\nFACT: still code\n````\nFACT: out",
		[]Item{it("fact", "out", "")}},
	{"closing fence with info string does not close", "```\n```sh\nFACT: still code\n```\nFACT: out",
		[]Item{it("fact", "out", "")}},
	{"indented fence in a list", "- step:\n  ```\n  LEARNED: code\n  ```\n- LEARNED: out",
		[]Item{it("learned", "out", "")}},
	{"unclosed fence runs to the end", "FACT: before\n```\nLEARNED: code\nFACT: code", []Item{it("fact", "before", "")}},
	{"inline triple backticks do not open a fence", "```LEARNED: x```\nFACT: after", []Item{it("fact", "after", "")}},
	{"blockquotes ignored", "> LEARNED: quoted\n  > FACT: quoted\n>FACT: quoted\nFACT: real", []Item{it("fact", "real", "")}},
	{"crlf", "LEARNED: a\r\nFACT: b\r\n", []Item{it("learned", "a", ""), it("fact", "b", "")}},
	{"white space collapsed", "FACT:\ta  \t b", []Item{it("fact", "a b", "")}},
}

func TestFromReply(t *testing.T) {
	for _, tc := range replyCases {
		t.Run(tc.name, func(t *testing.T) {
			got := FromReply(tc.text)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("FromReply(%q)\n got  %#v\n want %#v", tc.text, got, tc.want)
			}
			checkItems(t, tc.text, got)
		})
	}
}

func TestMightContain(t *testing.T) {
	for s, want := range map[string]bool{
		"":                                    false,
		"ls -la":                              false,
		"curl https://example.com:8080/x":     false,
		"grep -n backoff main.go || true":     false,
		"learned: lower case":                 false,
		"LEARNED":                             false,
		"LEARNED :":                           false,
		"LEARNED:":                            true,
		"xDECISION:":                          true, // a superset check; parsers decide
		"**FACT**:":                           true,
		"__PATTERN__:":                        true,
		"INVESTIGATION:":                      true,
		"DEVIATION:":                          true,
		"MUST-CHECK:":                         true,
		"MUST CHECK:":                         true,
		"MUST_CHECK:":                         true,
		"MUSTXCHECK:":                         false,
		"CHECK:":                              false,
		"SKIP: only":                          false,
		`bd comments add x "FACT: y"`:         true,
		"a:b:c:d:e:f:g:h DEVIATION\n: no":     false,
		"DECISION*:":                          true,
		"DECISION***:":                        false,
		"PATTERN" + strings.Repeat(":", 3):    true,
		strings.Repeat("x:", 1000) + "FACT:":  true,
		strings.Repeat("x:", 1000) + "FACT :": false,
	} {
		if got := MightContain(s); got != want {
			t.Errorf("MightContain(%q) = %v, want %v", s, got, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { MightContain(typicalCommand) }); n != 0 {
		t.Errorf("MightContain allocates %v times", n)
	}
}

func TestContentCap(t *testing.T) {
	long := strings.Repeat("ab ", 1500) // 4,500 runes
	got := FromCommand(`bd comments add X "LEARNED: ` + long + `"`)
	if len(got) != 1 {
		t.Fatalf("got %d items", len(got))
	}
	c := got[0].Content
	if n := utf8.RuneCountInString(c); n > MaxContentRunes || n < MaxContentRunes-1 {
		t.Errorf("content has %d runes", n)
	}
	if strings.HasSuffix(c, " ") || !utf8.ValidString(c) {
		t.Errorf("bad cut: %q", c[len(c)-10:])
	}
	if got := normalize(strings.Repeat("日本", 1500)); utf8.RuneCountInString(got) != MaxContentRunes || !utf8.ValidString(got) {
		t.Errorf("multibyte cut: %d runes", utf8.RuneCountInString(got))
	}
}

// checkItems asserts the invariants every returned item must satisfy.
func checkItems(t *testing.T, in string, items []Item) {
	t.Helper()
	for _, item := range items {
		if !typed.Valid(item.Type) {
			t.Errorf("%q: bad type %q", in, item.Type)
		}
		if item.Content == "" || strings.ContainsAny(item.Content, "\n\r") ||
			strings.TrimSpace(item.Content) != item.Content || strings.Contains(item.Content, "  ") {
			t.Errorf("%q: content not one trimmed line: %q", in, item.Content)
		}
		if !utf8.ValidString(item.Content) {
			t.Errorf("%q: invalid UTF-8 in content %q", in, item.Content)
		}
		if utf8.RuneCountInString(item.Content) > MaxContentRunes {
			t.Errorf("%q: content too long", in)
		}
		if item.Bead != "" && !validBead(item.Bead) {
			t.Errorf("%q: bad bead %q", in, item.Bead)
		}
	}
}

// typicalCommand is a ~200-byte Bash command with nothing to capture.
const typicalCommand = `cd /home/dev/src/shop && go test ./internal/auth/... -run 'TestRedirect|TestCallback' -count=1 2>&1 | tail -n 40; git status --short && git diff --stat HEAD~1 -- internal/auth | head -20`

func BenchmarkMightContain(b *testing.B) {
	b.SetBytes(int64(len(typicalCommand)))
	for b.Loop() {
		if MightContain(typicalCommand) {
			b.Fatal("typical command should be rejected")
		}
	}
}

func BenchmarkFromReply(b *testing.B) {
	text := strings.Repeat("Some prose about the change, with `code` and a list:\n- item one\n- item two\n\n", 10) +
		"DECISION: Keep redirect URIs in config/oauth.toml.\n```go\nfunc main() {}\n```\nLEARNED: backoff caps at 30s.\n"
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if len(FromReply(text)) != 2 {
			b.Fatal("want two items")
		}
	}
}
