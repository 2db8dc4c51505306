package ui

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/project"
)

// benchWords make up the benchmark's entries.
var benchWords = strings.Fields(`cache index sqlite query token branch commit hook session agent retry budget queue worker
channel gopher config deploy migration schema handler route template timeline wiki lint page link anchor file
review verdict stale duplicate noise search rank prior term synonym archive rotate export handoff decision failure`)

// bigProject is a project whose log holds n entries, ten minutes apart,
// written as one sorted file (as a long history leaves it), with the cache
// not built.
func bigProject(b testing.TB, n int) *project.Project { return spreadProject(b, n, 600) }

// spreadProject is bigProject with its entries gap seconds apart.
func spreadProject(b testing.TB, n int, gap int64) *project.Project {
	b.Helper()
	p := project.New(b.TempDir(), false)
	if err := p.Store.Provision(); err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	lines := make([][]byte, 0, n)
	for i := range n {
		words := make([]string, 12+rng.IntN(20))
		for j := range words {
			words[j] = benchWords[rng.IntN(len(benchWords))]
		}
		words = append(words, "w"+strconv.Itoa(i))
		e := knowledge.Entry{
			Type: knowledge.Types[rng.IntN(len(knowledge.Types))], Content: strings.Join(words, " "),
			TS: 1_700_000_000 + int64(i)*gap, Author: fmt.Sprintf("dev%02d", rng.IntN(20)), Branch: fmt.Sprintf("feature/%d", rng.IntN(50)),
			Files: []string{fmt.Sprintf("helpers/internal/pkg%d/file%d.go", rng.IntN(30), rng.IntN(10))},
		}
		e.Key = knowledge.MakeKey(e.Type, e.Content)
		line, err := knowledge.Marshal(&e)
		if err != nil {
			b.Fatal(err)
		}
		lines = append(lines, line)
	}
	knowledge.SortLines(lines)
	data := append(bytes.Join(lines, []byte("\n")), '\n')
	if err := os.WriteFile(p.Store.LogPath(), data, 0o644); err != nil {
		b.Fatal(err)
	}
	return p
}

// maxPageBytes is the most a page of the viewer may weigh, at any size of
// the log.
const maxPageBytes = 1 << 20

// benchmarkPage renders path on a server of a log of n entries, its cache
// built by a first request outside the timing; it reports the page's size
// (and fails past maxPageBytes), the CPU time a page takes (the process's,
// garbage collection included: the server's side of it on a machine whose
// wall clock other work shares), the heap the process keeps live after a
// collection (the server and the test's leftovers) and its resident size,
// at the end.
func benchmarkPage(b *testing.B, n int, path string) {
	p := bigProject(b, n)
	measurePage(b, bigServer(b, p, n), path)
}

// measurePage is benchmarkPage on server s.
func measurePage(b *testing.B, s *Server, path string) { measurePageAfter(b, s, path, nil) }

// measurePageAfter is measurePage that calls before (unless nil) before
// each request.
func measurePageAfter(b *testing.B, s *Server, path string, before func()) {
	if w := get(b, s, path); w.Code != 200 || strings.Contains(w.Body.String(), `class="error"`) {
		b.Fatalf("status %d:\n%s", w.Code, w.Body)
	}
	b.ReportAllocs()
	b.ResetTimer()
	size := 0
	cpu := cpuTime()
	for b.Loop() {
		if before != nil {
			before()
		}
		w := get(b, s, path)
		if w.Code != 200 {
			b.Fatalf("status %d", w.Code)
		}
		size = w.Body.Len()
	}
	b.StopTimer()
	if c := cpuTime(); c > 0 {
		b.ReportMetric((c-cpu)*1000/float64(b.N), "cpu-ms/op")
	}
	if size > maxPageBytes {
		b.Fatalf("%s is %d bytes, over %d", path, size, maxPageBytes)
	}
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	b.ReportMetric(float64(m.HeapInuse)/(1<<20), "heap-MB")
	b.ReportMetric(float64(size)/1024, "page-KB")
	if rss := residentMB(); rss > 0 {
		b.ReportMetric(rss, "rss-MB")
	}
}

// residentMB is the process's resident set size (Linux; 0 elsewhere).
func residentMB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return float64(kb) / 1024
		}
	}
	return 0
}

func BenchmarkFirstPage10k(b *testing.B)  { benchmarkPage(b, 10_000, "/") }
func BenchmarkFirstPage100k(b *testing.B) { benchmarkPage(b, 100_000, "/") }
func BenchmarkSearch100k(b *testing.B)    { benchmarkPage(b, 100_000, "/?q=cache+retry+budget") }
func BenchmarkFiltered100k(b *testing.B)  { benchmarkPage(b, 100_000, "/?author=dev03&month=2023-12") }
func BenchmarkTimeline100k(b *testing.B)  { benchmarkPage(b, 100_000, "/timeline") }

// The deepest pages: the list's last (its rows before it counted), and a
// narrowed list's; the diff's last.
func BenchmarkLastPage100k(b *testing.B)         { benchmarkPage(b, 100_000, "/?last=1") }
func BenchmarkLastPageByAuthor100k(b *testing.B) { benchmarkPage(b, 100_000, "/?author=dev03&last=1") }
func BenchmarkDiff100k(b *testing.B)             { benchmarkPage(b, 100_000, "/diff?page=2000") }
func BenchmarkLog100k(b *testing.B)              { benchmarkPage(b, 100_000, "/log?page=4") }

// BenchmarkSearchLastPage100k is a ranked search's last page (the best
// maxRanked hits ranked, its last 50 shown), of a word a third of the
// entries hold: reached from another page of the search (or asked
// again), whose count the server remembers, and first (the count
// forgotten before each request).
func BenchmarkSearchLastPage100k(b *testing.B) {
	const n = 100_000
	s := bigServer(b, bigProject(b, n), n)
	const path = "/?q=cache&page=10"
	b.Run("paged", func(b *testing.B) { measurePage(b, s, path) })
	b.Run("first", func(b *testing.B) {
		measurePageAfter(b, s, path, func() {
			s.counts.mu.Lock()
			s.counts.n = nil
			s.counts.mu.Unlock()
		})
	})
}
