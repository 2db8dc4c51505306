package index

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// dump is what the cache holds, for comparing two caches.
func dump(t *testing.T, ix *Index) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{
		`SELECT hex(hash), n, archived, key, ts, problem, hex(parent) FROM lines ORDER BY hash`,
		`SELECT key, type, content, tags, ts, status, archived, json FROM entries ORDER BY key`,
		`SELECT k, v FROM meta WHERE k IN ('count', 'total') ORDER BY k`,
	} {
		rows, err := ix.db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(&b, vals...)
		}
		rows.Close()
	}
	return b.String()
}

// Whatever edits a pull brings (lines added in order and out of it,
// removed, changed in place, repeated, glued, garbage, a torn last line,
// the archive), the merge-join's catch-up leaves the cache exactly as a
// rebuild of the same files would, and it really is the quick path.
func TestQuickSyncMatchesRebuild(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	s, lines, ix := syncedStore(t, 400)
	next := 1000
	for round := range 40 {
		op := round % 10
		switch op {
		case 0: // a pull: new lines in order
			lines = append(lines, synthLog(next, next+1+rng.IntN(30), uint64(round))...)
			next += 40
			knowledge.SortLines(lines)
		case 1: // lines removed
			for range 1 + rng.IntN(10) {
				if len(lines) > 1 {
					i := rng.IntN(len(lines))
					lines = slices.Delete(lines, i, i+1)
				}
			}
		case 2: // a line changed in place (same key and ts, other content)
			i := rng.IntN(len(lines))
			lines[i] = bytes.Replace(lines[i], []byte(`"content":"`), []byte(`"content":"edited `), 1)
		case 3: // a repeated line
			i := rng.IntN(len(lines))
			lines = slices.Insert(lines, i, lines[i])
		case 4: // appended out of order (a union merge)
			lines = append(lines, synthLog(next, next+3, uint64(round))...)
			next += 3
		case 5: // garbage and a conflict marker
			i := rng.IntN(len(lines))
			lines = slices.Insert(lines, i, []byte("<<<<<<< HEAD"), []byte(`{"not":"an entry"`))
		case 6: // two entries glued on one line
			i := rng.IntN(len(lines) - 1)
			glued := append(slices.Clone(lines[i]), lines[i+1]...)
			lines = slices.Replace(lines, i, i+2, glued)
		case 7: // a retraction of an existing key
			i := rng.IntN(len(lines))
			if k, ts, ok := knowledge.LineKeyTS(lines[i]); ok {
				lines = append(lines, []byte(fmt.Sprintf(`{"key":%q,"type":"fact","content":"gone","ts":%d,"status":"retracted"}`, k, ts+1)))
				knowledge.SortLines(lines)
			}
		case 8: // the archive gets some lines
			arch := join(synthLog(5000+round*10, 5000+round*10+5, uint64(round)))
			if err := s.Root().WriteAtomic(knowledge.ArchiveName, arch, 0o644); err != nil {
				t.Fatal(err)
			}
		case 9: // nothing changed but the file's identity
		}
		data := join(lines)
		if round%7 == 3 {
			data = bytes.TrimSuffix(data, []byte("\n")) // a torn last line
		}
		writeLog(t, s, data)
		_, err := ix.Sync()
		if err != nil {
			t.Fatalf("round %d: sync: %v", round, err)
		}
		got := dump(t, ix)
		fresh := newStore(t)
		for _, n := range []string{knowledge.LogName, knowledge.ArchiveName} {
			if b, err := s.Root().ReadFile(n, 1<<30); err == nil {
				if err := fresh.Root().WriteAtomic(n, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		rb := openIndex(t, fresh)
		mustSync(t, rb)
		if want := dump(t, rb); got != want {
			t.Fatalf("round %d (edit %d): the caught-up cache differs from a rebuild", round, op)
		}
		rb.Close()
	}
	if ix.quick < 25 {
		t.Fatalf("only %d of 40 catch-ups were merge-joins", ix.quick)
	}
}

// The catch-up after a pull reads the database only for the lines that
// changed: its cost follows the pull, not the log.
func TestQuickSyncWorkFollowsThePull(t *testing.T) {
	s, lines, ix := syncedStore(t, 3000)
	files, err := ix.meta("files")
	if err != nil {
		t.Fatal(err)
	}
	pulled := append(slices.Clone(lines), synthLog(9000, 9050, 2)...)
	knowledge.SortLines(pulled)
	datas := map[string][]byte{s.LogPath(): join(pulled), s.ArchivePath(): nil}
	var q quickDiff
	var ok bool
	err = ix.withLines(files, func(old map[string][]group) error {
		q, ok, err = ix.mergeJoin(datas, old, true)
		return err
	})
	if err != nil || !ok {
		t.Fatalf("merge-join: %v, %v", ok, err)
	}
	if q.work != 50 || len(q.delta) != 50 {
		t.Fatalf("a pull of 50 cost %d lines of work, %d changed hashes; want 50", q.work, len(q.delta))
	}
}

// The merge-join passes over the groups of lines a pull left as they were
// without splitting them into lines: a pull of 5 lines into a log of
// 3,000 compares the lines of at most the 5 groups it changed (and the
// new lines), not the log's.
func TestQuickSyncPassesOverUnchangedGroups(t *testing.T) {
	for name, at := range map[string]func(n int) int{
		"start":  func(int) int { return 0 },
		"middle": func(n int) int { return n / 2 },
		"end":    func(n int) int { return n },
		"spread": func(n int) int { return -1 },
	} {
		t.Run(name, func(t *testing.T) {
			s, lines, ix := syncedStore(t, 3000)
			files, err := ix.meta("files")
			if err != nil {
				t.Fatal(err)
			}
			var pulled [][]byte
			if i := at(len(lines)); i >= 0 {
				// Lines placed together, where the log's order would not
				// put them (a union merge appends): the same groups.
				pulled = slices.Insert(slices.Clone(lines), i, synthLog(9000, 9005, 2)...)
			} else {
				pulled = append(slices.Clone(lines), synthLog(9000, 9005, 2)...)
				knowledge.SortLines(pulled)
			}
			datas := map[string][]byte{s.LogPath(): join(pulled), s.ArchivePath(): nil}
			var q quickDiff
			var ok bool
			err = ix.withLines(files, func(old map[string][]group) error {
				q, ok, err = ix.mergeJoin(datas, old, true)
				return err
			})
			if err != nil || !ok {
				t.Fatalf("merge-join: %v, %v", ok, err)
			}
			if q.work != 5 || len(q.delta) != 5 {
				t.Fatalf("a pull of 5 cost %d lines of work, %d changed hashes; want 5", q.work, len(q.delta))
			}
			if max := 5 * (groupLines + 1); q.compared > max {
				t.Fatalf("a pull of 5 compared %d lines one by one; want at most %d", q.compared, max)
			}
		})
	}
}

// The line list is read back exactly as it was saved, and any other bytes
// in its place are refused or read without harm.
func FuzzParseLines(f *testing.F) {
	s := newStore(f)
	ix := &Index{store: s}
	if err := os.MkdirAll(s.CachePath(), 0o755); err != nil {
		f.Fatal(err)
	}
	const files = `{"a":{"id":{"size":1}}}`
	data := []byte("{\"a\":1}\n{\"b\":2}")
	recs := []lineRec{{crc: 1, size: 7, hash: [16]byte{3}}, {crc: 4, size: tornBit | 7, off: 8}}
	if err := ix.saveLines(files, listOf(ix, map[string][]byte{s.LogPath(): encodeList(data, recs)})); err != nil {
		f.Fatal(err)
	}
	seed, err := os.ReadFile(filepath.Join(s.Dir, linesName))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(linesMagic + files))
	f.Add(append([]byte(linesMagic), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff))
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(s.Dir, linesName), data, 0o644); err != nil {
			t.Fatal(err)
		}
		var got map[string][]byte
		err := ix.withLines(files, func(old map[string][]group) error {
			got = map[string][]byte{}
			for p, gs := range old {
				for _, g := range gs {
					if g.len() == 0 {
						t.Fatalf("an empty group read")
					}
					for j := range g.len() {
						g.at(j)
					}
					got[p] = append(got[p], g.raw...)
				}
			}
			return nil
		})
		if err != nil {
			return
		}
		if err := ix.saveLines(files, listOf(ix, got)); err != nil {
			t.Fatal(err)
		}
		again, err := os.ReadFile(filepath.Join(s.Dir, linesName))
		if err != nil || !bytes.Equal(again, data) {
			t.Fatalf("read %d bytes as a list, which saves as other bytes", len(data))
		}
	})
}

