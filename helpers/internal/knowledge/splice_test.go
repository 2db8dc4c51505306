package knowledge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// countingReader counts the reads of a ReaderAt and the bytes they ask for.
type countingReader struct {
	r            io.ReaderAt
	calls, bytes int
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	c.calls++
	c.bytes += len(p)
	return c.r.ReadAt(p, off)
}

// sortedLines returns n entry lines in log order.
func sortedLines(prefix string, n int) []string { return tsLog(prefix, n) }

func jsonUnmarshal(line string, e *Entry) error { return json.Unmarshal([]byte(line), e) }

func mustMarshal(t testing.TB, e *Entry) []byte {
	t.Helper()
	b, err := Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 1)) }

// searchData returns the offset the binary search gives line in data,
// reading chunk bytes at a time.
func searchData(t testing.TB, data []byte, line string, chunk int) int64 {
	t.Helper()
	lf := memLog(data)
	p, _ := lineSortPos([]byte(line))
	pr := &prober{r: bytes.NewReader(data), chunk: chunk}
	at, err := pr.search(p, lf.start, lf.size)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

// offsetOf returns the offset of line i of lines joined by sep, after a
// prefix of pre bytes; i == len(lines) is the end.
func offsetOf(lines []string, sep string, pre, i int) int64 {
	off := pre
	for _, l := range lines[:i] {
		off += len(l) + len(sep)
	}
	return int64(off)
}

// TestSearchPlaces: the binary search over bytes finds, in a sorted log,
// the first line that sorts after the new one, whatever the log's line
// endings, a BOM, lines without a key in the way, lines longer than a
// read, and however small the reads.
func TestSearchPlaces(t *testing.T) {
	lines := sortedLines("place", 40)
	// A line that sorts between line i-1 and line i of lines: same key as
	// line i-1, later ts (equal keys keep ts order).
	after := func(i int) string {
		var e Entry
		if err := jsonUnmarshal(lines[i-1], &e); err != nil {
			t.Fatal(err)
		}
		e.TS += 1000
		return string(mustMarshal(t, &e))
	}
	before := func(i int) string {
		var e Entry
		if err := jsonUnmarshal(lines[i], &e); err != nil {
			t.Fatal(err)
		}
		e.TS -= 1000
		return string(mustMarshal(t, &e))
	}
	// Line 17 made longer than a read (10 KB), its key and ts kept, so
	// the order holds.
	var e17 Entry
	if err := jsonUnmarshal(lines[17], &e17); err != nil {
		t.Fatal(err)
	}
	e17.Content = strings.Repeat("a long entry ", 800)
	withLong := slices.Clone(lines)
	withLong[17] = string(mustMarshal(t, &e17))
	cases := []struct {
		name  string
		lines []string
		sep   string
		pre   string
		end   string // what follows the last line
		line  string
		want  int // index of the line it goes before
	}{
		{"first", lines, "\n", "", "\n", before(0), 0},
		{"middle", lines, "\n", "", "\n", after(20), 20},
		{"before an equal key's later ts", lines, "\n", "", "\n", before(20), 20},
		{"last", lines, "\n", "", "\n", after(40), 40},
		{"CRLF", lines, "\r\n", "", "\r\n", after(13), 13},
		{"BOM", lines, "\n", "\xef\xbb\xbf", "\n", after(1), 1},
		{"BOM, first", lines, "\n", "\xef\xbb\xbf", "\n", before(0), 0},
		{"no final newline", lines, "\n", "", "", after(40), 40},
		{"long line", withLong, "\n", "", "\n", after(18), 18},
		{"past a long line", withLong, "\n", "", "\n", after(30), 30},
	}
	for _, c := range cases {
		data := []byte(c.pre + strings.Join(c.lines, c.sep) + c.end)
		for _, chunk := range []int{1, 7, 64, probeChunk} {
			got := searchData(t, data, c.line, chunk)
			want := offsetOf(c.lines, c.sep, len(c.pre), c.want)
			if c.want == len(c.lines) {
				want = int64(len(data))
			}
			if got != want {
				t.Errorf("%s (reads of %d): offset %d, want %d (before line %d)", c.name, chunk, got, want, c.want)
			}
		}
	}
	if got := searchData(t, nil, lines[0], probeChunk); got != 0 {
		t.Errorf("empty log: offset %d", got)
	}
	if got := searchData(t, []byte("\xef\xbb\xbf"), lines[0], probeChunk); got != 3 {
		t.Errorf("log of a BOM only: offset %d, want 3", got)
	}
}

// TestSearchSkipsKeylessLines: blank lines, conflict markers, invalid and
// double-encoded lines have no place of their own; the new line lands
// between the keyed lines around it, never before a keyed line that sorts
// before it nor after one that sorts after it.
func TestSearchSkipsKeylessLines(t *testing.T) {
	keyed := sortedLines("gap", 30)
	noise := []string{"", "<<<<<<< HEAD", "=======", ">>>>>>> b", "not json", encodeN(keyed[3], 1), "   ", `{"type":"fact"}`}
	var all []string
	isKeyed := []bool{}
	for i, l := range keyed {
		for j := 0; j < i%4; j++ {
			all = append(all, noise[(i+j)%len(noise)])
			isKeyed = append(isKeyed, false)
		}
		all = append(all, l)
		isKeyed = append(isKeyed, true)
	}
	all = append(all, noise...)
	for range noise {
		isKeyed = append(isKeyed, false)
	}
	data := []byte(strings.Join(all, "\n") + "\n")
	for i := 0; i <= len(keyed); i++ {
		var line string
		if i < len(keyed) {
			var e Entry
			jsonUnmarshal(keyed[i], &e)
			e.TS -= 1000
			line = string(mustMarshal(t, &e))
		} else {
			var e Entry
			jsonUnmarshal(keyed[i-1], &e)
			e.TS += 1000
			line = string(mustMarshal(t, &e))
		}
		for _, chunk := range []int{5, probeChunk} {
			at := searchData(t, data, line, chunk)
			// Count the keyed lines before the offset: exactly i.
			n, off := 0, int64(0)
			for k, l := range all {
				if off >= at {
					break
				}
				if isKeyed[k] {
					n++
				}
				off += int64(len(l) + 1)
			}
			if off != at && at != int64(len(data)) {
				t.Fatalf("offset %d is not a line start", at)
			}
			if n != i {
				t.Errorf("line that sorts before keyed line %d (reads of %d): %d keyed lines before its place", i, chunk, n)
			}
		}
	}
}

// TestSearchReadsLittle: finding the place of a line in a sorted log of
// 100k entries reads about log2(100k) lines, not the log: the work, not
// the time, is what is asserted.
func TestSearchReadsLittle(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 100k-entry log")
	}
	const n = 100_000
	lines := make([][]byte, n)
	for i := range lines {
		lines[i] = fmt.Appendf(nil, `{"key":"fact-entry-%d-%06x","type":"fact","content":"entry %d of a big log","ts":%d}`, i, i, i, 1000+i)
	}
	SortLines(lines)
	data := append(bytes.Join(lines, []byte("\n")), '\n')
	e := synthEntry(newRand(8), n+1)
	line := mustMarshal(t, &e)
	cr := &countingReader{r: bytes.NewReader(data)}
	places, err := placeLines(cr, 0, int64(len(data)), [][]byte{line})
	if err != nil {
		t.Fatal(err)
	}
	steps := bits.Len(uint(n)) + 2 // binary search steps over n lines, and some
	t.Logf("%d reads, %d bytes", cr.calls, cr.bytes)
	if cr.calls > 3*steps || cr.bytes > 3*steps*probeChunk {
		t.Errorf("placing one line in %d entries (%d bytes) took %d reads of %d bytes; want at most %d reads", n, len(data), cr.calls, cr.bytes, 3*steps)
	}
	// The neighbours of the place sort around the new line.
	at := places[0].at
	p, _ := lineSortPos(line)
	if at > 0 {
		prev := data[bytes.LastIndexByte(data[:at-1], '\n')+1 : at-1]
		if q, _ := lineSortPos(prev); p.less(q) {
			t.Errorf("placed after %s, which sorts after it", prev)
		}
	}
	if at < int64(len(data)) {
		next := data[at : at+int64(bytes.IndexByte(data[at:], '\n'))]
		if q, _ := lineSortPos(next); !p.less(q) {
			t.Errorf("placed before %s, which sorts before it", next)
		}
	}
}

