package capture

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

type commandCase struct {
	name string
	cmd  string
	want []Item
}

// commandCases covers every FromCommand rule. The ones marked bash:true in
// bashSafe are also run under real bash (TestCommandsMatchBash).
var commandCases = []commandCase{
	// Body forms.
	{"double quoted (real payload)", `bd comments add bd-42 "LEARNED: OAuth redirect URI must match exactly, including the trailing slash"`,
		[]Item{it("learned", "OAuth redirect URI must match exactly, including the trailing slash", "bd-42")}},
	{"single quoted", `bd comments add bd-1 'FACT: the API returns 204 on delete'`,
		[]Item{it("fact", "the API returns 204 on delete", "bd-1")}},
	{"comment add (singular)", `bd comment add bd-1 "PATTERN: table-driven tests"`,
		[]Item{it("pattern", "table-driven tests", "bd-1")}},
	{"comment alias without add", `bd comment bd-1 "DEVIATION: used sqlite instead of bolt"`,
		[]Item{it("deviation", "used sqlite instead of bolt", "bd-1")}},
	{"ansi-c quoted with escapes", `bd comments add bd-1 $'LEARNED: it\'s \x41\u00e9\tok\nFACT: second'`,
		[]Item{it("learned", "it's Aé ok", "bd-1"), it("fact", "second", "bd-1")}},
	{"locale quoted", `bd comments add bd-1 $"FACT: translated"`,
		[]Item{it("fact", "translated", "bd-1")}},
	{"unquoted words are joined", `bd comments add bd-1 LEARNED: retries need jitter`,
		[]Item{it("learned", "retries need jitter", "bd-1")}},
	{"double-quote escapes undone", `bd comments add bd-1 "LEARNED: say \"hi\" to \$USER with \\ and \` + "`" + ` but keep \n as is"`,
		[]Item{it("learned", `say "hi" to $USER with \ and `+"`"+` but keep \n as is`, "bd-1")}},
	{"unquoted backslash escapes", `bd comments add bd-1 LEARNED:\ a\"b\'c`,
		[]Item{it("learned", `a"b'c`, "bd-1")}},
	{"concatenated quoting", `bd comments add bd-1 'LEARNED: part one, '"part two"' and three'`,
		[]Item{it("learned", "part one, part two and three", "bd-1")}},
	{"expansions kept as written", `bd comments add bd-1 "FACT: HOME is $HOME and ${X:-y}, sum $((1+2)), rev $(git rev-parse HEAD)"`,
		[]Item{it("fact", "HOME is $HOME and ${X:-y}, sum $((1+2)), rev $(git rev-parse HEAD)", "bd-1")}},

	// Heredocs and substitutions.
	{"heredoc in command substitution", "bd comments add bd-1 \"$(cat <<'EOF'\nLEARNED: heredoc bodies are captured\nand continue on the next line\n\nDECISION: second item\nEOF\n)\"",
		[]Item{it("learned", "heredoc bodies are captured and continue on the next line", "bd-1"), it("decision", "second item", "bd-1")}},
	{"unquoted heredoc undoes \\$", "bd comments add bd-1 \"$(cat <<EOF\nFACT: costs \\$5 and \\\\ stays, $HOME kept\nEOF\n)\"",
		[]Item{it("fact", `costs $5 and \ stays, $HOME kept`, "bd-1")}},
	{"quoted heredoc is literal", "bd comments add bd-1 \"$(cat <<\"EOF\"\nFACT: costs \\$5\nEOF\n)\"",
		[]Item{it("fact", `costs \$5`, "bd-1")}},
	{"heredoc <<- strips tabs", "bd comments add bd-1 \"$(cat <<-EOF\n\tMUST-CHECK: tabs are stripped\n\tEOF\n)\"",
		[]Item{it("must-check", "tabs are stripped", "bd-1")}},
	{"heredoc delimiter followed by paren", "bd comments add bd-1 \"$(cat <<'EOF'\nFACT: closes on EOF)\nEOF)\"",
		[]Item{it("fact", "closes on EOF)", "bd-1")}},
	{"--file - with heredoc", "bd comments add bd-1 --file - <<'EOF'\nDECISION: stdin body\nEOF\necho done",
		[]Item{it("decision", "stdin body", "bd-1")}},
	{"-f /dev/stdin with here-string", `bd comments add bd-1 -f /dev/stdin <<< "FACT: here-string"`,
		[]Item{it("fact", "here-string", "bd-1")}},
	{"--file=- piped from cat heredoc", "cat <<'EOF' | bd comments add bd-1 --file=-\nINVESTIGATION: piped heredoc\nEOF",
		[]Item{it("investigation", "piped heredoc", "bd-1")}},
	{"pipe over a newline", "cat <<'EOF' |\nFACT: pipe continues after the body\nEOF\nbd comments add bd-1 -f -",
		[]Item{it("fact", "pipe continues after the body", "bd-1")}},
	{"-f - piped from echo", `echo "LEARNED: echo piped" | bd comments add bd-1 -f -`,
		[]Item{it("learned", "echo piped", "bd-1")}},
	{"-f file is skipped", `bd comments add bd-1 -f notes.md`, nil},
	{"--file=file is skipped", `bd comments add bd-1 --file=notes.md "LEARNED: ignored by bd"`, nil},
	{"-ffile is skipped", `bd comments add bd-1 -fnotes.md`, nil},
	{"-f - with unknown stdin", `bd comments add bd-1 -f - < notes.md`, nil},
	{"echo substitution", `bd comments add bd-1 "$(echo LEARNED: from echo)"`,
		[]Item{it("learned", "from echo", "bd-1")}},
	{"printf substitution reuses format", `bd comments add bd-1 "$(printf '%s\n' 'LEARNED: a' 'FACT: b')"`,
		[]Item{it("learned", "a", "bd-1"), it("fact", "b", "bd-1")}},
	{"echo flags and printf %b", `bd comments add bd-1 "$(echo -n -e 'FACT: a\tb\x21')"; bd comments add bd-2 "$(printf '%b %% %s' 'FACT: c\101' d)"`,
		[]Item{it("fact", "a b!", "bd-1"), it("fact", "cA % d", "bd-2")}},
	{"printf with other directives is unknown", `bd comments add bd-1 "$(printf '%d' 'FACT: 1')"`, nil},
	{"backquotes", "bd comments add bd-1 \"`echo FACT: backquoted`\"",
		[]Item{it("fact", "backquoted", "bd-1")}},
	{"unknown substitution is not a body", `bd comments add bd-1 "$(cat notes.md)"`, nil},
	{"arithmetic shift is not a heredoc", "echo $((1 << 2)) && bd comments add bd-1 'FACT: one'\nbd comments add bd-2 'FACT: two'",
		[]Item{it("fact", "one", "bd-1"), it("fact", "two", "bd-2")}},
	{"arithmetic command is not a heredoc", "(( x = 1 << 2 ))\nbd comments add bd-2 'FACT: two'",
		[]Item{it("fact", "two", "bd-2")}},

	// Flags.
	{"author before id", `bd comments add --author ana bd-1 "FACT: a"`, []Item{it("fact", "a", "bd-1")}},
	{"author after body", `bd comments add bd-1 "FACT: a" -a ana`, []Item{it("fact", "a", "bd-1")}},
	{"global flags", `bd --no-daemon --db .beads/x.db comments --json add --actor=me bd-1 "FACT: a"`, []Item{it("fact", "a", "bd-1")}},
	{"double dash", `bd comments add -- bd-1 "FACT: a"`, []Item{it("fact", "a", "bd-1")}},
	{"dash body with spaces is text", `bd comments add bd-1 "- LEARNED: list style"`, []Item{it("learned", "list style", "bd-1")}},
	{"bead id with dots kept", `bd comments add lavra-ziy.7 "FACT: a"`, []Item{it("fact", "a", "lavra-ziy.7")}},
	{"unknown bead id dropped", `bd comments add "$ID" "FACT: a"`, []Item{it("fact", "a", "")}},
	{"no body", `bd comments add bd-1`, nil},
	{"listing comments", `bd comments bd-1`, nil},

	// Several comments in one command.
	{"and-chain", `bd comments add bd-1 "PATTERN: a" && bd comments add bd-2 "LEARNED: b"`,
		[]Item{it("pattern", "a", "bd-1"), it("learned", "b", "bd-2")}},
	{"semicolon, or, background", `bd comments add bd-1 'FACT: a'; bd comments add bd-2 'FACT: b' || true & bd comments add bd-3 'FACT: c'`,
		[]Item{it("fact", "a", "bd-1"), it("fact", "b", "bd-2"), it("fact", "c", "bd-3")}},
	{"newlines", "cd /repo\nbd comments add bd-1 'FACT: a'\nbd comments add bd-2 'FACT: b'",
		[]Item{it("fact", "a", "bd-1"), it("fact", "b", "bd-2")}},
	{"pipes and redirections", `bd comments add bd-1 "LEARNED: y" 2>&1 | tail -1 && bd comments add bd-2 "FACT: z" >/dev/null`,
		[]Item{it("learned", "y", "bd-1"), it("fact", "z", "bd-2")}},
	{"subshell, group, if, for", `(bd comments add bd-1 'FACT: a'); { bd comments add bd-2 'FACT: b'; }; if bd comments add bd-3 'FACT: c'; then :; fi; for i in 1; do bd comments add $i 'FACT: d'; done`,
		[]Item{it("fact", "a", "bd-1"), it("fact", "b", "bd-2"), it("fact", "c", "bd-3"), it("fact", "d", "")}},
	{"env prefix, wrapper and path", `BD_ACTOR=me command ./bd comments add bd-1 'FACT: a'`,
		[]Item{it("fact", "a", "bd-1")}},
	{"line continuation", "bd comments add bd-1 \\\n  \"LEARNED: continued\"",
		[]Item{it("learned", "continued", "bd-1")}},
	{"crlf line endings", "bd comments add bd-1 \"$(cat <<'EOF'\r\nFACT: crlf\r\nEOF\r\n)\"\r\n",
		[]Item{it("fact", "crlf", "bd-1")}},
	{"bash -c", `bash -c 'bd comments add bd-1 "LEARNED: nested"'`, []Item{it("learned", "nested", "bd-1")}},
	{"sh -ec", `sh -ec "bd comments add bd-1 'LEARNED: nested'"`, []Item{it("learned", "nested", "bd-1")}},
	{"bash -o pipefail -c", `bash -o pipefail -c "bd comments add bd-1 'LEARNED: nested' | cat"`, []Item{it("learned", "nested", "bd-1")}},
	{"bash running a script file", `bash -x notes.sh "LEARNED: no"`, nil},
	{"eval", `eval "bd comments add bd-1 'FACT: evaluated'"`, []Item{it("fact", "evaluated", "bd-1")}},
	{"bash reading a heredoc script", "bash <<'SH'\nbd comments add bd-1 'FACT: script'\nSH",
		[]Item{it("fact", "script", "bd-1")}},
	{"comment inside substitution runs", `out=$(bd comments add bd-1 "FACT: inner")`, []Item{it("fact", "inner", "bd-1")}},

	// What is not captured.
	{"shell comment", `ls # bd comments add bd-1 "LEARNED: no"`, nil},
	{"plain echo (real payload)", `false && echo 'INVESTIGATION: this command fails'`, nil},
	{"bd as an argument", `echo bd comments add bd-1 "LEARNED: no"`, nil},
	{"git commit message", `git commit -m "LEARNED: no"`, nil},
	{"bd inside single quotes of grep", `grep 'bd comments add x "LEARNED: no"' log.txt`, nil},
	{"cairn add", `cairn add learned "LEARNED: already written"`, nil},
	{"cairn add with flags", `cairn --dir . add decision "DECISION: x" --bead bd-1`, nil},
	{"bd nested in cairn add", `cairn add learned "$(bd comments add bd-1 'LEARNED: x')"`, nil},
	{"cairn add next to bd", `cairn add learned "x"; bd comments add bd-2 "LEARNED: kept"`,
		[]Item{it("learned", "kept", "bd-2")}},
	{"cairn recall is not cairn add", `cairn recall oauth; bd comments add bd-2 "LEARNED: kept"`,
		[]Item{it("learned", "kept", "bd-2")}},

	// Body rules.
	{"body must start with a prefix", `bd comments add bd-1 "Progress: done. LEARNED: no"`, nil},
	{"first non-blank line must be typed", "bd comments add bd-1 'Status update\nLEARNED: no'", nil},
	{"leading blank lines allowed", "bd comments add bd-1 '\n\n   LEARNED: yes'", []Item{it("learned", "yes", "bd-1")}},
	{"markdown decorations in body", "bd comments add bd-1 '**DECISION:** bold\n- FACT: listed\n1. PATTERN: numbered'",
		[]Item{it("decision", "bold", "bd-1"), it("fact", "listed", "bd-1"), it("pattern", "numbered", "bd-1")}},
	{"upper case only", `bd comments add bd-1 "Learned: no"; bd comments add bd-1 "learned: no"`, nil},
	{"must-check spellings", `bd comments add bd-1 "MUST-CHECK: a"; bd comments add bd-1 "MUST CHECK: b"; bd comments add bd-1 "MUST_CHECK: c"`,
		[]Item{it("must-check", "a", "bd-1"), it("must-check", "b", "bd-1"), it("must-check", "c", "bd-1")}},
	{"prefix must be followed by colon", `bd comments add bd-1 "FACTS: no"; bd comments add bd-1 "FACT : no"`, nil},
	{"empty content", `bd comments add bd-1 "LEARNED:   "`, nil},
	{"content on the next line", "bd comments add bd-1 'LEARNED:\n  on the next line'", []Item{it("learned", "on the next line", "bd-1")}},
	{"white space collapsed", "bd comments add bd-1 $'LEARNED:  a\\t\\tb\\r\\n   c\\u2028d\\u00a0e'", []Item{it("learned", "a b c d e", "bd-1")}},
	{"invalid utf-8 replaced", `bd comments add bd-1 $'FACT: bad \xff byte'`, []Item{it("fact", "bad \uFFFD byte", "bd-1")}},
	{"skip body", `bd comments add bd-1 "SKIP: nothing new here"`, nil},
	{"skip line later in body", "bd comments add bd-1 'LEARNED: x\nSKIP: changed my mind'", nil},
	{"skip in one body only", `bd comments add bd-1 "SKIP: none" && bd comments add bd-2 "FACT: kept"`,
		[]Item{it("fact", "kept", "bd-2")}},
	{"skip mid-line means nothing", `bd comments add bd-1 "LEARNED: Lavra's SKIP: marker is unanchored"`,
		[]Item{it("learned", "Lavra's SKIP: marker is unanchored", "bd-1")}},
}

// lavraRegressions are the capture bugs of Lavra's memory-capture.sh
// (reference/lavra.md §1.2, §6.9), each as a case that must come out right.
var lavraRegressions = []commandCase{
	{"greedy match lost the first of two chained comments", `bd comments add X "PATTERN: a" && bd comments add X "LEARNED: b"`,
		[]Item{it("pattern", "a", "X"), it("learned", "b", "X")}},
	{"only the first matching line was used", "bd comments add X 'FACT: a'\nbd comments add Y 'FACT: b'",
		[]Item{it("fact", "a", "X"), it("fact", "b", "Y")}},
	{"heredoc bodies were missed", "bd comments add bd-7 \"$(cat <<EOF\nLEARNED: the prefix is on another line\nEOF\n)\"",
		[]Item{it("learned", "the prefix is on another line", "bd-7")}},
	{"escaped quotes were kept literally", `bd comments add bd-7 "LEARNED: call \"make test\" first"`,
		[]Item{it("learned", `call "make test" first`, "bd-7")}},
	{"unanchored type detection", `bd comments add bd-7 "DECISION: we LEARNED: x"`,
		[]Item{it("decision", "we LEARNED: x", "bd-7")}},
	{"greedy content strip through the last prefix", `bd comments add bd-7 "LEARNED: a LEARNED: b"`,
		[]Item{it("learned", "a LEARNED: b", "bd-7")}},
	{"SKIP anywhere suppressed the whole command", `bd comments add bd-7 "FACT: a SKIP: b" && bd comments add bd-8 "SKIP: none"`,
		[]Item{it("fact", "a SKIP: b", "bd-7")}},
	{"trailing shell operators leaked into content", `bd comments add bd-7 'LEARNED: y' 2>&1 || echo failed; true`,
		[]Item{it("learned", "y", "bd-7")}},
	{"quote inside body ended it early", `bd comments add bd-7 "LEARNED: it's fine; really && truly"`,
		[]Item{it("learned", "it's fine; really && truly", "bd-7")}},
	{"byte truncation split UTF-8", `bd comments add bd-7 "FACT: ` + strings.Repeat("é", 2100) + `"`,
		[]Item{it("fact", strings.Repeat("é", MaxContentRunes), "bd-7")}},
}

func TestFromCommand(t *testing.T) {
	for _, tc := range commandCases {
		t.Run(tc.name, func(t *testing.T) {
			got := FromCommand(tc.cmd)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("FromCommand(%q)\n got  %#v\n want %#v", tc.cmd, got, tc.want)
			}
			checkItems(t, tc.cmd, got)
		})
	}
}

