package review

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/gitx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/project"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/clitest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/synthlog"
)

// openWithMemo opens p's sources with a memo of their own, closed when
// the test ends.
func openWithMemo(t *testing.T, p *project.Project) (Sources, *DiffMemo) {
	t.Helper()
	src, close, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { close() })
	m := &DiffMemo{}
	src.memo = m
	return src, m
}

// changedRepo is a git repository whose log of n entries has two commits
// (the second a day of synthlog.Changed's work); the working tree is the
// second's, its log ahead by one more line when dirty.
func changedRepo(t testing.TB, n int, dirty bool) *project.Project {
	t.Helper()
	dir := t.TempDir()
	clitest.Git(t, dir, "init", "-q", "-b", "main")
	p := project.New(dir, true)
	if err := p.Store.Provision(); err != nil {
		t.Fatal(err)
	}
	before, after := synthlog.Changed(n, 7)
	write := func(lines [][]byte) {
		t.Helper()
		if err := os.WriteFile(p.Store.LogPath(), append(bytes.Join(lines, []byte("\n")), '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(before)
	clitest.Git(t, dir, "add", "-A")
	clitest.Git(t, dir, "commit", "-q", "-m", "before")
	write(after)
	clitest.Git(t, dir, "commit", "-q", "-am", "after")
	if dirty {
		write(append(after, synthlog.Log(n+100, n+101, 7)...))
	}
	return p
}

// wholeDiff is the diff the long way: both states read whole and
// compared (what cairn diff did before it parsed only the changed lines).
func wholeDiff(t *testing.T, p *project.Project, from, to string) []knowledge.Change {
	t.Helper()
	read := func(rev string) []knowledge.Record {
		var recs []knowledge.Record
		if rev == "" {
			recs, _, err := p.Store.ReadAll(true)
			if err != nil {
				t.Fatal(err)
			}
			return recs
		}
		data := clitest.Git(t, p.Root, "show", rev+":.cairn/knowledge.jsonl")
		knowledge.Parse([]byte(data+"\n"), func(r knowledge.Record) { recs = append(recs, r) })
		return recs
	}
	cs := knowledge.Compare(read(from), read(to))
	if cs == nil {
		cs = []knowledge.Change{}
	}
	return cs
}

// On a real repository, the diff of two commits, of a commit and the
// working tree (dirty or as committed) and of a merge base gives the
// changes of the whole comparison.
func TestDiffMatchesTheWholeComparison(t *testing.T) {
	clitest.IsolateGit(t)
	for _, dirty := range []bool{false, true} {
		p := changedRepo(t, 2000, dirty)
		for _, tc := range []struct{ arg, from, to string }{
			{"HEAD~1..HEAD", "HEAD~1", "HEAD"},
			{"HEAD..HEAD~1", "HEAD", "HEAD~1"},
			{"HEAD~1...HEAD", "HEAD~1", "HEAD"},
			{"HEAD~1", "HEAD~1", ""},
			{"", "HEAD", ""},
		} {
			d, err := Diff(p, tc.arg)
			if err != nil {
				t.Fatal(err)
			}
			want := wholeDiff(t, p, tc.from, tc.to)
			if !reflect.DeepEqual(d.Changes, want) {
				t.Errorf("dirty %v, cairn diff %s: %d changes, the whole comparison %d", dirty, tc.arg, len(d.Changes), len(want))
			}
			if tc.arg == "HEAD~1..HEAD" && (d.Counts[knowledge.ChangeAdded] != 20 || d.Counts[knowledge.ChangeRetracted] != 10 ||
				d.Counts[knowledge.ChangeEdited] != 10 || d.Counts[knowledge.ChangeSuperseded] != 10) {
				t.Errorf("cairn diff %s counts %v", tc.arg, d.Counts)
			}
		}
	}
}

// bigBlobs is a repository whose every log is over the cap.
type bigBlobs struct{ fakeGit }

func (bigBlobs) BlobsAt(id string, paths ...string) (map[string]gitx.Blob, error) {
	return map[string]gitx.Blob{paths[0]: {ID: "abcd", Size: knowledge.MaxLogBytes + 1}}, nil
}
func (bigBlobs) ReadBlob(gitx.Blob, int64) ([]byte, error) { panic("read over the cap") }

// A log committed over the cap is refused with the cap, unread.
func TestDiffRefusesALogOverTheCap(t *testing.T) {
	src := Sources{Git: bigBlobs{fakeGit{revs: map[string]string{"HEAD": "c2", "main": "c1"}}}, Dir: ".cairn"}
	if _, err := src.Diff("main..HEAD"); !errors.Is(err, gitx.ErrTooLarge) || !strings.Contains(err.Error(), "at most") {
		t.Errorf("a committed log over the cap: %v", err)
	}
}

// The diff at 100k entries, of two commits a day's work apart, of the
// working tree as committed (the viewer's first diff) and of the working
// tree and the commit before. cpu-ms/op counts git's processes too.
//
//	go test ./helpers/internal/review -run '^$' -bench Diff100k -count 6
func BenchmarkDiff100k(b *testing.B) {
	clitest.IsolateGit(b)
	p := changedRepo(b, 100_000, false)
	for _, bc := range []struct{ name, arg string }{
		{"commits", "HEAD~1..HEAD"},
		{"worktree-as-committed", ""},
		{"worktree-a-day-ahead", "HEAD~1"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			cpu := cpuTime()
			for b.Loop() {
				if _, err := Diff(p, bc.arg); err != nil {
					b.Fatal(err)
				}
			}
			if c := cpuTime(); c > 0 {
				b.ReportMetric((c-cpu)*1000/float64(b.N), "cpu-ms/op")
			}
		})
	}
}

// A DiffMemo answers a diff asked again of the same states without
// computing it, and computes it again when a revision or the working
// tree's log moves; a commit's log it read for its last diff, it does
// not read from git again.
func TestDiffMemoRemembersTheSameStates(t *testing.T) {
	clitest.IsolateGit(t)
	p := changedRepo(t, 200, false)
	var m DiffMemo
	reads := 0
	ask := func(arg string, computed, read int) DiffReport {
		t.Helper()
		d, err := m.Diff(p, arg)
		if err != nil {
			t.Fatal(err)
		}
		if m.computed != computed {
			t.Errorf("after diff %q: %d computed, want %d", arg, m.computed, computed)
		}
		if reads += read; m.blobReads != reads {
			t.Errorf("after diff %q: %d logs read from git, want %d", arg, m.blobReads, reads)
		}
		if want, _ := Diff(p, arg); !reflect.DeepEqual(d, want) {
			t.Errorf("diff %q remembered %d changes, Diff says %d", arg, len(d.Changes), len(want.Changes))
		}
		return d
	}
	ask("HEAD~1", 1, 1)       // HEAD~1's log read
	ask("HEAD~1", 1, 0)       // remembered
	ask("HEAD~1..HEAD", 2, 1) // HEAD's read, HEAD~1's kept
	ask("HEAD~1..HEAD", 2, 0)
	ask("HEAD~1", 3, 0)
	f, err := os.OpenFile(p.Store.LogPath(), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(synthlog.Log(500, 501, 1)[0])
	f.Write([]byte("\n"))
	f.Close()
	if d := ask("HEAD~1", 4, 0); d.Counts[knowledge.ChangeAdded] != 21 {
		t.Errorf("after a line was added: %v", d.Counts)
	}
}

// A diff asked of a DiffMemo while it computes the same one (the viewer's
// first page while it warms) waits for it and finds its answer: one diff
// is computed, not two.
func TestDiffMemoWaitsForTheDiffUnderWay(t *testing.T) {
	clitest.IsolateGit(t)
	p := changedRepo(t, 200, true)
	var m DiffMemo
	waited := make(chan struct{})
	m.waiting = func() { close(waited) }
	second := make(chan DiffReport, 1)
	m.computing = func() {
		m.computing = nil
		go func() {
			d, err := m.Diff(p, "")
			if err != nil {
				t.Error(err)
			}
			second <- d
		}()
		// The second diff either waits for this one or, computing
		// its own, returns first.
		select {
		case <-waited:
		case d := <-second:
			second <- d
		}
	}
	if _, err := m.Diff(p, ""); err != nil {
		t.Fatal(err)
	}
	d := <-second
	if n := m.Computed(); n != 1 {
		t.Errorf("two diffs asked at once computed %d, want 1", n)
	}
	if want, _ := Diff(p, ""); !reflect.DeepEqual(d, want) || d.Counts[knowledge.ChangeAdded] == 0 {
		t.Errorf("the diff that waited: %v, Diff says %v", d.Counts, want.Counts)
	}
}

// A working tree's log of the committed one's size but not its content
// is compared, not taken for the committed one, nor for the log the memo
// compared before it was edited.
func TestDiffOfALogEditedToTheSameSize(t *testing.T) {
	clitest.IsolateGit(t)
	p := changedRepo(t, 200, false)
	var m DiffMemo
	if d, err := m.Diff(p, ""); err != nil || len(d.Changes) != 0 {
		t.Fatalf("the log as committed: %v, %v", d.Counts, err)
	}
	data, err := os.ReadFile(p.Store.LogPath())
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.LastIndex(data, []byte(`"content":"`)) + len(`"content":"`)
	data[i] ^= 1 // another letter
	if err := os.WriteFile(p.Store.LogPath(), data, 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := m.Diff(p, "")
	if err != nil {
		t.Fatal(err)
	}
	if want := wholeDiff(t, p, "HEAD", ""); len(want) == 0 || !reflect.DeepEqual(d.Changes, want) {
		t.Errorf("cairn diff: %d changes, the whole comparison %d", len(d.Changes), len(want))
	}
}

// A diff the memo remembers is known by comparing the working tree's log
// with the copy the memo keeps, read in pieces: the log is not read whole
// (LogData), nor copied anew, nor are the commits' logs read again.
func TestDiffMemoRemembersWithoutReadingTheLog(t *testing.T) {
	clitest.IsolateGit(t)
	p := changedRepo(t, 200, true)
	src, m := openWithMemo(t, p)
	reads := 0
	logData := src.LogData
	src.LogData = func() ([]byte, []byte, error) { reads++; return logData() }
	var kept *byte
	for i := range 3 {
		d, err := src.Diff("HEAD~1")
		if err != nil || d.Counts[knowledge.ChangeAdded] == 0 {
			t.Fatalf("diff %d: %v, %v", i, d.Counts, err)
		}
		if reads != 0 || m.blobReads != 1 || m.computed != 1 {
			t.Errorf("diff %d: the log read whole %d times, want 0; %d commits' logs read, want 1; %d diffs computed, want 1", i, reads, m.blobReads, m.computed)
		}
		if i == 0 {
			kept = &m.work[0].data[0]
		} else if &m.work[0].data[0] != kept || m.gen != 2 {
			t.Errorf("diff %d: the copy of the log was made again (%d contents read, want 2: the log and the missing archive)", i, m.gen)
		}
	}
}

// A DiffMemo's diff of the working tree after its log moved (an entry
// added, a pull's entries merged in among its lines with a retraction of
// an old one, a line dropped) is the whole comparison's, and reads and
// indexes the commit's log once, at the first diff.
func TestDiffMemoAfterTheLogMoved(t *testing.T) {
	clitest.IsolateGit(t)
	p := changedRepo(t, 300, true)
	var m DiffMemo
	check := func(step string) {
		t.Helper()
		d, err := m.Diff(p, "")
		if err != nil {
			t.Fatal(err)
		}
		if want := wholeDiff(t, p, "HEAD", ""); len(want) == 0 || !reflect.DeepEqual(d.Changes, want) {
			t.Errorf("%s: %v, the whole comparison %d changes", step, d.Counts, len(want))
		}
		if m.blobReads != 1 || m.indexed != 1 {
			t.Errorf("%s: the commit's log read %d times and indexed %d, want once", step, m.blobReads, m.indexed)
		}
	}
	check("the log as the viewer opened")
	data, err := os.ReadFile(p.Store.LogPath())
	if err != nil {
		t.Fatal(err)
	}
	write := func(data []byte) {
		t.Helper()
		if err := os.WriteFile(p.Store.LogPath(), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data = append(data, append(synthlog.Log(1000, 1001, 3)[0], '\n')...)
	write(data)
	check("an entry added")
	lines := bytes.SplitAfter(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	var e knowledge.Entry
	knowledge.Parse(lines[100], func(r knowledge.Record) { e = r.Entry })
	e.TS, e.Status, e.ReviewReason = e.TS+60, knowledge.StatusRetracted, "pulled"
	retract, err := knowledge.Marshal(&e)
	if err != nil {
		t.Fatal(err)
	}
	pulled := append(synthlog.Log(2000, 2050, 3), retract)
	var out bytes.Buffer
	for i, l := range lines {
		out.Write(l)
		if k := i / 6; i%6 == 0 && k < len(pulled) {
			out.Write(append(pulled[k], '\n'))
		}
	}
	write(out.Bytes())
	check("a pull merged in")
	i := bytes.Index(out.Bytes(), lines[200])
	write(append(out.Bytes()[:i:i], out.Bytes()[i+len(lines[200]):]...))
	check("a line dropped")
}
