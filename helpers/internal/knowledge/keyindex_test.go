package knowledge

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/anchor"
)

// insertOne inserts e and reports whether it was added and how many
// passes over the log the insertion made.
func insertOne(t *testing.T, s *Store, e Entry) (added bool, passes int64) {
	t.Helper()
	before := s.passes.Load()
	res, err := s.Insert([]Entry{e})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Added)+len(res.Duplicates) != 1 {
		t.Fatalf("insert of one entry: %+v", res)
	}
	return len(res.Added) == 1, s.passes.Load() - before
}

// appendLine adds line at the end of the log by hand, as an edit or a
// merge would: the log's identity changes.
func appendLine(t *testing.T, s *Store, line string) {
	t.Helper()
	f, err := os.OpenFile(s.LogPath(), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(line + "\n"); err != nil {
		t.Fatal(err)
	}
}

// TestInsertFindsDuplicatesThroughKeyIndex: a duplicate is caught with
// the key index current (then a new entry is added without a pass over
// the log) and through the pass when the index is stale, missing or
// damaged, including a line of another key scheme (an import, a hand
// edit) with the same type and content; a hash in the index that no line
// has (a collision) never drops an entry.
func TestInsertFindsDuplicatesThroughKeyIndex(t *testing.T) {
	const handLine = `{"type":"decision","content":"Deploys  go out on TUESDAY only.","key":"adr-0042","ts":5,"source":"import"}`
	seed := func(t *testing.T) *Store {
		s := newTestStore(t)
		for i := range 20 {
			if added, _ := insertOne(t, s, mkEntry("learned", fmt.Sprintf("seed note %d about retries", i), int64(100+i))); !added {
				t.Fatal("seed entry not added")
			}
		}
		return s
	}
	dupContent := mkEntry("learned", "seed note 7 about retries", 900)
	dupSpaced := mkEntry("learned", "  Seed note 7   about retries ", 901) // same once normalised
	sameKey := Entry{Key: MakeKey("learned", "seed note 3 about retries"), Type: "fact", Content: "other words", TS: 902}
	handDup := mkEntry("decision", "deploys go out on tuesday only.", 903)
	cases := []struct {
		name   string
		before func(t *testing.T, s *Store) // after seeding, before the insertion
		e      Entry
		added  bool
		passes int64 // passes over the log the insertion makes
	}{
		{"index current: new entry", nil, mkEntry("learned", "a new note", 1), true, 0},
		{"index current: same content", nil, dupContent, false, 1},
		{"index current: same content, spaced", nil, dupSpaced, false, 1},
		{"index current: same key", nil, sameKey, false, 1},
		{"index stale: same content", func(t *testing.T, s *Store) {
			appendLine(t, s, `{"key":"learned-unrelated-abcdef","type":"learned","content":"unrelated","ts":1}`)
		}, dupContent, false, 1},
		{"index stale: new entry", func(t *testing.T, s *Store) {
			appendLine(t, s, `{"key":"learned-unrelated-abcdef","type":"learned","content":"unrelated","ts":1}`)
		}, mkEntry("learned", "a new note", 1), true, 1},
		{"index missing: same content", func(t *testing.T, s *Store) {
			if err := os.Remove(filepath.Join(s.Dir, keyIndexFile)); err != nil {
				t.Fatal(err)
			}
		}, dupContent, false, 1},
		{"index damaged: same key", func(t *testing.T, s *Store) {
			path := filepath.Join(s.Dir, keyIndexFile)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, data[:len(data)-3], 0o644); err != nil {
				t.Fatal(err)
			}
		}, sameKey, false, 1},
		{"hand-edited line, index stale", func(t *testing.T, s *Store) {
			appendLine(t, s, handLine)
		}, handDup, false, 1},
		{"hand-edited line, index current", func(t *testing.T, s *Store) {
			appendLine(t, s, handLine)
			if added, passes := insertOne(t, s, mkEntry("learned", "builds the index", 2)); !added || passes != 1 {
				t.Fatalf("added %v with %d passes", added, passes)
			}
		}, handDup, false, 1},
		{"hand-edited line's key, index current", func(t *testing.T, s *Store) {
			appendLine(t, s, handLine)
			insertOne(t, s, mkEntry("learned", "builds the index", 2))
		}, Entry{Key: "adr-0042", Type: "fact", Content: "different", TS: 3}, false, 1},
		{"imported line, index current", func(t *testing.T, s *Store) {
			if res, err := s.Import([]byte(handLine + "\n")); err != nil || res.Imported != 1 {
				t.Fatalf("import: %+v, %v", res, err)
			}
		}, handDup, false, 1},
		{"collision: the entry's hash in the index, no line", func(t *testing.T, s *Store) {
			id, err := anchor.Identity(s.root)
			if err != nil {
				t.Fatal(err)
			}
			ks := s.keyLookup(id, nil)
			if !ks.current {
				t.Fatal("index not current after the seeding")
			}
			e := mkEntry("learned", "a colliding note", 1)
			h := entryHashes(&e)
			s.writeKeyIndex(id, indexOf(append(hashesOf(ks.ix), h[2])), nil)
		}, mkEntry("learned", "a colliding note", 1), true, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := seed(t)
			if c.before != nil {
				c.before(t, s)
			}
			had := logKeys(t, readLog(t, s))[c.e.Key]
			added, passes := insertOne(t, s, c.e)
			if added != c.added || passes != c.passes {
				t.Fatalf("added %v with %d passes over the log, want %v with %d", added, passes, c.added, c.passes)
			}
			if n, want := logKeys(t, readLog(t, s))[c.e.Key], had+map[bool]int{true: 1}[c.added]; n != want {
				t.Errorf("%d lines of %s in the log, want %d", n, c.e.Key, want)
			}
			// Whatever the path, the index is current after it and
			// equals one built from the log.
			checkKeyIndex(t, s)
			if added, passes := insertOne(t, s, mkEntry("pattern", "afterwards "+c.name, 7)); !added || passes != 0 {
				t.Errorf("the next new entry: added %v with %d passes, want no pass", added, passes)
			}
		})
	}
}