// listOf is the list file of the sources' lists, by path.
func listOf(ix *Index, lists map[string][]byte) *listFile {
	lf := newListFile(0)
	for _, src := range ix.sources() {
		lf.buf = binary.LittleEndian.AppendUint64(lf.buf, uint64(len(lists[src.path])))
		lf.buf = append(lf.buf, lists[src.path]...)
	}
	return lf
}

// The line reader reads the lines knowledge.Lines splits: the same lines,
// crcs, sizes and offsets, the torn last line marked, blank lines skipped,
// a BOM and CRs not part of any line; and the list it makes of them is
// whole (each group's span found at its first line's place).
func FuzzLineReader(f *testing.F) {
	for _, s := range []string{
		"",
		"{\"a\":1}\n{\"b\":2}\n",
		"\ufeff{\"a\":1}\r\n\n  \n{\"b\":2}",
		"x\ny\nz\n\n\n{}\n{}\n{}",
		"\n\n\n\n",
		strings.Repeat("{\"k\":\"fact-x\"}\n", 50) + "torn",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want []lineRec
		var wantLines [][]byte
		lines, torn := knowledge.Lines(data)
		for i, line := range lines {
			if !blank(line) {
				want = append(want, quickRec(line, torn && i == len(lines)-1))
				wantLines = append(wantLines, line)
			}
		}
		var got []lineRec
		rd := newLineReader(data)
		for {
			r, ok := rd.peek()
			if !ok {
				break
			}
			got = append(got, r)
			rd.next()
		}
		if len(got) != len(want) {
			t.Fatalf("%d records, want %d", len(got), len(want))
		}
		for i, r := range got {
			w := want[i]
			if r.crc != w.crc || r.size != w.size || !bytes.Equal(r.line(data), wantLines[i]) {
				t.Fatalf("record %d: %+v (line %q), want %+v", i, r, r.line(data), w)
			}
		}
		gs, ok := recList(encodeList(data, got)).groups()
		if !ok {
			t.Fatal("the list of the lines is not a list")
		}
		j := 0
		for _, g := range gs {
			if r := got[j]; g.at(0).crc != r.crc || !g.spanAt(data, r.off) && (g.span == 0 || data[r.off+int64(g.span)-1] == '\n') {
				t.Fatalf("group at line %d: its span is not found at its place", j)
			}
			j += g.len()
		}
		if j != len(got) {
			t.Fatalf("the list's groups hold %d lines, want %d", j, len(got))
		}
	})
}