func TestLavraRegressions(t *testing.T) {
	for _, tc := range lavraRegressions {
		t.Run(tc.name, func(t *testing.T) {
			if got := FromCommand(tc.cmd); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("FromCommand(%q)\n got  %#v\n want %#v", tc.cmd, got, tc.want)
			}
		})
	}
	// The OpenCode port's pre-filter forgot MUST-CHECK.
	if !MightContain(`bd comments add X "MUST-CHECK: y"`) {
		t.Error("MightContain misses MUST-CHECK")
	}
}

// TestCommandsMatchBash runs commands under real bash with a fake bd that
// records what it receives, and checks that the tokenizer extracts the
// same bead ids and bodies.
func TestCommandsMatchBash(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatal("the tests need bash on PATH")
	}
	skip := map[string]bool{ // cases where bash and the parser differ on purpose
		"expansions kept as written":              true, // bash expands them
		"unknown bead id dropped":                 true,
		"subshell, group, if, for":                true,
		"unquoted heredoc undoes \\$":             true,
		"unknown substitution is not a body":      true,
		"-f - with unknown stdin":                 true, // notes.md does not exist
		"--file=file is skipped":                  true,
		"-f file is skipped":                      true,
		"-ffile is skipped":                       true,
		"bd nested in cairn add":                  true, // bash runs it; cairn leaves it to cairn add
		"crlf line endings":                       true, // bash keeps the \r
		"printf with other directives is unknown": true, // kept as written
		"semicolon, or, background":               true, // & makes the order racy
	}
	binDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(binDir, "bd"), []byte(fakeBD), 0o755); err != nil {
		t.Fatal(err)
	}
	var cases []commandCase
	cases = append(cases, commandCases...)
	cases = append(cases, lavraRegressions...)
	for _, tc := range cases {
		if skip[tc.name] {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			want := bashComments(t, binDir, tc.cmd)
			var got []comment
			for _, c := range comments(tc.cmd) {
				got = append(got, comment{c.bead, strings.TrimRight(c.body, "\n")})
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%q\n parser %q\n bash   %q", tc.cmd, got, want)
			}
		})
	}
}

