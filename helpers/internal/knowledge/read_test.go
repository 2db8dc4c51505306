package knowledge

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// line returns the JSON line of a small valid entry.
func mkLine(key, typ, content string, ts int64) string {
	b, err := Marshal(&Entry{Key: key, Type: typ, Content: content, TS: ts})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// encode returns s encoded n more times as a JSON string.
func encodeN(s string, n int) string {
	for range n {
		b, _ := json.Marshal(s)
		s = string(b)
	}
	return s
}

func parseAll(data string) ([]Record, Report) {
	var recs []Record
	rep := Parse([]byte(data), func(r Record) { recs = append(recs, r) })
	return recs, rep
}

func keysOf(recs []Record) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.Entry.Key)
	}
	return out
}

var (
	tl1 = mkLine("k1", "fact", "first entry", 100)
	tl2 = mkLine("k2", "learned", "second entry", 200)
	tl3 = mkLine("k3", "decision", "third entry", 300)
)

func TestParseMessy(t *testing.T) {
	for _, tc := range []struct {
		name     string
		data     string
		keys     []string
		lines    int
		blank    int
		skipped  int
		repaired int
		kinds    map[string]int
	}{
		{name: "empty", data: "", lines: 0},
		{name: "clean", data: tl1 + "\n" + tl2 + "\n", keys: []string{"k1", "k2"}, lines: 2},
		{name: "BOM", data: "\xef\xbb\xbf" + tl1 + "\n" + tl2 + "\n", keys: []string{"k1", "k2"}, lines: 2},
		{name: "BOM only", data: "\xef\xbb\xbf", lines: 0},
		{name: "CRLF", data: tl1 + "\r\n" + tl2 + "\r\n", keys: []string{"k1", "k2"}, lines: 2},
		{name: "mixed endings", data: tl1 + "\r\n" + tl2 + "\n" + tl3 + "\r\n", keys: []string{"k1", "k2", "k3"}, lines: 3},
		{name: "blank lines", data: "\n" + tl1 + "\n\n  \t\n\r\n" + tl2 + "\n\n", keys: []string{"k1", "k2"}, lines: 7, blank: 5},
		{name: "surrounding space", data: "  " + tl1 + "  \n\t" + tl2 + "\n", keys: []string{"k1", "k2"}, lines: 2},
		{
			name:  "conflict markers",
			data:  "<<<<<<< HEAD\n" + tl1 + "\n||||||| base\n=======\n" + tl2 + "\n>>>>>>> feature\n" + tl3 + "\n",
			keys:  []string{"k1", "k2", "k3"},
			lines: 7, skipped: 4, kinds: map[string]int{ProblemConflictMarker: 4},
		},
		{
			name:  "invalid JSON in the middle",
			data:  tl1 + "\n" + `{"key":"broken",` + "\n" + "not json at all\n" + "[1,2]\n" + "42\n" + tl2 + "\n",
			keys:  []string{"k1", "k2"},
			lines: 6, skipped: 4, kinds: map[string]int{ProblemInvalidJSON: 4},
		},
		{
			name:  "invalid last line with newline is not torn",
			data:  tl1 + "\n" + `{"key":"x","ty` + "\n",
			keys:  []string{"k1"},
			lines: 2, skipped: 1, kinds: map[string]int{ProblemInvalidJSON: 1},
		},
		{
			name:  "torn last line",
			data:  tl1 + "\n" + tl2 + "\n" + `{"key":"k3","type":"deci`,
			keys:  []string{"k1", "k2"},
			lines: 3, skipped: 1, kinds: map[string]int{ProblemTornLine: 1},
		},
		{
			name:  "torn glued last line",
			data:  tl1 + "\n" + tl2 + `{"key":"k3","ty`,
			keys:  []string{"k1"},
			lines: 2, skipped: 1, kinds: map[string]int{ProblemTornLine: 1},
		},
		{
			name:  "valid last line without newline",
			data:  tl1 + "\n" + tl2,
			keys:  []string{"k1", "k2"},
			lines: 2,
		},
		{
			name:  "valid last line with CR but no LF",
			data:  tl1 + "\n" + tl2 + "\r",
			keys:  []string{"k1", "k2"},
			lines: 2,
		},
		{
			name:  "double-encoded",
			data:  encodeN(tl1, 1) + "\n" + tl2 + "\n",
			keys:  []string{"k1", "k2"},
			lines: 2, repaired: 1, kinds: map[string]int{ProblemDoubleEncoded: 1},
		},
		{
			name:  "triple-encoded",
			data:  encodeN(tl1, 2) + "\n" + encodeN(tl2, 3) + "\n",
			keys:  []string{"k1", "k2"},
			lines: 2, repaired: 2, kinds: map[string]int{ProblemDoubleEncoded: 2},
		},
		{
			name:  "double-encoded with padding inside",
			data:  encodeN("  "+tl1+"\n", 1) + "\n",
			keys:  []string{"k1"},
			lines: 1, repaired: 1, kinds: map[string]int{ProblemDoubleEncoded: 1},
		},
		{
			name:  "encoded too deep",
			data:  encodeN(tl1, 5) + "\n",
			lines: 1, skipped: 1, kinds: map[string]int{ProblemInvalidJSON: 1},
		},
		{
			name:  "string that is not an entry",
			data:  `"just a string"` + "\n" + encodeN(`{"key":`, 1) + "\n",
			lines: 2, skipped: 2, kinds: map[string]int{ProblemInvalidJSON: 2},
		},
		{
			name:  "double-encoded invalid entry",
			data:  encodeN(`{"key":"k9","type":"fact","content":"no ts"}`, 1) + "\n",
			lines: 1, skipped: 1, repaired: 1, kinds: map[string]int{ProblemDoubleEncoded: 1, ProblemInvalidEntry: 1},
		},
		{
			name:  "glued lines",
			data:  tl1 + tl2 + "\n" + tl3 + "\n",
			keys:  []string{"k1", "k2", "k3"},
			lines: 2, repaired: 1, kinds: map[string]int{ProblemGluedLines: 1},
		},
		{
			name:  "three glued",
			data:  tl1 + tl2 + tl3 + "\n",
			keys:  []string{"k1", "k2", "k3"},
			lines: 1, repaired: 1, kinds: map[string]int{ProblemGluedLines: 1},
		},
		{
			name:  "glued with an invalid entry",
			data:  tl1 + `{"key":"k9","type":"fact"}` + tl2 + "\n",
			keys:  []string{"k1", "k2"},
			lines: 1, repaired: 1, skipped: 1, kinds: map[string]int{ProblemGluedLines: 1, ProblemInvalidEntry: 1},
		},
		{
			name: "missing fields",
			data: `{"type":"fact","content":"no key","ts":1}` + "\n" +
				`{"key":"a","content":"no type","ts":1}` + "\n" +
				`{"key":"b","type":"fact","ts":1}` + "\n" +
				`{"key":"c","type":"fact","content":"   ","ts":1}` + "\n" +
				`{"key":"d","type":"fact","content":"no ts"}` + "\n" +
				`{"key":"e","type":"fact","content":"null ts","ts":null}` + "\n" +
				`{"key":"f","type":"fact","content":"zero ts","ts":0}` + "\n" +
				`{"key":"g","type":"note","content":"bad type","ts":1}` + "\n" +
				`{"key":"h","type":"fact","content":"bad ts","ts":"soon"}` + "\n" +
				`{"key":"i","type":"fact","content":"negative ts","ts":-3}` + "\n" +
				`{"key":"j","type":"fact","content":"nan-ish ts","ts":"NaN"}` + "\n" +
				`{"key":"k","type":"fact","content":"huge ts","ts":1e300}` + "\n" +
				`{"key":7,"type":"fact","content":"numeric key","ts":1}` + "\n" +
				`{}` + "\n",
			lines: 14, skipped: 14, kinds: map[string]int{ProblemInvalidEntry: 14},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs, rep := parseAll(tc.data)
			if got := keysOf(recs); !reflect.DeepEqual(got, tc.keys) {
				t.Errorf("keys = %q, want %q", got, tc.keys)
			}
			if rep.Lines != tc.lines || rep.Blank != tc.blank || rep.Skipped != tc.skipped || rep.Repaired != tc.repaired || rep.Entries != len(tc.keys) {
				t.Errorf("report = %+v\nwant lines=%d blank=%d skipped=%d repaired=%d entries=%d",
					rep, tc.lines, tc.blank, tc.skipped, tc.repaired, len(tc.keys))
			}
			kinds := rep.ByKind
			if len(kinds) == 0 {
				kinds = nil
			}
			if !reflect.DeepEqual(kinds, tc.kinds) {
				t.Errorf("by kind = %v, want %v", rep.ByKind, tc.kinds)
			}
			if rep.Clean() != (tc.skipped == 0 && tc.repaired == 0) {
				t.Errorf("Clean() = %v", rep.Clean())
			}
			for _, r := range recs {
				if err := r.Entry.Validate(); err != nil {
					t.Errorf("record %q does not validate: %v", r.Entry.Key, err)
				}
				if strings.ContainsAny(string(r.Raw), "\r\n") {
					t.Errorf("record %q raw keeps a line ending: %q", r.Entry.Key, r.Raw)
				}
			}
		})
	}
}

