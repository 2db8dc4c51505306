package knowledge

import (
	"crypto/sha256"
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestNormalizeType(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"learned", "learned"},
		{"LEARNED", "learned"},
		{"Learned:", "learned"},
		{"  decision  ", "decision"},
		{"FACT:", "fact"},
		{"Pattern", "pattern"},
		{"investigation", "investigation"},
		{"DEVIATION", "deviation"},
		{"must-check", "must-check"},
		{"MUST-CHECK:", "must-check"},
		{"Must_Check", "must-check"},
		{"must check", "must-check"},
		{" MUST_CHECK: ", "must-check"},
	} {
		got, err := NormalizeType(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("NormalizeType(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"", " ", "learn", "learnt", "note", "mustcheck", "must--check", "learned::", "fact.", "lear ned"} {
		got, err := NormalizeType(in)
		if !errors.Is(err, ErrUnknownType) || got != "" {
			t.Errorf("NormalizeType(%q) = %q, %v; want ErrUnknownType", in, got, err)
		}
	}
	for _, typ := range Types {
		if !ValidType(typ) {
			t.Errorf("ValidType(%q) = false", typ)
		}
		if got, err := NormalizeType(typ); err != nil || got != typ {
			t.Errorf("NormalizeType(%q) = %q, %v", typ, got, err)
		}
	}
	for _, typ := range []string{"", "LEARNED", "must_check", "learned "} {
		if ValidType(typ) {
			t.Errorf("ValidType(%q) = true", typ)
		}
	}
}

func TestCleanContent(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"plain", "OAuth redirect", "OAuth redirect"},
		{"trim", "  padded \t\n", "padded"},
		{"fold runs", "a  b\t\tc\n\nd\r\ne", "a b c d e"},
		{"unicode spaces", "a\u00a0b\u2028c\u3000d", "a b c d"},
		{"controls dropped", "a\x00b\x07c\x1bd\u0085e", "abcd e"},
		{"control between spaces", "a \x00 b", "a b"},
		{"invalid utf8", "a\xffb", "a\uFFFDb"},
		{"only space", " \t\n ", ""},
		{"empty", "", ""},
		{"case kept", "MiXeD Case", "MiXeD Case"},
		{"unicode kept", "café — naïve 日本", "café — naïve 日本"},
	} {
		if got := CleanContent(tc.in); got != tc.want {
			t.Errorf("%s: CleanContent(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
	long := CleanContent(strings.Repeat("é", MaxContentRunes+100))
	if n := utf8.RuneCountInString(long); n != MaxContentRunes {
		t.Errorf("capped content has %d runes, want %d", n, MaxContentRunes)
	}
	// The cap counts runes written, not spaces: no trailing space either.
	words := CleanContent(strings.Repeat("ab ", MaxContentRunes))
	if utf8.RuneCountInString(strings.ReplaceAll(words, " ", "")) != MaxContentRunes || strings.HasSuffix(words, " ") {
		t.Errorf("capped words: %d runes, trailing space %v", utf8.RuneCountInString(words), strings.HasSuffix(words, " "))
	}
	if got := NormalizeContent("  Hello\n  WORLD "); got != "hello world" {
		t.Errorf("NormalizeContent = %q", got)
	}
}

var keyRE = regexp.MustCompile(`^([a-z-]+?)-(?:([a-z0-9-]+)-)?([0-9a-f]{6})$`)

func TestMakeKey(t *testing.T) {
	k := MakeKey("learned", "OAuth redirect URI must match exactly, including the trailing slash")
	if k != MakeKey("learned", "OAuth redirect URI must match exactly, including the trailing slash") {
		t.Fatal("MakeKey is not stable")
	}
	m := keyRE.FindStringSubmatch(k)
	if m == nil {
		t.Fatalf("key %q does not look like type-slug-hex6", k)
	}
	if !strings.HasPrefix(k, "learned-oauth-redirect-uri-must-match-exactly-") {
		t.Errorf("key %q does not start with the type and a slug of the content", k)
	}
	if len(k) > len("must-check")+1+48+1+6 {
		t.Errorf("key %q too long", k)
	}
	// The six hex digits are the SHA-256 of type and normalised content.
	sum := sha256.Sum256([]byte("learned\n" + NormalizeContent("OAuth redirect URI must match exactly, including the trailing slash")))
	if want := "-" + hexPrefix(sum[:3]); !strings.HasSuffix(k, want) {
		t.Errorf("key %q does not end with %s", k, want)
	}

	// Variants of case and white space are the same entry.
	for _, v := range []string{
		"oauth redirect uri must match exactly, including the trailing slash",
		"  OAUTH   redirect URI must match\nexactly, including  the trailing slash ",
		"OAuth\tredirect URI must match exactly,\r\nincluding the trailing slash",
	} {
		if got := MakeKey("learned", v); got != k {
			t.Errorf("MakeKey(%q) = %q, want %q", v, got, k)
		}
	}
	// Other type, other content: other key.
	if MakeKey("fact", "OAuth redirect URI must match exactly, including the trailing slash") == k {
		t.Error("same key for another type")
	}
	if MakeKey("learned", "OAuth redirect URI must match exactly, including the trailing slash!") == k {
		t.Error("same key for other punctuation")
	}
	// Content with the same slug still differs by the hash.
	a, b := MakeKey("fact", "Use Go 1.24"), MakeKey("fact", "use go 1-24")
	if a == b || a[:len(a)-6] != b[:len(b)-6] {
		t.Errorf("same slug, other content: %q vs %q", a, b)
	}
	// No ASCII word at all: type and hash only.
	if got := MakeKey("decision", "日本語 テスト"); !regexp.MustCompile(`^decision-[0-9a-f]{6}$`).MatchString(got) {
		t.Errorf("MakeKey(non-ASCII) = %q", got)
	}
	if got := MakeKey("must-check", "Run make gen"); !strings.HasPrefix(got, "must-check-run-make-gen-") {
		t.Errorf("MakeKey(must-check) = %q", got)
	}
}

func hexPrefix(b []byte) string {
	const digits = "0123456789abcdef"
	var s strings.Builder
	for _, c := range b {
		s.WriteByte(digits[c>>4])
		s.WriteByte(digits[c&15])
	}
	return s.String()
}

func TestSlug(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"Hello, World!", 48, "hello-world"},
		{"  --a--b-- ", 48, "a-b"},
		{"café au lait", 48, "caf-au-lait"},
		{"Go 1.24 ships b.Loop()", 48, "go-1-24-ships-b-loop"},
		{"abc def ghi", 7, "abc-def"},
		{"abc def ghi", 8, "abc-def"},
		{"abc def", 7, "abc-def"},
		{"abcdefghij", 5, "abcde"},
		{"abc-defghij", 5, "abc"},
		{"", 10, ""},
		{"日本語", 10, ""},
		{"ALL CAPS", 48, "all-caps"},
	} {
		got := Slug(tc.in, tc.max)
		if got != tc.want {
			t.Errorf("Slug(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
		if len(got) > tc.max {
			t.Errorf("Slug(%q, %d) longer than max", tc.in, tc.max)
		}
		if strings.HasPrefix(got, "-") || strings.HasSuffix(got, "-") || strings.Contains(got, "--") {
			t.Errorf("Slug(%q, %d) = %q has stray dashes", tc.in, tc.max, got)
		}
	}
}

func TestMentionedPaths(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"see internal/auth/redirect.go:42 and `main.go`, README.md.", []string{"internal/auth/redirect.go", "main.go", "README.md"}},
		{"run ./scripts/build.sh (see docs/design.md)", []string{"scripts/build.sh", "docs/design.md"}},
		{"https://example.com/a/b.html is a URL, not a path", nil},
		{"plain words only here", nil},
		{"\"quoted/path.txt\" and [bracketed/dir]", []string{"quoted/path.txt", "bracketed/dir"}},
		{"Makefile.am and go.mod and go.mod", []string{"Makefile.am", "go.mod"}},
		{"ends with a dot. no ext", nil},
		{"a.verylongextension is not a file", nil},
		{"Path/Keeps/Case.GO", []string{"Path/Keeps/Case.GO"}},
		// The same path cited at two lines is one path.
		{"edit a.go:1 then a.go:2", []string{"a.go"}},
	} {
		got := MentionedPaths(tc.in)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("MentionedPaths(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestValidate(t *testing.T) {
	ok := Entry{Key: "k", Type: "fact", Content: "c", TS: 1}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, mut := range map[string]func(*Entry){
		"no key":     func(e *Entry) { e.Key = "" },
		"bad type":   func(e *Entry) { e.Type = "note" },
		"upper type": func(e *Entry) { e.Type = "FACT" },
		"no content": func(e *Entry) { e.Content = " \n " },
		"zero ts":    func(e *Entry) { e.TS = 0 },
		"neg ts":     func(e *Entry) { e.TS = -5 },
	} {
		e := ok
		mut(&e)
		if err := e.Validate(); err == nil {
			t.Errorf("%s: Validate passed", name)
		}
	}
	e := ok
	e.Content = ""
	if err := e.Validate(); !errors.Is(err, ErrEmptyContent) {
		t.Errorf("empty content: %v", err)
	}
	e = ok
	e.Type = "x"
	if err := e.Validate(); !errors.Is(err, ErrUnknownType) {
		t.Errorf("unknown type: %v", err)
	}
}

func TestActive(t *testing.T) {
	for status, want := range map[string]bool{
		"": true, StatusCanonical: true, StatusNeedsReview: true,
		StatusRetracted: false, StatusSuperseded: false,
	} {
		e := Entry{Status: status}
		if e.Active() != want {
			t.Errorf("Active(status=%q) = %v", status, !want)
		}
	}
}

func TestMarshal(t *testing.T) {
	e := Entry{Key: "fact-a-b-123456", Type: "fact", Content: `a <b> & "c"` + "\n", TS: 1763770000, Tags: []string{"x"}}
	b, err := Marshal(&e)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"key":"fact-a-b-123456","type":"fact","content":"a <b> & \"c\"\n","tags":["x"],"ts":1763770000}`
	if string(b) != want {
		t.Errorf("Marshal = %s\nwant      %s", b, want)
	}
	back, err := DecodeEntry(b)
	if err != nil || !reflect.DeepEqual(back, e) {
		t.Errorf("round trip = %+v, %v", back, err)
	}
	// Every field survives a round trip.
	full := Entry{Key: "k", Type: "must-check", Content: "c", Source: "agent", Tags: []string{"a", "b"},
		TS: 9, Bead: "bd-1", Author: "Ana", Branch: "main", Commit: "abc", Files: []string{"f.go"},
		Session: "s", Status: StatusSuperseded, Supersedes: "k0", SupersededBy: "k2",
		MergedFrom: []string{"m1"}, ReviewReason: "r", Redacted: []string{"aws-key"}}
	b, err = Marshal(&full)
	if err != nil {
		t.Fatal(err)
	}
	back, err = DecodeEntry(b)
	if err != nil || !reflect.DeepEqual(back, full) {
		t.Errorf("full round trip = %+v, %v", back, err)
	}
}

func TestSortKey(t *testing.T) {
	if SortKey("a") != sha256.Sum256([]byte("a")) {
		t.Error("SortKey is not the SHA-256 of the key")
	}
}

func TestVersionLess(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"0.1.0", "0.2.0", true}, {"0.2.0", "0.1.0", false}, {"0.1.0", "0.1.0", false},
		{"0.1", "0.1.1", true}, {"v1.2.3", "1.10.0", true}, {"1.10.0", "1.9.9", false},
		{"0.1.0-dev", "0.1.0", false}, {"", "0.0.1", true}, {"2", "10", true},
	} {
		if got := VersionLess(tc.a, tc.b); got != tc.want {
			t.Errorf("VersionLess(%q, %q) = %v; want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
