package index

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/anchor"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/relevance"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/synthlog"
)

// ---- helpers ----

// The synthetic log of the cache's tests and benchmarks (see synthlog).
var (
	uniqWord   = synthlog.UniqWord
	vocab      = synthlog.Vocab
	topics     = synthlog.Topics
	synthEntry = synthlog.Entry
	synthLog   = synthlog.Log
)

func join(lines [][]byte) []byte {
	if len(lines) == 0 {
		return nil
	}
	return append(bytes.Join(lines, []byte("\n")), '\n')
}

func newStore(t testing.TB) *knowledge.Store {
	t.Helper()
	s := knowledge.Open(t.TempDir())
	if err := s.Provision(); err != nil {
		t.Fatal(err)
	}
	return s
}

// writeLog replaces the log atomically, as every cairn writer does.
func writeLog(t testing.TB, s *knowledge.Store, data []byte) {
	t.Helper()
	if err := s.Root().WriteAtomic(knowledge.LogName, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readLog(t testing.TB, s *knowledge.Store) []byte {
	t.Helper()
	data, err := s.ReadLog()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func openIndex(t testing.TB, s *knowledge.Store) *Index {
	t.Helper()
	ix, err := Open(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

func mustSync(t testing.TB, ix *Index) SyncResult {
	t.Helper()
	res, err := ix.Sync()
	if err != nil {
		t.Fatalf("sync: %v", err)
	}
	return res
}

// testQuery is what the cache's tests ask of it: a listing newest first,
// or the matches of a text's terms, best BM25 first or newest first.
type testQuery struct {
	Text, Type    string
	All, Inactive bool
	NewestFirst   bool
	Limit         int // 10 when 0
	Narrow        Narrow
}

// testWeights weigh the columns as a ranking would: content above tags.
// (Ranking's own are package rank's knobs.)
var testWeights = Weights{Content: 10, Tags: 5, Type: 2, Idents: 4}

// searchErr answers q from the cache's candidates alone, unranked by any
// prior (package rank ranks them), with testWeights.
func searchErr(ix *Index, q testQuery) ([]Candidate, error) {
	if q.Limit == 0 {
		q.Limit = 10
	}
	f := Filter{Type: q.Type, All: q.All, Inactive: q.Inactive, Narrow: q.Narrow, Weights: testWeights}
	terms := relevance.Terms(q.Text)
	if q.Text != "" && len(terms) == 0 {
		return nil, nil
	}
	var out []Candidate
	err := ix.Read(func() error {
		var err error
		out = nil
		if q.Text == "" || q.NewestFirst {
			out, err = ix.Newest(terms, f, 0, q.Limit)
			return err
		}
		return ix.Matches(terms, f, q.Limit, q.Limit, func(float64) bool { return len(out) < q.Limit },
			func(c Candidate) { out = append(out, c) })
	})
	return out, err
}

func search(t testing.TB, ix *Index, q testQuery) []Candidate {
	t.Helper()
	hits, err := searchErr(ix, q)
	if err != nil {
		t.Fatalf("search %+v: %v", q, err)
	}
	return hits
}

func hitKeys(hits []Candidate) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Entry.Key)
	}
	return out
}

// snapshot is everything observable about a cache: every entry (active or
// not, log or archive, newest first), the statistics, and the results of a
// few text queries with their scores.
type snapshot struct {
	Entries  []string
	Stats    Stats
	StatsAll Stats
	Queries  map[string][]string
}

var probeQueries = []string{"cache token", "merge conflict", "zqbbbb", "decision"}

func takeSnapshot(t testing.TB, ix *Index) snapshot {
	t.Helper()
	var sn snapshot
	for _, h := range search(t, ix, testQuery{All: true, Inactive: true, Limit: 1 << 30}) {
		e := h.Entry
		sn.Entries = append(sn.Entries, fmt.Sprintf("%s|%d|%s|%s|%q|%q|%v|archived=%v", e.Key, e.TS, e.Type, e.Status, e.Content, e.Tags, e.Author, h.Archived))
	}
	var err error
	if sn.Stats, err = ix.Stats(false); err != nil {
		t.Fatal(err)
	}
	if sn.StatsAll, err = ix.Stats(true); err != nil {
		t.Fatal(err)
	}
	sn.Queries = map[string][]string{}
	for _, q := range probeQueries {
		for _, all := range []bool{false, true} {
			hits := search(t, ix, testQuery{Text: q, All: all, Limit: 1 << 30})
			var rows []string
			for _, h := range hits {
				// Scores rounded: the same data gives the same bm25.
				rows = append(rows, fmt.Sprintf("%s %.6g", h.Entry.Key, h.BM25))
			}
			sort.Strings(rows)
			sn.Queries[fmt.Sprintf("%s all=%v", q, all)] = rows
		}
	}
	return sn
}

// reference builds a fresh cache from copies of s's log and archive and
// returns its snapshot.
func reference(t testing.TB, s *knowledge.Store) snapshot {
	t.Helper()
	ref := knowledge.Open(t.TempDir())
	if err := os.MkdirAll(ref.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for src, dst := range map[string]string{s.LogPath(): ref.LogPath(), s.ArchivePath(): ref.ArchivePath()} {
		data, err := os.ReadFile(src)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ix, err := Open(ref)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	res, err := ix.Rebuild()
	if err != nil || !res.Rebuilt {
		t.Fatalf("reference rebuild: %+v, %v", res, err)
	}
	return takeSnapshot(t, ix)
}

func checkSame(t testing.TB, what string, got, want snapshot) {
	t.Helper()
	if reflect.DeepEqual(got, want) {
		return
	}
	if !reflect.DeepEqual(got.Entries, want.Entries) {
		t.Errorf("%s: entries differ from a full rebuild (%d vs %d)\n%s", what, len(got.Entries), len(want.Entries), diffLines(got.Entries, want.Entries))
	}
	if !reflect.DeepEqual(got.Stats, want.Stats) {
		t.Errorf("%s: stats differ from a full rebuild:\n got %+v\nwant %+v", what, got.Stats, want.Stats)
	}
	if !reflect.DeepEqual(got.StatsAll, want.StatsAll) {
		t.Errorf("%s: stats(all) differ from a full rebuild:\n got %+v\nwant %+v", what, got.StatsAll, want.StatsAll)
	}
	for q := range want.Queries {
		if !reflect.DeepEqual(got.Queries[q], want.Queries[q]) {
			t.Errorf("%s: query %q differs from a full rebuild:\n%s", what, q, diffLines(got.Queries[q], want.Queries[q]))
		}
	}
	t.FailNow()
}

func diffLines(got, want []string) string {
	g, w := map[string]bool{}, map[string]bool{}
	for _, s := range got {
		g[s] = true
	}
	for _, s := range want {
		w[s] = true
	}
	var b strings.Builder
	n := 0
	for _, s := range got {
		if !w[s] && n < 8 {
			fmt.Fprintf(&b, "  only in sync:    %s\n", s)
			n++
		}
	}
	for _, s := range want {
		if !g[s] && n < 16 {
			fmt.Fprintf(&b, "  only in rebuild: %s\n", s)
			n++
		}
	}
	if n == 0 {
		b.WriteString("  (same lines, other order)\n")
	}
	return b.String()
}

func mkLine(e knowledge.Entry) []byte {
	b, err := knowledge.Marshal(&e)
	if err != nil {
		panic(err)
	}
	return b
}

// ---- Sync ----

func TestSyncIncrementalEqualsRebuild(t *testing.T) {
	s := newStore(t)
	writeLog(t, s, join(synthLog(0, 300, 1)))
	ix := openIndex(t, s)
	res := mustSync(t, ix)
	if !res.Rebuilt || res.Entries != 300 || res.Added != 300 {
		t.Fatalf("first sync = %+v, want a rebuild of 300", res)
	}
	if res := mustSync(t, ix); !res.Current || res.Rebuilt || res.Added != 0 {
		t.Fatalf("second sync = %+v, want current", res)
	}
	if st, _ := ix.Stats(false); st.Total != 300 {
		t.Fatalf("stats total %d", st.Total)
	}

	// 20 entries added by the ordinary writer.
	rng := rand.New(rand.NewPCG(9, 9))
	var added []knowledge.Entry
	for i := 300; i < 320; i++ {
		added = append(added, synthEntry(rng, i))
	}
	if r, err := s.Insert(added); err != nil || len(r.Added) != 20 {
		t.Fatalf("insert: %+v, %v", r, err)
	}
	res = mustSync(t, ix)
	if res.Rebuilt || res.Current || res.Added != 20 || res.Removed != 0 || res.Entries != 320 {
		t.Fatalf("sync after adding 20 = %+v, want incremental +20", res)
	}
	checkSame(t, "after adding 20", takeSnapshot(t, ix), reference(t, s))
	for _, i := range []int{300, 311, 319} {
		hits := search(t, ix, testQuery{Text: uniqWord(i)})
		if len(hits) != 1 || hits[0].Entry.Key != added[i-300].Key {
			t.Errorf("search %s = %v, want %s", uniqWord(i), hitKeys(hits), added[i-300].Key)
		}
	}

	// 10 lines removed (a revert, a hand edit).
	lines, _ := knowledge.Lines(readLog(t, s))
	var kept [][]byte
	var gone []string
	for i, l := range lines {
		if i%31 == 5 && len(gone) < 10 {
			var e knowledge.Entry
			json.Unmarshal(l, &e)
			gone = append(gone, e.Key)
			continue
		}
		kept = append(kept, l)
	}
	writeLog(t, s, join(kept))
	res = mustSync(t, ix)
	if res.Rebuilt || res.Removed != len(gone) || res.Added != 0 || res.Entries != 320-len(gone) {
		t.Fatalf("sync after removing %d = %+v", len(gone), res)
	}
	checkSame(t, "after removing lines", takeSnapshot(t, ix), reference(t, s))
	all := search(t, ix, testQuery{All: true, Inactive: true, Limit: 1000})
	for _, h := range all {
		if slices.Contains(gone, h.Entry.Key) {
			t.Errorf("removed entry %s still in the cache", h.Entry.Key)
		}
	}
}

// TestSyncRandomHistoryEqualsRebuild applies a random history of the
// changes a log goes through — captures, merges, union duplicates,
// curation lines, rotation, damage and repairs — and after every step
// checks that the incrementally synced cache equals a full rebuild.
func TestSyncRandomHistoryEqualsRebuild(t *testing.T) {
	steps := 40
	if testing.Short() {
		steps = 15
	}
	randomHistory(t, 42, steps)
}

func randomHistory(t *testing.T, seed uint64, steps int) {
	s := newStore(t)
	writeLog(t, s, join(synthLog(0, 200, 2)))
	ix := openIndex(t, s)
	mustSync(t, ix)
	rng := rand.New(rand.NewPCG(seed, 7))
	next := 200
	incremental := 0
	for step := range steps {
		lines, _ := knowledge.Lines(readLog(t, s))
		var nonBlank [][]byte
		for _, l := range lines {
			if len(bytes.TrimSpace(l)) > 0 {
				nonBlank = append(nonBlank, l)
			}
		}
		pick := func() []byte { return nonBlank[rng.IntN(len(nonBlank))] }
		decode := func(l []byte) (knowledge.Entry, bool) {
			var e knowledge.Entry
			err := json.Unmarshal(l, &e)
			return e, err == nil && e.Key != "" && e.TS > 0 && knowledge.ValidType(e.Type)
		}
		op := rng.IntN(13)
		var what string
		switch op {
		case 0, 1: // capture a few entries
			n := 1 + rng.IntN(8)
			var es []knowledge.Entry
			for range n {
				es = append(es, synthEntry(rng, next))
				next++
			}
			if _, err := s.Insert(es); err != nil {
				t.Fatal(err)
			}
			what = fmt.Sprintf("insert %d", n)
		case 2: // lines removed
			n := 1 + rng.IntN(6)
			var kept [][]byte
			for i, l := range lines {
				if i%max(1, len(lines)/n) == 3 {
					continue
				}
				kept = append(kept, l)
			}
			writeLog(t, s, join(kept))
			what = "remove lines"
		case 3: // a union merge duplicates a line
			l := pick()
			writeLog(t, s, append(readLog(t, s), append(slices.Clone(l), '\n')...))
			what = "duplicate line"
		case 4, 5: // curation: retract, supersede, review, restore
			e, ok := decode(pick())
			if !ok {
				continue
			}
			e.TS += int64(1 + rng.IntN(1000))
			e.Status = []string{knowledge.StatusRetracted, knowledge.StatusSuperseded, knowledge.StatusNeedsReview, knowledge.StatusCanonical, ""}[rng.IntN(5)]
			if err := s.InsertLines([][]byte{mkLine(e)}); err != nil {
				t.Fatal(err)
			}
			what = "curation " + e.Status
		case 6: // an older or same-ts line of an existing key
			e, ok := decode(pick())
			if !ok {
				continue
			}
			e.TS -= int64(rng.IntN(2))
			e.Content += " (variant)"
			if err := s.InsertLines([][]byte{mkLine(e)}); err != nil {
				t.Fatal(err)
			}
			what = "older/tied version"
		case 7: // damage: an invalid line, a conflict marker
			junk := []string{"not json", "<<<<<<< HEAD", "=======", `{"key":"x","type":"fact"}`, `{"key":`}[rng.IntN(5)]
			data := readLog(t, s)
			i := bytes.IndexByte(data[len(data)/2:], '\n') + len(data)/2 + 1
			writeLog(t, s, append(append(append([]byte{}, data[:i]...), junk+"\n"...), data[i:]...))
			what = "junk line " + junk
		case 8: // glue two lines together
			if len(lines) < 3 {
				continue
			}
			i := rng.IntN(len(lines) - 1)
			glued := slices.Clone(lines)
			glued[i] = append(slices.Clone(glued[i]), glued[i+1]...)
			glued = slices.Delete(glued, i+1, i+2)
			writeLog(t, s, join(glued))
			what = "glue lines"
		case 9: // double-encode a line, or repair all of them
			enc := slices.Clone(lines)
			i := rng.IntN(len(enc))
			b, _ := json.Marshal(string(enc[i]))
			enc[i] = b
			writeLog(t, s, join(enc))
			what = "double-encode"
		case 10: // rotation
			res, err := s.Rotate(len(nonBlank) - 1 - rng.IntN(len(nonBlank)/4+1))
			if err != nil {
				t.Fatal(err)
			}
			what = fmt.Sprintf("rotate %+v", res)
		case 11: // torn end
			data := readLog(t, s)
			extra := mkLine(synthEntry(rng, next))
			next++
			writeLog(t, s, append(data, extra[:len(extra)/2]...))
			what = "torn end"
		case 12: // repair: drop every line the reader cannot read
			var good [][]byte
			for _, l := range lines {
				if _, ok := decode(l); ok && json.Valid(l) {
					good = append(good, l)
				}
			}
			writeLog(t, s, join(good))
			what = "repair"
		}
		res := mustSync(t, ix)
		if !res.Rebuilt && !res.Current {
			incremental++
		}
		checkSame(t, fmt.Sprintf("step %d (%s, sync %+v)", step, what, res), takeSnapshot(t, ix), reference(t, s))
	}
	if incremental < steps/3 {
		t.Errorf("only %d of %d steps synced incrementally", incremental, steps)
	}
}

// TestSyncTornLineLabel: a torn last line that a later write completes with
// a newline (a union merge appending after it) is an invalid line like any
// other; an incremental sync must label it as a rebuild does.
func TestSyncTornLineLabel(t *testing.T) {
	s := newStore(t)
	lines := synthLog(0, 40, 12)
	torn := `{"type":"fact","content":"half a li`
	writeLog(t, s, append(join(lines), torn...))
	ix := openIndex(t, s)
	mustSync(t, ix)
	if st, _ := ix.Stats(true); st.Problems[knowledge.ProblemTornLine] != 1 {
		t.Fatalf("problems = %v", st.Problems)
	}
	more := synthLog(40, 41, 12)
	writeLog(t, s, append(append(join(lines), torn+"\n"...), join(more)...))
	// The completed line replaces the torn one (a different line now).
	if res := mustSync(t, ix); res.Rebuilt || res.Added < 1 {
		t.Fatalf("sync = %+v", res)
	}
	checkSame(t, "torn line completed", takeSnapshot(t, ix), reference(t, s))
}

func TestSyncAfterRotate(t *testing.T) {
	for _, tc := range []struct {
		n, max int
	}{
		{100, 99}, // half the log moves: small enough to catch up incrementally
		{400, 100},
	} {
		t.Run(fmt.Sprintf("n=%d,max=%d", tc.n, tc.max), func(t *testing.T) {
			s := newStore(t)
			writeLog(t, s, join(synthLog(0, tc.n, 3)))
			ix := openIndex(t, s)
			mustSync(t, ix)
			rot, err := s.Rotate(tc.max)
			if err != nil || rot.Archived == 0 {
				t.Fatalf("rotate = %+v, %v", rot, err)
			}
			res := mustSync(t, ix)
			if res.Current || res.Entries != tc.n {
				t.Fatalf("sync after rotate = %+v, want all %d entries", res, tc.n)
			}
			if tc.n == 100 && res.Rebuilt {
				t.Errorf("rotation of 51 of 100 lines rebuilt the cache: %+v", res)
			}
			st, _ := ix.Stats(false)
			all, _ := ix.Stats(true)
			if all.Total != tc.n || st.Total != rot.Kept || all.Archived != rot.Archived || st.Archived != rot.Archived {
				t.Errorf("stats after rotate: log %+v all %+v; rotate %+v", st, all, rot)
			}
			checkSame(t, "after rotate", takeSnapshot(t, ix), reference(t, s))

			// An archived entry is found with All, and only with All.
			arch, _ := os.ReadFile(s.ArchivePath())
			alines, _ := knowledge.Lines(arch)
			var e knowledge.Entry
			json.Unmarshal(alines[0], &e)
			word := strings.Fields(e.Content)[0]
			if hits := search(t, ix, testQuery{Text: word}); len(hits) != 0 {
				t.Errorf("archived entry found without All: %v", hitKeys(hits))
			}
			hits := search(t, ix, testQuery{Text: word, All: true})
			if len(hits) != 1 || hits[0].Entry.Key != e.Key || !hits[0].Archived {
				t.Errorf("archived entry with All = %+v", hits)
			}
			if n := len(search(t, ix, testQuery{Limit: 1 << 20})); n != rot.Kept {
				t.Errorf("listing without All = %d entries, want %d", n, rot.Kept)
			}
			if n := len(search(t, ix, testQuery{All: true, Limit: 1 << 20})); n != tc.n {
				t.Errorf("listing with All = %d entries, want %d", n, tc.n)
			}
		})
	}
}

func TestSyncTouchedButUnchanged(t *testing.T) {
	s := newStore(t)
	data := join(synthLog(0, 50, 4))
	writeLog(t, s, data)
	ix := openIndex(t, s)
	mustSync(t, ix)
	before := takeSnapshot(t, ix)

	future := time.Now().Add(time.Hour)
	if err := os.Chtimes(s.LogPath(), future, future); err != nil {
		t.Fatal(err)
	}
	if res := mustSync(t, ix); !res.Current || res.Rebuilt || res.Added+res.Removed != 0 {
		t.Errorf("sync after touch = %+v, want current", res)
	}
	// Rewritten with the same bytes (a checkout): still current.
	writeLog(t, s, data)
	if res := mustSync(t, ix); !res.Current || res.Rebuilt {
		t.Errorf("sync after same-bytes rewrite = %+v, want current", res)
	}
	// An archive that appears empty changes nothing either.
	if err := os.WriteFile(s.ArchivePath(), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if res := mustSync(t, ix); !res.Current || res.Rebuilt {
		t.Errorf("sync after an empty archive appeared = %+v, want current", res)
	}
	if res := mustSync(t, ix); !res.Current {
		t.Errorf("sync again = %+v", res)
	}
	checkSame(t, "after touches", takeSnapshot(t, ix), before)
}

func TestSyncRebuildsDeletedCache(t *testing.T) {
	s := newStore(t)
	writeLog(t, s, join(synthLog(0, 80, 5)))
	ix, err := Open(s)
	if err != nil {
		t.Fatal(err)
	}
	mustSync(t, ix)
	want := takeSnapshot(t, ix)
	ix.Close()
	if err := os.RemoveAll(s.CachePath()); err != nil {
		t.Fatal(err)
	}
	ix = openIndex(t, s)
	res := mustSync(t, ix)
	if !res.Rebuilt || res.Entries != 80 {
		t.Fatalf("sync after deleting the cache = %+v, want a rebuild", res)
	}
	checkSame(t, "rebuilt cache", takeSnapshot(t, ix), want)
	if _, err := os.Stat(Path(s)); err != nil {
		t.Errorf("no cache file after the rebuild: %v", err)
	}
	ents, _ := os.ReadDir(s.CachePath())
	for _, e := range ents {
		if strings.Contains(e.Name(), ".build-") {
			t.Errorf("build leftover in the cache dir: %s", e.Name())
		}
	}
}

func TestCorruptCacheRebuilt(t *testing.T) {
	s := newStore(t)
	writeLog(t, s, join(synthLog(0, 120, 6)))
	ix, err := Open(s)
	if err != nil {
		t.Fatal(err)
	}
	mustSync(t, ix)
	want := takeSnapshot(t, ix)
	ix.Close()
	good, err := os.ReadFile(Path(s))
	if err != nil {
		t.Fatal(err)
	}
	garbage := bytes.Repeat([]byte("this is not an sqlite database \x00\xff"), 4096)
	for name, corrupt := range map[string][]byte{
		"garbage":        garbage,
		"empty":          {},
		"truncated":      good[:len(good)/3],
		"header only":    good[:100],
		"garbage header": append(slices.Clone(garbage[:4096]), good[4096:]...),
		// Header and size intact, pages in the middle overwritten.
		"garbage in the middle": func() []byte {
			b := slices.Clone(good)
			copy(b[len(b)/2:len(b)*3/4], garbage)
			return b
		}(),
	} {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(Path(s), corrupt, 0o644); err != nil {
				t.Fatal(err)
			}
			ix, err := Open(s)
			if err != nil {
				t.Fatalf("Open of a corrupt cache: %v", err)
			}
			defer ix.Close()
			res, err := ix.Sync()
			if err != nil {
				t.Fatalf("Sync of a corrupt cache: %v", err)
			}
			// Damage inside pages is invisible until a query reads
			// them (an integrity check on every sync would cost O(n));
			// Search then rebuilds, so the results must still be right.
			if !res.Rebuilt && name != "garbage in the middle" {
				t.Errorf("corrupt cache not rebuilt: %+v", res)
			}
			checkSame(t, "rebuilt from "+name, takeSnapshot(t, ix), want)
		})
	}
	t.Run("other schema version", func(t *testing.T) {
		if err := os.WriteFile(Path(s), good, 0o644); err != nil {
			t.Fatal(err)
		}
		db, err := sql.Open("sqlite", Path(s))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`UPDATE meta SET v='0' WHERE k='schema'`); err != nil {
			t.Fatal(err)
		}
		db.Close()
		ix := openIndex(t, s)
		if res := mustSync(t, ix); !res.Rebuilt {
			t.Errorf("cache of another schema version not rebuilt: %+v", res)
		}
		checkSame(t, "rebuilt from another schema", takeSnapshot(t, ix), want)
	})
}

// ---- search semantics ----

func TestLatestLineWinsAndRetractionHides(t *testing.T) {
	s := newStore(t)
	writeLog(t, s, join(synthLog(0, 30, 7)))
	e := knowledge.Entry{Key: "fact-zebra-crossing-abc123", Type: "fact", Content: "The zebra crossing handler must debounce clicks", TS: 1000, Tags: []string{"ui"}}
	if _, err := s.Insert([]knowledge.Entry{e}); err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t, s)
	mustSync(t, ix)
	if hits := search(t, ix, testQuery{Text: "zebra"}); len(hits) != 1 || hits[0].Entry.Key != e.Key {
		t.Fatalf("before retraction: %v", hitKeys(hits))
	}
	// A later line of another status leaves the entry found, with it.
	review := e
	review.TS, review.Status = 1500, knowledge.StatusNeedsReview
	if err := s.InsertLines([][]byte{mkLine(review)}); err != nil {
		t.Fatal(err)
	}
	mustSync(t, ix)
	if hits := search(t, ix, testQuery{Text: "zebra"}); len(hits) != 1 || hits[0].Entry.Status != knowledge.StatusNeedsReview {
		t.Fatalf("after a needs_review line: %+v", hits)
	}
	// A retraction hides it.
	ret := e
	ret.TS, ret.Status, ret.ReviewReason = 2000, knowledge.StatusRetracted, "wrong"
	if err := s.InsertLines([][]byte{mkLine(ret)}); err != nil {
		t.Fatal(err)
	}
	res := mustSync(t, ix)
	if res.Rebuilt || res.Added != 1 {
		t.Errorf("sync of one retraction = %+v", res)
	}
	if hits := search(t, ix, testQuery{Text: "zebra"}); len(hits) != 0 {
		t.Errorf("retracted entry still found: %+v", hits)
	}
	for _, h := range search(t, ix, testQuery{Limit: 1000}) {
		if h.Entry.Key == e.Key {
			t.Error("retracted entry in the listing")
		}
	}
	hits := search(t, ix, testQuery{Text: "zebra", Inactive: true})
	if len(hits) != 1 || hits[0].Entry.Status != knowledge.StatusRetracted || hits[0].Entry.TS != 2000 || hits[0].Entry.ReviewReason != "wrong" {
		t.Errorf("with Inactive = %+v", hits)
	}
	st, _ := ix.Stats(false)
	if st.ByStatus[knowledge.StatusRetracted] != 1 || st.Total != 31 {
		t.Errorf("stats = %+v", st)
	}
	// A retraction is final: no later line of the key, of any status,
	// brings the entry back (a merge may add one from another branch).
	for _, status := range []string{"", knowledge.StatusCanonical, knowledge.StatusNeedsReview} {
		later := e
		later.TS, later.Status = ret.TS+10, status
		ret.TS += 10
		if err := s.InsertLines([][]byte{mkLine(later)}); err != nil {
			t.Fatal(err)
		}
		mustSync(t, ix)
		if hits := search(t, ix, testQuery{Text: "zebra"}); len(hits) != 0 {
			t.Errorf("a later %q line revived a retracted entry: %+v", status, hits)
		}
	}
	// Superseded is hidden the same way, but a later canonical line
	// restores it.
	f := knowledge.Entry{Key: "fact-yak-shaving-def456", Type: "fact", Content: "Yak shaving scripts live in tools/yak", TS: 1000}
	for _, tc := range []struct {
		status string
		found  bool
	}{{"", true}, {knowledge.StatusSuperseded, false}, {knowledge.StatusCanonical, true}, {knowledge.StatusNeedsReview, true}} {
		f.TS++
		f.Status = tc.status
		if err := s.InsertLines([][]byte{mkLine(f)}); err != nil {
			t.Fatal(err)
		}
		mustSync(t, ix)
		if hits := search(t, ix, testQuery{Text: "yak"}); (len(hits) == 1) != tc.found {
			t.Errorf("status %q: found %v, want %v", tc.status, len(hits) == 1, tc.found)
		}
	}
	checkSame(t, "after curation", takeSnapshot(t, ix), reference(t, s))
}

func TestPorterStemming(t *testing.T) {
	s := newStore(t)
	es := []knowledge.Entry{
		{Key: "k-auth", Type: "learned", Content: "Authentication tokens expire after an hour", TS: 10},
		{Key: "k-run", Type: "fact", Content: "The runner retries flaky connections", TS: 11},
		{Key: "k-other", Type: "fact", Content: "Nothing related at all here", TS: 12},
	}
	if _, err := s.Insert(es); err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t, s)
	mustSync(t, ix)
	for q, want := range map[string]string{
		"authenticate":     "k-auth",
		"authenticating":   "k-auth",
		"AUTHENTICATED":    "k-auth",
		"token":            "k-auth",
		"expiring":         "k-auth",
		"retry":            "k-run",
		"connection":       "k-run",
		"connected":        "k-run",
		"authentications?": "k-auth",
	} {
		hits := search(t, ix, testQuery{Text: q})
		if len(hits) != 1 || hits[0].Entry.Key != want {
			t.Errorf("search %q = %v, want [%s]", q, hitKeys(hits), want)
		}
	}
}

