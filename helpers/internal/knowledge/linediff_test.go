package knowledge

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// state is a log and its archive, as file contents.
type state struct{ log, arc string }

// wholeCompare is the diff the long way: every line of both states
// parsed, then Compare (what cairn diff did before CompareFiles).
func wholeCompare(before, after state) []Change {
	read := func(s state) []Record {
		var recs []Record
		Parse([]byte(s.log), func(r Record) { recs = append(recs, r) })
		Parse([]byte(s.arc), func(r Record) { r.Archived = true; recs = append(recs, r) })
		return recs
	}
	return Compare(read(before), read(after))
}

// checkSame fails t unless CompareFiles gives what wholeCompare does, with
// and without the files' ids (a file's id is its content here).
func checkSame(t *testing.T, name string, before, after state) {
	t.Helper()
	want := wholeCompare(before, after)
	files := func(s state, ids bool) LogFiles {
		f := func(data string) LogFile {
			lf := Data([]byte(data))
			if ids {
				lf.ID = fmt.Sprintf("%x", data)
			}
			return lf
		}
		return LogFiles{Log: f(s.log), Archive: f(s.arc)}
	}
	for _, ids := range []bool{false, true} {
		got, err := CompareFiles(files(before, ids), files(after, ids))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s (ids %v):\n got  %s\n want %s", name, ids, changesString(got), changesString(want))
		}
	}
}

func changesString(cs []Change) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "%s %s %q", c.Kind, c.Entry.Key, c.Entry.Status)
		if c.New != nil {
			fmt.Fprintf(&b, " -> %s", c.New.Key)
		}
		b.WriteString("; ")
	}
	return b.String()
}