func TestParseRecordFields(t *testing.T) {
	data := "\xef\xbb\xbf" + tl1 + "\r\n\n" + encodeN(tl2, 1) + "\n" + tl3 + tl1 + "\n"
	recs, rep := parseAll(data)
	if len(recs) != 4 {
		t.Fatalf("records = %d", len(recs))
	}
	want := []struct {
		line int
		raw  string
		json string
	}{
		{1, tl1, tl1},
		{3, encodeN(tl2, 1), tl2},
		{4, tl3 + tl1, tl3},
		{4, tl3 + tl1, tl1},
	}
	for i, w := range want {
		r := recs[i]
		if r.Line != w.line || string(r.Raw) != w.raw || string(r.JSON) != w.json {
			t.Errorf("record %d = line %d raw %q json %q\nwant line %d raw %q json %q", i, r.Line, r.Raw, r.JSON, w.line, w.raw, w.json)
		}
	}
	if len(rep.Problems) != 2 || rep.Problems[0].Line != 3 || rep.Problems[0].Kind != ProblemDoubleEncoded ||
		rep.Problems[1].Line != 4 || rep.Problems[1].Kind != ProblemGluedLines {
		t.Errorf("problems = %+v", rep.Problems)
	}
	for _, p := range rep.Problems {
		if !p.Repaired() {
			t.Errorf("%+v not counted as repaired", p)
		}
	}
	// Problem lines are 1-based physical lines.
	_, rep = parseAll(tl1 + "\n\n<<<<<<< ours\n")
	if len(rep.Problems) != 1 || rep.Problems[0].Line != 3 || rep.Problems[0].Detail == "" {
		t.Errorf("conflict marker problem = %+v", rep.Problems)
	}
}