func TestRankingContentAboveTags(t *testing.T) {
	s := newStore(t)
	var es []knowledge.Entry
	// Filler so that the term is rare.
	rng := rand.New(rand.NewPCG(11, 11))
	for i := range 40 {
		es = append(es, synthEntry(rng, i))
	}
	inContent := knowledge.Entry{Key: "k-content", Type: "fact", TS: 100,
		Content: "Handshake failures come from the zanzibar proxy rewriting the upstream certificate chain before the gateway sees it"}
	inTags := knowledge.Entry{Key: "k-tags", Type: "fact", TS: 200, Tags: []string{"zanzibar"},
		Content: "Handshake failures come from a proxy rewriting the upstream certificate chain before the gateway sees it"}
	es = append(es, inTags, inContent)
	if _, err := s.Insert(es); err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t, s)
	mustSync(t, ix)
	hits := search(t, ix, testQuery{Text: "zanzibar"})
	if got := hitKeys(hits); !reflect.DeepEqual(got, []string{"k-content", "k-tags"}) {
		t.Fatalf("ranking = %v, want content match above tag match", got)
	}
	if !(hits[0].BM25 > hits[1].BM25 && hits[1].BM25 > 0) {
		t.Errorf("scores %v, %v: want positive and decreasing", hits[0].BM25, hits[1].BM25)
	}
	// Several terms: an entry matching more of them ranks first.
	hits = search(t, ix, testQuery{Text: "zanzibar handshake certificate"})
	if len(hits) < 2 || hits[0].Entry.Key != "k-content" {
		t.Errorf("multi-term ranking = %v", hitKeys(hits))
	}
	for i := 1; i < len(hits); i++ {
		if hits[i].BM25 > hits[i-1].BM25 {
			t.Errorf("hits not best first: %v then %v", hits[i-1].BM25, hits[i].BM25)
		}
	}
	// NewestFirst orders the same matches by ts.
	hits = search(t, ix, testQuery{Text: "zanzibar", NewestFirst: true})
	if got := hitKeys(hits); !reflect.DeepEqual(got, []string{"k-tags", "k-content"}) {
		t.Errorf("newest first = %v", got)
	}
}

