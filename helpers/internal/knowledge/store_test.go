package knowledge

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/anchor"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
)

// ---- helpers ----

// orderOf recomputes a line's place in the log independently of the code
// under test: hex SHA-256 of the key, then ts. ok is false for lines that
// are not a JSON object with a string key.
func orderOf(line []byte) (hash string, ts int64, ok bool) {
	line = bytes.TrimSuffix(line, []byte("\r"))
	line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
	var v struct {
		Key *string     `json:"key"`
		TS  json.Number `json:"ts"`
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if len(line) == 0 || line[0] != '{' || !json.Valid(line) || dec.Decode(&v) != nil || v.Key == nil || *v.Key == "" {
		return "", 0, false
	}
	sum := sha256.Sum256([]byte(*v.Key))
	ts, _ = v.TS.Int64()
	return hex.EncodeToString(sum[:]), ts, true
}

// sortedErr reports the first pair of keyed lines out of hash-of-key order.
func sortedErr(data []byte) error {
	var prevHash string
	var prevTS int64
	var prevLine []byte
	have := false
	for i, l := range bytes.Split(data, []byte("\n")) {
		h, ts, ok := orderOf(l)
		if !ok {
			continue
		}
		if have && (h < prevHash || (h == prevHash && ts < prevTS)) {
			return fmt.Errorf("line %d out of order:\n  %s\nafter\n  %s", i+1, l, prevLine)
		}
		prevHash, prevTS, prevLine, have = h, ts, l, true
	}
	return nil
}

func checkSorted(t testing.TB, data []byte) {
	t.Helper()
	if err := sortedErr(data); err != nil {
		t.Fatal(err)
	}
}

// physLines splits data at LF, keeping CRs, without the empty piece after
// a final newline.
func physLines(data []byte) []string {
	if len(data) == 0 {
		return nil
	}
	parts := strings.Split(string(data), "\n")
	if parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// checkSubsequence checks that out is orig with exactly the lines of added
// inserted somewhere: every original line is still there, unchanged, in
// order.
func checkSubsequence(t testing.TB, orig, out []byte, added []string) {
	t.Helper()
	ol, nl := physLines(orig), physLines(out)
	if len(nl) != len(ol)+len(added) {
		t.Fatalf("output has %d lines, want %d original + %d added", len(nl), len(ol), len(added))
	}
	extra := map[string]int{}
	for _, a := range added {
		extra[a]++
	}
	j := 0
	for _, l := range nl {
		if j < len(ol) && l == ol[j] {
			j++
			continue
		}
		if extra[l] > 0 {
			extra[l]--
			continue
		}
		t.Fatalf("unexpected line in output (original line %d %q not matched): %q", j+1, lineOr(ol, j), l)
	}
	if j != len(ol) {
		t.Fatalf("original line %d %q lost or altered", j+1, ol[j])
	}
}

func lineOr(l []string, i int) string {
	if i < len(l) {
		return l[i]
	}
	return "<end>"
}

func newTestStore(t testing.TB) *Store {
	t.Helper()
	s := Open(t.TempDir())
	if err := s.Provision(); err != nil {
		t.Fatal(err)
	}
	return s
}

// noTemps fails t if a writer left a temporary file in .cairn.
func noTemps(t *testing.T, s *Store) {
	t.Helper()
	names, err := os.ReadDir(filepath.Dir(s.LogPath()))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if strings.Contains(n.Name(), "cairn-tmp") {
			t.Errorf("temporary file left: %s", n.Name())
		}
	}
}

func readLog(t testing.TB, s *Store) []byte {
	t.Helper()
	data, err := os.ReadFile(s.LogPath())
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func writeLog(t testing.TB, s *Store, data string) {
	t.Helper()
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.LogPath(), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mkEntry(typ, content string, ts int64) Entry {
	return Entry{Key: MakeKey(typ, content), Type: typ, Content: content, TS: ts}
}

func logKeys(t testing.TB, data []byte) map[string]int {
	t.Helper()
	m := map[string]int{}
	Parse(data, func(r Record) { m[r.Entry.Key]++ })
	return m
}

// keyWithHash returns a key, made of prefix and a counter, whose SHA-256
// is below (low) or above the given hex hash.
func keyWithHash(prefix, than string, low bool) string {
	for i := 0; ; i++ {
		k := fmt.Sprintf("%s-%d", prefix, i)
		sum := sha256.Sum256([]byte(k))
		h := hex.EncodeToString(sum[:])
		if (low && h < than) || (!low && h > than) {
			return k
		}
	}
}

func hashHex(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// ---- Insert ----

func TestInsertKeepsHashOrder(t *testing.T) {
	s := Open(t.TempDir()) // not provisioned: Insert creates what it needs
	rng := rand.New(rand.NewPCG(1, 2))
	want := map[string]bool{}
	n := 0
	for n < 300 {
		batch := make([]Entry, 1+rng.IntN(6))
		for i := range batch {
			batch[i] = mkEntry(Types[rng.IntN(len(Types))], fmt.Sprintf("entry %d says %x", n, rng.Uint64()), int64(1000+rng.IntN(500)))
			want[batch[i].Key] = true
			n++
		}
		res, err := s.Insert(batch)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Added) != len(batch) || len(res.Duplicates) != 0 {
			t.Fatalf("added %d, duplicates %d of %d", len(res.Added), len(res.Duplicates), len(batch))
		}
		checkSorted(t, readLog(t, s))
	}
	data := readLog(t, s)
	var recs []Record
	rep := Parse(data, func(r Record) { recs = append(recs, r) })
	if !rep.Clean() || rep.Lines != n || rep.Entries != n || rep.Blank != 0 {
		t.Fatalf("report after %d inserts: %+v", n, rep)
	}
	got := map[string]bool{}
	for _, r := range recs {
		got[r.Entry.Key] = true
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("keys in the log differ from the keys inserted (%d vs %d)", len(got), len(want))
	}
	if !bytes.HasSuffix(data, []byte("\n")) {
		t.Error("log does not end with a newline")
	}
	fi, err := os.Stat(s.LogPath())
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("log mode %v, %v", fi.Mode().Perm(), err)
	}
	// No temp or stray file beside the log, its lock, what provisioning
	// adds and the cache (the key index).
	ents, _ := os.ReadDir(s.Dir)
	for _, e := range ents {
		if e.Name() != LogName && e.Name() != lockName && e.Name() != ".gitattributes" && e.Name() != ".gitignore" && e.Name() != CacheDir {
			t.Errorf("unexpected file in %s: %s", s.Dir, e.Name())
		}
	}
}

func TestInsertLinesSameKeyByTS(t *testing.T) {
	s := newTestStore(t)
	e := mkEntry("fact", "the version lines of one key", 50)
	if _, err := s.Insert([]Entry{e}); err != nil {
		t.Fatal(err)
	}
	mk := func(ts int64, status string) []byte {
		x := e
		x.TS, x.Status = ts, status
		b, _ := Marshal(&x)
		return b
	}
	for _, batch := range [][][]byte{{mk(70, StatusRetracted)}, {mk(60, StatusNeedsReview), mk(10, StatusCanonical)}} {
		if err := s.InsertLines(batch); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.InsertLines(nil); err != nil {
		t.Fatal(err)
	}
	data := readLog(t, s)
	checkSorted(t, data)
	var ts []int64
	Parse(data, func(r Record) { ts = append(ts, r.Entry.TS) })
	if !reflect.DeepEqual(ts, []int64{10, 50, 60, 70}) {
		t.Errorf("versions in file order have ts %v, want ascending", ts)
	}
}

func TestInsertLinesIf(t *testing.T) {
	s := newTestStore(t)
	e := mkEntry("fact", "a reviewed change applies to its own log only", 50)
	if _, err := s.Insert([]Entry{e}); err != nil {
		t.Fatal(err)
	}
	before := readLog(t, s)
	x := e
	x.TS, x.Status, x.ReviewReason = 60, StatusNeedsReview, "checked"
	line, _ := Marshal(&x)
	refuse := errors.New("log changed")
	var seen []byte
	err := s.InsertLinesIf([][]byte{line}, func(log []byte) error { seen = log; return refuse })
	if !errors.Is(err, refuse) || !bytes.Equal(readLog(t, s), before) || !bytes.Equal(seen, before) {
		t.Fatalf("refused insert: err %v, log changed %v, check saw the log %v", err, !bytes.Equal(readLog(t, s), before), bytes.Equal(seen, before))
	}
	if err := s.InsertLinesIf([][]byte{line}, func([]byte) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if after := readLog(t, s); !bytes.Contains(after, line) || !bytes.Contains(after, bytes.TrimSpace(before)) {
		t.Errorf("accepted insert: log = %s", after)
	}
}

func TestInsertDedupe(t *testing.T) {
	base := mkEntry("learned", "OAuth redirect URI must match exactly", 100)

	t.Run("same entry again", func(t *testing.T) {
		s := newTestStore(t)
		if _, err := s.Insert([]Entry{base}); err != nil {
			t.Fatal(err)
		}
		before := readLog(t, s)
		again := base
		again.TS = 200
		res, err := s.Insert([]Entry{again})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Added) != 0 || len(res.Duplicates) != 1 {
			t.Errorf("added %d, duplicates %d", len(res.Added), len(res.Duplicates))
		}
		if !bytes.Equal(readLog(t, s), before) {
			t.Error("log changed by a duplicate")
		}
		noTemps(t, s)
	})
	t.Run("a batch partly in the log", func(t *testing.T) {
		s := newTestStore(t)
		for i := range 40 {
			if _, err := s.Insert([]Entry{mkEntry("fact", fmt.Sprintf("filler entry %d", i), int64(i+1))}); err != nil {
				t.Fatal(err)
			}
		}
		s.Insert([]Entry{base})
		other := mkEntry("fact", "a new fact beside an old one", 7)
		res, err := s.Insert([]Entry{other, base})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Added) != 1 || res.Added[0].Key != other.Key || len(res.Duplicates) != 1 || res.Duplicates[0].Key != base.Key {
			t.Errorf("added %v, duplicates %v", res.Added, res.Duplicates)
		}
		keys := logKeys(t, readLog(t, s))
		if len(keys) != 42 || keys[base.Key] != 1 || keys[other.Key] != 1 {
			t.Errorf("log keys %v", keys)
		}
		noTemps(t, s)
	})
	t.Run("case and space variant", func(t *testing.T) {
		s := newTestStore(t)
		s.Insert([]Entry{base})
		v := mkEntry("learned", "  oauth REDIRECT uri\nmust   match exactly ", 300)
		res, err := s.Insert([]Entry{v})
		if err != nil || len(res.Added) != 0 || len(res.Duplicates) != 1 {
			t.Errorf("variant: added %d, duplicates %d, %v", len(res.Added), len(res.Duplicates), err)
		}
	})
	t.Run("same content under another key", func(t *testing.T) {
		s := newTestStore(t)
		s.Insert([]Entry{base})
		v := base
		v.Key = "handmade-key"
		v.Content = "OAUTH redirect URI must  match exactly"
		res, err := s.Insert([]Entry{v})
		if err != nil || len(res.Added) != 0 || len(res.Duplicates) != 1 {
			t.Errorf("added %d, duplicates %d, %v", len(res.Added), len(res.Duplicates), err)
		}
	})
	t.Run("same content other type is new", func(t *testing.T) {
		s := newTestStore(t)
		s.Insert([]Entry{base})
		res, err := s.Insert([]Entry{mkEntry("fact", base.Content, 100)})
		if err != nil || len(res.Added) != 1 || len(res.Duplicates) != 0 {
			t.Errorf("added %d, duplicates %d, %v", len(res.Added), len(res.Duplicates), err)
		}
	})
	t.Run("duplicates within one batch", func(t *testing.T) {
		s := newTestStore(t)
		other := mkEntry("fact", "something else entirely", 5)
		sameKey := other
		sameKey.Content = "different content, same key"
		res, err := s.Insert([]Entry{base, mkEntry("learned", "oauth redirect uri must match EXACTLY", 101), other, sameKey, base})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Added) != 2 || len(res.Duplicates) != 3 {
			t.Errorf("added %d, duplicates %d", len(res.Added), len(res.Duplicates))
		}
		if res.Added[0].Key != base.Key || res.Added[1].Key != other.Key {
			t.Errorf("added in wrong order: %v", res.Added)
		}
		if got := logKeys(t, readLog(t, s)); len(got) != 2 {
			t.Errorf("log keys %v", got)
		}
	})
	t.Run("against a line of a foreign key scheme", func(t *testing.T) {
		s := newTestStore(t)
		writeLog(t, s, `{"key":"learned-oauth-redirect-uri-must-match","type":"learned","content":"OAuth redirect  URI must match EXACTLY","source":"user","tags":["auth"],"ts":1771032072,"bead":"bd-1"}`+"\n")
		res, err := s.Insert([]Entry{base})
		if err != nil || len(res.Added) != 0 || len(res.Duplicates) != 1 {
			t.Errorf("added %d, duplicates %d, %v", len(res.Added), len(res.Duplicates), err)
		}
		// A foreign line of another type does not count.
		res, err = s.Insert([]Entry{mkEntry("decision", base.Content, 1)})
		if err != nil || len(res.Added) != 1 {
			t.Errorf("other type: added %d, %v", len(res.Added), err)
		}
	})
	t.Run("against a line with spaces in its JSON", func(t *testing.T) {
		// Valid JSON as Python's json.dumps writes it: the key is in the
		// log, so an entry of that key is not added again.
		s := newTestStore(t)
		writeLog(t, s, `{"key": "fact-shared-key", "type": "fact", "content": "alpha version", "ts": 10}`+"\n")
		if recs := logKeys(t, readLog(t, s)); recs["fact-shared-key"] != 1 {
			t.Fatalf("reader does not read the spaced line: %v", recs)
		}
		res, err := s.Insert([]Entry{{Key: "fact-shared-key", Type: "fact", Content: "beta version", TS: 20}})
		if err != nil || len(res.Added) != 0 || len(res.Duplicates) != 1 {
			t.Errorf("entry whose key is already in the log: added %d, duplicates %d, %v", len(res.Added), len(res.Duplicates), err)
		}
	})
	t.Run("against a double-encoded line", func(t *testing.T) {
		// Lavra's log copied in place: the reader repairs the line, so its
		// key and content are in the log.
		s := newTestStore(t)
		b, _ := Marshal(&base)
		writeLog(t, s, encodeN(string(b), 1)+"\n")
		if recs := logKeys(t, readLog(t, s)); recs[base.Key] != 1 {
			t.Fatalf("reader does not read the double-encoded line: %v", recs)
		}
		res, err := s.Insert([]Entry{base})
		if err != nil || len(res.Added) != 0 || len(res.Duplicates) != 1 {
			t.Errorf("entry already in the log as a double-encoded line: added %d, duplicates %d, %v", len(res.Added), len(res.Duplicates), err)
		}
	})
	t.Run("invalid entry is an error, nothing written", func(t *testing.T) {
		s := newTestStore(t)
		_, err := s.Insert([]Entry{base, {Key: "x", Type: "note", Content: "c", TS: 1}})
		if err == nil {
			t.Fatal("invalid entry accepted")
		}
		if data := readLog(t, s); len(data) != 0 {
			t.Errorf("log written: %q", data)
		}
	})
}

// messyLog is a log a merge could leave: CRLF, blank lines, conflict
// markers, an invalid line, duplicates, a repaired line and a torn end.
func messyLog() (string, []string) {
	var lines []string
	for i := range 12 {
		lines = append(lines, mkLine(fmt.Sprintf("messy-%d", i), "fact", fmt.Sprintf("messy entry %d", i), int64(10+i)))
	}
	sort.Slice(lines, func(a, b int) bool { return hashHex(lineKey(lines[a])) < hashHex(lineKey(lines[b])) })
	keys := []string{}
	for _, l := range lines {
		keys = append(keys, lineKey(l))
	}
	data := lines[0] + "\r\n" +
		lines[1] + "\n" +
		"\n" +
		"<<<<<<< HEAD\n" +
		lines[2] + "\r\n" +
		"=======\n" +
		lines[3] + "\n" +
		">>>>>>> branch\n" +
		"this is not json\n" +
		lines[4] + "\n" +
		lines[4] + "\n" + // a duplicate from a union merge
		encodeN(lines[5], 1) + "\n" +
		lines[6] + lines[7] + "\n" +
		"   \n" +
		lines[8] + "\r\n" +
		lines[9] + "\n" +
		lines[10] + "\n" +
		`{"type":"fact","content":"torn wri`
	return data, keys[:11]
}

func bytesOf(l []string) [][]byte {
	out := make([][]byte, len(l))
	for i := range l {
		out[i] = []byte(l[i])
	}
	return out
}

func lineKey(l string) string {
	var v struct{ Key string }
	json.Unmarshal([]byte(l), &v)
	return v.Key
}

// A writer names the log it replaces under cache/ (closing it then frees
// nothing on the writer's path), and the next writer removes it: one such
// file at most, whatever earlier writers left.
func TestInsertKeepsOneReplacedLog(t *testing.T) {
	s := newTestStore(t)
	replaced := func() []string {
		t.Helper()
		names, err := os.ReadDir(s.CachePath())
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, n := range names {
			if strings.HasPrefix(n.Name(), replacedPrefix) {
				out = append(out, filepath.Join(s.CachePath(), n.Name()))
			}
		}
		return out
	}
	if _, err := s.Insert([]Entry{mkEntry("fact", "first", 1)}); err != nil {
		t.Fatal(err)
	}
	// Left by writers that died before removing them.
	if err := os.MkdirAll(s.CachePath(), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{replacedPrefix + "1-a", replacedPrefix + "2-b"} {
		if err := os.WriteFile(filepath.Join(s.CachePath(), name), []byte("old\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := 2; i <= 4; i++ {
		before := readLog(t, s)
		if _, err := s.Insert([]Entry{mkEntry("fact", fmt.Sprintf("entry %d", i), int64(i))}); err != nil {
			t.Fatal(err)
		}
		got := replaced()
		if len(got) != 1 {
			t.Fatalf("insert %d: replaced logs %v, want one", i, got)
		}
		if kept, _ := os.ReadFile(got[0]); !bytes.Equal(kept, before) {
			t.Errorf("insert %d: the replaced log kept is not the log before it", i)
		}
	}
	if keys := logKeys(t, readLog(t, s)); len(keys) != 4 {
		t.Errorf("log keys %v", keys)
	}
	noTemps(t, s)
}

// A log several writeback chunks long is copied chunk by chunk around the
// new line: the new log is the old one with that line inserted, byte for
// byte.
func TestInsertCopiesABigLogInChunks(t *testing.T) {
	s := newTestStore(t)
	var lines []string
	for i := range 8000 {
		lines = append(lines, mkLine(fmt.Sprintf("fact-big-%d", i), "fact", fmt.Sprintf("big log entry %d with some words to make it longer", i), int64(i+1)))
	}
	sort.Slice(lines, func(a, b int) bool { return hashHex(lineKey(lines[a])) < hashHex(lineKey(lines[b])) })
	old := strings.Join(lines, "\n") + "\n"
	if len(old) < 3*fsx.WritebackChunk {
		t.Fatalf("log of %d bytes is not several chunks long", len(old))
	}
	writeLog(t, s, old)
	e := mkEntry("learned", "the one new line in a big log", 9)
	if res, err := s.Insert([]Entry{e}); err != nil || len(res.Added) != 1 {
		t.Fatalf("insert: %v, %v", res, err)
	}
	got := string(readLog(t, s))
	line, err := Marshal(&e)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(got, string(line)+"\n")
	if i < 0 {
		t.Fatal("the new line is not in the log")
	}
	if rest := got[:i] + got[i+len(line)+1:]; rest != old {
		t.Errorf("the log around the new line changed (%d bytes, want %d)", len(rest), len(old))
	}
	if i > 0 && got[i-1] != '\n' {
		t.Error("the new line does not start a line")
	}
}

func TestInsertKeepsExistingBytes(t *testing.T) {
	orig, keys := messyLog()
	s := newTestStore(t)
	writeLog(t, s, orig)
	var added []string
	// One at a time, then a batch: the existing bytes never change.
	for i := range 40 {
		e := mkEntry("pattern", fmt.Sprintf("inserted into a messy log, number %d", i), int64(500+i))
		b, _ := Marshal(&e)
		added = append(added, string(b))
		if _, err := s.Insert([]Entry{e}); err != nil {
			t.Fatal(err)
		}
		checkSubsequence(t, []byte(orig), readLog(t, s), added)
	}
	var batch []Entry
	for i := range 25 {
		e := mkEntry("decision", fmt.Sprintf("batch entry %d in a messy log", i), int64(900+i))
		b, _ := Marshal(&e)
		added = append(added, string(b))
		batch = append(batch, e)
	}
	if res, err := s.Insert(batch); err != nil || len(res.Added) != 25 {
		t.Fatalf("batch: %v, %v", res, err)
	}
	out := readLog(t, s)
	checkSubsequence(t, []byte(orig), out, added)
	// Every entry the reader found before is still found, plus the new ones.
	got := logKeys(t, out)
	for _, k := range keys {
		if got[k] == 0 {
			t.Errorf("entry %s no longer readable", k)
		}
	}
	if len(got) != len(keys)+65 {
		t.Errorf("readable entries %d, want %d", len(got), len(keys)+65)
	}
	// The new lines sit at sorted places among the well-formed ones.
	var clean []byte
	for _, l := range physLines(out) {
		if _, _, ok := orderOf([]byte(l)); ok {
			clean = append(append(clean, l...), '\n')
		}
	}
	checkSorted(t, clean)
}

func TestInsertIntoLogWithBOM(t *testing.T) {
	// A log saved by an editor that writes a BOM. The new entry sorts
	// before the first line, so it goes in front of it.
	s := newTestStore(t)
	first := "bom-first"
	writeLog(t, s, "\xef\xbb\xbf"+mkLine(first, "fact", "entry on the first line after a BOM", 10)+"\n")
	low := keyWithHash("bom-new", hashHex(first), true)
	res, err := s.Insert([]Entry{{Key: low, Type: "fact", Content: "entry that sorts first", TS: 20}})
	if err != nil || len(res.Added) != 1 {
		t.Fatalf("insert: %v, %v", res, err)
	}
	out := readLog(t, s)
	got := logKeys(t, out)
	if got[first] != 1 || got[low] != 1 {
		t.Errorf("after inserting before a BOM line, the reader finds %v; want both %s and %s\nlog: %q", got, first, low, out)
	}
}

func TestInsertIntoUnsortedLog(t *testing.T) {
	// A log a merge left out of order: insertion still keeps every line.
	var lines []string
	for i := range 30 {
		lines = append(lines, mkLine(fmt.Sprintf("unsorted-%d", i), "fact", fmt.Sprintf("unsorted %d", i), int64(i+1)))
	}
	orig := strings.Join(lines, "\n") + "\n"
	s := newTestStore(t)
	writeLog(t, s, orig)
	var added []string
	for i := range 20 {
		e := mkEntry("fact", fmt.Sprintf("new one %d", i), 100)
		b, _ := Marshal(&e)
		added = append(added, string(b))
		if _, err := s.Insert([]Entry{e}); err != nil {
			t.Fatal(err)
		}
	}
	checkSubsequence(t, []byte(orig), readLog(t, s), added)
}

func TestProvisionAndPaths(t *testing.T) {
	root := t.TempDir()
	s := Open(root)
	if s.Exists() {
		t.Fatal("Exists before Provision")
	}
	if err := s.Provision(); err != nil {
		t.Fatal(err)
	}
	if !s.Exists() {
		t.Fatal("not Exists after Provision")
	}
	for name, want := range map[string]string{".gitattributes": GitAttributes, ".gitignore": GitIgnore, LogName: ""} {
		got, err := os.ReadFile(filepath.Join(root, DirName, name))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v", name, got, err)
		}
	}
	if !strings.Contains(GitAttributes, "*.jsonl merge=union") {
		t.Error("gitattributes lacks union merge")
	}
	for _, p := range []string{"cache/", "local/"} {
		if !strings.Contains(GitIgnore, p) {
			t.Errorf("gitignore lacks %s", p)
		}
	}
	// Existing files are left alone.
	writeLog(t, s, mkLine("k", "fact", "kept", 1)+"\n")
	os.WriteFile(filepath.Join(s.Dir, ".gitignore"), []byte("custom\n"), 0o644)
	if err := s.Provision(); err != nil {
		t.Fatal(err)
	}
	if got := readLog(t, s); string(got) != mkLine("k", "fact", "kept", 1)+"\n" {
		t.Errorf("Provision rewrote the log: %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(s.Dir, ".gitignore")); string(got) != "custom\n" {
		t.Errorf("Provision rewrote .gitignore: %q", got)
	}
	for got, want := range map[string]string{
		s.LogPath():     filepath.Join(root, ".cairn", "knowledge.jsonl"),
		s.ArchivePath(): filepath.Join(root, ".cairn", "knowledge.archive.jsonl"),
		s.CachePath():   filepath.Join(root, ".cairn", "cache"),
		s.LocalPath():   filepath.Join(root, ".cairn", "local"),
		s.ConfigPath():  filepath.Join(root, ".cairn", "config.json"),
	} {
		if got != want {
			t.Errorf("path %s, want %s", got, want)
		}
	}
}

func TestReadAll(t *testing.T) {
	s := newTestStore(t)
	recs, rep, err := s.ReadAll(true)
	if err != nil || len(recs) != 0 || rep.Lines != 0 {
		t.Fatalf("empty store: %v %+v %v", recs, rep, err)
	}
	writeLog(t, s, mkLine("a", "fact", "in log", 1)+"\njunk\n")
	os.WriteFile(s.ArchivePath(), []byte(mkLine("b", "fact", "in archive", 1)+"\n"), 0o644)
	recs, rep, err = s.ReadAll(false)
	if err != nil || len(recs) != 1 || rep.Skipped != 1 {
		t.Errorf("log only: %d records, %+v, %v", len(recs), rep, err)
	}
	recs, rep, err = s.ReadAll(true)
	if err != nil || len(recs) != 2 || rep.Lines != 3 || rep.Entries != 2 {
		t.Errorf("with archive: %d records, %+v, %v", len(recs), rep, err)
	}
	if data, err := s.ReadFile("missing", MaxLogBytes); data != nil || err != nil {
		t.Errorf("ReadFile(missing) = %q, %v", data, err)
	}
	if err := os.Mkdir(filepath.Join(s.Dir, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReadFile("adir", MaxLogBytes); err == nil {
		t.Error("ReadFile(dir) succeeded")
	}
}

// ---- Rotate ----

// tsLog returns n entry lines with ts 1..n, in hash order.
func tsLog(prefix string, n int) []string {
	var lines []string
	for i := 1; i <= n; i++ {
		lines = append(lines, mkLine(fmt.Sprintf("%s-%d", prefix, i), "fact", fmt.Sprintf("%s entry %d", prefix, i), int64(i)))
	}
	b := bytesOf(lines)
	SortLines(b)
	for i := range b {
		lines[i] = string(b[i])
	}
	return lines
}

func tsOf(t testing.TB, data []byte) []int64 {
	t.Helper()
	var out []int64
	Parse(data, func(r Record) { out = append(out, r.Entry.TS) })
	slices.Sort(out)
	return out
}

func tsRange(from, to int64) []int64 {
	var out []int64
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

func TestRotateNewestHalf(t *testing.T) {
	s := newTestStore(t)
	writeLog(t, s, strings.Join(tsLog("rot", 25), "\n")+"\n")
	res, err := s.Rotate(10)
	if err != nil {
		t.Fatal(err)
	}
	if res != (RotateResult{Lines: 25, Archived: 20, Kept: 5}) {
		t.Errorf("result = %+v", res)
	}
	log := readLog(t, s)
	arch, err := os.ReadFile(s.ArchivePath())
	if err != nil {
		t.Fatal(err)
	}
	if got := tsOf(t, log); !reflect.DeepEqual(got, tsRange(21, 25)) {
		t.Errorf("log keeps ts %v, want the newest 21..25", got)
	}
	if got := tsOf(t, arch); !reflect.DeepEqual(got, tsRange(1, 20)) {
		t.Errorf("archive holds ts %v, want 1..20", got)
	}
	checkSorted(t, log)
	checkSorted(t, arch)

	// Rotating again changes nothing.
	res, err = s.Rotate(10)
	if err != nil || res.Archived != 0 || res.Kept != 5 {
		t.Errorf("second rotate = %+v, %v", res, err)
	}
	if !bytes.Equal(readLog(t, s), log) {
		t.Error("second rotate changed the log")
	}
	if a, _ := os.ReadFile(s.ArchivePath()); !bytes.Equal(a, arch) {
		t.Error("second rotate changed the archive")
	}
}

func TestRotateUnderLimit(t *testing.T) {
	s := newTestStore(t)
	orig := strings.Join(tsLog("small", 10), "\n") + "\n\n"
	writeLog(t, s, orig)
	res, err := s.Rotate(10)
	if err != nil || res != (RotateResult{Lines: 10, Kept: 10}) {
		t.Errorf("rotate = %+v, %v", res, err)
	}
	if string(readLog(t, s)) != orig {
		t.Error("log changed")
	}
	if _, err := os.Stat(s.ArchivePath()); err == nil {
		t.Error("archive created for nothing")
	}
	// An empty store rotates to nothing.
	if res, err := newTestStore(t).Rotate(DefaultMaxLines); err != nil || res.Lines != 0 {
		t.Errorf("empty rotate = %+v, %v", res, err)
	}
}

func TestRotateKeepsInvalidLines(t *testing.T) {
	s := newTestStore(t)
	lines := tsLog("inv", 25)
	bad := []string{"not json", "<<<<<<< HEAD", `{"type":"fact","content":"keyless","ts":99}`}
	data := strings.Join(lines[:10], "\n") + "\n" + bad[0] + "\n\n" + strings.Join(lines[10:20], "\r\n") + "\r\n" + bad[1] + "\n" +
		strings.Join(lines[20:], "\n") + "\n" + bad[2] + "\n"
	writeLog(t, s, data)
	res, err := s.Rotate(10)
	if err != nil {
		t.Fatal(err)
	}
	if res.Lines != 28 || res.Kept != 5 || res.Archived != 23 {
		t.Errorf("result = %+v", res)
	}
	log := readLog(t, s)
	arch, _ := os.ReadFile(s.ArchivePath())
	for _, b := range bad {
		if !slices.Contains(physLines(log), b) {
			t.Errorf("invalid line %q not kept in the log", b)
		}
		if slices.Contains(physLines(arch), b) {
			t.Errorf("invalid line %q moved to the archive", b)
		}
	}
	if got := tsOf(t, log); !reflect.DeepEqual(got, []int64{24, 25}) {
		t.Errorf("log keeps ts %v, want the newest 24, 25", got)
	}
	// Nothing is lost: log and archive hold every entry once.
	all := append(tsOf(t, log), tsOf(t, arch)...)
	slices.Sort(all)
	if !reflect.DeepEqual(all, tsRange(1, 25)) {
		t.Errorf("entries after rotate: %v", all)
	}
	checkSorted(t, log)
	checkSorted(t, arch)
}

// Lines that carry a key but are no valid entry (a bad type, no ts, a
// torn line) are invalid lines like the keyless ones: Rotate's contract
// keeps them in the log for doctor to report.
func TestRotateKeepsKeyedInvalidLines(t *testing.T) {
	s := newTestStore(t)
	bad := []string{
		`{"key":"bad-type","type":"note","content":"not a type","ts":3}`,
		`{"key":"no-ts","type":"fact","content":"no ts"}`,
		`{"key":"torn-key","type":"fact","content":"cut off`,
	}
	writeLog(t, s, strings.Join(tsLog("kinv", 25), "\n")+"\n"+strings.Join(bad, "\n")+"\n")
	if _, err := s.Rotate(10); err != nil {
		t.Fatal(err)
	}
	log := readLog(t, s)
	arch, _ := os.ReadFile(s.ArchivePath())
	for _, b := range bad {
		if slices.Contains(physLines(arch), b) {
			t.Errorf("invalid line moved to the archive: %s", b)
		}
		if !slices.Contains(physLines(log), b) {
			t.Errorf("invalid line not kept in the log: %s", b)
		}
	}
	all := append(tsOf(t, log), tsOf(t, arch)...)
	slices.Sort(all)
	if !reflect.DeepEqual(all, tsRange(1, 25)) {
		t.Errorf("entries after rotate: %v", all)
	}
}

func TestRotateDeterministic(t *testing.T) {
	lines := tsLog("det", 60)
	// Ties: several entries share a ts.
	for i := range 10 {
		lines = append(lines, mkLine(fmt.Sprintf("tie-%d", i), "fact", fmt.Sprintf("tied entry %d", i), 30))
	}
	var outs [][2][]byte
	rng := rand.New(rand.NewPCG(3, 4))
	for range 3 {
		sh := slices.Clone(lines)
		rng.Shuffle(len(sh), func(i, j int) { sh[i], sh[j] = sh[j], sh[i] })
		s := newTestStore(t)
		writeLog(t, s, strings.Join(sh, "\n")+"\n")
		if _, err := s.Rotate(40); err != nil {
			t.Fatal(err)
		}
		arch, _ := os.ReadFile(s.ArchivePath())
		outs = append(outs, [2][]byte{readLog(t, s), arch})
	}
	for i := 1; i < len(outs); i++ {
		if !bytes.Equal(outs[i][0], outs[0][0]) || !bytes.Equal(outs[i][1], outs[0][1]) {
			t.Fatalf("rotation of the same lines in another order differs (run %d)", i)
		}
	}
	if n := len(physLines(outs[0][0])); n != 20 {
		t.Errorf("log keeps %d lines, want 20", n)
	}
}

func TestRotateMergesArchive(t *testing.T) {
	s := newTestStore(t)
	lines := tsLog("merge", 25)
	// The archive already holds older lines, and (as after a crash between
	// the two writes) copies of lines still in the log.
	old := tsLog("older", 5)
	byTS := map[int64]string{}
	for _, l := range lines {
		byTS[tsOf(t, []byte(l))[0]] = l
	}
	archive := append(slices.Clone(old), byTS[1], byTS[2])
	os.WriteFile(s.ArchivePath(), []byte(strings.Join(archive, "\n")+"\n"), 0o644)
	writeLog(t, s, strings.Join(lines, "\n")+"\n")
	if _, err := s.Rotate(10); err != nil {
		t.Fatal(err)
	}
	arch, _ := os.ReadFile(s.ArchivePath())
	checkSorted(t, arch)
	pl := physLines(arch)
	if len(pl) != 25 {
		t.Errorf("archive has %d lines, want 5 older + 20 rotated", len(pl))
	}
	seen := map[string]bool{}
	for _, l := range pl {
		if seen[l] {
			t.Errorf("archive holds a line twice: %s", l)
		}
		seen[l] = true
	}
	for _, l := range old {
		if !seen[l] {
			t.Errorf("older archive line lost: %s", l)
		}
	}
	// Two rotations in a row on a growing log keep everything.
	for i := range 30 {
		if _, err := s.Insert([]Entry{mkEntry("fact", fmt.Sprintf("later %d", i), int64(100+i))}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Rotate(10); err != nil {
		t.Fatal(err)
	}
	recs, _, err := s.ReadAll(true)
	if err != nil || len(recs) != 5+25+30 {
		t.Errorf("entries in log + archive = %d, %v; want 60", len(recs), err)
	}
	arch, _ = os.ReadFile(s.ArchivePath())
	checkSorted(t, arch)
	checkSorted(t, readLog(t, s))
}

func TestRotateMinimum(t *testing.T) {
	s := newTestStore(t)
	writeLog(t, s, strings.Join(tsLog("min", 5), "\n")+"\n")
	res, err := s.Rotate(0) // treated as 2: keep 1
	if err != nil || res.Kept != 1 || res.Archived != 4 {
		t.Errorf("Rotate(0) = %+v, %v", res, err)
	}
	if got := tsOf(t, readLog(t, s)); !reflect.DeepEqual(got, []int64{5}) {
		t.Errorf("kept %v", got)
	}
}

// ---- Import ----

const lavraPath = "../../../testdata/lavra-knowledge.jsonl"

func TestImportLavra(t *testing.T) {
	src, err := os.ReadFile(lavraPath)
	if err != nil {
		t.Fatal(err)
	}
	var srcRecs []Record
	srcRep := Parse(src, func(r Record) { srcRecs = append(srcRecs, r) })
	srcKeys := map[string]bool{}
	for _, r := range srcRecs {
		srcKeys[r.Entry.Key] = true
	}

	s := newTestStore(t)
	res, err := s.Import(src)
	if err != nil {
		t.Fatal(err)
	}
	if res.Read != 217 || res.Imported != 217 || res.AlreadyPresent != 0 {
		t.Errorf("import = read %d, imported %d, already %d; want 217, 217, 0", res.Read, res.Imported, res.AlreadyPresent)
	}
	if res.Report.Repaired != 63 || res.Report.ByKind[ProblemDoubleEncoded] != 63 || res.Report.Skipped != 0 {
		t.Errorf("source report = %+v, want 63 double-encoded repaired", res.Report)
	}
	if srcRep.Repaired != 63 {
		t.Errorf("Parse of the source repaired %d", srcRep.Repaired)
	}
	log := readLog(t, s)
	checkSorted(t, log)
	var logRecs []Record
	rep := Parse(log, func(r Record) { logRecs = append(logRecs, r) })
	if !rep.Clean() || rep.Entries != 217 {
		t.Errorf("imported log report = %+v", rep)
	}
	logKeys := map[string]bool{}
	for _, r := range logRecs {
		logKeys[r.Entry.Key] = true
	}
	if !reflect.DeepEqual(logKeys, srcKeys) {
		t.Errorf("imported keys differ from the source's: %d vs %d", len(logKeys), len(srcKeys))
	}
	// Each entry is kept field for field: the stored line is the source's
	// object, compacted.
	srcByKey := map[string]Record{}
	for _, r := range srcRecs {
		srcByKey[r.Entry.Key] = r
	}
	for _, r := range logRecs {
		var want bytes.Buffer
		json.Compact(&want, srcByKey[r.Entry.Key].JSON)
		if !bytes.Equal(r.Raw, want.Bytes()) {
			t.Errorf("line of %s = %s\nwant %s", r.Entry.Key, r.Raw, want.Bytes())
			break
		}
		if !reflect.DeepEqual(r.Entry, srcByKey[r.Entry.Key].Entry) {
			t.Errorf("entry %s changed by import", r.Entry.Key)
		}
	}

	// Importing again adds nothing.
	res, err = s.Import(src)
	if err != nil || res.Imported != 0 || res.AlreadyPresent != 217 {
		t.Errorf("second import = %+v, %v", res, err)
	}
	if !bytes.Equal(readLog(t, s), log) {
		t.Error("second import changed the log")
	}
	// An entry added by capture with the content of an imported one is a
	// duplicate, though its key scheme differs.
	r0 := srcRecs[0].Entry
	ir, err := s.Insert([]Entry{mkEntry(r0.Type, "  "+strings.ReplaceAll(r0.Content, " ", "  ")+"\n", 1)})
	if err != nil || len(ir.Added) != 0 {
		t.Errorf("capture of imported content: added %d, %v", len(ir.Added), err)
	}
}

func TestImportVersionsAndPresent(t *testing.T) {
	s := newTestStore(t)
	existing := mkEntry("fact", "already known fact", 5)
	if _, err := s.Insert([]Entry{existing}); err != nil {
		t.Fatal(err)
	}
	src := strings.Join([]string{
		mkLine("imp-a", "fact", "imported a", 10),
		`{"key":"imp-a","type":"fact","content":"imported a","ts":20,"status":"retracted"}`,
		mkLine("imp-a", "fact", "imported a", 10), // exact repeat
		mkLine("lavra-known", "fact", "Already known   FACT", 7),
		mkLine(existing.Key, "fact", "already known fact", 5),
		"garbage",
		encodeN(mkLine("imp-b", "learned", "imported b", 30), 1),
	}, "\n") + "\n"
	res, err := s.Import([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if res.Read != 6 || res.Imported != 3 || res.AlreadyPresent != 3 || res.Report.Skipped != 1 || res.Report.Repaired != 1 {
		t.Errorf("import = %+v", res)
	}
	log := readLog(t, s)
	checkSorted(t, log)
	got := logKeys(t, log)
	want := map[string]int{existing.Key: 1, "imp-a": 2, "imp-b": 1}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("log keys = %v, want %v", got, want)
	}
	if res, err := s.Import(nil); err != nil || res.Imported != 0 {
		t.Errorf("empty import = %+v, %v", res, err)
	}
}

// ---- benchmark ----

var benchWords = strings.Fields(`cache index query token session hook commit branch merge rebase
conflict lock rename fsync sqlite fts5 porter ranking bm25 redirect oauth callback header cookie
retry timeout backoff deadline context cancel goroutine channel mutex atomic worker queue batch
stream buffer parser lexer schema migration column table row transaction rollback snapshot replica
leader follower shard partition compaction tombstone ledger checksum digest signature keypair
certificate handshake proxy gateway router middleware handler endpoint payload encoder decoder
marshal unmarshal config flag env secret vault policy role tenant quota limit throttle metric
trace span logger level sampler exporter collector dashboard alert pager incident rollout canary
feature toggle experiment cohort bucket hash ring node cluster pod container image registry
manifest helm chart terraform module provider plan apply drift state backend bucket region zone
latency throughput jitter spike regression benchmark profile heap stack allocation escape inline
generic interface struct method embed closure defer panic recover error wrap unwrap sentinel
build vet lint staticcheck gofmt module vendor proxy checksum sumdb replace retract workspace
windows linux darwin arm64 amd64 cgo wasm plugin daemon socket pipe signal sigkill sigterm
unicode utf8 normalize casefold slug keyword phrase stemming tokenizer stopword synonym`)

// synthLines returns n realistic entry lines (content 100-250 chars from a
// varied vocabulary), sorted as the log keeps them.
func synthLines(n int, seed uint64) [][]byte {
	rng := rand.New(rand.NewPCG(seed, 99))
	out := make([][]byte, 0, n)
	for i := range n {
		e := synthEntry(rng, i)
		b, err := Marshal(&e)
		if err != nil {
			panic(err)
		}
		out = append(out, b)
	}
	SortLines(out)
	return out
}

func synthEntry(rng *rand.Rand, i int) Entry {
	target := 100 + rng.IntN(151)
	var b strings.Builder
	for b.Len() < target {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(benchWords[rng.IntN(len(benchWords))])
	}
	fmt.Fprintf(&b, " (#%d)", i)
	content := b.String()
	typ := Types[rng.IntN(len(Types))]
	var tags []string
	for range rng.IntN(4) {
		tags = append(tags, benchWords[rng.IntN(len(benchWords))])
	}
	return Entry{Key: MakeKey(typ, content), Type: typ, Content: content, Source: "agent", Tags: tags,
		TS: 1_760_000_000 + int64(i)*37, Author: "Bench", Branch: "main"}
}

// benchStore returns a store whose log holds n synthetic entries.
func benchStore(b *testing.B, n int) *Store {
	s := Open(b.TempDir())
	lines := synthLines(n, 1)
	// As in a project where a hook or a sync ran: with cache/.
	if err := os.MkdirAll(s.CachePath(), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(s.LogPath(), append(bytes.Join(lines, []byte("\n")), '\n'), 0o644); err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkInsert is one capture: one entry into a log of 10k or 100k
// entries, lock, duplicate check, placing, atomic replacement (fsync
// included).
func BenchmarkInsert(b *testing.B) {
	benchInsertions(b, 5, 1_000_000, nil)
}

// BenchmarkInsertAfterPull is one insertion into a log that changed under
// the key index (as after a pull): the pass over the log runs, builds the
// index and overlaps the copy of the log; fsync included. Each round
// changes the log's times first (untimed), so the index is never current.
func BenchmarkInsertAfterPull(b *testing.B) {
	benchInsertions(b, 7, 2_000_000, func(b *testing.B, s *Store, i int) {
		at := time.Unix(1_700_000_000+int64(i), 0)
		if err := os.Chtimes(s.LogPath(), at, at); err != nil {
			b.Fatal(err)
		}
	})
}

// benchInsertions inserts one new entry a round (numbered from first,
// drawn with seed) into logs of 10k and 100k entries. before, when set,
// runs untimed ahead of each insertion, which must then read the log.
func benchInsertions(b *testing.B, seed uint64, first int, before func(b *testing.B, s *Store, i int)) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("log=%dk", n/1000), func(b *testing.B) {
			s := benchStore(b, n)
			rng := rand.New(rand.NewPCG(seed, seed+1))
			i := 0
			done := reportCPU(b)
			for b.Loop() {
				passes := s.passes.Load()
				if before != nil {
					b.StopTimer()
					before(b, s, i)
					passes = s.passes.Load()
					b.StartTimer()
				}
				e := synthEntry(rng, first+i)
				i++
				res, err := s.Insert([]Entry{e})
				if err != nil || len(res.Added) != 1 {
					b.Fatalf("insert: %+v, %v", res, err)
				}
				if before != nil && s.passes.Load() != passes+1 {
					b.Fatal("the insertion did not read the log: the index was current")
				}
			}
			done()
			b.StopTimer()
			checkSorted(b, readLog(b, s))
		})
	}
}

// BenchmarkInsertSteps times the steps of an insertion apart: the
// duplicate check's pass over the log, and the binary search for the
// place.
func BenchmarkInsertSteps(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		s := benchStore(b, n)
		e := synthEntry(rand.New(rand.NewPCG(5, 6)), 1_000_000)
		line, _ := Marshal(&e)
		lf, err := s.openLog()
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("dedupe/log=%dk", n/1000), func(b *testing.B) {
			b.SetBytes(lf.size)
			done := reportCPU(b)
			for b.Loop() {
				var res InsertResult
				if fresh, err := dedupe(lf, []Entry{e}, &res, &keyLookup{}); err != nil || len(fresh) != 1 {
					b.Fatalf("dedupe: %v, %v", fresh, err)
				}
			}
			done()
		})
		id, err := anchor.Identity(s.root)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("dedupe+build/log=%dk", n/1000), func(b *testing.B) {
			done := reportCPU(b)
			for b.Loop() {
				var res InsertResult
				ks := &keyLookup{known: true}
				if fresh, err := dedupe(lf, []Entry{e}, &res, ks); err != nil || len(fresh) != 1 || !ks.built {
					b.Fatalf("dedupe: %v, %v", fresh, err)
				}
			}
			done()
		})
		var ks keyLookup
		first := &keyLookup{known: true}
		if _, err := dedupe(lf, []Entry{e}, &InsertResult{}, first); err != nil {
			b.Fatal(err)
		}
		s.saveKeyIndex(first, id, nil)
		writeKeyIndexAfter(&first) // as Insert does, once the lock is let go
		b.Run(fmt.Sprintf("lookup/log=%dk", n/1000), func(b *testing.B) {
			done := reportCPU(b)
			for b.Loop() {
				var res InsertResult
				ks = *s.keyLookup(id, nil)
				if fresh, err := dedupe(lf, []Entry{e}, &res, &ks); err != nil || len(fresh) != 1 || ks.built {
					b.Fatalf("dedupe: %v, %v, built %v", fresh, err, ks.built)
				}
			}
			done()
		})
		b.Run(fmt.Sprintf("place/log=%dk", n/1000), func(b *testing.B) {
			done := reportCPU(b)
			for b.Loop() {
				if _, err := placeLines(lf.f, lf.start, lf.size, [][]byte{line}); err != nil {
					b.Fatal(err)
				}
			}
			done()
		})
		lf.Close()
	}
}