// TestMightContainGuardsParsers checks the reject-path contract on every
// table case: when MightContain is false, both parsers return nothing.
func TestMightContainGuardsParsers(t *testing.T) {
	var inputs []string
	for _, tc := range commandCases {
		inputs = append(inputs, tc.cmd)
	}
	for _, tc := range replyCases {
		inputs = append(inputs, tc.text)
	}
	inputs = append(inputs, `bd comments add x LEARN""ED:\ y`, `bd comments add x $'LEARNED\x3a y'`, `bd comments add x LEARNED\: y`)
	for _, s := range inputs {
		if !MightContain(s) && (len(FromCommand(s)) > 0 || len(FromReply(s)) > 0) {
			t.Errorf("MightContain(%q) is false but a parser found items", s)
		}
	}
}

type payload struct {
	HookEventName string `json:"hook_event_name"`
	ToolName      string `json:"tool_name"`
	ToolInput     struct {
		Command string `json:"command"`
	} `json:"tool_input"`
	LastAssistantMessage string `json:"last_assistant_message"`
}

func readPayloads(t *testing.T, name string) []payload {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "claude-code-2.1.197", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []payload
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var p payload
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestRealPayloads runs the parsers on hook payloads recorded from Claude
// Code 2.1.197, the way the hook will.
func TestRealPayloads(t *testing.T) {
	var got []Item
	for _, name := range []string{"PostToolUse.jsonl", "PostToolUseFailure.jsonl"} {
		for _, p := range readPayloads(t, name) {
			if p.ToolName == "Bash" {
				got = append(got, FromCommand(p.ToolInput.Command)...)
			}
		}
	}
	want := []Item{it("learned", "OAuth redirect URI must match exactly, including the trailing slash", "bd-42")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Bash payloads: got %#v, want %#v", got, want)
	}

	got = nil
	for _, name := range []string{"Stop.jsonl", "SubagentStop.jsonl"} {
		for _, p := range readPayloads(t, name) {
			got = append(got, FromReply(p.LastAssistantMessage)...)
		}
	}
	want = []Item{
		it("decision", "Keep redirect URIs in config/oauth.toml so staging and prod cannot drift.", ""),
		it("pattern", "Every OAuth provider gets a table-driven test of its redirect URI.", ""),
		it("learned", "exponential backoff must cap at 30s or the CI job times out.", ""),
		it("investigation", "TestRedirect is flaky because it depends on map iteration order in buildQuery.", ""),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Stop payloads:\n got  %#v\n want %#v", got, want)
	}
}

// quoteStyles are the ways an agent passes a body to bd.
var quoteStyles = map[string]func(body string) (string, bool){
	"single": func(b string) (string, bool) {
		return "'" + strings.ReplaceAll(b, "'", `'\''`) + "'", true
	},
	"double": func(b string) (string, bool) {
		r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`")
		return `"` + r.Replace(b) + `"`, true
	},
	"ansi-c": func(b string) (string, bool) {
		r := strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`)
		return "$'" + r.Replace(b) + "'", true
	},
	"heredoc": func(b string) (string, bool) {
		for _, l := range strings.Split(b, "\n") {
			if strings.HasPrefix(l, "CAIRN_EOF") {
				return "", false
			}
		}
		return "\"$(cat <<'CAIRN_EOF'\n" + b + "\nCAIRN_EOF\n)\"", true
	},
}

