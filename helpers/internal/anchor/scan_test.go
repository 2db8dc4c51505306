package anchor

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// unanchored finds every line that may anchor a note to a path or a
// directory above it, however its files name is written, and passes the
// lines that cannot: a note on a sibling, one that merely mentions the
// path, one with no files. What it does not read exactly (an escape in a
// name, a \u escape anywhere, an object encoded as a string, a nested
// list, a line longer than its buffer) it does not pass.
func TestUnanchored(t *testing.T) {
	const other = `{"key":"fact-x","type":"fact","content":"the queue backs off","ts":1,"files":["src/b.go","docs/"]}`
	for _, c := range []struct {
		name, line string
		want       bool
	}{
		{"no files", `{"key":"fact-y","type":"fact","content":"x","ts":2}`, true},
		{"a sibling", `{"key":"k","type":"fact","content":"x","ts":2,"files":["src/b.go"]}`, true},
		{"a longer name", `{"key":"k","type":"fact","content":"x","ts":2,"files":["src/a.go.orig","xsrc/a.go"]}`, true},
		{"the path in the content", `{"key":"k","type":"fact","content":"see src/a.go and src","ts":2}`, true},
		{"the path in the content, files elsewhere", `{"key":"k","type":"fact","content":"see src/a.go, src","ts":2,"files":["lib/c.go"]}`, true},
		{"the path in a tag", `{"key":"k","type":"fact","content":"x","tags":["src/a.go"],"ts":2}`, true},
		{"the file", `{"key":"k","type":"fact","content":"x","ts":2,"files":["src/a.go"]}`, false},
		{"a directory above", `{"key":"k","type":"fact","content":"x","ts":2,"files":["lib/","src/"]}`, false},
		{"the directory, no slash", `{"key":"k","type":"fact","content":"x","ts":2,"files":["src"]}`, false},
		{"./src/a.go", `{"key":"k","type":"fact","content":"x","ts":2,"files":["./src/a.go"]}`, false},
		{"src//a.go", `{"key":"k","type":"fact","content":"x","ts":2,"files":["src//a.go"]}`, false},
		{"src/x/../a.go", `{"key":"k","type":"fact","content":"x","ts":2,"files":["src/x/../a.go"]}`, false},
		{"src/lib/..", `{"key":"k","type":"fact","content":"x","ts":2,"files":["src/lib/.."]}`, false},
		{"blanks around", `{"key":"k","type":"fact","content":"x","ts":2,"files":[" src/a.go "]}`, false},
		{"a no-break space before", "{\"key\":\"k\",\"type\":\"fact\",\"content\":\"x\",\"ts\":2,\"files\":[\"\u00a0src/a.go\"]}", false},
		{"an escaped slash", `{"key":"k","type":"fact","content":"x","ts":2,"files":["src\/a.go"]}`, false},
		{"a tab escape", `{"key":"k","type":"fact","content":"x","ts":2,"files":["\tsrc/a.go"]}`, false},
		{"a \\u escape in the name", `{"key":"k","type":"fact","content":"x","ts":2,"files":["\u0073rc/a.go"]}`, false},
		{"a \\u escape in the field's name", `{"key":"k","type":"fact","content":"x","ts":2,"fil\u0065s":["src/b.go"]}`, false},
		{"an escaped backslash then u", `{"key":"k","type":"fact","content":"C:\\users","ts":2,"files":["src/b.go"]}`, true},
		{"files as one string", `{"key":"k","type":"fact","content":"x","ts":2,"files":"lib/c.go, src/a.go"}`, false},
		{"files as one string, a sibling", `{"key":"k","type":"fact","content":"x","ts":2,"files":"lib/c.go src/b.go"}`, true},
		{"blanks around the colon", `{"key":"k","type":"fact","content":"x","ts":2,"files" :	[ "src/a.go" ]}`, false},
		{"a nested list", `{"key":"k","type":"fact","content":"x","ts":2,"files":[["src/a.go"]]}`, false},
		{"a number before", `{"key":"k","type":"fact","content":"x","ts":2,"files":[1,null,"src/a.go"]}`, false},
		{"files twice", `{"key":"k","type":"fact","content":"x","ts":2,"files":["src/b.go"],"files":["src/a.go"]}`, false},
		{"glued lines", `{"key":"j","type":"fact","content":"x","ts":2}{"key":"k","type":"fact","content":"x","ts":2,"files":["src/a.go"]}`, false},
		{"an object encoded as a string", `"{\"key\":\"k\",\"type\":\"fact\",\"content\":\"x\",\"ts\":2,\"files\":[\"src/a.go\"]}"`, false},
		{"a detail's files", `{"key":"k","type":"fact","content":"x","ts":2,"detail":{"files":["src/a.go"]}}`, false},
		{"content quoting a files field", `{"key":"k","type":"fact","content":"\"files\":[\"src/a.go\"]","ts":2}`, true},
		{"an object encoded as a string, after a byte order mark", "\xef\xbb\xbf" + `"{\"key\":\"k\",\"type\":\"fact\",\"content\":\"x\",\"ts\":2,\"files\":[\"src/a.go\"]}"`, false},
		{"a CRLF line", "{\"key\":\"k\",\"type\":\"fact\",\"content\":\"x\",\"ts\":2,\"files\":[\"src/a.go\"]}\r", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, log := range []string{
				c.line + "\n",
				other + "\n" + c.line + "\n" + other + "\n",
				other + "\n" + c.line, // the last line, no newline
			} {
				if got := unanchored(strings.NewReader(log), make([]byte, 4096), []string{"src/a.go"}); got != c.want {
					t.Errorf("unanchored(%q) = %v, want %v", log, got, c.want)
				}
			}
		})
	}
}