// The list is written in place: a write cut short (the new list's start
// over the old one's end, or any byte changed) leaves a file whose sum
// does not match, so the next sync diffs in full, and rightly, instead of
// trusting it.
func TestTornLineListIsNotUsed(t *testing.T) {
	for name, tear := range map[string]func(old, cur []byte) []byte{
		"new start, old end": func(old, cur []byte) []byte { return append(slices.Clone(cur[:len(cur)/2]), old[len(cur)/2:]...) },
		"old end left over":  func(old, cur []byte) []byte { return append(slices.Clone(cur), old[len(old)-8:]...) },
		"a byte changed":     func(old, cur []byte) []byte { b := slices.Clone(cur); b[len(b)/2] ^= 1; return b },
	} {
		t.Run(name, func(t *testing.T) {
			s, lines, ix := syncedStore(t, 300)
			path := filepath.Join(s.Dir, linesName)
			old, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			lines = pull(t, s, lines, 1000, 1010, 2)
			mustSync(t, ix)
			cur, err := os.ReadFile(path)
			if err != nil || len(cur) <= len(old) {
				t.Fatalf("list after a pull of 10: %d bytes (was %d), %v", len(cur), len(old), err)
			}
			if err := os.WriteFile(path, tear(old, cur), 0o644); err != nil {
				t.Fatal(err)
			}
			lines = pull(t, s, lines, 2000, 2005, 3)
			quick := ix.quick
			res := mustSync(t, ix)
			if ix.quick != quick || res.Added != 5 {
				t.Fatalf("sync with a torn list: %+v, merge-joins %d -> %d; want a full diff adding 5", res, quick, ix.quick)
			}
			mustSync(t, ix) // and the list it wrote is whole again
			pull(t, s, lines, 3000, 3002, 4)
			if res := mustSync(t, ix); ix.quick != quick+1 || res.Added != 2 {
				t.Fatalf("sync after the list was rewritten: %+v, merge-joins %d; want one more", res, ix.quick)
			}
		})
	}
}

