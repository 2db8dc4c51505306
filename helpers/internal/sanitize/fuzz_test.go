package sanitize

import (
	"encoding/json"
	"hash/maphash"
	"path"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

var noiseSeeds = []string{
	"",
	"ok",
	"TODO",
	"git rebase -i drops signed commits",
	"bd show --json returns an array, not a single object. Must use jq '.[0].field' to extract fields.",
	`bd create --title="x" --type=task`,
	"$ go test ./...",
	"cd /tmp && make",
	"# comment\necho a | grep b\nsed -e 's/x/y/' file > out\n",
	"panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n\t/x/main.go:3 +0x1d",
	"Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\nValueError: x",
	"java.lang.Error: x\n\tat com.foo.Bar(Bar.java:12)",
	"2026-01-02T03:04:05Z ERROR failed",
	"[INFO] started",
	"time=1 level=info msg=x",
	"Use `a && b` to chain",
	"\"unterminated 'quotes\n\" and \\\n",
	"\xff\xfe invalid utf8 words here",
}

// FuzzNoise: Noise never panics, gives a known reason, and judges the
// trimmed content.
func FuzzNoise(f *testing.F) {
	for _, s := range noiseSeeds {
		f.Add(s)
	}
	f.Add("Straße ÉTÉ the ǅemal İstanbul \u00a0nbsp\u0085 x")
	f.Add("x\nFooError: y")
	seed := maphash.MakeSeed()
	f.Fuzz(func(t *testing.T, s string) {
		why := Noise(s)
		switch why {
		case "", NoiseCommand, NoiseLogLine, NoiseStackTrace, NoiseFragment:
		default:
			t.Fatalf("Noise(%q) = %q", s, why)
		}
		if again := Noise(" \n" + s + "\t "); again != why {
			t.Errorf("Noise of padded %q = %q, want %q", s, again, why)
		}
		if strings.TrimSpace(s) == "" && why != NoiseFragment {
			t.Errorf("blank content %q: %q", s, why)
		}
		c := CanonicalText(s)
		if strings.TrimSpace(c) != c || strings.Contains(c, "  ") {
			t.Errorf("CanonicalText(%q) = %q: white space not folded", s, c)
		}
		for _, w := range strings.Fields(c) {
			if fillerWords[w] {
				t.Errorf("CanonicalText(%q) = %q keeps filler %q", s, c, w)
			}
		}
		if more := CanonicalText(s + " -- the, SO. "); more != c {
			t.Errorf("CanonicalText(%q) = %q, but with filler and punctuation added %q", s, c, more)
		}
		// The shortcuts give what the slow way gives.
		if got, want := canonHash(seed, s), maphash.String(seed, c); got != want {
			t.Errorf("canonHash(%q) is not the hash of %q", s, c)
		}
		if got, want := letterWords(s), letterWordsByFields(s); got != want {
			t.Errorf("letterWords(%q) = %d, want %d", s, got, want)
		}
		if stackHead().MatchString(s) && !mayStackHead(s, strings.Contains(s, "\n")) {
			t.Errorf("mayStackHead(%q) is false, but stackHead matches", s)
		}
		if logLine().MatchString(s) && !mayLogLine(s) {
			t.Errorf("mayLogLine(%q) is false, but logLine matches", s)
		}
	})
}

// letterWordsByFields is what letterWords counts, the slow way.
func letterWordsByFields(s string) int {
	n := 0
	for _, f := range strings.Fields(s) {
		if strings.IndexFunc(f, unicode.IsLetter) >= 0 {
			if n++; n == 2 {
				break
			}
		}
	}
	return n
}

// FuzzFindAnchors: anchors are capped, unique, inside the tree and
// identifier-shaped.
func FuzzFindAnchors(f *testing.F) {
	for _, s := range noiseSeeds {
		f.Add(s, "")
	}
	f.Add("src/Components/Foo.tsx and install.sh/uninstall.sh", "a/b.go")
	f.Add("see https://x.io/a/b.go ~/x/y.go /abs/z.go ../up/w.go ./rel/v.go:12", "../x, /y, ./z/w")
	f.Add("`buildQuery` stop_hook_active Client.Do die() macOS iPhone cache_test.go", "")
	f.Add("`x.y.z()` `a.go` e.g. i.e. `print()` Foo.Bar.Baz", "files.go other")
	f.Fuzz(func(t *testing.T, content, files string) {
		e := knowledge.Entry{Content: content, Files: strings.Split(files, ",")}
		a := FindAnchors(e)
		if every := findAnchors(e, hasAll); !reflect.DeepEqual(a, every) {
			t.Fatalf("FindAnchors(%q) = %+v, but with every expression %+v", content, a, every)
		}
		if len(a.Files) > maxFileAnchors || len(a.Names) > maxFileAnchors || len(a.Symbols) > maxSymbolAnchors {
			t.Fatalf("caps exceeded: %+v", a)
		}
		seen := map[string]bool{}
		for _, p := range append(append([]string{}, a.Files...), a.Names...) {
			if seen[p] {
				t.Errorf("anchor %q twice: %+v", p, a)
			}
			seen[p] = true
			if p == "" || p == "." || strings.HasPrefix(p, "/") || strings.HasPrefix(p, "../") || p == ".." ||
				strings.Contains(p, "://") || strings.ContainsAny(p, "~$*?<>|\\ ") || path.Clean(p) != p {
				t.Errorf("path %q is not a clean path inside the tree", p)
			}
		}
		for _, n := range a.Names {
			if strings.Contains(n, "/") {
				t.Errorf("name %q has a directory", n)
			}
		}
		for _, s := range a.Symbols {
			if seen[s] || len(s) < 3 || !identPath().MatchString(s) {
				t.Errorf("bad symbol %q in %+v", s, a)
			}
			seen[s] = true
		}
		if a.Empty() != (len(seen) == 0) {
			t.Errorf("Empty() = %v for %+v", a.Empty(), a)
		}
	})
}

// FuzzBuild: any log bytes give a result without panic whose working set
// has unique keys and agrees with its summary, where every entry is in the
// working set or removed by exactly one audit line, and whose encoding
// parses.
func FuzzBuild(f *testing.F) {
	repo := newGitRepo(f)
	repo.write(map[string]string{
		"src/Components/Foo.tsx": "export function buildQuery() {}\n",
		"pkg/a.go":               "package pkg\n\ntype Client struct{}\nfunc (Client) Do() {}\n",
	})
	first := repo.commit("init")
	repo.write(map[string]string{"pkg/a.go": "package pkg\n\ntype Client struct{}\nfunc (Client) Do() { _ = 1 }\n"})
	repo.commit("change")

	mk := func(key, typ, content string, ts int64, extra string) string {
		e := ent(key, typ, content, ts)
		b, _ := knowledge.Marshal(&e)
		if extra != "" {
			b = append(b[:len(b)-1], ","+extra+"}"...)
		}
		return string(b)
	}
	l1 := mk("fact-a", "fact", "src/Components/Foo.tsx calls `buildQuery`.", 100, `"commit":"`+first+`"`)
	l2 := mk("fact-b", "fact", "pkg/a.go has Client.Do and `noSuch`.", 101, `"commit":"`+first+`"`)
	l3 := mk("fact-c", "fact", "src/components/foo.tsx is gone.", 102, "")
	l4 := mk("fact-d", "fact", "The API rate limit is 100 per minute.", 103, "")
	l5 := mk("fact-e", "fact", "the api rate limit is 100 per minute!", 104, "")
	l6 := mk("fact-a", "fact", "src/Components/Foo.tsx calls `buildQuery`.", 200, `"status":"retracted","review_reason":"x"`)
	l7 := mk("fact-f", "fact", "Old fact.", 105, `"status":"superseded","superseded_by":"fact-d"`)
	l8 := mk("fact-g", "fact", "Canon fact here.", 106, `"status":"canonical","merged_from":["fact-h"]`)
	l9 := mk("fact-h", "fact", `bd create --title="x" --type=task`, 107, "")
	double, _ := json.Marshal(l4)
	for _, s := range []string{
		"",
		"\n\n",
		l1 + "\n" + l2 + "\n" + l3 + "\n",
		l1 + "\n" + l6 + "\n" + l4 + "\n" + l5 + "\n" + l7 + "\n" + l8 + "\n" + l9 + "\n",
		string(double) + "\n" + l5 + l3 + "\n",
		"<<<<<<< HEAD\n" + l1 + "\n=======\n" + l2 + "\n>>>>>>> x\n",
		"\xef\xbb\xbf" + l4 + "\r\n" + l1,
		`{"key":"x","type":"fact","content":"y z","ts":"12"}` + "\n" + `{"key":"x","type":"fact","content":"y z","ts":12}`,
		`{"key":"k","type":"fact","content":"a b","ts":1,"files":"pkg/a.go, ../x"}`,
		"garbage\n{}\n[]\n\"str\"\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, log []byte) {
		res := Build(log, nil, Options{Root: repo.dir, Now: func() time.Time { return testNow }})
		checkInvariants(t, log, res)
		active, audit := res.Encode()
		lines, _ := knowledge.Lines(active)
		if len(lines) != len(res.Active) {
			t.Fatalf("%d active lines for %d entries", len(lines), len(res.Active))
		}
		for i, l := range lines {
			e, err := knowledge.DecodeEntry(l)
			if err != nil || e.Key != res.Active[i].Entry.Key {
				t.Fatalf("active line %d does not decode to %s: %v\n%s", i+1, res.Active[i].Entry.Key, err, l)
			}
		}
		alines, _ := knowledge.Lines(audit)
		for i, l := range alines {
			if !json.Valid(l) {
				t.Fatalf("audit line %d is not JSON: %s", i+1, l)
			}
		}
	})
}