func TestSearchFilters(t *testing.T) {
	s := newStore(t)
	es := []knowledge.Entry{
		{Key: "a", Type: "fact", Content: "gopher facts about channels", TS: 1, Author: "Ana"},
		{Key: "b", Type: "decision", Content: "gopher decision about channels", TS: 2},
		{Key: "c", Type: "must-check", Content: "gopher must check the channels", TS: 3, Author: "Bo"},
		{Key: "d", Type: "fact", Content: "unrelated content entirely", TS: 4, Tags: []string{"misc"}},
	}
	if _, err := s.Insert(es); err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t, s)
	mustSync(t, ix)
	if got := hitKeys(search(t, ix, testQuery{Text: "gopher", Type: "fact"})); !reflect.DeepEqual(got, []string{"a"}) {
		t.Errorf("type filter = %v", got)
	}
	if got := hitKeys(search(t, ix, testQuery{Type: "must-check", NewestFirst: true, Limit: 50})); !reflect.DeepEqual(got, []string{"c"}) {
		t.Errorf("type listing = %v", got)
	}
	if got := search(t, ix, testQuery{Text: "gopher", Limit: 2}); len(got) != 2 {
		t.Errorf("limit 2 gave %d", len(got))
	}
	if got := hitKeys(search(t, ix, testQuery{})); !reflect.DeepEqual(got, []string{"d", "c", "b", "a"}) {
		t.Errorf("empty query lists newest first: %v", got)
	}
	for _, h := range search(t, ix, testQuery{}) {
		if h.BM25 != 0 {
			t.Errorf("listing score %v", h.BM25)
		}
	}
	for _, q := range []string{"the of and", "a", "!!! ??? ---", `"`, "*"} {
		if got := search(t, ix, testQuery{Text: q}); len(got) != 0 {
			t.Errorf("query %q without usable terms found %v", q, hitKeys(got))
		}
	}
	// Query syntax is text, not FTS5 syntax.
	for _, q := range []string{`gopher OR`, `gopher AND NOT channels`, `tags:gopher`, `NEAR(gopher channels)`, `"gopher`, `gopher*`, `-gopher`, `^gopher`} {
		if got := search(t, ix, testQuery{Text: q}); len(got) != 3 {
			t.Errorf("query %q found %v, want the 3 gopher entries", q, hitKeys(got))
		}
	}
	if got := hitKeys(search(t, ix, testQuery{Text: "misc"})); !reflect.DeepEqual(got, []string{"d"}) {
		t.Errorf("tags are searched: %v", got)
	}
	if got := search(t, ix, testQuery{Text: "decision"}); len(got) == 0 || got[0].Entry.Key != "b" {
		t.Errorf("type and content searched: %v", hitKeys(got))
	}
}

