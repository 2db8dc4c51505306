package markdown

import (
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// tagRE is one tag as the renderer writes them; attrRE one attribute.
var (
	tagRE  = regexp.MustCompile(`^<(/?)([a-z0-9]+)((?: [a-z]+="[^"<>]*")*) ?/?>`)
	attrRE = regexp.MustCompile(` ([a-z]+)="([^"]*)"`)
)

// allowedTags are the elements Markdown makes.
var allowedTags = map[string]bool{
	"p": true, "a": true, "em": true, "strong": true, "code": true, "pre": true, "h1": true, "h2": true, "h3": true,
	"h4": true, "h5": true, "h6": true, "ul": true, "ol": true, "li": true, "blockquote": true, "hr": true, "br": true, "img": true,
}

// checkTags fails unless every tag of html is an allowed element with
// only href, src, alt, title, class, id or start attributes, and every
// href and src is Allowed.
func checkTags(t *testing.T, src, html string) {
	t.Helper()
	for i := strings.IndexByte(html, '<'); i >= 0; i = strings.IndexByte(html, '<') {
		html = html[i:]
		if c := "<!-- raw HTML omitted -->"; strings.HasPrefix(html, c) {
			html = html[len(c):]
			continue
		}
		m := tagRE.FindStringSubmatch(html)
		if m == nil || !allowedTags[m[2]] {
			t.Fatalf("Render(%q): unexpected markup at %q", src, html[:min(len(html), 60)])
		}
		for _, a := range attrRE.FindAllStringSubmatch(m[3], -1) {
			switch a[1] {
			case "alt", "title", "class", "id", "start":
			case "src":
				if !InApp(a[2]) {
					t.Fatalf("Render(%q): src=%q", src, a[2])
				}
			case "href":
				if !Allowed(a[2]) {
					t.Fatalf("Render(%q): %s=%q", src, a[1], a[2])
				}
			default:
				t.Fatalf("Render(%q): attribute %s", src, a[1])
			}
		}
		html = html[len(m[0]):]
	}
}

func resolver(target string) (string, bool) {
	if target == "beta" || target == "concepts/beta" {
		return "/wiki/team/page/concepts/beta", true
	}
	if target == "evil" {
		return "javascript:alert(1)", true
	}
	return "", false
}

func TestRender(t *testing.T) {
	for _, tc := range []struct {
		name, src   string
		has, hasNot []string
	}{
		{"raw html dropped", "hi <script>alert(1)</script> <img src=x onerror=alert(1)>\n\n<div onclick=x>block</div>",
			[]string{"hi "}, []string{"<script", "<img", "onerror", "<div", "onclick"}},
		{"javascript link", "[click](javascript:alert(1)) [v](vbscript:x) [d](data:text/html,<script>x</script>) [f](file:///etc/passwd)",
			[]string{"<p>click v d f</p>"}, []string{"javascript:", "vbscript:", "data:", "file:", "<a"}},
		{"protocol-relative", "[x](//evil.example/a) [y](/\\evil.example)", []string{"x"}, []string{"<a", "evil.example"}},
		{"http kept", "[site](https://example.com/a?b=1) [app](/entry?key=k) [frag](#top)",
			[]string{`<a href="https://example.com/a?b=1">site</a>`, `<a href="/entry?key=k">app</a>`, `<a href="#top">frag</a>`}, nil},
		{"image remote dropped", "![alt text](javascript:x) ![remote](https://evil.example/p.png) ![ok](/static/a.png)",
			[]string{"alt text", "remote", `<img src="/static/a.png"`}, []string{"javascript", "evil.example"}},
		{"autolink email dropped", "<mailto:a@b.c> <a@b.c> <https://example.com>", []string{`<a href="https://example.com">`}, []string{`href="mailto`, `href="a@b`}},
		{"wikilink resolved", "see [[beta]] and [[concepts/beta|the beta page]] and [[beta#Some Heading]]",
			[]string{`<a href="/wiki/team/page/concepts/beta" class="wikilink">beta</a>`, ">the beta page</a>", `href="/wiki/team/page/concepts/beta#some-heading"`}, nil},
		{"wikilink broken", "[[nowhere]] and [[evil]]", []string{`<em class="broken">nowhere</em>`, `<em class="broken">evil</em>`}, []string{"javascript", "<a"}},
		{"wikilink in code", "`[[beta]]`\n\n```\n[[beta]]\n```", []string{"<code>[[beta]]</code>"}, []string{"<a"}},
		{"wikilink alias escaped", `[[beta|<script>x</script>]]`, []string{"&lt;script&gt;"}, []string{"<script"}},
		{"closing tags", "</textarea></title></style><b>x</b>", nil, []string{"</textarea>", "</title>", "</style>", "<b>"}},
		{"terminal escapes", "red \x1b[31m bell \a rtl \u202e", []string{`\x1b[31m`, `\a`, `\u202e`}, []string{"\x1b", "\a", "\u202e"}},
		{"attribute injection", `[x](https://e.com/"onmouseover="alert(1))`, nil, []string{`"onmouseover`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := string(Render(tc.src, resolver))
			for _, s := range tc.has {
				if !strings.Contains(got, s) {
					t.Errorf("output lacks %q:\n%s", s, got)
				}
			}
			for _, s := range tc.hasNot {
				if strings.Contains(got, s) {
					t.Errorf("output holds %q:\n%s", s, got)
				}
			}
		})
	}
}

func TestAllowed(t *testing.T) {
	for dest, want := range map[string]bool{
		"https://a.b": true, "HTTP://a.b": true, "/x": true, "#y": true,
		"//a.b": false, `/\a.b`: false, "javascript:x": false, " javascript:x": false, "mailto:a@b": false,
		"x.md": false, "": false, "data:image/png;base64,AA": false,
		// What the browser reads after the renderer decodes entities, and
		// after percent decoding.
		"/&#47;host/x": false, "/&#x2F;host": false, "/&sol;host": false, "&#47;/host": false,
		"/&bsol;host": false, "/%2Fhost": false, "/%5Chost": false, "/&amp;#47;host": false,
		"&#32;//host": false, "jav&#x61;script:x": false, "/x?a=1&amp;b=2": true,
	} {
		if got := Allowed(dest); got != want {
			t.Errorf("Allowed(%q) = %v, want %v", dest, got, want)
		}
	}
}

// A link or image whose target reaches another host once decoded is
// text, not a link (an entity bypass once rendered src="//host/x.png").
func TestEncodedTargetsAreRefused(t *testing.T) {
	for _, src := range []string{"![a](/&#47;host/x.png)", "[a](/&#47;host/x)", "[a](/&#x2F;host)", "[a](/&sol;host)", "![a](/&#x2f;host)", "[a](/%2F/host)"} {
		if out := string(Render(src, nil)); strings.Contains(out, "href") || strings.Contains(out, "src") {
			t.Errorf("Render(%q) = %s", src, out)
		}
	}
}

// targetRE finds the rendered href and src values.
var targetRE = regexp.MustCompile(`<(a|img)\s[^>]*?\b(href|src)="([^"]*)"`)

// FuzzLinkDecision: for any target, the link and the image rendered from
// it carry an href/src only when the rule allows it, and what the browser
// reads from the attribute (entities, then percent escapes, decoded)
// passes the same rule: never another host.
func FuzzLinkDecision(f *testing.F) {
	for _, s := range []string{"/x", "/&#47;host/x.png", "https://a.b/c", "//a", "/&sol;h", "/%2Fh", "#f", "/&amp;#47;h", "javascript:x", "/a b", "</x>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, dest string) {
		if strings.ContainsAny(dest, "()<>[]`") || strings.ContainsFunc(dest, func(r rune) bool { return r <= ' ' || unicode.IsSpace(r) }) {
			return // not one destination in the Markdown below
		}
		for _, src := range []string{"[t](" + dest + ")", "![t](" + dest + ")"} {
			out := string(Render(src, nil))
			for _, m := range targetRE.FindAllStringSubmatch(out, -1) {
				seen := Decoded(m[3])
				rule := Allowed
				if m[1] == "img" {
					rule = InApp
				}
				if !rule(m[3]) || !rule(seen) {
					t.Fatalf("%q rendered %s=%q (the browser reads %q), which the rule refuses", src, m[2], m[3], seen)
				}
				if m[1] == "a" && !Allowed(dest) || m[1] == "img" && !InApp(dest) {
					t.Fatalf("%q: the rule refuses %q, yet it rendered %s", src, dest, out)
				}
				if d := strings.TrimSpace(seen); strings.HasPrefix(d, "//") || strings.HasPrefix(d, "/\\") {
					t.Fatalf("%q rendered a protocol-relative %s %q", src, m[2], seen)
				}
			}
		}
	})
}

func FuzzRender(f *testing.F) {
	f.Add("[[a|b]] [x](javascript:y) <script>z</script>")
	f.Add("![[a]] [[#h]] [[a\\|b]]")
	f.Fuzz(func(t *testing.T, src string) {
		checkTags(t, src, string(Render(src, resolver)))
	})
}