// hashesOf is the index's hashes.
func hashesOf(ix keyIndex) []uint64 {
	hs := make([]uint64, ix.len())
	for i := range hs {
		hs[i] = ix.at(i)
	}
	return hs
}

// checkKeyIndex fails t unless the key index is current with the log and
// holds exactly the hashes a pass over it would, less any a collision test
// planted.
func checkKeyIndex(t *testing.T, s *Store) {
	t.Helper()
	id, err := anchor.Identity(s.root)
	if err != nil {
		t.Fatal(err)
	}
	ks := s.keyLookup(id, nil)
	if !ks.current {
		t.Fatal("key index not current with the log")
	}
	var want []uint64
	eachLine(bytes.TrimPrefix(readLog(t, s), bom), func(line []byte) { lineHashes(line, func(h uint64) { want = append(want, h) }) })
	want = slices.Compact(slices.Sorted(slices.Values(want)))
	got := hashesOf(ks.ix)
	extra := 0
	for _, h := range got {
		if _, ok := slices.BinarySearch(want, h); !ok {
			extra++
		}
	}
	if len(got)-extra != len(want) || extra > 1 {
		t.Errorf("key index holds %d hashes (%d no line has), a pass finds %d", len(got), extra, len(want))
	}
}

// TestKeyIndexFollowsWriters: after every step of a random history of
// insertions, status lines and imports, the key index brought along by
// each writer equals the one a pass over the log builds.
func TestKeyIndexFollowsWriters(t *testing.T) {
	s := newTestStore(t)
	rng := rand.New(rand.NewPCG(3, 4))
	var keys []string
	for step := range 60 {
		switch rng.IntN(4) {
		case 0, 1:
			var batch []Entry
			for range 1 + rng.IntN(3) {
				batch = append(batch, mkEntry(Types[rng.IntN(len(Types))], fmt.Sprintf("step %d note %x", step, rng.Uint32()), int64(step)))
			}
			res, err := s.Insert(batch)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range res.Added {
				keys = append(keys, e.Key)
			}
		case 2:
			if len(keys) == 0 {
				continue
			}
			k := keys[rng.IntN(len(keys))]
			line := fmt.Sprintf(`{"key":%q,"type":"learned","content":"retracted","ts":%d,"status":"retracted"}`, k, 10_000+step)
			if err := s.InsertLines([][]byte{[]byte(line)}); err != nil {
				t.Fatal(err)
			}
		case 3:
			line := fmt.Sprintf(`{"type":"fact","content":"Imported fact %d","key":"ext-%d","ts":%d}`, step, step, step)
			if _, err := s.Import([]byte(line + "\n")); err != nil {
				t.Fatal(err)
			}
		}
		if step == 0 {
			continue // the first writer had no index to bring along
		}
		checkKeyIndex(t, s)
	}
}

// indexOf is the index of hashes (in any order, repeats allowed), without
// room around it.
func indexOf(hashes []uint64) keyIndex {
	var body []byte
	for _, h := range hashes {
		body = binary.LittleEndian.AppendUint64(body, h)
	}
	return keyIndex{body: sortWords(body)}
}

// TestSortWords: sortWords sorts and drops repeats in place, also of
// hashes that all share their top bits (one bucket), a few, none.
func TestSortWords(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 63, 64, 255, 1000, 70_000} {
		for _, spread := range []bool{true, false} {
			hs := make([]uint64, n)
			for i := range hs {
				hs[i] = rng.Uint64()
				if !spread {
					hs[i] >>= 40
				}
				if i > 0 && rng.IntN(5) == 0 {
					hs[i] = hs[rng.IntN(i)]
				}
			}
			want := slices.Compact(slices.Sorted(slices.Values(hs)))
			var b []byte
			for _, h := range hs {
				b = binary.LittleEndian.AppendUint64(b, h)
			}
			got := sortWords(b)
			if n > 0 && &got[0] != &b[0] {
				t.Errorf("n=%d: sortWords did not sort in place", n)
			}
			if !slices.Equal(hashesOf(keyIndex{body: got}), want) {
				t.Errorf("n=%d spread=%v: sortWords differs from a sort", n, spread)
			}
		}
	}
}

// TestMergeWords: mergeWords merges new hashes into sorted words in
// place, before, between and after them.
func TestMergeWords(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 5, 100} {
		for _, k := range []int{0, 1, 3, 40} {
			all := make([]uint64, n+k) // distinct: 64 random bits each
			for i := range all {
				all[i] = rng.Uint64()
			}
			old, add := slices.Sorted(slices.Values(all[:n])), slices.Sorted(slices.Values(all[n:]))
			b := make([]byte, 8*(n+k))
			for i, h := range old {
				putWord(b, i, h)
			}
			mergeWords(b, n, add)
			if got, want := hashesOf(keyIndex{body: b}), slices.Sorted(slices.Values(all)); !slices.Equal(got, want) {
				t.Errorf("n=%d k=%d: got %x, want %x", n, k, got, want)
			}
		}
	}
}