// TestEachLineChunks: reading the log in chunks yields its lines as the
// whole log in memory does, however the chunks cut them.
func TestEachLineChunks(t *testing.T) {
	messy, _ := messyLog()
	long := mkLine("long", "fact", strings.Repeat("x", 5000), 1)
	for _, data := range []string{"", "\n", "a", "a\nb", "a\r\nb\r\n", "\xef\xbb\xbfa\nb\n", "\r\n\r\n", messy, long + "\n" + long, "\xef\xbb\xbf"} {
		path := filepath.Join(t.TempDir(), "log")
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		lf, err := fileLog(f)
		if err != nil {
			t.Fatal(err)
		}
		var want, mapped []string
		memLog([]byte(data)).eachLine(func(l []byte) { want = append(want, string(l)) })
		if err := lf.eachLine(func(l []byte) { mapped = append(mapped, string(l)) }); err != nil || !slices.Equal(mapped, want) {
			t.Errorf("%q mapped: lines %q, %v; want %q", clip([]byte(data)), mapped, err, want)
		}
		for _, chunk := range []int{1, 2, 3, 64, lineChunk} {
			var got []string
			if err := lf.eachLineChunk(chunk, func(l []byte) { got = append(got, string(l)) }); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%q in chunks of %d: lines %q, want %q", clip([]byte(data)), chunk, got, want)
			}
		}
		if mf := memLog([]byte(data)); lf.start != mf.start || lf.nl != mf.nl || lf.size != mf.size {
			t.Errorf("%q: file log %+v, memory log %+v", clip([]byte(data)), *lf, *mf)
		}
		f.Close()
	}
}