// TestQuotingRoundTrip wraps every entry of Lavra's real knowledge log in
// `bd comments add` with each quoting style and checks that FromCommand
// finds exactly what the body holds.
func TestQuotingRoundTrip(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "lavra", "knowledge.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e struct{ Type, Content string }
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			var s string // Lavra's double-encoded lines
			if err := json.Unmarshal([]byte(line), &s); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(s), &e); err != nil {
				t.Fatal(err)
			}
		}
		body := strings.ToUpper(e.Type) + ": " + e.Content
		want := parseBody(body, "bd-9")
		if len(want) == 0 {
			t.Errorf("entry yields nothing: %q", body)
		}
		for style, quote := range quoteStyles {
			q, ok := quote(body)
			if !ok {
				continue
			}
			cmd := "bd comments add bd-9 " + q + " 2>&1 | tail -1"
			if got := FromCommand(cmd); !reflect.DeepEqual(got, want) {
				t.Errorf("%s quoting of %q:\n got  %#v\n want %#v", style, body, got, want)
			}
			n++
		}
	}
	if n < 4*200 {
		t.Errorf("only %d round trips", n)
	}
}

func BenchmarkFromCommand(b *testing.B) {
	cmd := `bd comments add bd-42 "LEARNED: OAuth redirect URI must match exactly, including the trailing slash" && bd comments add bd-42 "$(cat <<'EOF'
DECISION: keep redirect URIs in config/oauth.toml so staging and prod cannot drift
EOF
)" 2>&1 | tail -1`
	b.SetBytes(int64(len(cmd)))
	for b.Loop() {
		if len(FromCommand(cmd)) != 2 {
			b.Fatal("want two items")
		}
	}
}