func TestParseTolerantFields(t *testing.T) {
	for _, tc := range []struct {
		name string
		line string
		want Entry
	}{
		{"float ts", `{"key":"a","type":"fact","content":"c","ts":1763770000.75}`,
			Entry{Key: "a", Type: "fact", Content: "c", TS: 1763770000}},
		{"exponent ts", `{"key":"a","type":"fact","content":"c","ts":1.76377e9}`,
			Entry{Key: "a", Type: "fact", Content: "c", TS: 1763770000}},
		{"string ts", `{"key":"a","type":"fact","content":"c","ts":"1763770000"}`,
			Entry{Key: "a", Type: "fact", Content: "c", TS: 1763770000}},
		{"string float ts", `{"key":"a","type":"fact","content":"c","ts":"1763770000.9"}`,
			Entry{Key: "a", Type: "fact", Content: "c", TS: 1763770000}},
		{"tags as string", `{"key":"a","type":"fact","content":"c","ts":1,"tags":"oauth, auth go"}`,
			Entry{Key: "a", Type: "fact", Content: "c", TS: 1, Tags: []string{"oauth", "auth", "go"}}},
		{"tags as list", `{"key":"a","type":"fact","content":"c","ts":1,"tags":["x","y"]}`,
			Entry{Key: "a", Type: "fact", Content: "c", TS: 1, Tags: []string{"x", "y"}}},
		{"tags mixed list", `{"key":"a","type":"fact","content":"c","ts":1,"tags":["x",3,null,"y"]}`,
			Entry{Key: "a", Type: "fact", Content: "c", TS: 1, Tags: []string{"x", "y"}}},
		{"files as string", `{"key":"a","type":"fact","content":"c","ts":1,"files":"a.go,b.go"}`,
			Entry{Key: "a", Type: "fact", Content: "c", TS: 1, Files: []string{"a.go", "b.go"}}},
		{"null lists", `{"key":"a","type":"fact","content":"c","ts":1,"tags":null,"files":null}`,
			Entry{Key: "a", Type: "fact", Content: "c", TS: 1}},
		{"type spelled loosely", `{"key":"a","type":"MUST_CHECK","content":"c","ts":1}`,
			Entry{Key: "a", Type: "must-check", Content: "c", TS: 1}},
		{"unknown fields ignored", `{"key":"a","type":"fact","content":"c","ts":1,"extra":{"x":[1]},"source":"user","bead":"bd-1"}`,
			Entry{Key: "a", Type: "fact", Content: "c", TS: 1, Source: "user", Bead: "bd-1"}},
		{"curation fields", `{"key":"a","type":"fact","content":"c","ts":2,"status":"retracted","review_reason":"wrong","merged_from":["b"]}`,
			Entry{Key: "a", Type: "fact", Content: "c", TS: 2, Status: StatusRetracted, ReviewReason: "wrong", MergedFrom: []string{"b"}}},
	} {
		recs, rep := parseAll(tc.line + "\n")
		if len(recs) != 1 || !rep.Clean() {
			t.Errorf("%s: %d records, report %+v", tc.name, len(recs), rep)
			continue
		}
		if !reflect.DeepEqual(recs[0].Entry, tc.want) {
			t.Errorf("%s: entry = %+v\nwant %+v", tc.name, recs[0].Entry, tc.want)
		}
	}
}

