package index

import (
	"bytes"
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
	s := newStore(t)
	lines := synthLog(0, 400, 1)
	writeLog(t, s, join(lines))
	ix := openIndex(t, s)
	mustSync(t, ix)
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
	s := newStore(t)
	lines := synthLog(0, 3000, 1)
	writeLog(t, s, join(lines))
	ix := openIndex(t, s)
	mustSync(t, ix)
	files, err := ix.meta("files")
	if err != nil {
		t.Fatal(err)
	}
	old, err := ix.loadLines(files)
	if err != nil {
		t.Fatalf("no line list after a rebuild: %v", err)
	}
	pulled := append(slices.Clone(lines), synthLog(9000, 9050, 2)...)
	knowledge.SortLines(pulled)
	datas := map[string][]byte{s.LogPath(): join(pulled), s.ArchivePath(): nil}
	q, ok, err := ix.mergeJoin(datas, old, 1<<30)
	if err != nil || !ok {
		t.Fatalf("merge-join: %v, %v", ok, err)
	}
	if q.work != 50 || len(q.delta) != 50 {
		t.Fatalf("a pull of 50 cost %d lines of work, %d changed hashes; want 50", q.work, len(q.delta))
	}
}

// The line list is read back exactly as it was saved, and any other bytes
// in its place are refused or read without harm.
func FuzzLoadLines(f *testing.F) {
	s := newStore(f)
	ix := &Index{store: s}
	if err := os.MkdirAll(s.CachePath(), 0o755); err != nil {
		f.Fatal(err)
	}
	const files = `{"a":{"id":{"size":1}}}`
	recs := map[string][]lineRec{s.LogPath(): {{crc: 1, size: 2, hash: [16]byte{3}}, {crc: 4, size: tornBit | 5}}}
	if err := ix.saveLines(files, recs); err != nil {
		f.Fatal(err)
	}
	seed, err := os.ReadFile(filepath.Join(s.Dir, linesName))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(linesMagic + files + "\n"))
	f.Add(append([]byte(linesMagic+files+"\n"), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff))
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(s.Dir, linesName), data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ix.loadLines(files)
		if err != nil {
			return
		}
		if err := ix.saveLines(files, got); err != nil {
			t.Fatal(err)
		}
		again, err := os.ReadFile(filepath.Join(s.Dir, linesName))
		if err != nil || !bytes.Equal(again, data) {
			t.Fatalf("read %d bytes as %d records, which save as other bytes", len(data), len(got))
		}
	})
}
