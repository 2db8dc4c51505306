package ui

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/pipeline"
	"github.com/cairn-dev/cairn/helpers/internal/project"
	"github.com/cairn-dev/cairn/helpers/internal/recall"
	"github.com/cairn-dev/cairn/helpers/internal/review"
	"github.com/cairn-dev/cairn/helpers/internal/userconf"
)

// hostile is untrusted text that would run, load, break out of its
// element or drive a terminal if a page let it through.
const hostile = `<script>document.title="pwned"</script> <img src=x onerror="document.body.className='pwned'"> ` +
	`</textarea></title></style><a href="javascript:alert(1)">click</a> "quoted' ` + "\x1b[31mred\x1b]0;title\a \u202eevil"

// hostileMarkdown is a wiki page or an export full of the same.
const hostileMarkdown = "# Hostile\n\n" + hostile + "\n\n[js](javascript:alert(1)) [data](data:text/html,<script>x</script>) " +
	"![img](https://evil.example/x.png) <iframe src=//evil.example></iframe>\n\nSee [[beta]] and [[missing page]].\n"

// seed is a project with a log of entries (some hostile), injections, a
// team wiki, and a personal side with the pipeline on.
func seed(t testing.TB) *project.Project {
	t.Helper()
	root := t.TempDir()
	p := project.New(root, false)
	if err := p.Store.Provision(); err != nil {
		t.Fatal(err)
	}
	ts := time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC).Unix()
	es := []knowledge.Entry{
		{Type: "learned", Content: "the cache rebuilds itself when SQLite reports corruption", TS: ts, Author: "Ana", Branch: "main", Files: []string{"helpers/internal/index/index.go"}},
		{Type: "decision", Content: "gopher channels carry the queue's work " + hostile, TS: ts + 86400*7, Author: "Bo <script>alert(1)</script>", Branch: "feature/x", Tags: []string{"<b>tag</b>"}},
		{Type: "fact", Content: "the wiki lives in .cairn/wiki", TS: ts + 86400*14, Author: "Ana", Branch: "main"},
	}
	for i := range es {
		es[i].Key = knowledge.MakeKey(es[i].Type, es[i].Content)
	}
	if _, err := p.Store.Insert(es); err != nil {
		t.Fatal(err)
	}
	// A line as a hostile push could write it, past cairn add's cleaning.
	raw := knowledge.Entry{Key: "fact-raw-line-000001", Type: "fact", Content: "raw line " + hostile, TS: ts + 86400*15, Author: "Eve"}
	line, err := knowledge.Marshal(&raw)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(p.Store.LogPath(), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := recall.AddInjection(p.Store, recall.Injection{
		Time: time.Unix(ts, 0).UnixNano(), Agent: "claude", Session: "sess-1 " + hostile, Branch: "main", Moment: "session-start",
		Budget: 4000, Used: 1200, Entries: []recall.Shown{{Key: es[1].Key, Reason: "branch " + hostile}}, Text: "injected " + hostile,
	}); err != nil {
		t.Fatal(err)
	}
	front := "---\ntitle: \"Alpha <script>x</script>\"\nsources: []\ncreated: 2026-05-01\nupdated: 2026-05-02\n---\n"
	writeFile(t, filepath.Join(p.Store.Dir, "wiki", "concepts", "alpha.md"), front+hostileMarkdown)
	writeFile(t, filepath.Join(p.Store.Dir, "wiki", "concepts", "beta.md"), strings.Replace(front, "Alpha", "Beta", 1)+"Beta links back to [[alpha]].\n")
	writeFile(t, filepath.Join(p.Store.Dir, "wiki", "index.md"), "# Index\n\n| Article | Summary |\n|---|---|\n| [[concepts/alpha]] | the alpha <script>x</script> |\n| [[concepts/beta]] | beta |\n")
	d, err := userconf.UserDirs(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	if err := userconf.SaveConfig(d, userconf.Config{Pipeline: true}); err != nil {
		t.Fatal(err)
	}
	own := pipeline.OpenPersonal(d.Data, root)
	if err := own.WriteHandoff(pipeline.Handoff{Branch: "main", Session: "sess-1", Written: time.Unix(ts, 0), Items: []string{"finish " + hostile}}); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(own.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	pe := knowledge.Entry{Type: "decision", Content: "personal decision " + hostile, TS: ts}
	pe.Key = knowledge.MakeKey(pe.Type, pe.Content)
	if _, err := own.Store().Insert([]knowledge.Entry{pe}); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(d.Data, "sessions", "2026-05", "2026-05-04-sess1.md"), hostileMarkdown)
	return p
}

func writeFile(t testing.TB, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func newServer(t testing.TB, p *project.Project) *Server {
	t.Helper()
	s, err := New(Options{Project: p, Getenv: os.Getenv, Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	s.diff = func(rev string) (review.DiffReport, error) {
		return review.DiffReport{From: "HEAD", To: "working tree " + hostile, Changes: []knowledge.Change{
			{Kind: knowledge.ChangeAdded, Entry: knowledge.Entry{Key: "k1", Type: "fact", Content: "added " + hostile, Author: hostile}},
			{Kind: knowledge.ChangeRetracted, Entry: knowledge.Entry{Key: "k2", Type: "fact", Content: "gone"}, Reason: hostile},
		}}, nil
	}
	return s
}

// get asks s for path with the session cookie, from a loopback host.
func get(t testing.TB, s *Server, path string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest("GET", "http://127.0.0.1:8080"+path, nil)
	r.AddCookie(&http.Cookie{Name: s.cookie, Value: s.session})
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	return w
}

// handlerRE finds an event handler attribute in a tag.
var handlerRE = regexp.MustCompile(`<[a-zA-Z][^>]*\son[a-z]+\s*=`)

// tagRE finds the start of an element, with its name.
var tagRE = regexp.MustCompile(`<([a-zA-Z][a-zA-Z0-9]*)`)

// safeTags are the elements the templates and the Markdown renderer
// write; any other one in a page came from data.
var safeTags = map[string]bool{}

func init() {
	for _, n := range strings.Fields("html head meta title link body header nav a main p footer form input select option label button section b ol li div span details summary ul article h1 h2 h3 dl dt dd code table thead tbody tr th td svg rect text br pre em strong blockquote hr h4 h5 h6 line circle") {
		safeTags[n] = true
	}
}

// checkInert fails if body holds anything of the hostile texts that is
// not text: an element they name, an event handler, a javascript: URL,
// a raw control character.
func checkInert(t *testing.T, path, body string) {
	t.Helper()
	for _, m := range tagRE.FindAllStringSubmatch(body, -1) {
		if !safeTags[strings.ToLower(m[1])] {
			t.Errorf("%s: element <%s> in the page", path, m[1])
		}
	}
	if m := handlerRE.FindString(body); m != "" {
		t.Errorf("%s: an event handler in the page: %s", path, m)
	}
	for _, bad := range []string{"<script", "<img", "<iframe", "</textarea>", "</style>", "</title></style>", `href="javascript:`, `src="https://evil.example`, `src="//evil.example`, "\x1b", "\a", "\u202e"} {
		if strings.Contains(body, bad) {
			t.Errorf("%s: page holds %q", path, bad)
		}
	}
}

func TestPagesEscapeUntrustedText(t *testing.T) {
	p := seed(t)
	s := newServer(t, p)
	for _, tc := range []struct {
		path string
		has  []string
	}{
		{"/", []string{"the cache rebuilds itself", "&lt;script&gt;document.title=", `\x1b[31mred`, `\u202eevil`}},
		{"/?q=gopher+channels&explain=1", []string{"gopher channels", "why #1", "matched gopher"}},
		{"/entry?key=fact-raw-line-000001", []string{"History", "raw line &lt;script&gt;", "Eve", `\x1b[31mred`}},
		{"/timeline", []string{"<svg", "<rect", "Entries added per week"}},
		{"/log", []string{"session-start", "branch &lt;script&gt;", "injected &lt;script&gt;"}},
		{"/diff?rev=main...HEAD", []string{"Added", "Retracted", "added &lt;script&gt;"}},
		{"/wiki/team/", []string{"concepts/alpha", "Alpha &lt;script&gt;"}},
		{"/wiki/team/page/concepts/alpha", []string{`<a href="/wiki/team/page/concepts/beta" class="wikilink">beta</a>`, `<em class="broken">missing page</em>`, "Linked from", "Alpha &lt;script&gt;", "<!-- raw HTML omitted -->"}},
		{"/wiki/team/lint", []string{"broken_link"}},
		{"/wiki/team/graph", []string{"2 articles, 2 links between them", `<a href="/wiki/team/page/concepts/beta"><circle`, "Alpha &lt;script&gt;"}},
		{"/personal", []string{"Handoffs", "finish &lt;script&gt;", "personal decision &lt;script&gt;", "2026-05/2026-05-04-sess1.md"}},
		{"/personal/export?name=2026-05/2026-05-04-sess1.md", []string{"Hostile", "<!-- raw HTML omitted -->"}},
	} {
		t.Run(tc.path, func(t *testing.T) {
			w := get(t, s, tc.path)
			if w.Code != http.StatusOK {
				t.Fatalf("status %d:\n%s", w.Code, w.Body)
			}
			if got := w.Header().Get("Content-Security-Policy"); got != CSP {
				t.Errorf("CSP = %q", got)
			}
			for k, v := range map[string]string{"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer", "Content-Type": "text/html; charset=utf-8"} {
				if got := w.Header().Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			body := w.Body.String()
			if strings.Contains(body, `class="error"`) {
				t.Errorf("the page shows an error:\n%s", body)
			}
			for _, s := range tc.has {
				if !strings.Contains(body, s) {
					t.Errorf("page lacks %q:\n%s", s, body)
				}
			}
			checkInert(t, tc.path, body)
		})
	}
}

func TestAccess(t *testing.T) {
	s := newServer(t, seed(t))
	do := func(method, target, host string, cookie *http.Cookie) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, target, nil)
		r.Host = host
		if cookie != nil {
			r.AddCookie(cookie)
		}
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		return w
	}
	// The printed URL: the cookie, and the same address without the token.
	first := do("GET", "/?token=tok", "127.0.0.1:1234", nil)
	if first.Code != http.StatusSeeOther || first.Header().Get("Location") != "/" {
		t.Fatalf("the printed URL: %d to %q", first.Code, first.Header().Get("Location"))
	}
	var cookie *http.Cookie
	for _, c := range first.Result().Cookies() {
		cookie = c
	}
	if cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteLaxMode || cookie.Value == "tok" || strings.Contains(cookie.Value, "tok") ||
		len(cookie.Value) < 32 || !strings.HasPrefix(cookie.Name, "cairn_ui_") {
		t.Fatalf("cookie = %+v", cookie)
	}
	for _, tc := range []struct {
		name, method, target, host string
		cookie                     *http.Cookie
		want                       int
		to                         string // the redirect's Location, for a 303
	}{
		{"no token", "GET", "/", "127.0.0.1:1234", nil, 403, ""},
		{"wrong token", "GET", "/?token=tok2", "127.0.0.1:1234", nil, 403, ""},
		{"empty token", "GET", "/?token=", "127.0.0.1:1234", nil, 403, ""},
		{"wrong token with the cookie", "GET", "/?token=tok2", "127.0.0.1:1234", cookie, 403, ""},
		{"wrong cookie", "GET", "/", "127.0.0.1:1234", &http.Cookie{Name: cookie.Name, Value: "nope"}, 403, ""},
		{"the token as the cookie", "GET", "/", "127.0.0.1:1234", &http.Cookie{Name: cookie.Name, Value: "tok"}, 403, ""},
		{"other cookie name", "GET", "/", "127.0.0.1:1234", &http.Cookie{Name: "cairn_ui_x", Value: cookie.Value}, 403, ""},
		{"cookie", "GET", "/timeline", "127.0.0.1:1234", cookie, 200, ""},
		{"stylesheet", "GET", "/static/style.css", "127.0.0.1:1234", cookie, 200, ""},
		{"stylesheet without token", "GET", "/static/style.css", "127.0.0.1:1234", nil, 403, ""},
		{"token with a query", "GET", "/entry?key=k1&token=tok", "127.0.0.1:1234", nil, 303, "/entry?key=k1"},
		{"token first", "GET", "/?token=tok&q=cache+x", "127.0.0.1:1234", nil, 303, "/?q=cache+x"},
		{"token on an odd path", "GET", "//evil.example/?token=tok", "127.0.0.1:1234", nil, 303, "/?"},
		{"localhost", "GET", "/?token=tok", "localhost:1234", nil, 303, "/"},
		{"ipv6 loopback", "GET", "/?token=tok", "[::1]:1234", nil, 303, "/"},
		{"rebinding host", "GET", "/?token=tok", "evil.example:1234", nil, 403, ""},
		{"lan host", "GET", "/?token=tok", "192.168.1.2:1234", nil, 403, ""},
		{"post", "POST", "/?token=tok", "127.0.0.1:1234", nil, 405, ""},
		{"put", "PUT", "/entry", "127.0.0.1:1234", cookie, 405, ""},
		{"delete", "DELETE", "/", "127.0.0.1:1234", cookie, 405, ""},
		{"head", "HEAD", "/", "127.0.0.1:1234", cookie, 200, ""},
		{"unknown path", "GET", "/nope", "127.0.0.1:1234", cookie, 404, ""},
		{"export traversal", "GET", "/personal/export?name=../../etc/passwd", "127.0.0.1:1234", cookie, 404, ""},
		{"export other file", "GET", "/personal/export?name=2026-05/../../config.json", "127.0.0.1:1234", cookie, 404, ""},
		{"wiki traversal", "GET", "/wiki/team/page/../../knowledge.jsonl", "127.0.0.1:1234", cookie, 307, ""}, // to /knowledge.jsonl, a 404
		{"wiki escaped traversal", "GET", "/wiki/team/page/..%2F..%2Fknowledge.jsonl", "127.0.0.1:1234", cookie, 404, ""},
		{"unknown wiki", "GET", "/wiki/other/", "127.0.0.1:1234", cookie, 200, ""}, // says there is no such wiki
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := do(tc.method, tc.target, tc.host, tc.cookie)
			if w.Code != tc.want {
				t.Errorf("%s %s (Host %s) = %d, want %d", tc.method, tc.target, tc.host, w.Code, tc.want)
			}
			if tc.to != "" && w.Header().Get("Location") != tc.to && !(tc.to == "/?" && w.Header().Get("Location") == "/") {
				t.Errorf("%s redirects to %q, want %q", tc.target, w.Header().Get("Location"), tc.to)
			}
			if strings.Contains(w.Header().Get("Location"), "tok") {
				t.Errorf("%s redirects to %q, with the token", tc.target, w.Header().Get("Location"))
			}
			if w.Header().Get("Content-Security-Policy") != CSP {
				t.Errorf("no CSP on a %d", w.Code)
			}
			if w.Code == 403 && strings.Contains(w.Body.String(), "cache rebuilds") {
				t.Error("a refused request saw the log")
			}
		})
	}
	// Two servers on one host: neither's cookie opens the other.
	other := newServer(t, seed(t))
	if other.cookie == s.cookie || other.session == s.session {
		t.Errorf("two servers share a cookie name %q or value", s.cookie)
	}
	r := httptest.NewRequest("GET", "/", nil)
	r.Host = "127.0.0.1:1"
	r.AddCookie(cookie)
	w := httptest.NewRecorder()
	other.ServeHTTP(w, r)
	if w.Code != 403 {
		t.Errorf("another server's cookie opened a page: %d", w.Code)
	}
	remote, err := New(Options{Project: seed(t), Token: "tok", Remote: true})
	if err != nil {
		t.Fatal(err)
	}
	r = httptest.NewRequest("GET", "/?token=tok", nil)
	r.Host = "192.168.1.2:1234"
	w = httptest.NewRecorder()
	remote.ServeHTTP(w, r)
	if w.Code != http.StatusSeeOther {
		t.Errorf("a remote server refused a LAN host: %d", w.Code)
	}
}

func TestKnowledgeFilters(t *testing.T) {
	s := newServer(t, seed(t))
	for _, tc := range []struct {
		query string
		want  int
	}{
		{"", 4},
		{"q=cache+corruption", 1},
		{"type=fact", 2},
		{"type=FACT:", 2},
		{"author=Ana", 2},
		{"branch=feature%2Fx", 1},
		{"file=helpers%2Finternal", 1},
		{"month=2026-05", 4},
		{"month=2025-01", 0},
		{"status=retracted", 0},
		{"older=1.zzz", 0},
	} {
		body := get(t, s, "/?"+tc.query).Body.String()
		if got := strings.Count(body, `<li class="entry">`); got != tc.want {
			t.Errorf("/?%s lists %d entries, want %d", tc.query, got, tc.want)
		}
	}
	if body := get(t, s, "/?type=nonsense").Body.String(); !strings.Contains(body, `class="error"`) {
		t.Error("an unknown type is not reported")
	}
}

func TestCheckAddr(t *testing.T) {
	for _, tc := range []struct {
		addr     string
		loopback bool
		err      bool
	}{
		{"127.0.0.1:0", true, false},
		{"127.0.0.2:8080", true, false},
		{"localhost:0", true, false},
		{"[::1]:0", true, false},
		{"0.0.0.0:0", false, false},
		{":8080", false, false},
		{"192.168.1.2:80", false, false},
		{"example.com:80", false, true},
		{"127.0.0.1", false, true},
		{"nonsense", false, true},
	} {
		loopback, err := CheckAddr(tc.addr)
		if loopback != tc.loopback || (err != nil) != tc.err {
			t.Errorf("CheckAddr(%q) = %v, %v; want %v, error %v", tc.addr, loopback, err, tc.loopback, tc.err)
		}
	}
}

func TestTokenIsRandom(t *testing.T) {
	p := seed(t)
	a, err := New(Options{Project: p})
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(Options{Project: p})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Token()) < 32 || a.Token() == b.Token() {
		t.Errorf("tokens %q and %q", a.Token(), b.Token())
	}
	if got := a.URL("http://127.0.0.1:9/"); got != "http://127.0.0.1:9/?token="+a.Token() {
		t.Errorf("URL = %q", got)
	}
}

func TestLinkGraphCaps(t *testing.T) {
	p := seed(t)
	front := "---\ntitle: T\nsources: []\ncreated: 2026-05-01\nupdated: 2026-05-02\n---\n"
	for i := range maxGraphNodes {
		writeFile(t, filepath.Join(p.Store.Dir, "wiki", "concepts", fmt.Sprintf("n%02d.md", i)), front+"[[alpha]]\n")
	}
	body := get(t, newServer(t, p), "/wiki/team/graph").Body.String()
	if !strings.Contains(body, "82 articles: too many to draw") || strings.Contains(body, "<circle") {
		t.Errorf("a graph of 82 articles:\n%s", body)
	}
}
