package capture

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/helpers/internal/bashcmd"
)

// fuzzInvariants checks what must hold for any input: no panic (the call
// itself), items that pass checkItems, valid UTF-8 out for valid UTF-8 in
// (checkItems demands it for every input), and nothing found when
// MightContain rejects the input.
func fuzzInvariants(t *testing.T, in string, items []Item) {
	t.Helper()
	if len(items) > 0 && !MightContain(in) {
		t.Fatalf("MightContain(%q) = false, but the parser found %#v", in, items)
	}
	checkItems(t, in, items)
	if utf8.ValidString(in) {
		for _, item := range items {
			if !utf8.ValidString(item.Content) || !utf8.ValidString(item.Bead) {
				t.Fatalf("valid input %q gave invalid UTF-8 %#v", in, item)
			}
		}
	}
}

// maxSeed keeps long table inputs out of the seed corpus. The fuzzer
// minimizes every new interesting input for up to -fuzzminimizetime (60 s by
// default), which is slow on multi-kilobyte inputs and shows as long
// stretches of "0/sec". Run the targets with -fuzzminimizetime=2s, e.g.
//
//	go test ./helpers/internal/capture/ -run '^$' -fuzz '^FuzzFromCommand$' -fuzztime 30s -fuzzminimizetime 2s
const maxSeed = 512

// pathological are inputs that stress the tokenizer's limits: nesting past
// bashcmd.MaxDepth, unterminated constructs, output amplification through printf.
var pathological = []string{
	strings.Repeat("$(", 200) + `bd comments add x "FACT: deep"`,
	strings.Repeat("(", 200) + `bd comments add x "FACT: deep"` + strings.Repeat(")", 200),
	strings.Repeat("`", 101) + `bd comments add x "FACT: deep"`,
	strings.Repeat(`bash -c "`, 50) + `bd comments add x 'FACT: deep'`,
	strings.Repeat("eval ", 100) + `bd comments add x 'FACT: deep'`,
	`bd comments add x "$(printf "$(printf "$(printf '%s%s%s%s%s%s%s%s' 1 2 3 4 5 6 7 8)%s%s%s%s" a b c d e f g h)" ` + strings.Repeat("q ", 200) + `)" FACT: x`,
	"cat <<E | " + strings.Repeat("cat - | ", 50) + "bd comments add x -f -\nFACT: piped\nE\n",
	"cat <<E | " + strings.Repeat("cat | ", 100) + "bd comments add x -f -\nFACT: beyond maxPipeHops\nE\n",
	"bd comments add x \"$(cat <<E",
	"bd comments add x $'FACT: \\",
	"bd comments add x \"FACT: ${x",
	"bd comments add x \"FACT: $((1+(2\"",
	"bd comments add x FACT:\\",
	"bd comments add x <<",
	"bd comments add x -f - <<\nFACT: y",
	"bd comments add x 'FACT: nul \\x00 byte \x00'",
}

func FuzzFromCommand(f *testing.F) {
	for _, tc := range append(commandCases[:len(commandCases):len(commandCases)], lavraRegressions...) {
		if len(tc.cmd) <= maxSeed {
			f.Add(tc.cmd)
		}
	}
	f.Add(typicalCommand)
	for _, s := range pathological {
		f.Add(s)
	}
	f.Add("bd comments add x \"$(cat <<EOF\nLEARNED: $(echo `printf '%s' \"FACT: y\"`)\nEOF\n)\" <<<$'\\u00e9' | bash -c 'eval \"$0\"' 2>&1")
	f.Fuzz(func(t *testing.T, cmd string) {
		fuzzInvariants(t, cmd, FromCommand(cmd))
	})
}

func FuzzFromReply(f *testing.F) {
	for _, tc := range replyCases {
		f.Add(tc.text)
	}
	f.Add("- **LEARNED**: x\n```\nFACT: y\n```\n> DECISION: z\n1) MUST CHECK: w\r\n")
	f.Fuzz(func(t *testing.T, text string) {
		fuzzInvariants(t, text, FromReply(text))
	})
}

// FuzzQuotingRoundTrip checks the tokenizer against the body parser: any
// body, quoted in any of the ways an agent quotes it, must come back from
// FromCommand as exactly the items the body holds.
func FuzzQuotingRoundTrip(f *testing.F) {
	for _, body := range []string{
		"LEARNED: plain",
		"FACT: it's \"quoted\" with $HOME, `tick` and \\ backslash",
		"DECISION: a\n- PATTERN: b\ncontinued\n\nSKIP: no",
		"\n  **MUST-CHECK:** x\t y\r\nEOF\n)",
		"INVESTIGATION: 日本語 \xff",
	} {
		f.Add(body)
	}
	f.Fuzz(func(t *testing.T, body string) {
		want := parseBody(body, "bd-9")
		for style, quote := range quoteStyles {
			q, ok := quote(body)
			if !ok {
				continue
			}
			cmd := "bd comments add bd-9 " + q
			if got := FromCommand(cmd); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s quoting of %q:\n got  %#v\n want %#v", style, body, got, want)
			}
		}
	})
}

// TestPathological runs the stress inputs through the parsers: they must
// finish (the test would time out otherwise) and keep the invariants.
func TestPathological(t *testing.T) {
	for _, s := range pathological {
		fuzzInvariants(t, s, FromCommand(s))
		fuzzInvariants(t, s, FromReply(s))
	}
	// Nesting up to the limit still works.
	cmd := strings.Repeat("$(", bashcmd.MaxDepth-1) + `bd comments add x "FACT: nested"` + strings.Repeat(")", bashcmd.MaxDepth-1)
	if got := FromCommand(cmd); len(got) != 1 || got[0].Content != "nested" {
		t.Errorf("nested %d deep: %#v", bashcmd.MaxDepth-1, got)
	}
	if got := FromCommand(pathological[6]); len(got) != 1 {
		t.Errorf("long pipeline: %#v", got)
	}
}
