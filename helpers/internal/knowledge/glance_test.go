package knowledge

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/jsonfield"
)

// glanceLog writes lines as the store's log.
func glanceLog(t *testing.T, lines ...string) *Store {
	t.Helper()
	s := OpenDir(t.TempDir())
	if err := s.Root().WriteAtomic(LogName, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return s
}

func line(key, typ, content string, ts int64, extra string) string {
	return fmt.Sprintf(`{"key":%q,"type":%q,"content":%q,"ts":%d%s}`, key, typ, content, ts, extra)
}

func keys(es []Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Key)
	}
	return out
}

func TestGlance(t *testing.T) {
	s := glanceLog(t,
		line("fact-a", "fact", "old a", 10, ""),
		line("fact-a", "fact", "new a", 50, ""), // the key's latest line
		line("must-check-b", "must-check", "b", 20, ""),
		line("fact-c", "fact", "c", 90, ""),
		line("fact-c", "fact", "c", 95, `,"status":"retracted"`), // retracted at its latest
		`{"type":"fact","ts":70,"content":"d","key":"fact-d"}`,   // not cairn's field order
		`not json`,
		line("learned-e", "learned", `says "ts":999 and "must-check"`, 30, ""),
		line("must-check-f", "must-check", "f", 5, ""),
	)
	g, err := s.Glance(1<<20, 10, 10)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := keys(g.MustCheck), []string{"must-check-b", "must-check-f"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("must-checks %v, want %v", got, want)
	}
	if got, want := keys(g.Newest), []string{"fact-d", "fact-a", "learned-e"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("newest %v, want %v", got, want)
	}
	if len(g.Newest) > 1 && g.Newest[1].Content != "new a" {
		t.Errorf("fact-a is %q, want its latest line", g.Newest[1].Content)
	}
	if g.Partial || g.Lines != 9 {
		t.Errorf("partial %v, %d lines; want the whole log, 9 lines", g.Partial, g.Lines)
	}

	// Limits keep the newest.
	g, _ = s.Glance(1<<20, 1, 1)
	if fmt.Sprint(keys(g.MustCheck)) != "[must-check-b]" || fmt.Sprint(keys(g.Newest)) != "[fact-d]" {
		t.Errorf("limited: %v %v", keys(g.MustCheck), keys(g.Newest))
	}
}

// The read stops at its bound, whatever the log's size.
func TestGlanceIsBounded(t *testing.T) {
	var lines []string
	for i := range 5000 {
		lines = append(lines, line(fmt.Sprintf("fact-%05d", i), "fact", strings.Repeat("x", 100), int64(i), ""))
	}
	s := glanceLog(t, lines...)
	const max = 64 << 10
	g, err := s.Glance(max, 5, 5)
	if err != nil {
		t.Fatal(err)
	}
	if !g.Partial || g.Read > max+200 || g.Lines > max/100 {
		t.Fatalf("read %d bytes, %d lines (partial %v); want at most %d bytes", g.Read, g.Lines, g.Partial, max)
	}
	if len(g.Newest) != 5 {
		t.Fatalf("%d newest", len(g.Newest))
	}
	// A bound past the end reads it all, and is not partial.
	g, _ = s.Glance(1<<30, 5, 5)
	if g.Partial || g.Lines != 5000 {
		t.Fatalf("whole log: partial %v, %d lines", g.Partial, g.Lines)
	}
	// A missing log is empty.
	if g, err := OpenDir(t.TempDir()).Glance(max, 5, 5); err != nil || g.Lines != 0 {
		t.Fatalf("missing log: %+v, %v", g, err)
	}
}

// A line longer than the read buffer is skipped, not split.
func TestGlanceSkipsHugeLines(t *testing.T) {
	s := glanceLog(t,
		line("fact-a", "fact", strings.Repeat("y", glanceBuffer+10), 10, ""),
		line("fact-b", "fact", "b", 20, ""),
	)
	g, err := s.Glance(1<<30, 5, 5)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(keys(g.Newest)) != "[fact-b]" {
		t.Fatalf("newest %v", keys(g.Newest))
	}
}

// readFacts agrees with a JSON parser on every line it reads.
func FuzzReadFacts(f *testing.F) {
	f.Add([]byte(line("fact-a", "fact", "x", 10, "")))
	f.Add([]byte(line("fact-a", "must-check", `"ts":5`, 10, `,"status":"retracted"`)))
	f.Add([]byte(`{"key":"a\"b","type":"fact","ts":1}`))
	f.Add([]byte(`{"key":"k","type":"fact","content":"c","ts":12345678901234567890}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fa, ok := readFacts(data)
		if !ok || !jsonfield.Valid(bytes.TrimSpace(data)) {
			return
		}
		r := jsonfield.GetMany(bytes.TrimSpace(data), "key", "type", "ts")
		if fa.key != r[0].Str || fa.typ != r[1].Str && r[1].Exists() {
			t.Fatalf("facts %+v; JSON says key %q type %q", fa, r[0].Str, r[1].Str)
		}
		// A line naming ts twice is ambiguous: either reading is fair.
		if bytes.Count(data, []byte(`"ts":`)) > 1 {
			return
		}
		if fa.ts != r[2].Int() && fa.ts >= 0 && r[2].Type == jsonfield.Number && !strings.ContainsAny(r[2].Raw, ".eE-") {
			t.Fatalf("facts %+v; JSON says ts %s", fa, r[2].Raw)
		}
	})
}