func mustLine(t testing.TB, e Entry) string {
	t.Helper()
	b, err := Marshal(&e)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// Every kind of change, and the lines people and merges leave, give the
// changes of the whole log's comparison.
func TestCompareFilesMatchesWholeCompare(t *testing.T) {
	e := func(key string, ts int64, mod func(*Entry)) string {
		en := Entry{Key: key, Type: "fact", Content: "content of " + key, TS: ts, Author: "Ana"}
		if mod != nil {
			mod(&en)
		}
		return mustLine(t, en)
	}
	a, b, c, d := e("fact-a", 10, nil), e("fact-b", 20, nil), e("fact-c", 30, nil), e("fact-d", 40, nil)
	base := a + b + c + d
	retracted := func(en *Entry) { en.Status, en.ReviewReason = StatusRetracted, "wrong" }
	supersededByE := func(en *Entry) { en.Status, en.SupersededBy = StatusSuperseded, "fact-e" }
	supersededByD := func(en *Entry) { en.Status, en.SupersededBy = StatusSuperseded, "fact-d" }
	edited := func(en *Entry) { en.Content = "new content" }
	canonical := func(en *Entry) { en.Status = StatusCanonical }
	for _, tc := range []struct {
		name          string
		before, after state
	}{
		{"nothing", state{base, ""}, state{base, ""}},
		{"from nothing", state{}, state{base, ""}},
		{"to nothing", state{base, ""}, state{}},
		{"add", state{base, ""}, state{a + b + e("fact-e", 50, nil) + c + d, ""}},
		{"add at the start and the end", state{base, ""}, state{e("fact-0", 5, nil) + base + e("fact-z", 60, nil), ""}},
		{"retract in place", state{base, ""}, state{a + e("fact-b", 21, retracted) + c + d, ""}},
		{"retract by a new line", state{base, ""}, state{a + b + e("fact-b", 21, retracted) + c + d, ""}},
		{"an old line of a retracted key comes back", state{a + e("fact-b", 21, retracted) + c, ""}, state{a + e("fact-b", 21, retracted) + b + e("fact-b", 25, nil) + c, ""}},
		{"supersede by a new entry", state{base, ""}, state{a + e("fact-b", 21, supersededByE) + e("fact-e", 22, nil) + c + d, ""}},
		{"supersede by an entry already there", state{base, ""}, state{a + e("fact-b", 21, supersededByD) + c + d, ""}},
		{"supersede by an entry not there", state{base, ""}, state{a + e("fact-b", 21, supersededByE) + c + d, ""}},
		{"supersede, the replacement edited too", state{base, ""}, state{a + e("fact-b", 21, supersededByD) + c + e("fact-d", 41, edited), ""}},
		{"edit in place", state{base, ""}, state{a + e("fact-b", 21, edited) + c + d, ""}},
		{"edit beside the old line", state{base, ""}, state{a + b + e("fact-b", 21, edited) + c + d, ""}},
		{"an older line added: no change", state{base, ""}, state{a + e("fact-b", 19, edited) + b + c + d, ""}},
		{"status", state{base, ""}, state{a + b + e("fact-c", 31, canonical) + d, ""}},
		{"archive", state{a + b + c + d, ""}, state{a + d, b + c}},
		{"archive a key with lines in both", state{a + b + c, b}, state{a + c, b}},
		{"restore", state{a + d, b + c}, state{a + b + d, c}},
		{"remove", state{base, ""}, state{a + c + d, ""}},
		{"remove one of two lines", state{a + b + e("fact-b", 21, edited) + c, ""}, state{a + b + c, ""}},
		{"reorder", state{base, ""}, state{d + b + a + c, ""}},
		{"rewritten: other fields first", state{base, ""}, state{a + `{"type":"fact","key":"fact-b","content":"content of fact-b","ts":20,"author":"Ana"}` + "\n" + c + d, ""}},
		{"rewritten: spaces around a line", state{base, ""}, state{a + "  " + strings.TrimSuffix(b, "\n") + " \t\n" + c + d, ""}},
		{"CRLF and a BOM", state{base, ""}, state{"\xef\xbb\xbf" + strings.ReplaceAll(a+b+c+d, "\n", "\r\n"), ""}},
		{"a BOM in the middle", state{base, ""}, state{a + "\xef\xbb\xbf" + b + c + d, ""}},
		{"blank lines", state{base, ""}, state{a + "\n\n" + b + c + "\n" + d, ""}},
		{"hand-edited: broken JSON", state{base, ""}, state{a + strings.Replace(b, `"ts":20`, `"ts":20,`, 1) + c + d, ""}},
		{"hand-edited: content by hand", state{base, ""}, state{a + strings.Replace(b, "content of", "content, by hand, of", 1) + c + d, ""}},
		{"hand-edited: escaped key name", state{base, ""}, state{a + strings.Replace(b, `{"key":"fact-b"`, `{"k\u0065y":"fact-b"`, 1) + c + d, ""}},
		{"hand-edited: escaped key name on an unchanged key's line", state{a + `{"k\u0065y":"fact-b","type":"fact","content":"x","ts":99}` + "\n" + b, ""}, state{a + `{"k\u0065y":"fact-b","type":"fact","content":"x","ts":99}` + "\n" + e("fact-b", 21, edited), ""}},
		{"hand-edited: a second key field", state{a + `{"key":"fact-q","type":"fact","content":"x","ts":99,"key":"fact-b"}` + "\n" + b, ""}, state{a + `{"key":"fact-q","type":"fact","content":"x","ts":99,"key":"fact-b"}` + "\n" + e("fact-b", 21, edited), ""}},
		{"hand-edited: an escape in the key", state{a + `{"key":"fact-\u0062","type":"fact","content":"x","ts":99}` + "\n" + b, ""}, state{a + `{"key":"fact-\u0062","type":"fact","content":"x","ts":99}` + "\n" + e("fact-b", 21, edited), ""}},
		{"hand-edited: invalid UTF-8 in a key", state{a + "{\"key\":\"fact-\xff\",\"type\":\"fact\",\"content\":\"x\",\"ts\":99}\n", ""}, state{a + "{\"key\":\"fact-\xff\",\"type\":\"fact\",\"content\":\"y\",\"ts\":100}\n", ""}},
		{"glued lines", state{base, ""}, state{a + strings.TrimSuffix(b, "\n") + e("fact-e", 50, nil) + c + d, ""}},
		{"glued lines, one key unchanged", state{a + strings.TrimSuffix(b, "\n") + c, ""}, state{a + strings.TrimSuffix(b, "\n") + e("fact-c", 31, edited), ""}},
		{"double-encoded line", state{base, ""}, state{a + fmt.Sprintf("%q\n", strings.TrimSuffix(e("fact-e", 50, nil), "\n")) + b + c + d, ""}},
		{"merge conflict markers", state{base, ""}, state{a + "<<<<<<< HEAD\n" + e("fact-b", 21, edited) + "=======\n" + e("fact-b", 22, retracted) + ">>>>>>> theirs\n" + c + d, ""}},
		{"union merge: both sides' lines of a key", state{base, ""}, state{a + b + e("fact-b", 21, edited) + e("fact-b", 22, canonical) + c + d, ""}},
		{"the same line twice", state{base, ""}, state{a + b + b + c + d, ""}},
		{"one of a line's two copies removed", state{a + b + b + c, ""}, state{a + b + c, ""}},
		{"torn last line", state{base, ""}, state{base + strings.TrimSuffix(e("fact-e", 50, nil), "\n"), ""}},
		{"from a future ts", state{base, ""}, state{a + b + e("fact-b", 1<<40, edited) + c + d, ""}},
	} {
		checkSame(t, tc.name, tc.before, tc.after)
	}
}

// On random histories of a log and its archive (adds, edits, retractions,
// supersessions, status changes, rotations, restores, removals, duplicate
// and broken lines, shuffles), CompareFiles gives the whole comparison's
// changes.
func TestCompareFilesOnRandomHistories(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 100))
	for run := range 300 {
		keys := 3 + rng.IntN(30)
		line := func(k int, ts int64) string {
			en := Entry{Key: fmt.Sprintf("fact-%02d", k), Type: "fact", Content: fmt.Sprintf("entry %d", k), TS: ts}
			switch rng.IntN(8) {
			case 0:
				en.Status, en.ReviewReason = StatusRetracted, "wrong"
			case 1:
				en.Status, en.SupersededBy = StatusSuperseded, fmt.Sprintf("fact-%02d", rng.IntN(keys+3))
			case 2:
				en.Status = StatusCanonical
			case 3:
				en.Content += " edited"
			}
			return mustLine(t, en)
		}
		var log, arc []string
		for k := range keys {
			log = append(log, line(k, int64(1+rng.IntN(5))))
		}
		before := state{strings.Join(log, ""), ""}
		for step := 0; step < 1+rng.IntN(4); step++ {
			for range 1 + rng.IntN(5) {
				switch op := rng.IntN(9); {
				case op == 0 && len(log) > 0: // rotate a line to the archive
					i := rng.IntN(len(log))
					arc = append(arc, log[i])
					log = append(log[:i], log[i+1:]...)
				case op == 1 && len(arc) > 0: // restore
					i := rng.IntN(len(arc))
					log = append(log, arc[i])
					arc = append(arc[:i], arc[i+1:]...)
				case op == 2 && len(log) > 0: // remove
					i := rng.IntN(len(log))
					log = append(log[:i], log[i+1:]...)
				case op == 3 && len(log) > 0: // duplicate
					log = append(log, log[rng.IntN(len(log))])
				case op == 4: // broken line
					log = append(log, `{"key":"fact-`+fmt.Sprint(rng.IntN(keys))+`","ts":`+"\n")
				case op == 5 && len(log) > 1: // shuffle
					rng.Shuffle(len(log), func(i, j int) { log[i], log[j] = log[j], log[i] })
				case op == 6 && len(log) > 0: // replace a line
					log[rng.IntN(len(log))] = line(rng.IntN(keys+3), int64(1+rng.IntN(8)))
				default: // a new line of a key, maybe new
					log = append(log, line(rng.IntN(keys+3), int64(1+rng.IntN(8))))
				}
			}
			after := state{strings.Join(log, ""), strings.Join(arc, "")}
			checkSame(t, fmt.Sprintf("run %d step %d", run, step), before, after)
			before = after
		}
	}
}

