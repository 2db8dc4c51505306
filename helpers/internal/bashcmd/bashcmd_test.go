package bashcmd

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// flatten lists the commands src runs in execution order (a command's
// substitutions, then the script it starts, then itself), one line each:
// its Args, and its stdin when known.
func flatten(cmds []*Command) []string {
	var out []string
	for _, c := range cmds {
		out = append(out, flatten(c.Nested)...)
		out = append(out, flatten(c.Script())...)
		line := fmt.Sprintf("%q", c.Args())
		if in, ok := c.Stdin(); ok {
			line += fmt.Sprintf(" <%q", in)
		}
		out = append(out, line)
	}
	return out
}

type parseCase struct {
	name string
	src  string
	want []string // flatten(Parse(src))
	// bash: the case runs under real bash with rec on PATH and must give
	// what rec receives (TestParseMatchesBash).
	bash bool
}

var parseCases = []parseCase{
	// Words.
	{"plain words", "rec a b  c\t d", []string{`["rec" "a" "b" "c" "d"]`}, true},
	{"single quotes", `rec 'a b' 'it''s' ''`, []string{`["rec" "a b" "its" ""]`}, true},
	{"double quotes and escapes", `rec "a \"b\" \$c \\ \` + "`" + ` \n" "x\
y"`, []string{`["rec" "a \"b\" $c \\ ` + "`" + ` \\n" "xy"]`}, true},
	{"backslashes outside quotes", `rec a\ b \'c\' \\ x\`, []string{`["rec" "a b" "'c'" "\\" "x\\"]`}, false},         // a trailing \ is a continuation to bash
	{"ansi-c quoting", `rec $'a\tb\x41\u00e9\'\n\0end' $'\cA'`, []string{`["rec" "a\tbAé'\n\x00end" "\x01"]`}, false}, // bash cuts argv at the NUL
	{"ansi-c quoting, bash-safe", `rec $'a\tb\x41\u00e9\'\n' $'\101\cA'`, []string{`["rec" "a\tbAé'\n" "A\x01"]`}, true},
	{"locale quoting", `rec $"a b"`, []string{`["rec" "a b"]`}, true},
	{"concatenation", `rec 'a'"b"c$'d'`, []string{`["rec" "abcd"]`}, true},
	{"expansions kept as written", `rec $HOME "${X:-y}" $((1+2)) "$(git rev-parse HEAD)" $1 $`, []string{
		`["git" "rev-parse" "HEAD"]`, `["rec" "$HOME" "${X:-y}" "$((1+2))" "$(git rev-parse HEAD)" "$1" "$"]`}, false},
	{"braces and globs kept", `rec {a,b} *.go ~`, []string{`["rec" "{a,b}" "*.go" "~"]`}, false},
	{"line continuation", "rec a \\\n  b", []string{`["rec" "a" "b"]`}, true},
	{"comment", "rec a # b c\nrec d#e", []string{`["rec" "a"]`, `["rec" "d#e"]`}, true},

	// Lists, pipes, compound commands.
	{"lists", "rec 1 && rec 2; false || rec 3 & rec 4\nrec 5", []string{`["rec" "1"]`, `["rec" "2"]`, `["false"]`, `["rec" "3"]`, `["rec" "4"]`, `["rec" "5"]`}, false}, // & makes the order racy
	{"subshell and group", "(rec 1); { rec 2; }", []string{`["rec" "1"]`, `["rec" "2"]`, `[]`}, true},
	{"if, for, while", "if rec 1; then rec 2; else rec 3; fi; for i in 1; do rec 4; done; while false; do :; done", []string{
		`["rec" "1"]`, `["rec" "2"]`, `["rec" "3"]`, `["fi"]`, `["for" "i" "in" "1"]`, `["rec" "4"]`, `["done"]`, `["false"]`, `[":"]`, `["done"]`}, false},
	{"function definition", "f() { rec 1; }; f", []string{`["f"]`, `["rec" "1"]`, `[]`, `["f"]`}, false},
	{"wrappers and assignments", "A=1 B+=2 env sudo command nohup exec time rec x=1", []string{`["rec" "x=1"]`}, false},
	{"not an assignment", "1A=2 rec", []string{`["1A=2" "rec"]`}, false},
	{"arithmetic command", "(( x = 1 << 2 ))\nrec a", []string{`["rec" "a"]`}, false},
	{"arithmetic expansion with shift", "rec $((1 << 2)) b", []string{`["rec" "$((1 << 2))" "b"]`}, false},

	// Redirections and stdin.
	{"output redirections", "rec a 2>&1 >/dev/null b 3>x &>y", []string{`["rec" "a" "b"]`}, false},
	{"heredoc", "rec a <<EOF\nline $HOME \\$x \\\\ \\`\nEOF\n", []string{`["rec" "a"] <"line $HOME $x \\ ` + "`" + `\n"`}, false},
	{"quoted heredoc", "rec <<'EOF'\nline \\$x\nEOF\n", []string{`["rec"] <"line \\$x\n"`}, true},
	{"heredoc strips tabs", "rec <<-\"E\"\n\t\tx\n\tE\n", []string{`["rec"] <"x\n"`}, true},
	{"two heredocs, the last is stdin", "rec <<A <<B\na\nA\nb\nB\n", []string{`["rec"] <"b\n"`}, true},
	{"here-string", `rec <<< "a b"`, []string{`["rec"] <"a b\n"`}, true},
	{"stdin from a file is unknown", "rec < /dev/null", []string{`["rec"]`}, false},
	{"stdin from a pipe", `echo -n "a b" | rec; printf '%s-' x y | rec; cat <<E | cat | rec` + "\nz\nE\n", []string{
		`["echo" "-n" "a b"]`, `["rec"] <"a b"`, `["printf" "%s-" "x" "y"]`, `["rec"] <"x-y-"`, `["cat"] <"z\n"`, `["cat"] <"z\n"`, `["rec"] <"z\n"`}, false},
	{"pipe of unknown output", "ls | rec", []string{`["ls"]`, `["rec"]`}, false},
	{"stdout redirected away from the pipe", "echo a >/dev/null | rec", []string{`["echo" "a"]`, `["rec"] <""`}, true},

	// Substitutions.
	{"known substitutions", `rec "$(echo a b)" "$(printf '%s,' 1 2)" "$(cat <<'E'` + "\nx\n\nE\n)\" \"`echo -e 'q\\tr'`\"", []string{
		`["echo" "a" "b"]`, `["printf" "%s," "1" "2"]`, `["cat"] <"x\n\n"`, `["echo" "-e" "q\\tr"]`, `["rec" "a b" "1,2," "x" "q\tr"]`}, true},
	{"unknown substitution kept as written", `rec "$(date)" <(ls)`, []string{`["date"]`, `["ls"]`, `["rec" "$(date)" "<(ls)"]`}, false},
	{"printf with other directives is unknown", `rec "$(printf '%d' 1)"`, []string{`["printf" "%d" "1"]`, `["rec" "$(printf '%d' 1)"]`}, false},
	{"heredoc in substitution ends at EOF)", "rec \"$(cat <<'EOF'\na EOF)\nEOF)\"", []string{`["cat"] <"a EOF)\n"`, `["rec" "a EOF)"]`}, true},
	{"command substitution as a command", "out=$(rec a)", []string{`["rec" "a"]`, `[]`}, true},

	// Scripts.
	{"bash -c", `bash -c 'rec "a b"'`, []string{`["rec" "a b"]`, `["bash" "-c" "rec \"a b\""]`}, true},
	{"options before -c", `bash -e -o pipefail -xc 'rec 1' name`, []string{`["rec" "1"]`, `["bash" "-e" "-o" "pipefail" "-xc" "rec 1" "name"]`}, true},
	{"eval", `eval rec "'a b'"`, []string{`["rec" "a b"]`, `["eval" "rec" "'a b'"]`}, true},
	{"shell reading a heredoc", "bash <<'S'\nrec 1\nS\n", []string{`["rec" "1"]`, `["bash"] <"rec 1\n"`}, true},
	{"shell running a file", "bash x.sh 'rec 1'", []string{`["bash" "x.sh" "rec 1"]`}, false},

	// Tolerance: unterminated constructs run to the end.
	{"unterminated single quote", "rec 'a b", []string{`["rec" "a b"]`}, false},
	{"unterminated double quote", `rec "a $(echo b`, []string{`["echo" "b"]`, `["rec" "a b"]`}, false},
	{"unterminated heredoc", "rec <<E\na", []string{`["rec"] <"a\n"`}, false},
	{"heredoc without a delimiter", "rec <<", []string{`["rec"]`}, false},
}

func TestParse(t *testing.T) {
	for _, tc := range parseCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := flatten(Parse(tc.src)); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Parse(%q):\n got  %s\n want %s", tc.src, strings.Join(got, "\n      "), strings.Join(tc.want, "\n      "))
			}
		})
	}
}

