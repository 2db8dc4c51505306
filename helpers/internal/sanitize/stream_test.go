package sanitize

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/audit"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/testenv"
)

// storeWith is a git repository with one tracked file whose log holds n
// entries of every kind sanitize judges, a run's working set and audit
// already in its cache, and then a log that a new run would judge
// otherwise (every third entry retracted).
func storeWith(t *testing.T, n int) (*gitRepo, *knowledge.Store) {
	t.Helper()
	repo := newGitRepo(t)
	repo.write(map[string]string{"pkg/a.go": "package pkg\n\nfunc Present() {}\n"})
	repo.commit("init")
	s := knowledge.Open(repo.dir)
	if err := s.Provision(); err != nil {
		t.Fatal(err)
	}
	var entries []knowledge.Entry
	for i := range n {
		var content string
		switch i % 5 {
		case 0:
			content = fmt.Sprintf("pkg/a.go defines `Present` for caller %d.", i)
		case 1:
			content = fmt.Sprintf("pkg/gone%d.go held the retry loop.", i)
		case 2:
			content = fmt.Sprintf(`bd create --title="task %d" --type=task`, i)
		case 3:
			content = fmt.Sprintf("Deploys of service %d wait for the freeze.", i/2)
		case 4:
			content = fmt.Sprintf("deploys of service %d wait for the freeze!", i/2)
		}
		entries = append(entries, ent(fmt.Sprintf("fact-%06d", i), "fact", content, int64(1_700_000_000+i)))
	}
	write := func(entries []knowledge.Entry) {
		t.Helper()
		if err := os.WriteFile(s.LogPath(), logOf(t, entries...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(entries)
	if _, ran, err := Run(s, Options{Root: repo.dir}, true); err != nil || !ran {
		t.Fatalf("first run: %v %v", ran, err)
	}
	for i := 0; i < n; i += 3 {
		r := entries[i]
		r.TS++
		r.Status, r.ReviewReason = knowledge.StatusRetracted, "wrong"
		entries = append(entries, r)
	}
	write(entries)
	return repo, s
}

// cacheFiles reads every file in the cache directory but the lock.
func cacheFiles(t *testing.T, s *knowledge.Store) map[string][]byte {
	t.Helper()
	ents, err := os.ReadDir(s.CachePath())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range ents {
		if e.Name() == LockName {
			continue
		}
		data, err := os.ReadFile(filepath.Join(s.CachePath(), e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = data
	}
	return out
}

func sameFiles(t *testing.T, what string, got, want map[string][]byte) {
	t.Helper()
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: %s left behind", what, name)
		}
	}
	for name, data := range want {
		if !bytes.Equal(got[name], data) {
			t.Errorf("%s: %s changed (%d bytes, was %d)", what, name, len(got[name]), len(data))
		}
	}
}

// cancelAfter is a context whose Err turns to context.Canceled at its
// n-th call: the run asks at every point where it may stop.
type cancelAfter struct {
	context.Context
	n, calls int
}

func (c *cancelAfter) Err() error {
	c.calls++
	if c.n > 0 && c.calls >= c.n {
		return context.Canceled
	}
	return nil
}

// A run cancelled at any point where it checks its context leaves the
// previous working set and audit byte for byte, and no temporary file.
func TestRunCancelledKeepsPreviousWorkingSet(t *testing.T) {
	repo, s := storeWith(t, 10_000)
	before := cacheFiles(t, s)
	if len(before) != 2 {
		t.Fatalf("cache after the first run: %d files", len(before))
	}
	// Count the points a whole run checks (with every file written, the
	// last check comes before either replaces the previous one).
	probe := &cancelAfter{Context: context.Background()}
	probeDir := t.TempDir()
	if err := os.CopyFS(probeDir, os.DirFS(repo.dir)); err != nil {
		t.Fatal(err)
	}
	if _, ran, err := RunContext(probe, knowledge.Open(probeDir), Options{Root: probeDir}, true); err != nil || !ran {
		t.Fatalf("probe run: %v %v", ran, err)
	}
	if probe.calls < 6 {
		t.Fatalf("a run over %d lines checks its context %d times", 13_334, probe.calls)
	}
	for n := 1; n <= probe.calls; n++ {
		ctx := &cancelAfter{Context: context.Background(), n: n}
		_, ran, err := RunContext(ctx, s, Options{Root: repo.dir}, true)
		if ran || !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled at check %d of %d: ran %v, %v", n, probe.calls, ran, err)
		}
		sameFiles(t, fmt.Sprintf("cancelled at check %d of %d", n, probe.calls), cacheFiles(t, s), before)
	}
	// Cancelled once both files are written, before they replace the
	// previous ones.
	ctx, cancel := context.WithCancel(context.Background())
	beforeReplace = cancel
	_, ran, err := RunContext(ctx, s, Options{Root: repo.dir}, true)
	beforeReplace = nil
	if ran || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled before replacing: ran %v, %v", ran, err)
	}
	sameFiles(t, "cancelled before replacing", cacheFiles(t, s), before)

	// Not cancelled: the run replaces both.
	if _, ran, err := Run(s, Options{Root: repo.dir}, true); err != nil || !ran {
		t.Fatalf("run: %v %v", ran, err)
	}
	after := cacheFiles(t, s)
	if len(after) != 2 || bytes.Equal(after[ActiveName], before[ActiveName]) || bytes.Equal(after[audit.Name], before[audit.Name]) {
		t.Errorf("the run after them did not replace the working set and the audit: %d files", len(after))
	}
}

// killHelperEnv makes the test binary a sanitize run that stops before
// replacing the previous files, says so, and waits to be killed.
const killHelperEnv = "CAIRN_SANITIZE_KILL_HELPER"

func TestMain(m *testing.M) {
	if dir := os.Getenv(killHelperEnv); dir != "" {
		beforeReplace = func() {
			fmt.Println("ready")
			_, _ = io.Copy(io.Discard, os.Stdin) // until killed
			os.Exit(3)
		}
		_, _, err := Run(knowledge.Open(dir), Options{Root: dir}, true)
		fmt.Fprintln(os.Stderr, "the run returned:", err)
		os.Exit(2)
	}
	testenv.Main(m)
}

// A run killed after writing its files and before renaming them leaves
// the previous working set and audit byte for byte; the next run removes
// what it left and replaces them.
func TestRunKilledKeepsPreviousWorkingSet(t *testing.T) {
	repo, s := storeWith(t, 2_000)
	before := cacheFiles(t, s)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), killHelperEnv+"="+repo.dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "ready\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the run said %q, %v; stderr:\n%s", line, err, stderr.String())
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	got := cacheFiles(t, s)
	temps := 0
	for name := range got {
		if fsx.IsTemp(name) {
			temps++
			delete(got, name)
		}
	}
	if temps != 2 {
		t.Errorf("the killed run left %d temporary files, want its 2", temps)
	}
	sameFiles(t, "killed before replacing", got, before)

	if _, ran, err := Run(s, Options{Root: repo.dir}, true); err != nil || !ran {
		t.Fatalf("run: %v %v", ran, err)
	}
	after := cacheFiles(t, s)
	if len(after) != 2 || bytes.Equal(after[ActiveName], before[ActiveName]) {
		t.Errorf("the next run left %d files in the cache, or the old working set", len(after))
	}
}

