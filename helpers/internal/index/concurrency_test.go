package index

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
)

// helperEnv makes the test binary act as one of the child processes of the
// tests below instead of testing.
const helperEnv = "CAIRN_INDEX_HELPER"

const (
	writers          = 8
	entriesPerWriter = 100
)

// writerEntry is entry i of writer w: unique content with a unique word.
func writerEntry(w, i int) knowledge.Entry {
	n := w*entriesPerWriter + i
	content := fmt.Sprintf("%s writer %d wrote entry %d about %s and %s", uniqWord(n), w, i, vocab[n%len(vocab)], vocab[(n*7)%len(vocab)])
	typ := knowledge.Types[n%len(knowledge.Types)]
	return knowledge.Entry{Key: knowledge.MakeKey(typ, content), Type: typ, Content: content, TS: int64(1_760_000_000 + n)}
}

// TestHelperProcess is not a test: it is the body of the child processes.
// Arguments after "--":
//
//	insert ROOT W   add writer W's entries to the store at ROOT, one Insert each
//	sync ROOT N     open the cache, sync, and check that it holds N entries
func TestHelperProcess(t *testing.T) {
	if os.Getenv(helperEnv) == "" {
		return
	}
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	fail := func(format string, a ...any) {
		fmt.Fprintf(os.Stderr, "helper %q: "+format+"\n", append([]any{args}, a...)...)
		os.Exit(3)
	}
	if len(args) != 3 {
		fail("want MODE ROOT N")
	}
	n, err := strconv.Atoi(args[2])
	if err != nil {
		fail("%v", err)
	}
	s := knowledge.Open(args[1])
	switch args[0] {
	case "insert":
		for i := range entriesPerWriter {
			res, err := knowledge.Open(args[1]).Insert([]knowledge.Entry{writerEntry(n, i)})
			if err != nil {
				fail("insert %d: %v", i, err)
			}
			if len(res.Added) != 1 {
				fail("insert %d: %+v", i, res)
			}
		}
	case "sync":
		ix, err := Open(s)
		if err != nil {
			fail("open: %v", err)
		}
		res, err := ix.Sync()
		if err != nil {
			fail("sync: %v", err)
		}
		st, err := ix.Stats(true)
		if err != nil || st.Total != n {
			fail("stats %+v, %v (sync %+v)", st, err, res)
		}
		hits, err := searchErr(ix, testQuery{Text: uniqWord(n - 1)})
		if err != nil || len(hits) != 1 {
			fail("search: %d hits, %v", len(hits), err)
		}
		ix.Close()
	case "read":
		// Sync and search over and over while writers add entries, until
		// the cache holds all n.
		for round := 0; ; round++ {
			ix, err := Open(s)
			if err != nil {
				fail("round %d: open: %v", round, err)
			}
			res, err := ix.Sync()
			if err != nil {
				fail("round %d: sync: %v", round, err)
			}
			st, err := ix.Stats(true)
			if err != nil {
				fail("round %d: stats: %v (sync %+v)", round, err, res)
			}
			if _, err := searchErr(ix, testQuery{Text: "writer entry " + uniqWord(round%n)}); err != nil {
				fail("round %d: search: %v", round, err)
			}
			ix.Close()
			if st.Total > n {
				fail("round %d: %d entries, more than %d", round, st.Total, n)
			}
			if st.Total == n {
				break
			}
		}
	default:
		fail("unknown mode")
	}
	os.Exit(0)
}

func startHelpers(t *testing.T, args ...[]string) []*exec.Cmd {
	t.Helper()
	var cmds []*exec.Cmd
	for _, a := range args {
		cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestHelperProcess$", "--"}, a...)...)
		cmd.Env = append(os.Environ(), helperEnv+"=1")
		cmd.Stdout = os.Stdout
		cmd.Stderr = os.Stderr
		cmds = append(cmds, cmd)
	}
	// Start them all before waiting for any, so they overlap.
	for _, cmd := range cmds {
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, cmd := range cmds {
			if cmd.ProcessState == nil {
				cmd.Process.Kill()
				cmd.Wait()
			}
		}
	})
	return cmds
}

func waitHelpers(t *testing.T, cmds []*exec.Cmd) {
	t.Helper()
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("child %d (%v): %v", i, cmd.Args[len(cmd.Args)-3:], err)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
}

