package ui

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/url"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/project"
	"github.com/cairn-dev/cairn/helpers/internal/review"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/clitest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/synthlog"
)

// viewerPages are every page of the viewer, with a long list's pager
// ("" for a page without one): each list's first page, and the
// deepest pages of those paged by number.
func viewerPages(key string) []struct{ path, pager string } {
	return []struct{ path, pager string }{
		{"/", "1–50 of 100000"},
		{"/?last=1", "99951–100000 of 100000"},
		{"/?q=cache+retry+budget", "1–50 of "},
		{"/?q=cache&page=10", "451–500 of "},
		{"/?author=dev03", "1–50 of "},
		{"/?author=dev03&last=1", " of "},
		{"/?status=retracted", ""},
		{"/entry?key=" + url.QueryEscape(key), ""},
		{"/timeline", ""},
		{"/log", "1–50 of 200"},
		{"/log?page=4", "151–200 of 200"},
		{"/report", ""},
		{"/diff", "1–50 of 100000"},
		{"/diff?page=2000", "99951–100000 of 100000"},
		{"/wiki/team/", ""},
		{"/wiki/team/lint", ""},
		{"/wiki/team/graph", ""},
		{"/wiki/personal/", ""},
		{"/personal", ""},
	}
}

// At 100k entries (and a diff of 100k changes), every page of the viewer
// answers at most 1 MB, and each long list is paged 50 at a time with
// its true total. (What each costs is BenchmarkEveryPage100k's.)
func TestEveryPageAt100k(t *testing.T) {
	const n = 100_000
	p := bigProject(t, n)
	s := bigServer(t, p, n)
	for _, tc := range viewerPages(firstKey(t, p)) {
		w := get(t, s, tc.path)
		body := w.Body.String()
		if w.Code != 200 || strings.Contains(body, `class="error"`) {
			t.Errorf("%s: status %d\n%.2000s", tc.path, w.Code, body)
			continue
		}
		if w.Body.Len() > maxPageBytes {
			t.Errorf("%s is %d bytes, over 1 MB", tc.path, w.Body.Len())
		}
		if tc.pager == "" {
			continue
		}
		m := pagerRE.FindStringSubmatch(body)
		if m == nil || !strings.Contains(m[1]+"–"+m[2]+" of "+m[3], tc.pager) {
			t.Errorf("%s: pager %q, want %q", tc.path, m, tc.pager)
		}
		if n := strings.Count(body, `<li class="entry">`) + strings.Count(body, `<li><span class="type`) + strings.Count(body, `<li class="injection">`); n > perPage {
			t.Errorf("%s shows %d rows, over a page of %d", tc.path, n, perPage)
		}
	}
}

// firstKey is the key of the log's first line.
func firstKey(t testing.TB, p *project.Project) string {
	t.Helper()
	recs, _, err := p.Store.ReadAll(false)
	if err != nil || len(recs) == 0 {
		t.Fatalf("no entry: %v", err)
	}
	return recs[0].Entry.Key
}

// BenchmarkEveryPage100k renders each page of the viewer at 100k entries
// (see benchmarkPage for the metrics):
//
//	go test ./helpers/internal/ui -run '^$' -bench EveryPage100k -benchtime 10x
func BenchmarkEveryPage100k(b *testing.B) {
	const n = 100_000
	p := bigProject(b, n)
	s := bigServer(b, p, n)
	for _, pg := range viewerPages(firstKey(b, p)) {
		b.Run(strings.NewReplacer("/", "_", "?", "_").Replace(pg.path), func(b *testing.B) { measurePage(b, s, pg.path) })
	}
}

// BenchmarkDiffPage100k is the diff page on a git repository whose log
// of 100k entries has two commits a day of work apart (see
// synthlog.Changed), through cairn diff's own reading: the first page of
// a diff not computed yet (first), and the same page asked again, which
// the viewer's memo serves (again, as paging through it is); of the
// working tree as committed, and of the commit before.
//
//	go test ./helpers/internal/ui -run '^$' -bench DiffPage100k -benchtime 10x
func BenchmarkDiffPage100k(b *testing.B) {
	clitest.IsolateGit(b)
	const n = 100_000
	p := bigProject(b, 0)
	p.IsGit = true
	clitest.Git(b, p.Root, "init", "-q", "-b", "main")
	before, after := synthlog.Changed(n, 7)
	for i, lines := range [][][]byte{before, after} {
		if err := os.WriteFile(p.Store.LogPath(), append(bytes.Join(lines, []byte("\n")), '\n'), 0o644); err != nil {
			b.Fatal(err)
		}
		clitest.Git(b, p.Root, "add", "-A")
		clitest.Git(b, p.Root, "commit", "-q", "-m", []string{"before", "after"}[i])
	}
	for _, bc := range []struct{ name, rev string }{{"as-committed", ""}, {"a-day-ahead", "HEAD~1"}} {
		path := "/diff?rev=" + url.QueryEscape(bc.rev)
		b.Run(bc.name+"/first", func(b *testing.B) {
			s := newServer(b, p)
			s.diff = func(rev string) (review.DiffReport, error) { return review.Diff(p, rev) } // no memo
			measurePage(b, s, path)
		})
		b.Run(bc.name+"/again", func(b *testing.B) {
			s, err := New(Options{Project: p, Getenv: os.Getenv, Token: "tok"})
			if err != nil {
				b.Fatal(err)
			}
			measurePage(b, s, path)
		})
	}
}

