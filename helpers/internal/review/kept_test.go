package review

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"reflect"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/clitest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/synthlog"
)

// A memo's copy of a working tree's file is, after each read, the file's
// content, and keeps its name exactly when the content is the one it
// kept: over random files that grow, shrink, change at any byte, keep
// their size with another content, go missing or come back, compared in
// pieces of any size, including past the copy's storage.
func TestKeptCopyIsTheFile(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		var k keptFile
		piece := make([]byte, 1+rng.IntN(9))
		var content []byte // nil: missing
		var last []byte
		gen := uint64(0)
		for step := range 30 {
			switch r := rng.IntN(8); {
			case r == 0:
				content = nil
			case r == 1 && len(content) > 0:
				content = content[:rng.IntN(len(content))]
			case r == 2 && len(content) > 0:
				content = bytes.Clone(content)
				content[rng.IntN(len(content))] ^= 1 << rng.IntN(8)
			case r == 3:
				// unchanged
			default:
				add := make([]byte, rng.IntN(3*len(piece)))
				for i := range add {
					add[i] = 'a' + byte(rng.IntN(3))
				}
				content = append(bytes.Clone(content), add...)
			}
			open := func(string) (io.ReadCloser, error) {
				if content == nil {
					return nil, nil
				}
				return io.NopCloser(bytes.NewReader(content)), nil
			}
			was := k.gen
			if err := k.refresh(open, "log", piece, 1<<20); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(k.data, content) {
				t.Fatalf("round %d, step %d: the copy is %q, the file %q", round, step, k.data, content)
			}
			if changed := k.gen == 0; changed != (step == 0 || !bytes.Equal(last, content)) {
				t.Fatalf("round %d, step %d: changed %v, from %q to %q", round, step, changed, last, content)
			}
			if k.gen == 0 {
				gen++
				k.gen = gen
			} else if k.gen != was {
				t.Fatalf("round %d, step %d: the name moved from %d to %d", round, step, was, k.gen)
			}
			last = bytes.Clone(content)
		}
	}
}

// A file that cannot be read, or is over the cap, leaves no copy: the
// next read reads it whole.
func TestKeptCopyOfAFileThatFails(t *testing.T) {
	var m DiffMemo
	content := bytes.Repeat([]byte("0123456789\n"), 100_000)
	fail := false
	open := func(name string) (io.ReadCloser, error) {
		if name != knowledge.LogName {
			return nil, nil
		}
		if fail {
			return io.NopCloser(io.MultiReader(bytes.NewReader(content[:500_000]), iotestErr{})), nil
		}
		return os.Open(writeTemp(t, content))
	}
	first, err := m.refreshWork(open)
	if err != nil {
		t.Fatal(err)
	}
	fail = true
	if _, err := m.refreshWork(open); !errors.Is(err, errRead) {
		t.Fatalf("a read that fails: %v", err)
	}
	if m.work[0].gen != 0 {
		t.Error("a copy is kept of a file that failed to read")
	}
	fail = false
	again, err := m.refreshWork(open)
	if err != nil || again == first || !bytes.Equal(m.work[0].data, content) {
		t.Errorf("after a failed read: %v, named %v (before %v)", err, again, first)
	}
	var k keptFile
	big := func(string) (io.ReadCloser, error) { return os.Open(writeTemp(t, content)) }
	if err := k.refresh(big, "log", make([]byte, 10), int64(len(content)-1)); !errors.Is(err, fsx.ErrTooLarge) {
		t.Errorf("a file over the cap: %v", err)
	}
	endless := func(string) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(content)), nil } // no size to check first
	if err := k.refresh(endless, "log", make([]byte, 10), 1000); !errors.Is(err, fsx.ErrTooLarge) {
		t.Errorf("a file over the cap, its size unknown: %v", err)
	}
}

var errRead = errors.New("read failed")

type iotestErr struct{}

func (iotestErr) Read([]byte) (int, error) { return 0, errRead }

func writeTemp(t *testing.T, data []byte) string {
	t.Helper()
	path := t.TempDir() + "/log"
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A working tree's log that changes while the memo reads it (a line
// written in the middle between two of its pieces) gives a diff of what
// was read; the next diff, of the log as it is, is the whole comparison's.
func TestDiffMemoOfALogThatChangesAsItIsRead(t *testing.T) {
	clitest.IsolateGit(t)
	p := changedRepo(t, 3000, true)
	src, _ := openWithMemo(t, p)
	if _, err := src.Diff(""); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p.Store.LogPath())
	if err != nil {
		t.Fatal(err)
	}
	open := src.OpenLog
	src.OpenLog = func(name string) (io.ReadCloser, error) {
		f, err := open(name)
		if f == nil || err != nil {
			return f, err
		}
		return &changeAfter{ReadCloser: f, after: pieceSize, change: func() {
			// An entry added at the log's end, one retracted in its middle.
			mid := bytes.IndexByte(data[len(data)/2:], '\n') + len(data)/2 + 1
			var e knowledge.Entry
			knowledge.Parse(data[mid:mid+bytes.IndexByte(data[mid:], '\n')], func(r knowledge.Record) { e = r.Entry })
			e.TS, e.Status = e.TS+60, knowledge.StatusRetracted
			line, err := knowledge.Marshal(&e)
			if err != nil {
				t.Fatal(err)
			}
			moved := append(append(bytes.Clone(data[:mid]), append(line, '\n')...), data[mid:]...)
			moved = append(moved, append(synthlog.Log(9000, 9001, 1)[0], '\n')...)
			if err := os.WriteFile(p.Store.LogPath(), moved, 0o644); err != nil {
				t.Fatal(err)
			}
		}}, nil
	}
	if _, err := src.Diff(""); err != nil {
		t.Fatal(err)
	}
	src.OpenLog = open
	d, err := src.Diff("")
	if err != nil {
		t.Fatal(err)
	}
	if want := wholeDiff(t, p, "HEAD", ""); !reflect.DeepEqual(d.Changes, want) || d.Counts[knowledge.ChangeRetracted] == 0 {
		t.Errorf("the diff after the log changed as it was read: %v, the whole comparison %d changes", d.Counts, len(want))
	}
}

// changeAfter calls change once after its first after bytes are read.
type changeAfter struct {
	io.ReadCloser
	after  int
	change func()
}

func (c *changeAfter) Read(b []byte) (int, error) {
	n, err := c.ReadCloser.Read(b)
	if c.after -= n; c.after <= 0 && c.change != nil {
		c.change()
		c.change = nil
	}
	return n, err
}