// TestConcurrentWriters: eight processes each add 100 entries, one Insert
// at a time, to the same store at once. Nothing is lost, torn or
// duplicated, the log stays sorted, and the cache finds every entry.
func TestConcurrentWriters(t *testing.T) {
	root := t.TempDir() // no .cairn yet: the writers race to create it too
	const total = writers * entriesPerWriter
	var args [][]string
	for w := range writers {
		args = append(args, []string{"insert", root, strconv.Itoa(w)})
	}
	waitHelpers(t, startHelpers(t, args...))

	s := knowledge.Open(root)
	data, err := s.ReadLog()
	if err != nil {
		t.Fatal(err)
	}
	var recs []knowledge.Record
	rep := knowledge.Parse(data, func(r knowledge.Record) { recs = append(recs, r) })
	if !rep.Clean() || rep.Lines != total || rep.Entries != total || rep.Blank != 0 {
		t.Fatalf("log after concurrent inserts: %+v", rep)
	}
	want := map[string]knowledge.Entry{}
	for w := range writers {
		for i := range entriesPerWriter {
			e := writerEntry(w, i)
			want[e.Key] = e
		}
	}
	seen := map[string]bool{}
	for _, r := range recs {
		if seen[r.Entry.Key] {
			t.Errorf("key %s twice", r.Entry.Key)
		}
		seen[r.Entry.Key] = true
		if w, ok := want[r.Entry.Key]; !ok || w.Content != r.Entry.Content || w.TS != r.Entry.TS {
			t.Errorf("unexpected or altered entry %s", r.Raw)
		}
	}
	for k := range want {
		if !seen[k] {
			t.Errorf("entry %s lost", k)
		}
	}
	if err := hashOrderErr(data); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(s.Dir)
	for _, e := range ents {
		if bytes.Contains([]byte(e.Name()), []byte(".cairn-tmp-")) {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}

	ix := openIndex(t, s)
	res := mustSync(t, ix) // the readers may have synced it already
	if !res.Current && res.Entries != total {
		t.Fatalf("sync = %+v", res)
	}
	st, err := ix.Stats(true)
	if err != nil || st.Total != total {
		t.Fatalf("stats = %+v, %v", st, err)
	}
	for _, n := range []int{0, 1, 99, 100, 457, 650, total - 1} {
		e := writerEntry(n/entriesPerWriter, n%entriesPerWriter)
		hits := search(t, ix, testQuery{Text: uniqWord(n)})
		if len(hits) != 1 || hits[0].Entry.Key != e.Key {
			t.Errorf("search %s = %v, want %s", uniqWord(n), hitKeys(hits), e.Key)
		}
	}
	ix.Close()

	// Several processes find the cache missing and sync at once.
	if err := os.RemoveAll(s.CachePath()); err != nil {
		t.Fatal(err)
	}
	args = nil
	for range 4 {
		args = append(args, []string{"sync", root, strconv.Itoa(total)})
	}
	waitHelpers(t, startHelpers(t, args...))
}

// hashOrderErr checks that the lines are in ascending order of the
// SHA-256 of their key, then ts.
func hashOrderErr(data []byte) error {
	lines, _ := knowledge.Lines(data)
	prev := ""
	var prevTS int64
	for i, l := range lines {
		var v struct {
			Key string `json:"key"`
			TS  int64  `json:"ts"`
		}
		if err := json.Unmarshal(l, &v); err != nil {
			return fmt.Errorf("line %d: %v", i+1, err)
		}
		sum := sha256.Sum256([]byte(v.Key))
		h := hex.EncodeToString(sum[:])
		if h < prev || (h == prev && v.TS < prevTS) {
			return fmt.Errorf("line %d (%s) out of hash order", i+1, v.Key)
		}
		prev, prevTS = h, v.TS
	}
	return nil
}

// TestConcurrentSyncWhileWriting: processes that sync and search the cache
// (sessions starting, recalls) while others add entries. None of them may
// fail — no error from Open, Sync, Stats or Search — and the cache ends
// with every entry. Two syncers at once race to catch up or rebuild the
// same cache: a rebuild renames a new database over one another process
// is writing, and removes the journal next to it.
func TestConcurrentSyncWhileWriting(t *testing.T) {
	root := t.TempDir()
	const w = 4
	total := w * entriesPerWriter
	var args [][]string
	for i := range w {
		args = append(args, []string{"insert", root, strconv.Itoa(i)})
	}
	for range 3 {
		args = append(args, []string{"read", root, strconv.Itoa(total)})
	}
	waitHelpers(t, startHelpers(t, args...))
	ix := openIndex(t, knowledge.Open(root))
	mustSync(t, ix)
	if st, err := ix.Stats(true); err != nil || st.Total != total {
		t.Fatalf("stats = %+v, %v", st, err)
	}
	checkSame(t, "after concurrent syncs", takeSnapshot(t, ix), reference(t, knowledge.Open(root)))
}