func TestStatsAndProblems(t *testing.T) {
	s := newStore(t)
	good := []knowledge.Entry{
		{Key: "s1", Type: "fact", Content: "one", TS: 1763770000, Author: "Ana"},
		{Key: "s2", Type: "fact", Content: "two", TS: 1763770000 + 86400*20, Author: "Ana"},
		{Key: "s3", Type: "learned", Content: "three", TS: 1763770000, Status: knowledge.StatusNeedsReview},
	}
	var lines [][]byte
	for _, e := range good {
		lines = append(lines, mkLine(e))
	}
	dbl, _ := json.Marshal(string(mkLine(knowledge.Entry{Key: "s4", Type: "decision", Content: "four", TS: 5})))
	data := string(join(lines)) + "garbage line\n<<<<<<< HEAD\n" + string(dbl) + "\n" +
		string(mkLine(knowledge.Entry{Key: "s5", Type: "fact", Content: "five", TS: 6})) + string(mkLine(knowledge.Entry{Key: "s6", Type: "fact", Content: "six", TS: 7})) + "\n" +
		`{"key":"s7","type":"fact","content":"torn`
	writeLog(t, s, []byte(data))
	ix := openIndex(t, s)
	res := mustSync(t, ix)
	if res.Entries != 6 || res.Report.Skipped != 3 || res.Report.Repaired != 2 {
		t.Errorf("sync = %+v", res)
	}
	st, err := ix.Stats(false)
	if err != nil {
		t.Fatal(err)
	}
	want := Stats{
		Total:    6,
		ByType:   map[string]int{"fact": 4, "learned": 1, "decision": 1},
		ByStatus: map[string]int{"active": 5, knowledge.StatusNeedsReview: 1},
		ByAuthor: map[string]int{"Ana": 2, "(unknown)": 4},
		ByMonth:  map[string]int{"2025-11": 2, "2025-12": 1, "1970-01": 3},
		Problems: map[string]int{knowledge.ProblemInvalidJSON: 1, knowledge.ProblemConflictMarker: 1, knowledge.ProblemTornLine: 1,
			knowledge.ProblemDoubleEncoded: 1, knowledge.ProblemGluedLines: 1},
	}
	if !reflect.DeepEqual(st, want) {
		t.Errorf("stats =\n %+v\nwant\n %+v", st, want)
	}
}