// CompareFiles never reads a file whose id matches the other side's, and
// reads each file once at most.
func TestCompareFilesReadsWhatDiffers(t *testing.T) {
	a := mustLine(t, Entry{Key: "fact-a", Type: "fact", Content: "a", TS: 1})
	b := mustLine(t, Entry{Key: "fact-b", Type: "fact", Content: "b", TS: 2})
	var mu sync.Mutex // the two sides are read at once
	reads := map[string]int{}
	file := func(name, id, data string) LogFile {
		return LogFile{ID: id, Read: func() ([]byte, error) {
			mu.Lock()
			defer mu.Unlock()
			reads[name]++
			return []byte(data), nil
		}}
	}
	got, err := CompareFiles(LogFiles{Log: file("log1", "1", a), Archive: file("arc1", "9", b)},
		LogFiles{Log: file("log2", "1", a), Archive: file("arc2", "9", b)})
	if err != nil || got != nil || len(reads) != 0 {
		t.Errorf("the same ids: %v, %v, reads %v", got, err, reads)
	}
	got, err = CompareFiles(LogFiles{Log: file("log1", "1", a), Archive: file("arc1", "9", b)},
		LogFiles{Log: file("log2", "2", a+b), Archive: file("arc2", "9", b)})
	if err != nil || len(got) != 1 || got[0].Kind != ChangeRestored {
		t.Errorf("a line of the archive into the log: %v, %v", changesString(got), err)
	}
	if reads["arc2"] != 0 || reads["log1"] != 1 || reads["log2"] != 1 || reads["arc1"] != 1 {
		t.Errorf("reads %v, want each log once and the archive once", reads)
	}
}