func TestParseProblemsCapped(t *testing.T) {
	var b strings.Builder
	for i := range MaxProblems + 30 {
		fmt.Fprintf(&b, "garbage %d\n", i)
	}
	b.WriteString(tl1 + "\n")
	recs, rep := parseAll(b.String())
	if len(recs) != 1 || rep.Skipped != MaxProblems+30 || len(rep.Problems) != MaxProblems || rep.ByKind[ProblemInvalidJSON] != MaxProblems+30 {
		t.Errorf("records %d, skipped %d, problems listed %d, by kind %v", len(recs), rep.Skipped, len(rep.Problems), rep.ByKind)
	}
}

func TestReportMerge(t *testing.T) {
	_, a := parseAll(tl1 + "\n" + "junk\n\n" + encodeN(tl2, 1) + "\n")
	_, b := parseAll("<<<<<<< x\n" + tl3 + tl1 + "\n")
	var m Report
	m.Merge(a)
	m.Merge(b)
	want := Report{Lines: 6, Entries: 4, Blank: 1, Skipped: 2, Repaired: 2,
		ByKind: map[string]int{ProblemInvalidJSON: 1, ProblemDoubleEncoded: 1, ProblemConflictMarker: 1, ProblemGluedLines: 1}}
	if m.Lines != want.Lines || m.Entries != want.Entries || m.Blank != want.Blank || m.Skipped != want.Skipped ||
		m.Repaired != want.Repaired || !reflect.DeepEqual(m.ByKind, want.ByKind) || len(m.Problems) != 4 {
		t.Errorf("merged = %+v\nwant %+v", m, want)
	}
}