// FuzzSearch: for any log and any new line, the place found is a line
// start of the body; reads of any size find the same place; splicing the
// line in keeps every existing byte (a BOM aside); and in a log whose
// keyed lines are sorted, the keyed lines before the place sort before
// the new line and those after it sort after it.
func FuzzSearch(f *testing.F) {
	for i, s := range messySeeds() {
		f.Add([]byte(s), fmt.Sprintf("seed-%d", i), int64(i))
	}
	sorted := tsLog("fs", 12)
	f.Add([]byte(strings.Join(sorted, "\n")+"\n"), "fs-3", int64(0))
	f.Add([]byte(strings.Join(sorted, "\r\n")), "fs-3", int64(99))
	f.Add([]byte("\xef\xbb\xbf"+strings.Join(sorted, "\n\n")+"\n"), "fs-5", int64(5))
	f.Fuzz(func(t *testing.T, data []byte, key string, ts int64) {
		if key == "" {
			key = "k"
		}
		line := mkLine(key, "fact", "fuzzed", ts)
		lf := memLog(data)
		p, _ := lineSortPos([]byte(line))
		var at int64
		for i, chunk := range []int{1, 3, probeChunk} {
			pr := &prober{r: bytes.NewReader(data), chunk: chunk}
			got, err := pr.search(p, lf.start, lf.size)
			if err != nil {
				t.Fatal(err)
			}
			if i > 0 && got != at {
				t.Fatalf("reads of %d bytes place at %d, reads of 1 at %d", chunk, got, at)
			}
			at = got
		}
		if at < lf.start || at > lf.size || (at > lf.start && at < lf.size && data[at-1] != '\n') {
			t.Fatalf("place %d is not a line start of %q", at, data)
		}
		out := insertSorted(data, [][]byte{[]byte(line)})
		checkSubsequence(t, bytes.TrimPrefix(data, bom), out, []string{line})
		var keyed []sortPos
		var offs []int64
		for off := lf.start; off < lf.size; {
			l := data[off:]
			next := lf.size
			if i := bytes.IndexByte(l, '\n'); i >= 0 {
				l, next = l[:i+1], off+int64(i)+1
			}
			if q, ok := lineSortPos(bytes.TrimPrefix(bytes.TrimRight(l, "\r\n"), bom)); ok {
				keyed = append(keyed, q)
				offs = append(offs, off)
			}
			off = next
		}
		if !slices.IsSortedFunc(keyed, func(a, b sortPos) int {
			if a.less(b) {
				return -1
			}
			if b.less(a) {
				return 1
			}
			return 0
		}) {
			return
		}
		for i, q := range keyed {
			if offs[i] < at && p.less(q) {
				t.Fatalf("place %d is after a line that sorts after the new one (at %d)", at, offs[i])
			}
			if offs[i] >= at && !p.less(q) {
				t.Fatalf("place %d is before a line that sorts before the new one (at %d)", at, offs[i])
			}
		}
	})
}