// benchCommands are commands as agents write them, with the number of
// items each yields.
var benchCommands = []struct {
	name  string
	cmd   string
	items int
}{
	{"one quoted", `bd comments add bd-42 "LEARNED: OAuth redirect URI must match exactly, including the trailing slash"`, 1},
	{"stdin heredoc", "bd comments add bd-42 --file - <<'EOF'\nDECISION: keep redirect URIs in config/oauth.toml so staging and prod cannot drift\nPATTERN: every provider gets a table-driven test of its redirect URI\nEOF", 2},
	{"bash -c", `bash -c 'cd /home/dev/src/shop && bd comments add bd-7 "FACT: the API returns 204 on delete"'`, 1},
	{"script then comment", strings.Repeat("cd /home/dev/src/shop && go test ./internal/auth/... -run 'TestRedirect|TestCallback' -count=1 2>&1 | tail -n 40\n", 8) +
		`bd comments add bd-42 "$(printf '%s\n' 'INVESTIGATION: TestRedirect is flaky because it depends on map iteration order' 'FACT: buildQuery sorts nothing')"`, 2},
	{"bd, no comment", `bd update bd-42 --status in_progress --notes "MUST-CHECK: later"`, 0},
}

func BenchmarkFromCommandMix(b *testing.B) {
	for _, bc := range benchCommands {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.cmd)))
			for b.Loop() {
				if n := len(FromCommand(bc.cmd)); n != bc.items {
					b.Fatalf("%d items, want %d", n, bc.items)
				}
			}
		})
	}
}