// The log is read through a small buffer: lines cross its reads, a line
// longer than it is not passed, and a failed read is not either.
func TestUnanchoredReads(t *testing.T) {
	var b strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&b, `{"key":"fact-%d","type":"fact","content":"note %d on src and a.go","ts":%d,"files":["src/f%d.go"]}`+"\n", i, i, i, i)
	}
	log := b.String()
	paths := []string{"src/a.go"}
	for _, size := range []int{200, 257, 4096, 1 << 20} {
		if !unanchored(strings.NewReader(log), make([]byte, size), paths) {
			t.Errorf("buffer %d: a log with no note on the file was not passed", size)
		}
		if !unanchored(iotest.OneByteReader(strings.NewReader(log)), make([]byte, size), paths) {
			t.Errorf("buffer %d, one byte a read: not passed", size)
		}
		hit := log + `{"key":"k","type":"fact","content":"x","ts":2,"files":["src/a.go"]}` + "\n" + log
		if unanchored(iotest.HalfReader(strings.NewReader(hit)), make([]byte, size), paths) {
			t.Errorf("buffer %d: a note on the file was passed", size)
		}
	}
	long := `{"key":"k","type":"fact","content":"` + strings.Repeat("x", 300) + `","ts":2}` + "\n"
	if unanchored(strings.NewReader(long), make([]byte, 256), paths) {
		t.Error("a line longer than the buffer was passed")
	}
	if unanchored(iotest.ErrReader(io.ErrUnexpectedEOF), make([]byte, 256), paths) {
		t.Error("a failed read was passed")
	}
	if unanchored(iotest.TimeoutReader(strings.NewReader(log)), make([]byte, 256), paths) {
		t.Error("a read that failed midway was passed")
	}
	if !unanchored(strings.NewReader(""), make([]byte, 256), paths) {
		t.Error("an empty log was not passed")
	}
	if unanchored(strings.NewReader(log), make([]byte, 4096), []string{`src/a"b.go`}) {
		t.Error("a path with a quote was passed")
	}
}

func TestCleansTo(t *testing.T) {
	cands := []string{"src/a.go", "src"}
	for _, p := range []string{"src/a.go", "src", "./src", "src/", "src//a.go", " src/a.go", "src/x/..", "src/a.go/.", "\u00a0src", "src/b.go", "x/src", "", ".", "src/a.go.", "/src", `src\a.go`} {
		c, ok := Clean(p)
		want := ok && (c == cands[0] || c == cands[1])
		if got := cleansTo([]byte(p), cands); got != want {
			t.Errorf("cleansTo(%q) = %v, Clean says %v", p, got, want)
		}
	}
}

// cleansTo is Clean, faster.
func FuzzCleansTo(f *testing.F) {
	for _, s := range []string{"src/a.go", "./src", "src//a.go", " src ", "a/..", "src/."} {
		f.Add(s, "src")
	}
	f.Fuzz(func(t *testing.T, p, cand string) {
		c, ok := Clean(p)
		if got, want := cleansTo([]byte(p), []string{cand}), ok && c == cand; got != want && !(cand == p && !want) {
			t.Fatalf("cleansTo(%q, %q) = %v, Clean gives %q, %v", p, cand, got, c, ok)
		}
	})
}