// A double-encoded line whose entry is invalid is a skipped line: the
// cache's problem counts must say so, as the reader's report does.
func TestStatsDoubleEncodedInvalidEntry(t *testing.T) {
	s := newStore(t)
	bad, _ := json.Marshal(`{"key":"x","type":"fact","content":"no ts"}`)
	writeLog(t, s, append(append(mkLine(knowledge.Entry{Key: "ok", Type: "fact", Content: "fine", TS: 1}), '\n'), append(bad, '\n')...))
	ix := openIndex(t, s)
	res := mustSync(t, ix)
	if res.Report.ByKind[knowledge.ProblemInvalidEntry] != 1 {
		t.Fatalf("reader report = %+v", res.Report)
	}
	st, _ := ix.Stats(true)
	if st.Problems[knowledge.ProblemInvalidEntry] != 1 {
		t.Errorf("cache problems = %v; the line was skipped as invalid-entry (reader: %v)", st.Problems, res.Report.ByKind)
	}
}

func TestDuplicateLinesCountOnce(t *testing.T) {
	s := newStore(t)
	lines := synthLog(0, 100, 8)
	dup := slices.Clone(lines)
	dup = append(dup, lines[10], lines[10], lines[20])
	writeLog(t, s, join(dup))
	ix := openIndex(t, s)
	if res := mustSync(t, ix); res.Entries != 100 {
		t.Fatalf("entries = %d", res.Entries)
	}
	var e knowledge.Entry
	json.Unmarshal(lines[10], &e)
	word := strings.Fields(e.Content)[0]
	// Drop copies one at a time: the entry stays until the last goes.
	writeLog(t, s, join(append(slices.Clone(lines), lines[20])))
	res := mustSync(t, ix)
	if res.Rebuilt || res.Entries != 100 {
		t.Errorf("sync = %+v", res)
	}
	if hits := search(t, ix, testQuery{Text: word}); len(hits) != 1 {
		t.Errorf("entry with copies left not found")
	}
	checkSame(t, "after dropping copies", takeSnapshot(t, ix), reference(t, s))
	without := slices.Delete(slices.Clone(lines), 10, 11)
	writeLog(t, s, join(without))
	res = mustSync(t, ix)
	if res.Entries != 99 {
		t.Errorf("sync after dropping the last copy = %+v", res)
	}
	if hits := search(t, ix, testQuery{Text: word}); len(hits) != 0 {
		t.Errorf("entry without lines still found")
	}
	checkSame(t, "after dropping the last copy", takeSnapshot(t, ix), reference(t, s))
}