// recorder records each run's argv (NUL-separated), 0x1d, its stdin,
// then 0x1e.
const recorder = `#!/bin/bash
{ [ $# -eq 0 ] || printf '%s\0' "$@"; printf '\x1d'; cat; printf '\x1e'; } >> "$REC_LOG"
`

// TestParseMatchesBash runs the cases marked bash under real bash with a
// rec that records what it receives, and checks that Parse gives the same
// arguments and, where it knows it, the same stdin.
func TestParseMatchesBash(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatal("the tests need bash on PATH")
	}
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "rec"), []byte(recorder), 0o755); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, tc := range parseCases {
		if !tc.bash {
			continue
		}
		n++
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			log := filepath.Join(t.TempDir(), "log")
			c := exec.Command("bash", "-c", tc.src)
			c.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "REC_LOG="+log)
			if out, err := c.CombinedOutput(); err != nil {
				t.Fatalf("bash: %v\n%s", err, out)
			}
			data, err := os.ReadFile(log)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, rec := range bytes.Split(bytes.TrimSuffix(data, []byte{0x1e}), []byte{0x1e}) {
				argv, stdin, _ := bytes.Cut(rec, []byte{0x1d})
				args := []string{"rec"}
				if len(argv) > 0 {
					args = append(args, strings.Split(strings.TrimSuffix(string(argv), "\x00"), "\x00")...)
				}
				want = append(want, fmt.Sprintf("%q", args), string(stdin))
			}
			var got []string
			var walk func([]*Command)
			walk = func(cmds []*Command) {
				for _, c := range cmds {
					walk(c.Nested)
					walk(c.Script())
					if args := c.Args(); len(args) > 0 && args[0] == "rec" {
						in, _ := c.Stdin() // unknown stdin is /dev/null here
						got = append(got, fmt.Sprintf("%q", args), in)
					}
				}
			}
			walk(Parse(tc.src))
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%q\n parser %q\n bash   %q", tc.src, got, want)
			}
		})
	}
	if n < 20 {
		t.Errorf("only %d cases run under bash", n)
	}
}