// fakeBD records each invocation's argv (NUL-separated), then 0x1d, then
// its stdin when it was asked to read the body from stdin, then 0x1e.
const fakeBD = `#!/bin/bash
{
  printf '%s\0' "$@"
  printf '\x1d'
  for a in "$@"; do
    case "$a" in -|/dev/stdin|--file=-|--file=/dev/stdin|-f-) cat; break;; esac
  done
  printf '\x1e'
} >> "$BD_LOG"
`

// bashComments runs cmd under real bash with a fake bd on PATH and returns
// the comments bd received, interpreted with the same flag rules.
// binDir holds the fake bd; it must be written before any parallel subtest
// forks, or an exec may fail with ETXTBSY (golang.org/issue/22315).
func bashComments(t *testing.T, binDir, cmd string) []comment {
	t.Helper()
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(binDir, "bd"), filepath.Join(dir, "bd")); err != nil {
		t.Fatal(err) // for commands that run ./bd
	}
	log := filepath.Join(dir, "log")
	c := exec.Command("bash", "-c", cmd)
	c.Dir = dir
	c.Env = append(os.Environ(), "PATH="+binDir+":"+os.Getenv("PATH"), "BD_LOG="+log)
	c.Stdin = nil
	_ = c.Run() // failures are fine: we only want what bd received
	data, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []comment
	for _, rec := range bytes.Split(data, []byte{0x1e}) {
		if len(rec) == 0 {
			continue
		}
		argv, stdin, _ := bytes.Cut(rec, []byte{0x1d})
		words := append([]string{"bd"}, strings.Split(strings.TrimSuffix(string(argv), "\x00"), "\x00")...)
		read := func() (string, bool) { return string(stdin), true }
		if bead, body, ok := bdComment(words, read); ok {
			out = append(out, comment{bead, strings.TrimRight(body, "\n")})
		}
	}
	return out
}