// The live cache has no rollback journal: a write is bracketed by the
// dirty marker, which a finished write removes and a write cut short
// leaves, and a cache found marked is rebuilt, not trusted.
func TestWriteCutShortIsRebuilt(t *testing.T) {
	s, lines, ix := syncedStore(t, 200)
	marker := filepath.Join(s.Dir, dirtyName)
	pull(t, s, lines, 1000, 1010, 2)
	if res := mustSync(t, ix); res.Added != 10 || res.Rebuilt {
		t.Fatalf("pull of 10: %+v", res)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("a finished write left its marker: %v", err)
	}
	ix.Close()

	// A process killed mid-write leaves the marker (and maybe half of its
	// pages): the next open takes the cache for stale.
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	hook, err := OpenForHook(s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hook.Sync(); err != nil { // small: a hook rebuilds it itself
		t.Fatalf("hook sync of a marked small cache: %v", err)
	}
	hook.Close()
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("the rebuild left the marker: %v", err)
	}
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ix = openIndex(t, s)
	if res := mustSync(t, ix); !res.Rebuilt {
		t.Fatalf("sync of a marked cache: %+v; want a rebuild", res)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("the rebuild left the marker: %v", err)
	}
	if res := mustSync(t, ix); !res.Current {
		t.Fatalf("after the rebuild: %+v; want current", res)
	}
}

// pull is what a pull does to the log: lines synthLog(from, to, seed) are
// added to lines, in the log's order, and the log written; it returns the
// log's lines.
func pull(t *testing.T, s *knowledge.Store, lines [][]byte, from, to int, seed uint64) [][]byte {
	t.Helper()
	lines = append(lines, synthLog(from, to, seed)...)
	knowledge.SortLines(lines)
	writeLog(t, s, join(lines))
	return lines
}

// syncedStore is a store whose log holds synthLog(0, n, 1), and its cache,
// synced.
func syncedStore(t *testing.T, n int) (*knowledge.Store, [][]byte, *Index) {
	t.Helper()
	s := newStore(t)
	lines := synthLog(0, n, 1)
	writeLog(t, s, join(lines))
	ix := openIndex(t, s)
	mustSync(t, ix)
	return s, lines, ix
}