// Copies of a bad line count as often as they occur, also when a sync
// drops some of them.
func TestDuplicateBadLinesCounted(t *testing.T) {
	s := newStore(t)
	lines := synthLog(0, 60, 13)
	junk := []byte("junk left by a bad merge")
	with := func(copies int) []byte {
		l := slices.Clone(lines)
		for range copies {
			l = append(l, junk)
		}
		return join(l)
	}
	writeLog(t, s, with(3))
	ix := openIndex(t, s)
	mustSync(t, ix)
	for _, copies := range []int{3, 1, 2, 0} {
		writeLog(t, s, with(copies))
		if res := mustSync(t, ix); res.Rebuilt {
			t.Errorf("%d copies: rebuilt", copies)
		}
		st, _ := ix.Stats(true)
		if st.Problems[knowledge.ProblemInvalidJSON] != copies {
			t.Errorf("%d copies of a bad line: problems %v", copies, st.Problems)
		}
		checkSame(t, fmt.Sprintf("%d copies", copies), takeSnapshot(t, ix), reference(t, s))
	}
}

// On a tie of ts, the log's line of a key beats the archive's, whatever
// their bytes; between lines of one file, the greater bytes win. Either
// way every reader picks the same line.
func TestTieBreakLogOverArchive(t *testing.T) {
	s := newStore(t)
	base := knowledge.Entry{Key: "fact-tie", Type: "fact", TS: 500}
	inLog, inArch := base, base
	inLog.Content = "aaa tiebreak version kept in the log"
	inArch.Content = "zzz tiebreak version in the archive"
	writeLog(t, s, join(append(synthLog(0, 20, 14), mkLine(inLog))))
	if err := os.WriteFile(s.ArchivePath(), join([][]byte{mkLine(inArch)}), 0o644); err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t, s)
	mustSync(t, ix)
	hits := search(t, ix, testQuery{Text: "tiebreak", All: true})
	if len(hits) != 1 || hits[0].Entry.Content != inLog.Content || hits[0].Archived {
		t.Fatalf("tie between log and archive: %+v", hits)
	}
	// Two lines of the same key and ts in the log: the greater bytes win,
	// in whichever order the file has them.
	other := base
	other.Content = "bbb tiebreak second version in the log"
	for _, order := range [][][]byte{{mkLine(inLog), mkLine(other)}, {mkLine(other), mkLine(inLog)}} {
		writeLog(t, s, join(append(synthLog(0, 20, 14), order...)))
		mustSync(t, ix)
		hits = search(t, ix, testQuery{Text: "tiebreak", All: true})
		if len(hits) != 1 || hits[0].Entry.Content != other.Content {
			t.Errorf("tie within the log: %+v", hits)
		}
		checkSame(t, "tie", takeSnapshot(t, ix), reference(t, s))
	}
}