// TestRandomCommandsMatchBash generates commands that mix every body form
// (quotes, $'...', heredocs, substitutions, pipes into -f -) and checks the
// parser against real bash on each.
func TestRandomCommandsMatchBash(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatal("the tests need bash on PATH")
	}
	if testing.Short() {
		t.Skip("spawns bash 100 times")
	}
	binDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(binDir, "bd"), []byte(fakeBD), 0o755); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(1))
	for range 100 {
		cmd := genCmd(r)
		want := bashComments(t, binDir, cmd)
		var got []comment
		for _, c := range comments(cmd) {
			got = append(got, comment{c.bead, strings.TrimRight(c.body, "\n")})
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q\n parser %q\n bash   %q", cmd, got, want)
		}
	}
}

// genBody returns a random comment body built from shell-hostile pieces.
func genBody(r *rand.Rand) string {
	pieces := []string{"LEARNED: ", "FACT: ", "a", " ", "b c", "\\", "'", "\"", "$", "`", "\n", "\t", "é", "x\\ny", "%s", "EOF", "-", "SKIP: z", "**", ";", "&&", "|", "(", ")", "#", "!", "*", "~", "{a,b}"}
	var b strings.Builder
	b.WriteString([]string{"LEARNED: ", "FACT: ", "DECISION: ", "- PATTERN: "}[r.Intn(4)])
	for k := r.Intn(12); k > 0; k-- {
		b.WriteString(pieces[r.Intn(len(pieces))])
	}
	return b.String()
}