// unanchored never panics, and what it passes it passes whatever the
// buffer.
func FuzzUnanchored(f *testing.F) {
	f.Add([]byte(`{"key":"k","type":"fact","content":"x","ts":2,"files":["src/a.go"]}`+"\n"), "src/a.go")
	f.Add([]byte(`{"files":["src\/a.go"`), "src/a.go")
	f.Add([]byte(`"files":[1,"src"`), "src/b")
	f.Fuzz(func(t *testing.T, log []byte, p string) {
		whole := unanchored(bytes.NewReader(log), make([]byte, len(log)+1), []string{p})
		if small := unanchored(bytes.NewReader(log), make([]byte, 64), []string{p}); small && !whole {
			t.Fatalf("passed with a small buffer, not with a whole one: %q %q", log, p)
		}
	})
}

// synthLog is a log of n entries as a project's would be (some 300
// bytes each), every tenth anchored to a file under src/.
func synthLog(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, `{"key":"learned-retries-back-off-with-jitter-%06x","type":"learned","content":"retries back off with jitter and the timeout wraps the retry loop, so a slow upstream does not pile up requests (note %d)","source":"agent","tags":["api","perf"],"ts":%d,"author":"Ana","branch":"main","commit":"1a2b3c4"`, i, i, 1700000000+i*60)
		if i%10 == 0 {
			fmt.Fprintf(&b, `,"files":["src/pkg%d/file%d.go"]`, i%97, i)
		}
		b.WriteString("}\n")
	}
	return b.Bytes()
}

// The scan of the hook before a tool call on a file with no note, after
// a pull: a 10k and a 100k log (3 and 30 MB) read once through a 512 KB
// buffer, in one part and, as the gate reads it, in two at once.
func BenchmarkUnanchored(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		log := synthLog(n)
		buf := make([]byte, 512<<10)
		paths := []string{"src/none/nothing.go"}
		b.Run(fmt.Sprintf("%d/one-part", n), func(b *testing.B) {
			b.SetBytes(int64(len(log)))
			for b.Loop() {
				if !unanchored(bytes.NewReader(log), buf, paths) {
					b.Fatal("not passed")
				}
			}
		})
		b.Run(fmt.Sprintf("%d/as-the-gate", n), func(b *testing.B) {
			b.SetBytes(int64(len(log)))
			for b.Loop() {
				if !UnanchoredAt(bytes.NewReader(log), int64(len(log)), buf, paths) {
					b.Fatal("not passed")
				}
			}
		})
	}
}

// A log of more than 4 MB is read in two parts at once: a note on the
// file is found wherever its line is, the one that holds the middle
// byte, or either side of it, included; a log without one is passed.
func TestUnanchoredAtSplits(t *testing.T) {
	base := synthLog(20_000) // some 5 MB
	if len(base) <= splitAbove {
		t.Fatalf("the log is %d bytes, not more than %d", len(base), splitAbove)
	}
	paths := []string{"src/a.go"}
	at := func(log []byte) bool {
		return UnanchoredAt(bytes.NewReader(log), int64(len(log)), make([]byte, 64<<10), paths)
	}
	if !at(base) {
		t.Fatal("a log without a note on the file was not passed")
	}
	hit := []byte(`{"key":"k","type":"fact","content":"x","ts":2,"files":["src/a.go"]}` + "\n")
	lines := bytes.SplitAfter(base, []byte("\n"))
	mid := len(lines) / 2
	for _, j := range []int{0, 1, mid - 2, mid - 1, mid, mid + 1, mid + 2, len(lines) - 2, len(lines) - 1} {
		log := slices.Concat(slices.Concat(lines[:j]...), hit, slices.Concat(lines[j:]...))
		if at(log) {
			t.Errorf("a note on the file at line %d of %d was passed", j, len(lines))
		}
	}
	// The note's line holds the byte before the middle, at each of its
	// offsets (the log's last line is cut short for that).
	pre := base[:len(base)/2]
	pre = pre[:bytes.LastIndexByte(pre, '\n')+1]
	rest := base[len(pre):]
	for c := range len(hit) {
		size := 2 * (len(pre) + c + 1)
		log := slices.Concat(pre, hit, rest)[:size]
		if m := int64(size)/2 - 1; m < int64(len(pre)) || m >= int64(len(pre)+len(hit)) {
			t.Fatalf("the middle %d is not on the note's line", m)
		}
		if at(log) {
			t.Errorf("a note on the file whose line holds the middle (at its byte %d) was passed", c)
		}
	}
}