// quickKey reads the key of cairn's own lines, and leaves every line whose
// entries could have another key to the parser.
func TestQuickKey(t *testing.T) {
	for _, tc := range []struct {
		line, key string
		ok        bool
	}{
		{`{"key":"fact-a","type":"fact","content":"x","ts":1}`, "fact-a", true},
		{`{"key":"fact-a","type":"fact","content":"a \"key\" in it","ts":1}`, "fact-a", true},
		{`{"type":"fact","key":"fact-a"}`, "", false},
		{`{"key": "fact-a"}`, "", false},
		{`{"key":"fact-\u0061"}`, "", false},
		{`{"key":"fact-a","k\u0065y":"fact-b"}`, "", false},
		{`{"key":"fact-a","\u006bey":"fact-b"}`, "", false},
		{`{"key":"fact-a","ke\u0079":"fact-b"}`, "", false},
		{`{"key":"fact-a","x":1,"key":"fact-b"}`, "", false},
		{`{"key":"fact-a","x":1}{"key":"fact-b"}`, "", false},
		{"{\"key\":\"fact-\xff\"}", "", false},
		{`{"key":"fact-a`, "", false},
		{`"{\"key\":\"fact-a\"}"`, "", false},
	} {
		k, ok := quickKey([]byte(tc.line))
		if string(k) != tc.key || ok != tc.ok {
			t.Errorf("quickKey(%s) = %q, %v; want %q, %v", tc.line, k, ok, tc.key, tc.ok)
		}
	}
}

