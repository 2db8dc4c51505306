package typed

import (
	"strings"
	"testing"
)

// rejectedPayload is a PostToolUse payload of a Bash command whose output
// is full of colons (file:line, key: value, URLs, times) and holds no typed
// prefix: the hook gate's common case.
var rejectedPayload = `{"session_id":"e165bcaf-9e6e-4ce1-902c-e6dbd8681600","transcript_path":"/home/dev/.claude/projects/-home-dev-src-shop/e165bcaf-9e6e-4ce1-902c-e6dbd8681600.jsonl","cwd":"/home/dev/src/shop","permission_mode":"default","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"go test ./internal/auth/... -run TestRedirect -v 2>&1 | tail -n 40","description":"run the auth tests"},"tool_response":{"stdout":"` +
	strings.Repeat(`=== RUN   TestRedirect\n    redirect_test.go:42: GET https://auth.example.com:8443/callback?state=x: status 302, want 302\n--- PASS: TestRedirect (0.00s)\n2025-06-01T12:34:56Z INFO: retrying in 1.5s (attempt 2/5), last error: dial tcp 10.0.0.7:5432: connect: connection refused\n`, 12) +
	`ok  \tgithub.com/acme/shop/internal/auth\t0.412s","stderr":"","interrupted":false,"isImage":false},"tool_use_id":"toolu_01","duration_ms":935}`

// typicalCommand is a ~200-byte Bash command with nothing to capture and
// no colon at all.
const typicalCommand = `cd /home/dev/src/shop && go test ./internal/auth/... -run 'TestRedirect|TestCallback' -count=1 2>&1 | tail -n 40; git status --short && git diff --stat HEAD~1 -- internal/auth | head -20`

// reply is a final reply of prose with colons and one typed line at its end.
var reply = strings.Repeat("Summary: the fix is in place. Note: the retry loop (internal/net/retry.go:88) now caps at 30s; see https://example.com/x for details.\n", 8) +
	"DECISION: keep redirect URIs in config/oauth.toml.\n"

func BenchmarkMightContain(b *testing.B) {
	for _, bc := range []struct {
		name string
		in   string
		want bool
	}{
		{"command", typicalCommand, false},
		{"payload", rejectedPayload, false},
		{"reply", reply, true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.in)))
			for b.Loop() {
				if MightContain(bc.in) != bc.want {
					b.Fatal("wrong answer")
				}
			}
		})
	}
}

// contains is MightContain written the slow, obvious way from the table:
// some accepted prefix, then up to two emphasis characters, then ':'.
func contains(s string) bool {
	for _, t := range table {
		for _, w := range append([]string{t.Prefix}, t.Spellings...) {
			for _, e := range []string{"", "*", "_", "**", "__", "*_", "_*"} {
				if strings.Contains(s, w+e+":") {
					return true
				}
			}
		}
	}
	return false
}

func TestTable(t *testing.T) {
	seen := map[string]bool{}
	var all []string
	for _, typ := range table {
		if typ.Name != strings.ToLower(typ.Prefix) {
			t.Errorf("%s: name is not the prefix in lower case (Lookup relies on it)", typ.Prefix)
		}
		for _, w := range append([]string{typ.Prefix}, typ.Spellings...) {
			if seen[w] {
				t.Errorf("%q listed twice", w)
			}
			seen[w] = true
			all = append(all, w)
			if got, ok := Lookup(w); !ok || got != typ.Name {
				t.Errorf("Lookup(%q) = %q, %v; want %q", w, got, ok, typ.Name)
			}
			for i := 0; i < len(w); i++ {
				c := w[i]
				inner := i > 0 && i < len(w)-1 && (c == '-' || c == ' ' || c == '_')
				if !inner && (c < 'A' || c > 'Z') {
					// MightContain strips trailing '*' and '_', and the
					// parsers match upper case only.
					t.Errorf("%q: byte %q at %d", w, c, i)
				}
			}
		}
	}
	for _, a := range all {
		for _, b := range all {
			if a != b && strings.HasPrefix(b, a) {
				t.Errorf("%q starts %q: Match would need longest-first order", a, b)
			}
		}
	}
	if len(all) != nwords || nwords > maxWords {
		t.Errorf("%d words indexed for %d in the table (max %d)", nwords, len(all), maxWords)
	}
}

func TestPrefixList(t *testing.T) {
	var ps []string
	for _, typ := range table {
		ps = append(ps, typ.Prefix+":")
	}
	want := strings.Join(ps[:len(ps)-1], ", ") + " or " + ps[len(ps)-1]
	if PrefixList != want {
		t.Errorf("PrefixList = %q, the table says %q", PrefixList, want)
	}
}

func TestNamesCopies(t *testing.T) {
	n := Names()
	n[0] = "x"
	if Names()[0] == "x" {
		t.Error("Names shares the table")
	}
	if len(Names()) != len(table) {
		t.Error("Names and the table differ in length")
	}
}