func TestGluedLineRemovedIncrementally(t *testing.T) {
	s := newStore(t)
	lines := synthLog(0, 100, 10)
	glued := slices.Clone(lines)
	glued[5] = append(slices.Clone(lines[5]), lines[6]...)
	glued = slices.Delete(glued, 6, 7)
	writeLog(t, s, join(glued))
	ix := openIndex(t, s)
	if res := mustSync(t, ix); res.Entries != 100 {
		t.Fatalf("glued: entries = %d", res.Entries)
	}
	// The glued line is split again by a repair: same entries.
	writeLog(t, s, join(lines))
	if res := mustSync(t, ix); res.Rebuilt || res.Entries != 100 {
		t.Errorf("after the repair: %+v", res)
	}
	checkSame(t, "glued line repaired", takeSnapshot(t, ix), reference(t, s))
	// And glued again, then dropped entirely: both its entries go.
	writeLog(t, s, join(glued))
	mustSync(t, ix)
	writeLog(t, s, join(slices.Delete(slices.Clone(glued), 5, 6)))
	if res := mustSync(t, ix); res.Rebuilt || res.Entries != 98 {
		t.Errorf("glued line dropped: %+v", res)
	}
	checkSame(t, "glued line dropped", takeSnapshot(t, ix), reference(t, s))
}

func TestSyncEmptyAndMissingLog(t *testing.T) {
	s := knowledge.Open(t.TempDir()) // no .cairn at all
	ix := openIndex(t, s)
	res := mustSync(t, ix)
	if !res.Rebuilt || res.Entries != 0 {
		t.Errorf("sync of nothing = %+v", res)
	}
	if hits := search(t, ix, testQuery{Text: "anything"}); len(hits) != 0 {
		t.Errorf("hits in an empty cache: %v", hits)
	}
	if res := mustSync(t, ix); !res.Current {
		t.Errorf("second sync of nothing = %+v", res)
	}
	// The log appears.
	if _, err := s.Insert([]knowledge.Entry{{Key: "first", Type: "fact", Content: "the very first entry", TS: 1}}); err != nil {
		t.Fatal(err)
	}
	res = mustSync(t, ix)
	if res.Entries != 1 {
		t.Errorf("sync after the first entry = %+v", res)
	}
	if hits := search(t, ix, testQuery{Text: "first entry"}); len(hits) != 1 {
		t.Errorf("first entry not found")
	}
	// And goes away again.
	os.Remove(s.LogPath())
	if res := mustSync(t, ix); res.Entries != 0 {
		t.Errorf("sync after the log was deleted = %+v", res)
	}
}

// ---- benchmarks ----

