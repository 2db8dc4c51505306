package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
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
	if !strings.Contains(first, `href="/?page=2"`) {
		t.Error("the next link is not page 2")
	}
	page("/?page=2", `<li class="entry">`, 50, "51–100 of 10000", true, true)
	page("/?page=200", `<li class="entry">`, 50, "9951–10000 of 10000", false, true)
	page("/?author=dev03", `<li class="entry">`, 50, "1–50 of "+fmt.Sprint(countAuthor(t, p, "dev03")), true, false)

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