func TestValidLookup(t *testing.T) {
	for _, name := range Names() {
		if !Valid(name) {
			t.Errorf("Valid(%q) = false", name)
		}
	}
	for _, s := range []string{"", "LEARNED", "Learned", "learned ", "must_check", "must check", "skip"} {
		if Valid(s) {
			t.Errorf("Valid(%q) = true", s)
		}
	}
	for s, want := range map[string]string{
		"learned": "learned", "LEARNED": "learned", "Learned": "learned",
		"must-check": "must-check", "Must_Check": "must-check", "must check": "must-check", "MUST CHECK": "must-check",
		"": "", "learned:": "", " fact": "", "mustcheck": "", "must--check": "", "skip": "",
		"MUST-CHEC\u212a": "", // the Kelvin sign folds to k in Unicode, not here
	} {
		got, ok := Lookup(s)
		if got != want || ok != (want != "") {
			t.Errorf("Lookup(%q) = %q, %v; want %q", s, got, ok, want)
		}
	}
}

func TestMatch(t *testing.T) {
	for s, want := range map[string]string{
		"LEARNED: x":    "learned",
		"LEARNED":       "learned",
		"MUST CHECK: x": "must-check",
		"MUST_CHECKS":   "must-check", // what follows is the caller's business
		"Learned: x":    "",
		"LEARNE":        "",
		"SKIP: x":       "",
		" FACT: x":      "",
		"":              "",
	} {
		name, n := Match(s)
		if name != want || (n > 0) != (want != "") || n > len(s) {
			t.Errorf("Match(%q) = %q, %d; want %q", s, name, n, want)
		}
		if n > 0 {
			if got, _ := Lookup(s[:n]); got != name {
				t.Errorf("Match(%q) matched %q, which Lookup calls %q", s, s[:n], got)
			}
		}
	}
}

func TestMightContain(t *testing.T) {
	for s, want := range map[string]bool{
		"":                                    false,
		"ls -la":                              false,
		"curl https://example.com:8080/x":     false,
		"learned: lower case":                 false,
		"LEARNED":                             false,
		"LEARNED :":                           false,
		"LEARNED:":                            true,
		"xDECISION:":                          true, // a superset check; parsers decide
		"**FACT**:":                           true,
		"__PATTERN__:":                        true,
		"DECISION*:":                          true,
		"DECISION*_:":                         true,
		"DECISION***:":                        false,
		"MUSTXCHECK:":                         false,
		"MUST--CHECK:":                        false,
		"CHECK:":                              false,
		"SKIP: only":                          false,
		"a:b:c:d:e:f:g:h DEVIATION\n: no":     false,
		"PATTERN" + strings.Repeat(":", 3):    true,
		strings.Repeat("x:", 1000) + "FACT:":  true,
		strings.Repeat("x:", 1000) + "FACT :": false,
	} {
		if got := MightContain(s); got != want {
			t.Errorf("MightContain(%q) = %v, want %v", s, got, want)
		}
		if got := contains(s); got != want {
			t.Errorf("contains(%q) = %v, want %v: the test's oracle is wrong", s, got, want)
		}
	}
}

// TestMightContainTable checks that every accepted prefix passes, with and
// without emphasis, and that every one-byte change of one (a substitution
// by a near byte, a deletion, an insertion) passes only when the oracle
// finds a prefix in the result.
func TestMightContainTable(t *testing.T) {
	near := []byte{'A', 'K', 'Z', 'a', '-', ' ', '_', '*', ':', 0, 0xff}
	n := 0
	for _, typ := range table {
		for _, w := range append([]string{typ.Prefix}, typ.Spellings...) {
			for _, e := range []string{"", "*", "__", "_*"} {
				if !MightContain("x " + w + e + ": y") {
					t.Errorf("MightContain misses %q", w+e+":")
				}
			}
			for i := 0; i <= len(w); i++ {
				var variants []string
				for _, c := range near {
					variants = append(variants, w[:i]+string(c)+w[i:])
					if i < len(w) {
						variants = append(variants, w[:i]+string(c)+w[i+1:])
					}
				}
				if i < len(w) {
					variants = append(variants, w[:i]+w[i+1:])
				}
				for _, v := range variants {
					s := v + ":"
					if got, want := MightContain(s), contains(s); got != want {
						t.Errorf("MightContain(%q) = %v, the table says %v", s, got, want)
					}
					n++
				}
			}
		}
	}
	if n < 1000 {
		t.Errorf("only %d variants", n)
	}
}

func FuzzMightContain(f *testing.F) {
	for _, s := range []string{typicalCommand, reply, "**MUST_CHECK**:", "MUST CHECK_*:", "DEVIATIO:N:", "FACT***:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := MightContain(s), contains(s); got != want {
			t.Fatalf("MightContain(%q) = %v, the table says %v", s, got, want)
		}
	})
}

func TestNoAllocs(t *testing.T) {
	for name, f := range map[string]func(){
		"MightContain": func() { MightContain(rejectedPayload) },
		"Match":        func() { Match("MUST_CHECK: x") },
		"Lookup":       func() { Lookup("must check") },
	} {
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s allocates %v times", name, n)
		}
	}
}