// benchStore writes a log of n synthetic entries and a current cache.
func benchStore(b *testing.B, n int) (*knowledge.Store, *Index) {
	b.Helper()
	s := knowledge.Open(b.TempDir())
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(s.LogPath(), join(synthLog(0, n, 1)), 0o644); err != nil {
		b.Fatal(err)
	}
	ix, err := Open(s)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ix.Close() })
	if res, err := ix.Sync(); err != nil || res.Entries != n {
		b.Fatalf("initial sync: %+v, %v", res, err)
	}
	return s, ix
}

// BenchmarkMatches is the cache's part of a search: the 10 best
// candidates by BM25 of three words of one subject (package rank's
// BenchmarkSearch measures the whole search, priors and all).
func BenchmarkMatches(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("entries=%dk", n/1000), func(b *testing.B) {
			_, ix := benchStore(b, n)
			// Three words of one subject, as a user types them.
			var queries []string
			for k := range 4 {
				t := topics[k*7%len(topics)]
				queries = append(queries, t[0]+" "+t[1]+" "+t[2])
			}
			// How many entries a query matches drives its cost: report it.
			matched := 0
			for _, q := range queries {
				hits, err := searchErr(ix, testQuery{Text: q, Limit: 1 << 30})
				if err != nil {
					b.Fatal(err)
				}
				matched += len(hits)
			}
			i := 0
			for b.Loop() {
				hits, err := searchErr(ix, testQuery{Text: queries[i%len(queries)], Limit: 10})
				i++
				if err != nil || len(hits) == 0 {
					b.Fatalf("search: %d hits, %v", len(hits), err)
				}
			}
			b.ReportMetric(float64(matched)/float64(len(queries)), "matches/query")
		})
	}
}

func BenchmarkSync(b *testing.B) {
	b.Run("current/entries=10k", func(b *testing.B) {
		_, ix := benchStore(b, 10_000)
		for b.Loop() {
			if res, err := ix.Sync(); err != nil || !res.Current {
				b.Fatalf("sync: %+v, %v", res, err)
			}
		}
	})
	// What a short-lived process does: open the cache, find it current.
	b.Run("open-current/entries=10k", func(b *testing.B) {
		s, _ := benchStore(b, 10_000)
		for b.Loop() {
			ix, err := Open(s)
			if err != nil {
				b.Fatal(err)
			}
			if res, err := ix.Sync(); err != nil || !res.Current {
				b.Fatalf("sync: %+v, %v", res, err)
			}
			ix.Close()
		}
	})
}

func BenchmarkSyncIncremental(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("added=50/entries=%dk", n/1000), func(b *testing.B) { benchSyncIncremental(b, n) })
	}
}

func benchSyncIncremental(b *testing.B, n int) {
	{
		s, ix := benchStore(b, n)
		ix.Close()
		base, err := os.ReadFile(Path(s))
		if err != nil {
			b.Fatal(err)
		}
		baseLines, err := os.ReadFile(Path(s) + ".lines")
		if err != nil {
			b.Fatal(err)
		}
		mapPath := filepath.Join(s.CachePath(), anchor.Name)
		baseMap, err := os.ReadFile(mapPath)
		if err != nil {
			b.Fatal(err)
		}
		baseLog := synthLog(0, n, 1)
		round := 0
		for b.Loop() {
			b.StopTimer()
			// Back to the cache of the 10k log, then 50 new entries.
			if err := os.WriteFile(Path(s), base, 0o644); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(Path(s)+".lines", baseLines, 0o644); err != nil {
				b.Fatal(err)
			}
			// And its anchor map, which the sync updates by its lines.
			if err := os.WriteFile(mapPath, baseMap, 0o644); err != nil {
				b.Fatal(err)
			}
			lines := append(slices.Clone(baseLog), synthLog(20_000+round*50, 20_000+round*50+50, 2)...)
			round++
			knowledge.SortLines(lines)
			if err := s.Root().WriteAtomic(knowledge.LogName, join(lines), 0o644); err != nil {
				b.Fatal(err)
			}
			ix, err := Open(s)
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			res, err := ix.Sync()
			b.StopTimer()
			if err != nil || res.Added != 50 || res.Rebuilt {
				b.Fatalf("sync: %+v, %v", res, err)
			}
			ix.Close()
			b.StartTimer()
		}
	}
}

func BenchmarkRebuild(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("entries=%dk", n/1000), func(b *testing.B) { benchRebuild(b, n) })
	}
}

func benchRebuild(b *testing.B, n int) {
	{
		_, ix := benchStore(b, n)
		iters := 0
		for b.Loop() {
			if res, err := ix.Rebuild(); err != nil || res.Entries != n {
				b.Fatalf("rebuild: %+v, %v", res, err)
			}
			iters++
		}
		b.ReportMetric(float64(n*iters)/b.Elapsed().Seconds(), "entries/s")
	}
}

// TestCountFollowsEveryWrite: the count SessionStart shows is recorded by
// every write of the cache, and always equals a count of the table: after
// a rebuild, after a pull that added entries, after one that removed some,
// and with an archive beside the log.
func TestCountFollowsEveryWrite(t *testing.T) {
	s := newStore(t)
	ix := openIndex(t, s)
	check := func(when string, want int) {
		t.Helper()
		got, err := ix.Count()
		var scanned int
		if qerr := ix.db.QueryRow(`SELECT count(*) FROM entries WHERE archived=0`).Scan(&scanned); qerr != nil {
			t.Fatal(qerr)
		}
		if err != nil || got != want || scanned != want {
			t.Errorf("%s: Count = %d, %v; the table holds %d; want %d", when, got, err, scanned, want)
		}
		if v, err := ix.meta("count"); err != nil || v != strconv.Itoa(want) {
			t.Errorf("%s: recorded count %q, %v; want %d", when, v, err, want)
		}
	}
	lines := synthLog(0, 300, 1)
	writeLog(t, s, join(lines))
	mustSync(t, ix)
	check("rebuild", 300)
	writeLog(t, s, join(append(slices.Clone(lines), synthLog(300, 320, 1)...)))
	mustSync(t, ix)
	check("pull of 20", 320)
	writeLog(t, s, join(lines[:290]))
	mustSync(t, ix)
	check("10 removed", 290)
	if err := s.Root().WriteAtomic(knowledge.ArchiveName, join(synthLog(1000, 1050, 2)), 0o644); err != nil {
		t.Fatal(err)
	}
	mustSync(t, ix)
	check("with an archive", 290)
}