// Neither the live cache nor a build keeps a rollback journal: the live
// cache's writes are bracketed by the dirty marker instead, and a build
// writes a new file that is thrown away if it fails (a journal there cost
// 14% of a rebuild at 100k).
func TestNoRollbackJournal(t *testing.T) {
	for name, pragmas := range map[string]string{"live": livePragmas, "build": buildPragmas} {
		if !strings.Contains(pragmas, "journal_mode(OFF)") || !strings.Contains(pragmas, "synchronous(OFF)") {
			t.Errorf("%s pragmas %q: want journal_mode(OFF) and synchronous(OFF)", name, pragmas)
		}
	}
	_, _, ix := syncedStore(t, 10)
	var mode string
	if err := ix.db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "off" {
		t.Errorf("live cache journal mode %q, %v; want off", mode, err)
	}
}

// A log shortened in place while a sync has it mapped (an editor that
// truncates and rewrites) makes the sync fail with an error, not crash the
// process with SIGBUS, and loses nothing: the next sync reads the log as
// it is then.
func TestSyncOfLogShortenedWhileMapped(t *testing.T) {
	splitSmall(t)
	s, lines, ix := syncedStore(t, 2000) // over splitBytes: joined in two halves at once
	if size := len(join(lines)); size < splitBytes {
		t.Fatalf("log of %d bytes: not joined in two halves", size)
	}
	lines = pull(t, s, lines, 90_000, 90_010, 2)
	path := s.LogPath()
	beforeMergeJoin = func() {
		if err := os.Truncate(path, 0); err != nil {
			t.Error(err)
		}
	}
	_, err := ix.Sync()
	beforeMergeJoin = nil
	if err == nil || !strings.Contains(err.Error(), "changed while read") {
		t.Fatalf("sync of a log shortened while mapped: %v; want an error saying so", err)
	}
	writeLog(t, s, join(lines))
	res := mustSync(t, ix)
	if res.Added != 10 && !res.Rebuilt {
		t.Fatalf("next sync: %+v; want the 10 new lines", res)
	}
	other := newStore(t)
	writeLog(t, other, join(lines))
	rebuilt := openIndex(t, other)
	mustSync(t, rebuilt)
	if got, want := dump(t, ix), dump(t, rebuilt); got != want {
		t.Error("the cache after the failed sync differs from a rebuild of the log")
	}
}

// splitSmall has the merge-join split files of 256 KiB and more in two
// halves (see splitAt), for the test's length.
func splitSmall(t *testing.T) {
	was := splitBytes
	splitBytes = 256 << 10
	t.Cleanup(func() { splitBytes = was })
}