// A log changed in place while a run reads it fails the run, and the
// previous working set stays.
func TestRunLogChangedInPlace(t *testing.T) {
	repo, s := storeWith(t, 100)
	before := cacheFiles(t, s)
	beforeReplace = func() {
		f, err := os.OpenFile(s.LogPath(), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(marshal(t, ent("fact-late", "fact", "Appended in place by a run of another tool.", 9)) + "\n"); err != nil {
			t.Fatal(err)
		}
	}
	_, ran, err := Run(s, Options{Root: repo.dir}, true)
	beforeReplace = nil
	if ran || !errors.Is(err, errChanged) {
		t.Fatalf("ran %v, %v; want errChanged", ran, err)
	}
	sameFiles(t, "log changed in place", cacheFiles(t, s), before)
}

// What a run holds does not grow with what the log says: per key it keeps
// the key and a few numbers, whatever the size of the content, however
// many lines the key has. It reads the log twice, line by line, and reads
// a line again only to compare the words of duplicates.
func TestRunHoldsPerKeyStateOnly(t *testing.T) {
	const keys, linesPerKey = 2_000, 4
	filler := strings.Repeat("every word of this long content is read once and never kept ", 20) // 1,240 bytes
	var entries []knowledge.Entry
	keyBytes := 0
	for i := range keys {
		key := fmt.Sprintf("fact-%05d", i)
		keyBytes += len(key)
		for v := range linesPerKey {
			entries = append(entries, ent(key, "fact", fmt.Sprintf("Entry %d, version %d: %s", i, v, filler), int64(1_700_000_000+v)))
		}
	}
	// Two duplicates of entry 0's latest line, under other keys.
	for _, k := range []string{"fact-dup-a", "fact-dup-b"} {
		keyBytes += len(k)
		entries = append(entries, ent(k, "fact", fmt.Sprintf("entry 0 version %d %s", linesPerKey-1, filler), 1_600_000_000))
	}
	log := logOf(t, entries...)
	longest := 0
	for _, l := range bytes.SplitAfter(log, []byte("\n")) {
		longest = max(longest, len(l))
	}

	r := newRun(Options{}, false)
	r.readBuffer = 1 << 10 // smaller than a line: lines are gathered
	var active, auditLog bytes.Buffer
	aw, uw := bufio.NewWriter(&active), bufio.NewWriter(&auditLog)
	if err := r.build(context.Background(), memSource("archive", nil), memSource("log", log), aw, uw); err != nil {
		t.Fatal(err)
	}
	aw.Flush()
	uw.Flush()

	st := r.stats
	if len(r.states) != keys+2 {
		t.Errorf("%d key states for %d keys", len(r.states), keys+2)
	}
	if st.heldBytes != int64(keyBytes) {
		t.Errorf("held %d bytes of strings after the fold, want the %d of the keys (the log is %d bytes)", st.heldBytes, keyBytes, len(log))
	}
	if st.longestLine != longest {
		t.Errorf("longest line buffered %d, want %d", st.longestLine, longest)
	}
	if st.bytesRead < int64(len(log)) || st.bytesRead > 2*int64(len(log)) {
		t.Errorf("read %d bytes line by line, want at most twice the log's %d", st.bytesRead, len(log))
	}
	if st.rereads != 3 {
		t.Errorf("read %d lines again, want the 3 of the one cluster of duplicates", st.rereads)
	}
	if r.res.Active != nil || r.res.Audit != nil || r.res.Latest != nil || r.latest != nil {
		t.Error("a run that does not collect kept entries or audit lines")
	}
	if s := r.res.Summary; s.Entries != keys+2 || s.Active != keys || s.Duplicates != 2 || s.Lines != len(entries) {
		t.Errorf("summary %+v", s)
	}
	if n := bytes.Count(active.Bytes(), []byte("\n")); n != keys {
		t.Errorf("%d working-set lines, want %d", n, keys)
	}
}

// FuzzScan: the line reader and parseLine, given the lines of a file one
// at a time through a tiny buffer, read what knowledge.ParseEach reads of
// the whole file: the same lines, entries and problems; and an entry of a
// line that needed no repair is the line itself, trimmed.
func FuzzScan(f *testing.F) {
	good := `{"key":"k","type":"fact","content":"a b","ts":1}`
	for _, s := range []string{
		"",
		"\n",
		good,
		good + "\n",
		"\xef\xbb\xbf" + good + "\r\n" + "\xef\xbb\xbf" + good + "\n",
		"\xef\xbb\xbf",
		"\xef\xbb\xbf\n" + good,
		good + good + "\n" + `"` + strings.ReplaceAll(good, `"`, `\"`) + `"` + "\n",
		"<<<<<<< HEAD\n" + good + "\n=======\n>>>>>>> x\n",
		"  " + good + "  \r\n\r\n" + strings.Repeat("x", 100) + "\n{\"key\":",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		type item struct {
			line int
			kind string
			json string
		}
		var want []item
		rep := knowledge.ParseEach(data, func(rec knowledge.Record) {
			want = append(want, item{rec.Line, "", string(rec.JSON)})
		}, func(p knowledge.Problem) {
			want = append(want, item{p.Line, p.Kind, ""})
		})

		r := newRun(Options{}, false)
		var read int64
		lr := newLineReader(memSource("log", data), &read, 16)
		var got []item
		lines := 0
		for ln := 1; ; ln++ {
			line, off, err := lr.next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			repaired := false
			lines += r.parseLine(line, off, func(rec knowledge.Record) {
				got = append(got, item{ln, "", string(rec.JSON)})
				if !repaired {
					st := &keyState{}
					if js, _ := r.entryJSON(line, off, st); !bytes.Equal(js, rec.JSON) {
						t.Errorf("line %d: entryJSON %q, want %q", ln, js, rec.JSON)
					}
				}
			}, func(p knowledge.Problem) {
				got = append(got, item{ln, p.Kind, ""})
				repaired = repaired || p.Repaired()
			})
		}
		if read != int64(len(data)) {
			t.Errorf("read %d bytes of %d", read, len(data))
		}
		if lines != rep.Lines {
			t.Errorf("%d lines, ParseEach %d", lines, rep.Lines)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("line by line\n%+v\nwhole\n%+v", got, want)
		}
	})
}
