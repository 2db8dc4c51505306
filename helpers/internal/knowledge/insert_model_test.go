package knowledge

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/anchor"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
)

// modelInsert is what inserting e into the log data must give, by a model
// independent of the insertion's own pass: the whole log parsed, e a
// duplicate when a record has its key or its type and normalised content;
// else the log with e's line at its place as the in-memory splice writes
// it (insertSorted).
func modelInsert(t *testing.T, data []byte, e Entry) (out []byte, added bool) {
	t.Helper()
	dup := false
	Parse(data, func(r Record) {
		if r.Entry.Key == e.Key || (r.Entry.Type == e.Type && NormalizeContent(r.Entry.Content) == NormalizeContent(e.Content)) {
			dup = true
		}
	})
	if dup {
		return data, false
	}
	line, err := Marshal(&e)
	if err != nil {
		t.Fatal(err)
	}
	return insertSorted(data, [][]byte{line}), true
}

// TestInsertMatchesModel: an insertion into a log that changed under the
// key index (a pull: the pass over the log runs and builds the index)
// writes, byte for byte, what the model does, and the same again when
// the index is current; the entry goes first, last, in the middle, into
// an empty log, after a last line without a newline, around a line longer
// than the pass's buffer, among blank, CRLF and hand-edited lines; a
// duplicate by key or by content leaves the log as it was.
func TestInsertMatchesModel(t *testing.T) {
	lineOf := func(e Entry) string {
		l, err := Marshal(&e)
		if err != nil {
			t.Fatal(err)
		}
		return string(l)
	}
	// Twenty entries in log order.
	var sorted []string
	var entries []Entry
	for i := range 20 {
		e := mkEntry("learned", "model entry "+strings.Repeat("x", i), int64(i+1))
		entries = append(entries, e)
		sorted = append(sorted, lineOf(e))
	}
	sortLineStrings(sorted)
	first, last := sorted[0], sorted[len(sorted)-1]
	// A new entry sorting before every line, after every line, and in the
	// middle.
	var before, after, middle Entry
	for i := 0; before.Key == "" || after.Key == "" || middle.Key == ""; i++ {
		e := mkEntry("fact", "candidate "+strings.Repeat("y", i), 100)
		p, _ := lineSortPos([]byte(lineOf(e)))
		pf, _ := lineSortPos([]byte(first))
		pl, _ := lineSortPos([]byte(last))
		pm, _ := lineSortPos([]byte(sorted[9]))
		pn, _ := lineSortPos([]byte(sorted[10]))
		switch {
		case p.less(pf) && before.Key == "":
			before = e
		case pl.less(p) && after.Key == "":
			after = e
		case pm.less(p) && p.less(pn) && middle.Key == "":
			middle = e
		}
	}
	body := strings.Join(sorted, "\n") + "\n"
	hand := `{"type":"fact","content":"Hand  Edited   note","key":"adr-7","ts":5}`
	huge := lineOf(mkEntry("learned", "huge "+strings.Repeat("z", 3*lineChunk), 7))
	cases := []struct {
		name string
		log  string
		e    Entry
	}{
		{"first", body, before},
		{"last", body, after},
		{"middle", body, middle},
		{"empty log", "", middle},
		{"no final newline", strings.TrimSuffix(body, "\n"), after},
		{"no final newline, first", strings.TrimSuffix(body, "\n"), before},
		{"CRLF and blank lines", strings.ReplaceAll(body, "\n", "\r\n") + "\n\n", middle},
		{"BOM", "\ufeff" + body, before},
		{"huge line", strings.Join(append(append([]string{}, sorted[:10]...), append([]string{huge}, sorted[10:]...)...), "\n") + "\n", middle},
		{"huge last line, no newline", body + huge, after},
		{"hand-edited line", body + hand + "\n", middle},
		{"duplicate by key", body, Entry{Key: entries[4].Key, Type: "fact", Content: "other content", TS: 9}},
		{"duplicate by content", body, mkEntry("learned", "Model  entry "+strings.Repeat("x", 4), 50)},
		{"duplicate of a hand-edited line", body + hand + "\n", mkEntry("fact", "hand edited note", 50)},
		{"duplicate of a last line without a newline", body + lineOf(mkEntry("fact", "tail note", 1)), mkEntry("fact", "Tail  note", 2)},
		{"duplicate of a line after a huge one", huge + "\n" + lineOf(entries[0]), Entry{Key: entries[0].Key, Type: "fact", Content: "another", TS: 3}},
	}
	// A batch with one entry already in the log: the copy written beside
	// the pass (with all three) is dropped and the log written again with
	// the two new ones; without that copy, the log is written once with
	// them.
	t.Run("batch with a duplicate", func(t *testing.T) {
		testBatchWithDuplicate(t, body, middle, after, lineOf, true)
	})
	t.Run("batch with a duplicate, no copy beside the pass", func(t *testing.T) {
		testBatchWithDuplicate(t, body, middle, after, lineOf, false)
	})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, round := range []string{"index stale", "index stale, the copy beside the pass", "index current"} {
				passBesideCopy(t, round == "index stale, the copy beside the pass")
				s := newTestStore(t)
				if err := os.WriteFile(s.LogPath(), []byte(c.log), 0o644); err != nil {
					t.Fatal(err)
				}
				if round == "index current" {
					warmKeyIndex(t, s)
				}
				e := c.e
				want, wantAdded := modelInsert(t, []byte(c.log), e)
				res, err := s.Insert([]Entry{e})
				if err != nil {
					t.Fatal(err)
				}
				if got := readLog(t, s); !bytes.Equal(got, want) {
					t.Fatalf("%s: log differs from the model's:\n got %q\nwant %q", round, got, want)
				}
				if added := len(res.Added) == 1; added != wantAdded {
					t.Fatalf("%s: added %v, the model %v", round, added, wantAdded)
				}
				noTemps(t, s)
				checkKeyIndex(t, s)
			}
		})
	}
}