// sameAsRebuild fails t unless ix holds what a rebuild of s's files holds.
func sameAsRebuild(t *testing.T, s *knowledge.Store, ix *Index, what string) {
	t.Helper()
	fresh := newStore(t)
	for _, n := range []string{knowledge.LogName, knowledge.ArchiveName} {
		if b, err := s.Root().ReadFile(n, 1<<30); err == nil {
			if err := fresh.Root().WriteAtomic(n, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	rb := openIndex(t, fresh)
	defer rb.Close()
	mustSync(t, rb)
	if got, want := dump(t, ix), dump(t, rb); got != want {
		t.Fatalf("%s: the caught-up cache differs from a rebuild", what)
	}
}

// A log big enough to be joined in two halves (see splitAt) is caught up
// exactly as a rebuild would hold it, whatever its edits and wherever they
// fall: lines added, retracted, edited in place and removed at the start,
// in the middle (where the halves meet) and at the end; then a torn last
// line, its completion, and the log rewritten wholesale.
func TestQuickSyncOfBigLogMatchesRebuild(t *testing.T) {
	splitSmall(t)
	s, lines, ix := syncedStore(t, 2500)
	data := join(lines)
	if len(data) < splitBytes {
		t.Fatalf("log of %d bytes: not joined in two halves", len(data))
	}
	at := func() int { // the line where the halves meet, in lines
		files, err := ix.meta("files")
		if err != nil {
			t.Fatal(err)
		}
		var where int64 = -1
		err = ix.withLines(files, func(old map[string][]group) error {
			where, _ = splitAt(join(lines), old[s.LogPath()])
			return nil
		})
		if err != nil || where < 0 || where == int64(len(join(lines))) {
			t.Fatalf("no split of the log: %d, %v", where, err)
		}
		return bytes.Count(join(lines)[:where], []byte("\n"))
	}
	retract := func(i int) {
		k, ts, ok := knowledge.LineKeyTS(lines[i])
		if !ok {
			t.Fatalf("line %d has no key", i)
		}
		lines = append(lines, []byte(fmt.Sprintf(`{"key":%q,"type":"fact","content":"gone","ts":%d,"status":"retracted"}`, k, ts+1)))
		knowledge.SortLines(lines)
	}
	edit := func(i int) {
		lines[i] = bytes.Replace(lines[i], []byte(`"content":"`), []byte(`"content":"edited `), 1)
	}
	step := func(what string, change func()) {
		t.Helper()
		change()
		writeLog(t, s, join(lines))
		quick := ix.quick
		res := mustSync(t, ix)
		if res.Rebuilt || ix.quick != quick+1 {
			t.Fatalf("%s: %+v, merge-joins %d -> %d; want one more", what, res, quick, ix.quick)
		}
		sameAsRebuild(t, s, ix, what)
	}
	step("a pull of 50", func() { lines = append(lines, synthLog(50_000, 50_050, 2)...); knowledge.SortLines(lines) })
	for _, where := range []struct {
		name string
		i    func() int
	}{
		{"start", func() int { return 0 }},
		{"place where the halves meet", func() int { return at() }},
		{"end", func() int { return len(lines) - 1 }},
	} {
		step("lines retracted, edited, removed and added at the "+where.name, func() {
			i := where.i()
			retract(i)
			edit(min(i+1, len(lines)-1))
			lines = slices.Delete(lines, max(i-1, 0), max(i-1, 0)+1)
			i = where.i()
			lines = slices.Insert(lines, i, synthLog(60_000+i, 60_003+i, 5)...)
		})
	}
	// A torn last line, then completed.
	writeLog(t, s, bytes.TrimSuffix(join(lines), []byte("\n")))
	mustSync(t, ix)
	sameAsRebuild(t, s, ix, "a torn last line")
	writeLog(t, s, join(lines))
	mustSync(t, ix)
	sameAsRebuild(t, s, ix, "the torn line completed")
	// Rewritten wholesale: every line other (a rebuild, or a full diff).
	for i := range lines {
		edit(i)
	}
	writeLog(t, s, join(lines))
	mustSync(t, ix)
	sameAsRebuild(t, s, ix, "the log rewritten wholesale")
}

// A log cut short mid-line, or replaced by bytes that are no log at all,
// is caught up as a rebuild would read it, the line list's groups passed
// over only where the bytes are the same.
func TestQuickSyncOfDamagedLogMatchesRebuild(t *testing.T) {
	s, lines, ix := syncedStore(t, 1000)
	data := join(lines)
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"cut mid-line", data[:len(data)*2/3]},
		{"cut mid-line, then whole again", data},
		{"garbage in the middle", append(append(slices.Clone(data[:len(data)/2]), "\x00\xff{not json\n\n   \r\n"...), data[len(data)/2:]...)},
		{"whole again", data},
		{"CRLF line ends", bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n"))},
		{"a BOM", append([]byte("\ufeff"), data...)},
		{"blank lines between", bytes.ReplaceAll(data, []byte("}\n"), []byte("}\n \n"))},
		{"no log at all", bytes.Repeat([]byte("\x00\x01garbage\n"), 500)},
		{"whole at last", data},
	} {
		writeLog(t, s, c.data)
		if _, err := ix.Sync(); err != nil {
			t.Fatalf("%s: sync: %v", c.name, err)
		}
		sameAsRebuild(t, s, ix, c.name)
	}
}
