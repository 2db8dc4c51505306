package index

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/audit"

	"github.com/cairn-dev/cairn/helpers/internal/anchor"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

func readMap(t *testing.T, s *knowledge.Store) anchor.Map {
	t.Helper()
	data, err := s.Root().ReadFile(anchor.File, anchor.MaxBytes)
	if err != nil {
		t.Fatal(err)
	}
	m, err := anchor.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func entry(typ, content string, files ...string) knowledge.Entry {
	return knowledge.Entry{Key: knowledge.MakeKey(typ, content), Type: typ, Content: content, TS: 1700000000, Files: files}
}

// Every sync that writes the cache rewrites the anchor map: live
// entries' files, must-checks' command prefixes, nothing retracted, and
// the identity of the log the hook compares.
func TestSyncWritesAnchorMap(t *testing.T) {
	s := newStore(t)
	retry := entry("learned", "the retry loop in payments/client.go must watch the context", "payments/client.go")
	dry := entry("must-check", "run `migrate up --dry-run` before editing migrations", "db/migrations")
	plain := entry("fact", "nothing anchored here")
	if _, err := s.Insert([]knowledge.Entry{retry, dry, plain}); err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t, s)
	mustSync(t, ix)
	m := readMap(t, s)
	want := map[string][]string{"payments/client.go": {retry.Key}, "db/migrations": {dry.Key}}
	if len(m.Files) != len(want) || !slices.Equal(m.Files["payments/client.go"], want["payments/client.go"]) || !slices.Equal(m.Files["db/migrations"], want["db/migrations"]) {
		t.Errorf("files = %v, want %v", m.Files, want)
	}
	if got := m.Commands["migrate up --dry-run"]; !slices.Equal(got, []string{dry.Key}) {
		t.Errorf("commands = %v", m.Commands)
	}
	id, err := anchor.Identity(s.Root())
	if err != nil || m.Sources != id {
		t.Errorf("map identity %q, log's %q (%v)", m.Sources, id, err)
	}

	// A retraction drops the anchor; a new anchored entry adds one.
	gone := retry
	gone.Status, gone.TS = knowledge.StatusRetracted, retry.TS+1
	more := entry("pattern", "db/seed.sql is generated", "db/seed.sql")
	line, err := knowledge.Marshal(&gone)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.InsertLines([][]byte{line}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Insert([]knowledge.Entry{more}); err != nil {
		t.Fatal(err)
	}
	mustSync(t, ix)
	m = readMap(t, s)
	if _, ok := m.Files["payments/client.go"]; ok {
		t.Errorf("a retracted entry is still anchored: %v", m.Files)
	}
	if !slices.Equal(m.Files["db/seed.sql"], []string{more.Key}) {
		t.Errorf("new anchor missing: %v", m.Files)
	}
	got, err := ix.Entries([]string{more.Key, retry.Key, dry.Key})
	if err != nil || len(got) != 2 || got[0].Key != more.Key || got[1].Key != dry.Key {
		t.Errorf("Entries = %v, %v", got, err)
	}
}

// fullMap is the map a full build of the cache's anchored entries gives
// now, with the sources the map on disk records.
func fullMap(t *testing.T, ix *Index, src string) anchor.Map {
	t.Helper()
	m, err := ix.anchorMap()
	if err != nil {
		t.Fatal(err)
	}
	m.Sources = src
	got, err := anchor.Parse(anchor.Encode(m))
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// sortedKeys is m with each anchor's keys sorted.
func sortedKeys(m anchor.Map) anchor.Map {
	for _, set := range []map[string][]string{m.Files, m.Commands} {
		for n, k := range set {
			set[n] = slices.Sorted(slices.Values(k))
		}
	}
	return m
}

// The anchor map follows every change by its lines: entries added,
// retracted, superseded, re-anchored, archived by rotation, removed and
// restored by sanitize's verdicts, a log touched but unchanged. After
// each sync the map holds what a full build would, records the log's
// identity, and was not built in full: the work of a write is the lines
// it changed, not every anchored entry.
func TestAnchorMapFollowsChanges(t *testing.T) {
	s := newStore(t)
	rng := rand.New(rand.NewPCG(3, 4))
	files := []string{"a.go", "./a.go", "pkg/b.go", "pkg", "db/migrations/", "c.go"}
	mk := func(i int) knowledge.Entry {
		typ := []string{"learned", "decision", "must-check", "fact"}[rng.IntN(4)]
		content := fmt.Sprintf("note %d about the retry loop", i)
		if typ == "must-check" && rng.IntN(2) == 0 {
			content += fmt.Sprintf(" never run `deploy env%d` first", rng.IntN(3))
		}
		e := entry(typ, content)
		e.TS = 1_700_000_000 + int64(i)
		if rng.IntN(3) > 0 {
			e.Files = []string{files[rng.IntN(len(files))]}
		}
		return e
	}
	var all []knowledge.Entry
	for i := range 60 {
		all = append(all, mk(i))
	}
	if _, err := s.Insert(all); err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t, s)
	mustSync(t, ix)
	next := 60
	var removed []audit.Action
	for step := range 40 {
		var what string
		switch op := rng.IntN(7); op {
		case 0, 1:
			e := mk(next)
			next++
			all = append(all, e)
			if _, err := s.Insert([]knowledge.Entry{e}); err != nil {
				t.Fatal(err)
			}
			what = "insert"
		case 2, 3: // retract, supersede, re-anchor, un-anchor
			e := all[rng.IntN(len(all))]
			e.TS += int64(1000 + step)
			switch rng.IntN(4) {
			case 0:
				e.Status = knowledge.StatusRetracted
			case 1:
				e.Status = knowledge.StatusSuperseded
			case 2:
				e.Files = []string{files[rng.IntN(len(files))]}
			default:
				e.Files = nil
			}
			if err := s.InsertLines([][]byte{mkLine(e)}); err != nil {
				t.Fatal(err)
			}
			what = "change " + e.Key
		case 4:
			if _, err := s.Rotate(len(all) - 5); err != nil {
				t.Fatal(err)
			}
			what = "rotate"
		case 5: // sanitize removes an entry, or restores one
			if len(removed) > 0 && rng.IntN(2) == 0 {
				removed = removed[1:]
			} else {
				e := all[rng.IntN(len(all))]
				removed = append(removed, audit.Action{Action: audit.ActNoise, Key: e.Key, TS: e.TS, Effect: audit.EffectRemoved, Reason: "noise"})
			}
			writeAudit(t, s, removed...)
			what = "verdicts"
		case 6:
			writeLog(t, s, readLog(t, s))
			what = "touched"
		}
		full := ix.fullMaps
		res := mustSync(t, ix)
		got := readMap(t, s)
		id, err := anchor.Identity(s.Root())
		if err != nil || got.Sources != id {
			t.Fatalf("step %d (%s): map records %q, the log is %q (%v)", step, what, got.Sources, id, err)
		}
		if want := fullMap(t, ix, id); !reflect.DeepEqual(sortedKeys(got), sortedKeys(want)) {
			t.Fatalf("step %d (%s): map\n%v\nfull build\n%v", step, what, got, want)
		}
		if !res.Rebuilt && ix.fullMaps != full {
			t.Fatalf("step %d (%s): the map was built in full after a sync %+v", step, what, res)
		}
	}
	if _, ok := readMap(t, s).Files["./a.go"]; ok {
		t.Error(`"./a.go" is a key of the map: anchors are cleaned`)
	}
}

// A rebuild (sync --full) builds the map in full, even one that records
// the log's identity.
func TestRebuildWritesMapInFull(t *testing.T) {
	s := newStore(t)
	if _, err := s.Insert([]knowledge.Entry{entry("learned", "the a.go retry", "a.go")}); err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t, s)
	mustSync(t, ix)
	data, err := s.Root().ReadFile(anchor.File, anchor.MaxBytes)
	if err != nil {
		t.Fatal(err)
	}
	// A map that claims to be current but lies.
	if err := s.Root().ReplaceFile(anchor.File, bytes.Replace(data, []byte("f a.go"), []byte("f b.go"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Rebuild(); err != nil {
		t.Fatal(err)
	}
	if m := readMap(t, s); len(m.Files["a.go"]) != 1 || len(m.Files["b.go"]) != 0 {
		t.Errorf("after a rebuild: %v", m.Files)
	}
}

// hostileLog writes a log of n notes all anchored to one file.
func hostileLog(t testing.TB, s *knowledge.Store, n int) {
	t.Helper()
	lines := make([][]byte, n)
	for i := range lines {
		e := knowledge.Entry{Type: "learned", Content: fmt.Sprintf("note %d on the hot file", i), TS: 1_700_000_000 + int64(i), Files: []string{"hot.go"}}
		e.Key = knowledge.MakeKey(e.Type, e.Content)
		lines[i] = mkLine(e)
	}
	knowledge.SortLines(lines)
	writeLog(t, s, join(lines))
}

// More notes on one path than SQLite binds in one statement (32,766)
// still come: Entries reads the first maxEntries of the path's keys,
// newest first, a few hundred to a statement; and a change of the log
// updates the map by its lines, not in full.
func TestManyNotesOnOnePath(t *testing.T) {
	n := 33_000
	s := newStore(t)
	hostileLog(t, s, n)
	ix := openIndex(t, s)
	mustSync(t, ix)
	data, err := s.Root().ReadFile(anchor.File, anchor.MaxBytes)
	if err != nil {
		t.Fatal(err)
	}
	hits := anchor.Lookup(data, []string{"hot.go"}, "")
	if len(hits) != 1 || len(hits[0].Keys) != n {
		t.Fatalf("the map holds %d hits (%d keys), want all %d notes", len(hits), len(hits[0].Keys), n)
	}
	got, err := ix.Entries(hits[0].Keys)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != maxEntries || got[0].TS != 1_700_000_000+int64(n-1) {
		t.Errorf("Entries gave %d entries (first ts %d), want the newest %d", len(got), got[0].TS, maxEntries)
	}

	full := ix.fullMaps
	e := knowledge.Entry{Type: "learned", Content: "one more on the hot file", TS: 1_800_000_000, Files: []string{"hot.go"}}
	e.Key = knowledge.MakeKey(e.Type, e.Content)
	if _, err := s.Insert([]knowledge.Entry{e}); err != nil {
		t.Fatal(err)
	}
	mustSync(t, ix)
	if ix.fullMaps != full {
		t.Error("a change of the log built the map in full")
	}
	m := readMap(t, s)
	if keys := m.Files["hot.go"]; len(keys) != n+1 || keys[0] != knowledge.MakeKey(e.Type, e.Content) {
		t.Errorf("after an insert the line holds %d keys, first %q", len(keys), keys[0])
	}
}

// BenchmarkHostileToolCall is a tool call on the file of a hostile log
// of 150k notes right after the log changed: the hook's sync (one line
// added: the map updated by its line) and the lookup of the file's notes.
func BenchmarkHostileToolCall(b *testing.B) {
	s := newStore(b)
	hostileLog(b, s, 150_000)
	ix, _, err := OpenSynced(s)
	if err != nil {
		b.Fatal(err)
	}
	ix.Close()
	i := 0
	for b.Loop() {
		b.StopTimer()
		e := knowledge.Entry{Type: "learned", Content: fmt.Sprintf("bench note %d", i), TS: 1_800_000_000 + int64(i), Files: []string{"hot.go"}}
		e.Key = knowledge.MakeKey(e.Type, e.Content)
		i++
		if _, err := s.Insert([]knowledge.Entry{e}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		ix, err := OpenSyncedForHook(s)
		if err != nil {
			b.Fatal(err)
		}
		data, err := s.Root().ReadFile(anchor.File, anchor.MaxBytes)
		if err != nil {
			b.Fatal(err)
		}
		hits := anchor.Lookup(data, []string{"hot.go"}, "")
		if len(hits) != 1 {
			b.Fatal("no hit")
		}
		if _, err := ix.Entries(hits[0].Keys); err != nil {
			b.Fatal(err)
		}
		ix.Close()
	}
}