// BenchmarkDiffPageAfterChange100k is the diff page (the working tree
// against HEAD) on a git repository of 100k entries, its diff remembered,
// after the working tree's log changed while the viewer was open: by one
// entry added (add), by 50 entries a pull merged in among its lines
// (pull), or by a line in its middle edited (edit). Each request finds a
// log it has not compared; cpu-ms counts the request alone, not the
// writing of the log before it (nor the collection of the garbage that
// leaves), and ns/op is its time on the clock. Before each request the
// garbage is collected (gc), or collected and its memory given back to
// the system (idle), as the runtime does in a server left idle a few
// minutes: memory the request takes anew then costs a page fault a page.
// The last page is checked against the page of a diff computed from
// scratch.
//
//	go test ./helpers/internal/ui -run '^$' -bench DiffPageAfterChange100k -benchtime 5x
func BenchmarkDiffPageAfterChange100k(b *testing.B) {
	const n = 100_000
	p := changedProject(b, n)
	base, err := os.ReadFile(p.Store.LogPath())
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.SplitAfter(bytes.TrimSuffix(base, []byte("\n")), []byte("\n"))
	for _, bc := range []struct {
		name string
		log  func(w io.Writer, i int) // writes the log of the i-th request
	}{
		{"add", func(w io.Writer, i int) {
			w.Write(base)
			w.Write(append(synthlog.Log(n+1000+i, n+1001+i, 7)[0], '\n'))
		}},
		{"pull", func(w io.Writer, i int) {
			pulled := synthlog.Log(n+2000+50*i, n+2050+50*i, 7)
			for j, l := range lines {
				w.Write(l)
				if k := j / (len(lines) / 50); j%(len(lines)/50) == 0 && k < len(pulled) {
					w.Write(append(pulled[k], '\n'))
				}
			}
		}},
		{"edit", func(w io.Writer, i int) {
			for j, l := range lines {
				if j == len(lines)/2 {
					l = bytes.Replace(l, []byte(`"content":"`), []byte(`"content":"edited `+strconv.Itoa(i)+` `), 1)
				}
				w.Write(l)
			}
		}},
	} {
		for _, idle := range []bool{false, true} {
			name := bc.name + "/gc"
			if idle {
				name = bc.name + "/idle"
			}
			b.Run(name, func(b *testing.B) {
				s := newRealServer(b, p)
				if err := os.WriteFile(p.Store.LogPath(), base, 0o644); err != nil {
					b.Fatal(err)
				}
				get(b, s, "/diff") // the memo warm for the log before the change
				cpu, size := 0.0, 0
				var page string
				i := 0
				for b.Loop() {
					b.StopTimer()
					f, err := os.Create(p.Store.LogPath())
					if err != nil {
						b.Fatal(err)
					}
					bw := bufio.NewWriter(f)
					bc.log(bw, i)
					if err := errors.Join(bw.Flush(), f.Close()); err != nil {
						b.Fatal(err)
					}
					i++
					if idle {
						debug.FreeOSMemory()
					} else {
						runtime.GC() // the request's collections its own
					}
					b.StartTimer()
					c := cpuTime()
					w := get(b, s, "/diff")
					cpu += cpuTime() - c
					if w.Code != 200 || !bytes.Contains(w.Body.Bytes(), []byte("Added")) {
						b.Fatalf("status %d:\n%.2000s", w.Code, w.Body)
					}
					size, page = w.Body.Len(), w.Body.String()
				}
				b.StopTimer()
				b.ReportMetric(cpu*1000/float64(b.N), "cpu-ms/op")
				b.ReportMetric(float64(size)/1024, "page-KB")
				if size > maxPageBytes {
					b.Fatalf("the page is %d bytes, over %d", size, maxPageBytes)
				}
				scratch := newRealServer(b, p)
				scratch.diff = func(rev string) (review.DiffReport, error) { return review.Diff(p, rev) } // no memo
				if want := get(b, scratch, "/diff").Body.String(); page != want {
					b.Fatalf("the page after the change is not the page computed from scratch:\n%.3000s\n----\n%.3000s", page, want)
				}
			})
		}
	}
}