func TestLines(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		torn bool
	}{
		{"", nil, false},
		{"\xef\xbb\xbf", nil, false},
		{"a\n", []string{"a"}, false},
		{"a", []string{"a"}, true},
		{"a\r\nb\n", []string{"a", "b"}, false},
		{"a\n\nb", []string{"a", "", "b"}, true},
		{"\n", []string{""}, false},
		{"\xef\xbb\xbfa\r\n\xef\xbb\xbfb\n", []string{"a", "\xef\xbb\xbfb"}, false},
		{"a\rb\n", []string{"a\rb"}, false},
	} {
		lines, torn := Lines([]byte(tc.in))
		var got []string
		for _, l := range lines {
			got = append(got, string(l))
		}
		if !reflect.DeepEqual(got, tc.want) || torn != tc.torn {
			t.Errorf("Lines(%q) = %q, %v; want %q, %v", tc.in, got, torn, tc.want, tc.torn)
		}
	}
}

func TestLatest(t *testing.T) {
	data := strings.Join([]string{
		mkLine("b", "fact", "b v2", 20),
		mkLine("a", "fact", "a v1", 10),
		mkLine("b", "fact", "b v1", 10),
		mkLine("a", "fact", "a v3", 30),
		mkLine("a", "fact", "a v2", 20),
		mkLine("c", "fact", "c tie first", 5),
		mkLine("c", "fact", "c tie second", 5),
	}, "\n") + "\n"
	recs, _ := parseAll(data)
	got := Latest(recs)
	var summary []string
	for _, r := range got {
		summary = append(summary, r.Entry.Key+"="+r.Entry.Content)
	}
	want := []string{"a=a v3", "b=b v2", "c=c tie second"}
	if !reflect.DeepEqual(summary, want) {
		t.Errorf("Latest = %q, want %q", summary, want)
	}
	if len(Latest(nil)) != 0 {
		t.Error("Latest(nil) not empty")
	}
	// A retraction is just the newest line of its key.
	recs, _ = parseAll(mkLine("x", "fact", "c", 1) + "\n" +
		`{"key":"x","type":"fact","content":"c","ts":2,"status":"retracted"}` + "\n")
	if got := Latest(recs); len(got) != 1 || got[0].Entry.Status != StatusRetracted || got[0].Entry.Active() {
		t.Errorf("Latest with retraction = %+v", got)
	}
	// And final: a later line of the key (another branch's curation, merged
	// in) does not bring it back, in either file order.
	later := `{"key":"x","type":"fact","content":"c","ts":9,"status":"canonical","review_reason":"kept"}`
	retraction := `{"key":"x","type":"fact","content":"c","ts":2,"status":"retracted","review_reason":"wrong"}`
	for _, order := range [][]string{{retraction, later}, {later, retraction}} {
		recs, _ = parseAll(strings.Join(order, "\n") + "\n")
		if got := Latest(recs); len(got) != 1 || got[0].Entry.Status != StatusRetracted || got[0].Entry.TS != 2 {
			t.Errorf("Latest(%q) = %+v, want the retraction", order, got)
		}
	}
}