// TestOwnKeyAndCanonicalKey: the per-line checks of the duplicate pass.
func TestOwnKeyAndCanonicalKey(t *testing.T) {
	for _, c := range []struct {
		key  string
		want bool
	}{
		{MakeKey("learned", "the retry loop lives in client.go"), true},
		{MakeKey("must-check", "run the migrations first"), true},
		{MakeKey("fact", "!!!"), true}, // no slug: type and hash only
		{"learned-x-0a1b2c", true},
		{"learned-x-0A1B2C", false}, // upper-case hex
		{"learned-x-0a1b2", false},
		{"learnedx-0a1b2c", false},
		{"note-x-0a1b2c", false}, // not a type
		{"fact-0a1b2", false},
		{"handmade-key", false},
		{"", false},
	} {
		if got := ownKey(c.key); got != c.want {
			t.Errorf("ownKey(%q) = %v, want %v", c.key, got, c.want)
		}
		if got := ownKey([]byte(c.key)); got != c.want {
			t.Errorf("ownKey([]byte(%q)) = %v, want %v", c.key, got, c.want)
		}
	}
	for _, c := range []struct {
		line, key string
		ok        bool
	}{
		{`{"key":"fact-a-0a1b2c","type":"fact"}`, "fact-a-0a1b2c", true},
		{`{"key":"","type":"fact"}`, "", true},
		{`{"key": "fact-a-0a1b2c"}`, "", false},       // spaced: read by gjson instead
		{`{"key":"fa\"ct-a-0a1b2c"}`, "", false},      // escaped: read by gjson instead
		{`{"type":"fact","key":"fact-a"}`, "", false}, // key not first
		{`{"key":"fact-a-0a1b2c`, "", false},
		{`"{\"key\":\"fact\"}"`, "", false},
	} {
		key, ok := canonicalKey([]byte(c.line))
		if string(key) != c.key || ok != c.ok {
			t.Errorf("canonicalKey(%s) = %q, %v; want %q, %v", c.line, key, ok, c.key, c.ok)
		}
	}
}

// TestKeySet: a key set answers the same whether it compares its keys or
// hashes them.
func TestKeySet(t *testing.T) {
	var s keySet[int]
	for i := range 3 * smallKeySet {
		s.add(fmt.Sprintf("key-%d", i), i)
		s.add(fmt.Sprintf("key-%d", i), -1) // the first value stays
		for j := range 3 * smallKeySet {
			v, ok := s.find([]byte(fmt.Sprintf("key-%d", j)))
			if ok != (j <= i) || (ok && v != j) {
				t.Fatalf("after %d keys, find(key-%d) = %d, %v", i+1, j, v, ok)
			}
		}
	}
	if _, ok := s.find([]byte("key-")); ok {
		t.Error("found a key never added")
	}
}
