package capture

import (
	"reflect"
	"testing"
	"unicode/utf8"
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

func FuzzFromCommand(f *testing.F) {
	for _, tc := range commandCases {
		f.Add(tc.cmd)
	}
	for _, tc := range lavraRegressions {
		f.Add(tc.cmd)
	}
	f.Add(typicalCommand)
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