func TestArgs(t *testing.T) {
	for words, want := range map[string]string{
		"":                     "",
		"a=1":                  "",
		"a=1 b_2+=x c":         "c",
		"_=1 env A=2 sudo ls":  "ls",
		"! { if then x":        "x",
		"=1 x":                 "=1 x",
		"a-b=1 x":              "a-b=1 x",
		"+=1 x":                "+=1 x",
		"command -v x":         "-v x",
		"nohup time exec rm x": "rm x",
	} {
		c := &Command{Words: strings.Fields(words)}
		if got := strings.Join(c.Args(), " "); got != want {
			t.Errorf("Args(%q) = %q, want %q", words, got, want)
		}
	}
	for w, want := range map[string]string{"bd": "bd", "./bd": "bd", "/usr/bin/bd": "bd", "a/": "", "": ""} {
		if got := BaseName(w); got != want {
			t.Errorf("BaseName(%q) = %q, want %q", w, got, want)
		}
	}
}

// TestLimits checks that nesting stops at MaxDepth and that derived text
// stays within the budget.
func TestLimits(t *testing.T) {
	depth := func(src string) int {
		n := 0
		for cmds := Parse(src); len(cmds) > 0; n++ {
			c := cmds[len(cmds)-1]
			if s := c.Script(); len(s) > 0 {
				cmds = s
			} else {
				cmds = c.Nested
			}
		}
		return n
	}
	for name, wrap := range map[string]func(string) string{
		"substitution": func(s string) string { return "x $(" + s + ")" },
		"eval":         func(s string) string { return "eval " + s },
	} {
		for _, levels := range []int{MaxDepth - 1, MaxDepth, MaxDepth + 5} {
			src := "rec"
			for range levels {
				src = wrap(src)
			}
			want := min(levels, MaxDepth) + 1
			if got := depth(src); got != want {
				t.Errorf("%s nested %d deep: %d levels parsed, want %d", name, levels, got, want)
			}
		}
	}
	// printf re-uses its format while arguments remain: 2,000 arguments of
	// a 1 KB format would print 2 MB, past the budget, so the value is
	// unknown and kept as written.
	src := `x "$(printf '` + strings.Repeat("a", 1024) + `%s' ` + strings.Repeat("b ", 2000) + `)"`
	cmds := Parse(src)
	if w := cmds[0].Words[1]; !strings.HasPrefix(w, "$(printf") {
		t.Errorf("printf past the budget gave %d bytes", len(w))
	}
	src = `x "$(printf '` + strings.Repeat("a", 1024) + `%s' ` + strings.Repeat("b ", 500) + `)"`
	if w := Parse(src)[0].Words[1]; len(w) != 500*1025 {
		t.Errorf("printf within the budget gave %d bytes", len(w))
	}
}