// passBesideCopy makes insertions write the new log during the pass over
// the old one whatever its size (on), or never (off), until t ends.
func passBesideCopy(t *testing.T, on bool) {
	old := passBesideCopyBytes
	t.Cleanup(func() { passBesideCopyBytes = old })
	passBesideCopyBytes = 1 << 62
	if on {
		passBesideCopyBytes = 0
	}
}

// warmKeyIndex makes the key index current with the log as it is, as the
// pass of an insertion that finds the index stale does.
func warmKeyIndex(t *testing.T, s *Store) {
	t.Helper()
	var res InsertResult
	lf, err := s.openLog()
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	id, err := anchor.Identity(s.root)
	if err != nil {
		t.Fatal(err)
	}
	ks := s.keyLookup(id, nil)
	if _, err := dedupe(lf, []Entry{mkEntry("fact", "warms the index", 1)}, &res, ks); err != nil {
		t.Fatal(err)
	}
	s.saveKeyIndex(ks, id, nil)
	writeKeyIndexAfter(&ks)
}

// sortLineStrings is SortLines of strings.
func sortLineStrings(lines []string) {
	b := make([][]byte, len(lines))
	for i, l := range lines {
		b[i] = []byte(l)
	}
	SortLines(b)
	for i := range b {
		lines[i] = string(b[i])
	}
}

// TestInsertRefusesSpecialLogs: a log that is a FIFO or a link is refused
// as before (no read of the FIFO, no write through the link), and nothing
// is written.
func TestInsertRefusesSpecialLogs(t *testing.T) {
	for _, kind := range []string{"fifo", "symlink"} {
		t.Run(kind, func(t *testing.T) {
			s := newTestStore(t)
			if err := os.Remove(s.LogPath()); err != nil {
				t.Fatal(err)
			}
			target := filepath.Join(t.TempDir(), "elsewhere.jsonl")
			if err := os.WriteFile(target, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			switch kind {
			case "fifo":
				err := mkfifo(s.LogPath())
				if errors.Is(err, errors.ErrUnsupported) {
					return // no FIFOs on this system: nothing to refuse
				}
				if err != nil {
					t.Fatal(err)
				}
			case "symlink":
				if err := os.Symlink(target, s.LogPath()); err != nil {
					t.Fatal(err)
				}
			}
			_, err := s.Insert([]Entry{mkEntry("fact", "refused", 1)})
			var unsafe *fsx.UnsafeError
			if err == nil || !errors.As(err, &unsafe) {
				t.Fatalf("insert into a %s log: %v, want an unsafe-file error", kind, err)
			}
			if data, _ := os.ReadFile(target); len(data) != 0 {
				t.Errorf("wrote through the link: %q", data)
			}
			fi, err := os.Lstat(s.LogPath())
			if err != nil || fi.Mode().IsRegular() {
				t.Errorf("the %s log was replaced: %v, %v", kind, fi, err)
			}
		})
	}
}

// testBatchWithDuplicate inserts middle, a duplicate of a line of body
// and after into body: the two new ones go in, as the model places them.
func testBatchWithDuplicate(t *testing.T, body string, middle, after Entry, lineOf func(Entry) string, beside bool) {
	passBesideCopy(t, beside)
	s := newTestStore(t)
	if err := os.WriteFile(s.LogPath(), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	dup := mkEntry("learned", "MODEL entry "+strings.Repeat("x", 3), 60)
	res, err := s.Insert([]Entry{middle, dup, after})
	if err != nil {
		t.Fatal(err)
	}
	want := insertSorted([]byte(body), [][]byte{[]byte(lineOf(middle)), []byte(lineOf(after))})
	if got := readLog(t, s); !bytes.Equal(got, want) {
		t.Fatalf("log differs from the model's:\n got %q\nwant %q", got, want)
	}
	if len(res.Added) != 2 || len(res.Duplicates) != 1 || res.Duplicates[0].Key != dup.Key {
		t.Fatalf("added %d, duplicates %+v", len(res.Added), res.Duplicates)
	}
	noTemps(t, s)
	checkKeyIndex(t, s)
}

// TestSpliceDropped: a new log its writer is told to drop is removed
// after it was written: the log is as it was, no temporary file is left
// and no copy of the log is kept under cache/.
func TestSpliceDropped(t *testing.T) {
	s := newTestStore(t)
	if _, err := s.Insert([]Entry{mkEntry("fact", "first", 1)}); err != nil {
		t.Fatal(err)
	}
	before := readLog(t, s)
	cache, err := os.ReadDir(s.CachePath())
	if err != nil {
		t.Fatal(err)
	}
	lf, err := s.openLog()
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	e := mkEntry("fact", "dropped", 2)
	line, err := Marshal(&e)
	if err != nil {
		t.Fatal(err)
	}
	asked := false
	err = s.spliceLogIf(lf, [][]byte{line}, func() bool { asked = true; return false })
	if !errors.Is(err, errDropped) || !asked {
		t.Fatalf("spliceLogIf: %v (asked %v), want errDropped once asked", err, asked)
	}
	if got := readLog(t, s); !bytes.Equal(got, before) {
		t.Fatalf("log changed: %q", got)
	}
	noTemps(t, s)
	after, err := os.ReadDir(s.CachePath())
	if err != nil {
		t.Fatal(err)
	}
	if len(after) > len(cache) {
		t.Errorf("cache/ gained files: %v, was %v", after, cache)
	}
}