// FuzzCompareFiles holds CompareFiles to the whole comparison on any two
// states: each input is a log and an archive split at the first NUL.
func FuzzCompareFiles(f *testing.F) {
	a := `{"key":"fact-a","type":"fact","content":"a","ts":1}` + "\n"
	b := `{"key":"fact-b","type":"fact","content":"b","ts":2}` + "\n"
	f.Add(a+b, a+`{"key":"fact-b","type":"fact","content":"b","ts":3,"status":"retracted"}`+"\n")
	f.Add(a+b, a+"\x00"+b)
	f.Add(a+b, `{"key":"fact-a","type":"fact","content":"a","ts":1,"status":"superseded","superseded_by":"fact-b"}`+"\n"+b)
	f.Add(a+`{"k\u0065y":"fact-b","type":"fact","content":"x","ts":9}`+"\n", a+`{"k\u0065y":"fact-b","type":"fact","content":"x","ts":9}`+"\n"+b)
	f.Fuzz(func(t *testing.T, before, after string) {
		split := func(s string) state {
			log, arc, _ := strings.Cut(s, "\x00")
			return state{log, arc}
		}
		bs, as := split(before), split(after)
		want := wholeCompare(bs, as)
		got, err := CompareFiles(LogFiles{Log: Data([]byte(bs.log)), Archive: Data([]byte(bs.arc))},
			LogFiles{Log: Data([]byte(as.log)), Archive: Data([]byte(as.arc))})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("got  %s\nwant %s", changesString(got), changesString(want))
		}
	})
}

// RecordLines writes records back as lines that read as the same records.
func TestRecordLinesReadBack(t *testing.T) {
	a := mustLine(t, Entry{Key: "fact-a", Type: "fact", Content: "a", TS: 1})
	b := mustLine(t, Entry{Key: "fact-b", Type: "fact", Content: "b", TS: 2})
	data := "\xef\xbb\xbf" + a + "broken\n" + strings.TrimSuffix(a, "\n") + b
	var recs []Record
	Parse([]byte(data), func(r Record) { recs = append(recs, r) })
	Parse([]byte(b), func(r Record) { r.Archived = true; recs = append(recs, r) })
	log, arc := RecordLines(recs)
	if want := a + strings.TrimSuffix(a, "\n") + b; string(log) != want || !bytes.Equal(arc, []byte(b)) {
		t.Errorf("RecordLines = %q, %q", log, arc)
	}
}

// ParseKeys gives what Parse gives of the keys asked for, line numbers
// and all, on every line the comparison's table and fuzz seeds hold.
func TestParseKeysMatchesParse(t *testing.T) {
	data := mustLine(t, Entry{Key: "fact-a", Type: "fact", Content: "a", TS: 1}) +
		"\xef\xbb\xbf broken\n\n" +
		`{"k\u0065y":"fact-b","type":"fact","content":"x","ts":9}` + "\n" +
		`{"key":"fact-q","type":"fact","content":"x","ts":99,"key":"fact-b"}` + "\n" +
		`{"key":"fact-c","type":"fact","content":"c","ts":3}{"key":"fact-b","type":"fact","content":"b","ts":4}` + "\n" +
		fmt.Sprintf("%q\n", strings.TrimSuffix(mustLine(t, Entry{Key: "fact-b", Type: "fact", Content: "d", TS: 5}), "\n")) +
		mustLine(t, Entry{Key: "fact-b", Type: "fact", Content: "e", TS: 6}) + "  \r\n" +
		strings.TrimSuffix(mustLine(t, Entry{Key: "fact-b", Type: "fact", Content: "torn", TS: 7}), "\n")
	for _, keys := range []map[string]bool{{"fact-b": true}, {"fact-a": true, "fact-c": true}, {"none": true}} {
		var want, got []Record
		Parse([]byte(data), func(r Record) {
			if keys[r.Entry.Key] {
				want = append(want, r)
			}
		})
		ParseKeys([]byte(data), keys, func(r Record) { got = append(got, r) })
		if !reflect.DeepEqual(got, want) {
			t.Errorf("keys %v: ParseKeys gave %d records, Parse %d", keys, len(got), len(want))
		}
	}
}