func TestVersionNewer(t *testing.T) {
	v := func(ts int64, retracted, archived bool, json string) Version {
		return Version{TS: ts, Retracted: retracted, Archived: archived, JSON: []byte(json)}
	}
	for _, tc := range []struct {
		name string
		a, b Version
		want bool
	}{
		{"later ts", v(2, false, false, "a"), v(1, false, false, "b"), true},
		{"earlier ts", v(1, false, false, "b"), v(2, false, false, "a"), false},
		{"retraction over a later line", v(1, true, false, "a"), v(5, false, false, "b"), true},
		{"later line not over a retraction", v(5, false, false, "b"), v(1, true, false, "a"), false},
		{"later retraction over retraction", v(3, true, false, "a"), v(2, true, false, "b"), true},
		{"tie: log over archive", v(1, false, false, "a"), v(1, false, true, "b"), true},
		{"tie: archive not over log", v(1, false, true, "b"), v(1, false, false, "a"), false},
		{"tie: greater bytes", v(1, false, false, "b"), v(1, false, false, "a"), true},
		{"tie: smaller bytes", v(1, false, false, "a"), v(1, false, false, "b"), false},
		{"tie in the archive: greater bytes", v(1, false, true, "b"), v(1, false, true, "a"), true},
		{"tie of retractions: greater bytes", v(1, true, false, "b"), v(1, true, false, "a"), true},
		{"identical", v(1, false, false, "a"), v(1, false, false, "a"), false},
	} {
		if got := tc.a.Newer(tc.b); got != tc.want {
			t.Errorf("%s: Newer = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestLatestIgnoresOrder: whichever order the lines of a key come in (a
// union merge may put either side first, and the log and the archive may
// be read in either order), Latest picks the same line.
func TestLatestIgnoresOrder(t *testing.T) {
	mk := func(content string, ts int64, archived bool) Record {
		recs, _ := parseAll(mkLine("k", "fact", content, ts) + "\n")
		recs[0].Archived = archived
		return recs[0]
	}
	for _, tc := range []struct {
		name string
		recs []Record
		want string
	}{
		{"same ts in the log", []Record{mk("apple", 5, false), mk("banana", 5, false), mk("cherry", 4, false)}, "banana"},
		{"same ts, log and archive", []Record{mk("zebra", 5, true), mk("apple", 5, false)}, "apple"},
		{"newer in the archive", []Record{mk("zebra", 6, true), mk("apple", 5, false)}, "zebra"},
	} {
		for _, perm := range permutations(len(tc.recs)) {
			recs := make([]Record, len(perm))
			for i, j := range perm {
				recs[i] = tc.recs[j]
			}
			if got := Latest(recs); len(got) != 1 || got[0].Entry.Content != tc.want || got[0].Archived != (tc.want == "zebra") {
				t.Errorf("%s, order %v: Latest = %+v, want %s", tc.name, perm, got, tc.want)
			}
		}
	}
}

// permutations lists every order of 0..n-1.
func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for i := 0; i <= len(p); i++ {
			q := append(append(append([]int{}, p[:i]...), n-1), p[i:]...)
			out = append(out, q)
		}
	}
	return out
}

func TestParseEachSeesEveryProblem(t *testing.T) {
	var b strings.Builder
	for i := range MaxProblems + 20 {
		fmt.Fprintf(&b, "not json %d\n", i)
	}
	b.WriteString(mkLine("k", "fact", "the one good line", 1) + "\n")
	var lines []int
	n := 0
	rep := ParseEach([]byte(b.String()), func(Record) { n++ }, func(p Problem) { lines = append(lines, p.Line) })
	if len(lines) != MaxProblems+20 || lines[0] != 1 || lines[len(lines)-1] != MaxProblems+20 || n != 1 {
		t.Errorf("ParseEach saw %d problems (first %v), %d entries", len(lines), lines[:min(3, len(lines))], n)
	}
	if len(rep.Problems) != MaxProblems || rep.Skipped != MaxProblems+20 {
		t.Errorf("report lists %d, counts %d skipped", len(rep.Problems), rep.Skipped)
	}
}

// A distilled entry's detail is read when it is an object and ignored
// (the entry kept) when it is anything else: cairn's older readers ignore
// the field altogether, and a hand-edited log must not lose the entry.
func TestDecodeDetail(t *testing.T) {
	base := `{"key":"decision-x-000000","type":"decision","content":"x","ts":1763770000,"detail":%s}`
	for detail, want := range map[string]*Detail{
		`{"context":"c","alternatives":["a","b"],"rationale":"r","root_cause":"rc","resolution":"res","prevention":"p","future":1}`: {Context: "c", Alternatives: []string{"a", "b"}, Rationale: "r", RootCause: "rc", Resolution: "res", Prevention: "p"},
		`{"alternatives":"one"}`: {Alternatives: []string{"one"}},
		`{"rationale":7}`:        nil,
		`"a string"`:             nil,
		`null`:                   nil,
		`[1,2]`:                  nil,
	} {
		e, err := DecodeEntry([]byte(fmt.Sprintf(base, detail)))
		if err != nil {
			t.Errorf("detail %s: %v", detail, err)
			continue
		}
		if !reflect.DeepEqual(e.Detail, want) {
			t.Errorf("detail %s = %+v, want %+v", detail, e.Detail, want)
		}
	}
}