// squote, dquote and aquote quote s for bash as '...', "..." and $'...'.
func squote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func dquote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`").Replace(s) + `"`
}

func aquote(s string) string {
	return "$'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`, "\t", `\t`).Replace(s) + "'"
}

// genArg passes body to bd in one of the ways an agent writes it.
func genArg(r *rand.Rand, body string) string {
	switch r.Intn(9) {
	case 0:
		return squote(body)
	case 1:
		return dquote(body)
	case 2:
		return aquote(body)
	case 3:
		return `"$(cat <<'EOT'` + "\n" + body + "\nEOT\n)\""
	case 4:
		return `"$(echo ` + squote(body) + `)"`
	case 5:
		return `"$(printf '%s\n' ` + squote(body) + ` ` + squote(genBody(r)) + `)"`
	case 6:
		// Two concatenated quoted parts.
		i := r.Intn(len(body) + 1)
		return squote(body[:i]) + dquote(body[i:])
	case 7:
		// Bash parses a bare " or $( inside "`...`" in ways no agent relies on.
		body = strings.NewReplacer(`"`, "", "$", "").Replace(body)
		return "\"`echo " + strings.ReplaceAll(strings.ReplaceAll(squote(body), "\\", "\\\\"), "`", "\\`") + "`\""
	default:
		return `"$(cat <<EOT` + "\n" + strings.NewReplacer(`\`, `\\`, "$", `\$`, "`", "\\`").Replace(body) + "\nEOT\n)\""
	}
}

// genCmd returns one to three bd comment commands joined by a list operator.
func genCmd(r *rand.Rand) string {
	var parts []string
	for k := r.Intn(3) + 1; k > 0; k-- {
		body := genBody(r)
		var c string
		switch r.Intn(5) {
		case 0:
			c = "bd comments add bd-" + string(rune('a'+r.Intn(26))) + " -f - <<'EOT'\n" + body + "\nEOT\n"
		case 1:
			c = "printf '%s' " + squote(body) + " | bd comment add bd-z --file=-"
		case 2:
			c = "bd --json comments add -a me bd-q " + genArg(r, body) + " 2>&1"
		default:
			c = "bd comments add bd-x " + genArg(r, body)
		}
		parts = append(parts, c)
	}
	sep := []string{" && ", "; ", "\n", " || true; "}[r.Intn(4)]
	out := ""
	for i, p := range parts {
		if i > 0 && !strings.HasSuffix(out, "\n") {
			out += sep
		}
		out += p
	}
	return out
}