func TestScriptOnce(t *testing.T) {
	c := Parse(`bash -c 'rec 1'`)[0]
	a, b := c.Script(), c.Script()
	if len(a) != 1 || len(b) != 1 || a[0] != b[0] {
		t.Errorf("Script parsed twice or not at all: %v %v", a, b)
	}
}

func TestUnescape(t *testing.T) {
	for in, want := range map[string]string{
		`\a\b\e\E\f\n\r\t\v`:       "\a\b\x1b\x1b\f\n\r\t\v",
		`\\\'\"\?`:                 `\'"?`,
		`\x41\x4a\x4B\xg`:          "AJK\\xg",
		`\u00e9\U0001F600\u\ud800`: "é😀\\u\uFFFD",
		`\101\0\7777`:              "A\x00\xff7",
		`\cA\c`:                    "\x01\\c",
		`\q\`:                      `\q\`,
	} {
		if got := unescapeAll(in); got != want {
			t.Errorf("unescapeAll(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEchoPrintf(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"a", "b"}, "a b\n"},
		{[]string{"-n", "a"}, "a"},
		{[]string{"-e", `a\tb`}, "a\tb\n"},
		{[]string{"-eE", `a\tb`}, "a\\tb\n"},
		{[]string{"-x", "a"}, "-x a\n"},
		{[]string{"-", "a"}, "- a\n"},
	} {
		if got := echo(tc.args); got != tc.want {
			t.Errorf("echo %q = %q, want %q", tc.args, got, tc.want)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
		ok   bool
	}{
		{[]string{"%s\n", "a", "b"}, "a\nb\n", true},
		{[]string{"--", "%s|%s.", "a", "b", "c"}, "a|b.c|.", true},
		{[]string{`%b %% \x41`, `c\n`}, "c\n % A", true},
		{[]string{"plain"}, "plain", true},
		{[]string{"%s"}, "", true},
		{[]string{"%d", "1"}, "", false},
		{[]string{"a%"}, "", false},
		{nil, "", false},
	} {
		budget := 1 << 20
		got, ok := printf(tc.args, &budget)
		if got != tc.want || ok != tc.ok {
			t.Errorf("printf %q = %q, %v; want %q, %v", tc.args, got, ok, tc.want, tc.ok)
		}
	}
}

// typicalCommand is a ~300-byte command an agent records two comments
// with.
const typicalCommand = `bd comments add bd-42 "LEARNED: OAuth redirect URI must match exactly, including the trailing slash" && bd comments add bd-42 "$(cat <<'EOF'
DECISION: keep redirect URIs in config/oauth.toml so staging and prod cannot drift
EOF
)" 2>&1 | tail -1`

func BenchmarkParse(b *testing.B) {
	b.SetBytes(int64(len(typicalCommand)))
	for b.Loop() {
		if cmds := Parse(typicalCommand); len(cmds) != 3 {
			b.Fatalf("%d commands", len(cmds))
		}
	}
}
