package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/project"
	"github.com/cairn-dev/cairn/helpers/internal/recall"
	"github.com/cairn-dev/cairn/helpers/internal/review"
	"github.com/cairn-dev/cairn/helpers/internal/userconf"
)

// bigServer serves p, whose log holds n entries, with a diff of n changes
// and n injections recorded: every long list of the viewer at n rows.
func bigServer(t testing.TB, p *project.Project, n int) *Server {
	t.Helper()
	changes := make([]knowledge.Change, n)
	kinds := []string{knowledge.ChangeAdded, knowledge.ChangeRetracted, knowledge.ChangeEdited}
	for i := range changes {
		changes[i] = knowledge.Change{Kind: kinds[i%len(kinds)], Entry: knowledge.Entry{Key: fmt.Sprintf("fact-change-%06d", i), Type: "fact", Content: fmt.Sprintf("change number %d", i)}}
	}
	var ins bytes.Buffer
	for i := range min(n, recall.MaxInjections) { // what the record keeps
		i += max(n-recall.MaxInjections, 0)
		line, err := json.Marshal(recall.Injection{Time: time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC).UnixNano() + int64(i), Agent: "claude",
			Session: fmt.Sprintf("s%d", i%2), Moment: "session-start", Budget: 4000, Used: 100, Entries: []recall.Shown{{Key: "fact-k", Reason: "branch"}}})
		if err != nil {
			t.Fatal(err)
		}
		ins.Write(append(line, '\n'))
	}
	writeFile(t, filepath.Join(p.Store.Dir, "local", "injections.jsonl"), ins.String())
	s, err := New(Options{Project: p, Getenv: os.Getenv, Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	s.diff = func(rev string) (review.DiffReport, error) {
		return review.DiffReport{From: "HEAD", To: "working tree", Changes: changes}, nil
	}
	return s
}

// pagerRE reads a pager: rows from, to and of how many.
var pagerRE = regexp.MustCompile(`<span class="of">(\d+)–(\d+) of (\d+)`)

// At 10k entries every count the viewer shows is the log's true count and
// every long list is paged 50 at a time with its total, next and
// previous: the knowledge list, the timeline (whose chart draws only the
// last year), the diff and what agents were shown.
func TestCountsAndPagesAt10k(t *testing.T) {
	const n = 10_000
	p := spreadProject(t, n, 3600) // over a year: more weeks than the chart draws
	s := bigServer(t, p, n)
	page := func(path string, rows string, wantRows int, wantPager string, next, prev bool) string {
		t.Helper()
		w := get(t, s, path)
		body := w.Body.String()
		if w.Code != 200 || strings.Contains(body, `class="error"`) {
			t.Fatalf("%s: status %d\n%.2000s", path, w.Code, body)
		}
		if got := strings.Count(body, rows); got != wantRows {
			t.Errorf("%s shows %d rows, want %d", path, got, wantRows)
		}
		if m := pagerRE.FindStringSubmatch(body); m == nil || m[1]+"–"+m[2]+" of "+m[3] != wantPager {
			t.Errorf("%s: pager %q, want %q", path, m, wantPager)
		}
		if got := strings.Contains(body, `rel="next"`); got != next {
			t.Errorf("%s: a next link is %v, want %v", path, got, next)
		}
		if got := strings.Contains(body, `rel="prev"`); got != prev {
			t.Errorf("%s: a previous link is %v, want %v", path, got, prev)
		}
		if strings.Contains(body, "token=tok") {
			t.Errorf("%s: a link carries the token", path)
		}
		if w.Body.Len() > 1<<20 {
			t.Errorf("%s is %d bytes, over 1 MB", path, w.Body.Len())
		}
		return body
	}
	first := page("/", `<li class="entry">`, 50, "1–50 of 10000", true, false)
	if !strings.Contains(first, `id="count">10000 entries, newest first`) {
		t.Errorf("the first page does not state the log's total:\n%.3000s", first)
	}
	second := page(link(t, first, "next"), `<li class="entry">`, 50, "51–100 of 10000", true, true)
	page(link(t, second, "prev"), `<li class="entry">`, 50, "1–50 of 10000", true, false)
	end := page(link(t, first, "last"), `<li class="entry">`, 50, "9951–10000 of 10000", false, true)
	page(link(t, end, "prev"), `<li class="entry">`, 50, "9901–9950 of 10000", true, true)
	dev03 := countAuthor(t, p, "dev03")
	byAuthor := page("/?author=dev03", `<li class="entry">`, 50, "1–50 of "+fmt.Sprint(dev03), true, false)
	page(link(t, byAuthor, "last"), `<li class="entry">`, 50, fmt.Sprintf("%d–%d of %d", dev03-49, dev03, dev03), false, true)

	// A ranked search pages through its best 500 and says how many match.
	found := get(t, s, "/?q=cache").Body.String()
	m := regexp.MustCompile(`id="count">(\d+) entries matching, best match first \(the best 10 pages`).FindStringSubmatch(found)
	if m == nil || m[1] == "500" {
		t.Errorf("a search matching thousands does not say how many, nor that it pages the best 500:\n%.2000s", found)
	} else {
		page("/?q=cache&page=11", `<li class="entry">`, 50, "451–500 of "+m[1], false, true)
	}

	tl := get(t, s, "/timeline").Body.String()
	if !strings.Contains(tl, `<p id="total">10000 entries in the log`) {
		t.Errorf("the timeline does not count the whole log:\n%.2000s", tl)
	}

	page("/diff", `<li><span class="type`, 50, "1–50 of 10000", true, false)
	last := page("/diff?page=200", `<li><span class="type`, 50, "9951–10000 of 10000", false, true)
	if !strings.Contains(last, "From HEAD to working tree: 10000 changes.") {
		t.Error("the diff's summary does not count every change")
	}
	// The record keeps the newest recall.MaxInjections.
	page("/log", `<li class="injection">`, 50, "1–50 of 200", true, false)
	page("/log?page=4", `<li class="injection">`, 50, "151–200 of 200", false, true)
	page("/log?session=s1&page=2", `<li class="injection">`, 50, "51–100 of 100", false, true)
	if body := get(t, s, "/log?page=9").Body.String(); !strings.Contains(body, "none of 200 here") || !strings.Contains(body, `href="/log?page=4"`) {
		t.Errorf("a page past the end does not say so with a way back:\n%.2000s", body)
	}
}

// linkRE reads a pager's links by their rel.
var linkRE = regexp.MustCompile(`<a rel="(first|prev|next|last)" href="([^"]*)"`)

// link is the address of body's first link of rel (first, prev, next or
// last); the test fails when there is none.
func link(t *testing.T, body, rel string) string {
	t.Helper()
	for _, m := range linkRE.FindAllStringSubmatch(body, -1) {
		if m[1] == rel {
			return html.UnescapeString(m[2])
		}
	}
	t.Fatalf("no %s link:\n%.3000s", rel, body)
	return ""
}

// keysOn are the entry keys a knowledge page lists, in its order.
func keysOn(body string) []string {
	var keys []string
	for _, m := range regexp.MustCompile(`<a class="key" href="/entry\?key=([^"]+)"`).FindAllStringSubmatch(body, -1) {
		k, _ := url.QueryUnescape(html.UnescapeString(m[1]))
		keys = append(keys, k)
	}
	return keys
}

// Paged from a place, the newest-first list reads every entry once, in
// the log's newest-first order (ts, then key), forward by next from the
// first page and backward by previous from the last, with each page's
// rows numbered as the whole list numbers them: with every entry of its
// own second, and with all of them of one second (the key decides).
func TestListingPagesFromAPlace(t *testing.T) {
	for _, gap := range []int64{600, 0} {
		const n = 230
		p := spreadProject(t, n, gap)
		s := newServer(t, p)
		recs, _, err := p.Store.ReadAll(false)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		sort.Slice(recs, func(i, j int) bool {
			a, b := recs[i].Entry, recs[j].Entry
			return a.TS > b.TS || a.TS == b.TS && a.Key < b.Key
		})
		for _, r := range recs {
			want = append(want, r.Entry.Key)
		}
		var fwd []string
		path := "/"
		for i := 0; ; i++ {
			body := get(t, s, path).Body.String()
			keys := keysOn(body)
			from := len(fwd) + 1
			if m := pagerRE.FindStringSubmatch(body); m == nil || m[1] != fmt.Sprint(from) || m[2] != fmt.Sprint(from+len(keys)-1) || m[3] != fmt.Sprint(n) {
				t.Fatalf("gap %d, page %d: pager %q, want rows from %d", gap, i+1, m, from)
			}
			fwd = append(fwd, keys...)
			if !strings.Contains(body, `rel="next"`) {
				break
			}
			path = link(t, body, "next")
		}
		if !slices.Equal(fwd, want) {
			t.Errorf("gap %d: forward, the pages list %d entries, not the log's %d in order", gap, len(fwd), len(want))
		}
		var back []string
		path = link(t, get(t, s, "/").Body.String(), "last")
		for {
			body := get(t, s, path).Body.String()
			back = append(keysOn(body), back...)
			if m := pagerRE.FindStringSubmatch(body); m == nil || m[1] != fmt.Sprint(n-len(back)+1) {
				t.Fatalf("gap %d: backward, pager %q with %d rows read", gap, m, len(back))
			}
			if !strings.Contains(body, `rel="prev"`) {
				break
			}
			path = link(t, body, "prev")
		}
		if !slices.Equal(back, want) {
			t.Errorf("gap %d: backward, the pages list %d entries, not the log's %d in order", gap, len(back), len(want))
		}
	}
}

// countAuthor counts the log's entries by author, from the log itself.
func countAuthor(t *testing.T, p *project.Project, author string) int {
	t.Helper()
	recs, _, err := p.Store.ReadAll(false)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range recs {
		if r.Entry.Author == author {
			n++
		}
	}
	return n
}

// The personal page pages its session exports (exports=N) and its
// decisions and failures (page=N) apart, each with its total.
func TestPersonalPagesExports(t *testing.T) {
	p := seed(t)
	u, err := userconf.Load(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 120 {
		writeFile(t, filepath.Join(u.Knowledge(), "sessions", "2026-04", fmt.Sprintf("2026-04-%02d-s%03d.md", 1+i%28, i)), "# export\n")
	}
	s := newServer(t, p)
	body := get(t, s, "/personal").Body.String()
	if got := strings.Count(body, `<li><a href="/personal/export?name=`); got != 50 {
		t.Errorf("the first page lists %d exports, want 50", got)
	}
	if !strings.Contains(body, "1–50 of 121") || !strings.Contains(body, `href="/personal?exports=2"`) {
		t.Errorf("the exports' pager is missing:\n%.3000s", body)
	}
	last := get(t, s, "/personal?exports=3").Body.String()
	if got := strings.Count(last, `<li><a href="/personal/export?name=`); got != 21 || !strings.Contains(last, "101–121 of 121") {
		t.Errorf("the last page of exports lists %d:\n%.3000s", got, last)
	}
}

// The wiki's lists are paged 50 at a time with their totals: the index's
// rows (page=N) and the articles (articles=N) apart, lint's findings,
// and the articles linking to one.
func TestWikiListsArePaged(t *testing.T) {
	p := seed(t)
	front := "---\ntitle: N\nsources: []\ncreated: 2026-05-01\nupdated: 2026-05-02\n---\n"
	var index strings.Builder
	index.WriteString("# Index\n\n| Article | Summary |\n|---|---|\n")
	for i := range 120 {
		// Each links to alpha and to a page that does not exist: a
		// backlink and a finding apiece.
		writeFile(t, filepath.Join(p.Store.Dir, "wiki", "concepts", fmt.Sprintf("n%03d.md", i)), front+"[[alpha]] and [[nowhere-"+fmt.Sprint(i)+"]]\n")
		fmt.Fprintf(&index, "| [[concepts/n%03d]] | number %d |\n", i, i)
	}
	writeFile(t, filepath.Join(p.Store.Dir, "wiki", "index.md"), index.String())
	s := newServer(t, p)
	for _, tc := range []struct {
		path, rows, pager string
		want              int
	}{
		{"/wiki/team/", `<tr><td><a href="/wiki/team/page/`, "1–50 of 120", 50},
		{"/wiki/team/?page=3", `<tr><td><a href="/wiki/team/page/`, "101–120 of 120", 20},
		{"/wiki/team/", `<li><a href="/wiki/team/page/`, "1–50 of 122", 50},
		{"/wiki/team/?articles=3", `<li><a href="/wiki/team/page/`, "101–122 of 122", 22},
		{"/wiki/team/page/concepts/alpha?page=3", `<li><a href="/wiki/team/page/concepts/n`, "101–121 of 121", 21},
	} {
		body := get(t, s, tc.path).Body.String()
		if got := strings.Count(body, tc.rows); got != tc.want {
			t.Errorf("%s lists %d rows, want %d", tc.path, got, tc.want)
		}
		if !strings.Contains(body, tc.pager) {
			t.Errorf("%s: no pager %q:\n%.3000s", tc.path, tc.pager, body)
		}
	}
	lint := get(t, s, "/wiki/team/lint").Body.String()
	m := pagerRE.FindStringSubmatch(lint)
	if got := strings.Count(lint, `<tr class="sev-`); got != 50 || m == nil || m[1] != "1" || m[2] != "50" {
		t.Errorf("lint lists %d findings, pager %q:\n%.3000s", got, m, lint)
	} else if n, _ := strconv.Atoi(m[3]); n < 120 {
		t.Errorf("lint counts %d findings, want at least 120", n)
	}
	if !strings.Contains(lint, `href="/wiki/team/lint?page=2"`) {
		t.Error("lint's findings have no next page")
	}
}

// An address of the list's old numbered pages (page=N, from a bookmark or
// a link of an older cairn) is sent to the page of the same rows, its
// filters kept: page 1 to the first, page N to the rows after page N-1's
// last, a page past the end to the last (last=1, the list's last 50).
func TestOldPageNumbersRedirect(t *testing.T) {
	const n = 230
	p := spreadProject(t, n, 600)
	s := newServer(t, p)
	for _, tc := range []struct{ path, pager string }{
		{"/?page=1", "1–50 of 230"},
		{"/?page=3", "101–150 of 230"},
		{"/?page=5", "201–230 of 230"},
		{"/?page=99", "181–230 of 230"}, // the last page: its last 50

		{"/?page=x", "1–50 of 230"},
		{"/?author=dev03&page=2", "1–"}, // past the end of its few: their last page
	} {
		w := get(t, s, tc.path)
		to := w.Header().Get("Location")
		if w.Code != 302 || to == "" || strings.Contains(to, "page=") {
			t.Errorf("%s: status %d, to %q; want a redirect off page=", tc.path, w.Code, to)
			continue
		}
		if strings.Contains(tc.path, "author=") && !strings.Contains(to, "author=dev03") {
			t.Errorf("%s: the redirect to %s drops the filter", tc.path, to)
		}
		body := get(t, s, to).Body.String()
		if m := pagerRE.FindStringSubmatch(body); m == nil || !strings.HasPrefix(m[0][len(`<span class="of">`):], tc.pager) {
			t.Errorf("%s, sent to %s: pager %q, want %q", tc.path, to, m, tc.pager)
		}
	}
}
