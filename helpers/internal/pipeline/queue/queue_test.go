package queue_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/detach"
	"github.com/cairn-dev/cairn/helpers/internal/pipeline/queue"
	"github.com/cairn-dev/cairn/helpers/internal/userconf"
)

// transcript writes a transcript file last written at mod.
func transcript(t testing.TB, dir string, mod time.Time) string {
	t.Helper()
	path := filepath.Join(dir, "session.jsonl")
	if err := os.WriteFile(path, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, mod, mod); err != nil {
		t.Fatal(err)
	}
	return path
}

// The gates: a Stop is debounced for a minute after the session was
// queued, and a distilled session comes back only once its transcript
// grew two minutes past (one the worker skipped comes back at once);
// forcing (SessionEnd, handoff-now) skips both.
func TestEnqueueGates(t *testing.T) {
	now := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	type state struct {
		pendingAge time.Duration // 0: none
		done       bool
		skipped    bool          // the done task was not distilled
		grewAfter  time.Duration // transcript mtime minus the done task's enqueue time
	}
	cases := []struct {
		name  string
		st    state
		force bool
		want  queue.Skip
	}{
		{"first stop", state{}, false, queue.Queued},
		{"stop within a minute of the last", state{pendingAge: 30 * time.Second}, false, queue.Debounced},
		{"stop after a minute", state{pendingAge: 61 * time.Second}, false, queue.Queued},
		{"processed, grew 60 s", state{done: true, grewAfter: 60 * time.Second}, false, queue.NotGrown},
		{"processed, grew 119 s", state{done: true, grewAfter: 119 * time.Second}, false, queue.NotGrown},
		{"processed, grew 120 s", state{done: true, grewAfter: 120 * time.Second}, false, queue.Queued},
		{"done, not distilled", state{done: true, skipped: true, grewAfter: time.Second}, false, queue.Queued},
		{"end, debounced", state{pendingAge: time.Second}, true, queue.Queued},
		{"end, not grown", state{done: true}, true, queue.Queued},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			q := queue.Queue{Dir: filepath.Join(dir, "queue")}
			enq := now.Add(-10 * time.Minute)
			tr := transcript(t, dir, enq.Add(c.st.grewAfter))
			task := queue.Task{Session: "s1", Transcript: tr, Agent: "claude", Reason: queue.ReasonStop}
			if c.st.pendingAge > 0 {
				os.MkdirAll(q.Dir, 0o755)
				os.WriteFile(q.Pending(queue.Name("s1")), []byte(`{"session":"s1"}`), 0o644)
				os.Chtimes(q.Pending(queue.Name("s1")), now.Add(-c.st.pendingAge), now.Add(-c.st.pendingAge))
			}
			if c.st.done {
				d := queue.Done{Task: task}
				d.Enqueued = enq.UnixNano()
				d.Distilled = !c.st.skipped
				data, _ := json.Marshal(d)
				os.MkdirAll(filepath.Join(q.Dir, queue.DoneDir), 0o755)
				os.WriteFile(q.DonePath(queue.Name("s1")), data, 0o644)
			}
			got, err := q.Enqueue(task, c.force, now)
			if err != nil || got != c.want {
				t.Fatalf("Enqueue = %q, %v; want %q", got, err, c.want)
			}
			if got != queue.Queued {
				return
			}
			var back queue.Task
			if err := queue.ReadTask(q.Pending(queue.Name("s1")), &back); err != nil || back.Transcript != tr || back.Enqueued != now.UnixNano() {
				t.Errorf("queued task = %+v, %v", back, err)
			}
		})
	}
	if got, _ := (queue.Queue{Dir: t.TempDir()}).Enqueue(queue.Task{Session: "x"}, true, now); got != queue.NoSession {
		t.Errorf("a task without a transcript: %q", got)
	}
}

// A session id cannot steer the task's path.
func TestName(t *testing.T) {
	for in, want := range map[string]string{
		"26e7e04b-f769-409a-a007-3b9794e3bc9d": "26e7e04b-f769-409a-a007-3b9794e3bc9d.task",
		"ses_4f3a9c":                           "ses_4f3a9c.task",
		"":                                     "session.task",
	} {
		if got := queue.Name(in); got != want {
			t.Errorf("Name(%q) = %q, want %q", in, got, want)
		}
	}
	// An id with characters a file name cannot have, or a long one, is
	// named by what it can keep and a hash: never a path, never another
	// id's name.
	seen := map[string]string{}
	for _, in := range []string{"../../etc/passwd", "etc/passwd", "etcpasswd", "/", "//", strings.Repeat("a", 64), strings.Repeat("a", 65), strings.Repeat("a", 66)} {
		got := queue.Name(in)
		if strings.ContainsAny(got, "/\\") || strings.HasPrefix(got, ".") || strings.HasPrefix(got, "-") || !strings.HasSuffix(got, ".task") {
			t.Errorf("Name(%q) = %q", in, got)
		}
		if other, ok := seen[got]; ok {
			t.Errorf("Name(%q) = Name(%q) = %q", in, other, got)
		}
		seen[got] = in
	}
}

// Eight producers at once, on eight sessions and on one: every task file
// is whole, one per session.
func TestConcurrentProducers(t *testing.T) {
	dir := t.TempDir()
	q := queue.Queue{Dir: filepath.Join(dir, "queue")}
	tr := transcript(t, dir, time.Now())
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				for _, s := range []string{fmt.Sprintf("own-%d", w), "shared"} {
					if _, err := q.Enqueue(queue.Task{Session: s, Transcript: tr, Agent: "claude"}, true, time.Now()); err != nil {
						t.Error(err)
					}
				}
			}
		}(w)
	}
	wg.Wait()
	entries, err := os.ReadDir(q.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var tasks []string
	for _, e := range entries {
		if e.Type().IsRegular() {
			tasks = append(tasks, e.Name())
			var back queue.Task
			if err := queue.ReadTask(q.Pending(e.Name()), &back); err != nil {
				t.Errorf("%s: %v", e.Name(), err)
			}
		}
	}
	if len(tasks) != 9 {
		t.Errorf("%d task files, want 9 (8 own, 1 shared): %v", len(tasks), tasks)
	}
	if n, _ := q.Count(); n != 9 {
		t.Errorf("Count = %d", n)
	}
}

// Produce queues only when the user turned the pipeline on, and never in
// the pipeline's own processes.
func TestProduce(t *testing.T) {
	home := t.TempDir()
	tr := transcript(t, home, time.Now())
	vars := map[string]string{"HOME": home, "CAIRN_NO_BACKGROUND": "1"}
	getenv := func(k string) string { return vars[k] }
	task := queue.Task{Session: "s1", Transcript: tr, Agent: "claude"}
	if got, err := queue.Produce(getenv, userconf.Loader(getenv), task, false, time.Now()); err != nil || got == queue.Queued {
		t.Fatalf("pipeline off: %q, %v", got, err)
	}
	if _, err := userconf.Turn(getenv, true); err != nil {
		t.Fatal(err)
	}
	vars[detach.ChildEnv] = "1"
	if got, _ := queue.Produce(getenv, userconf.Loader(getenv), task, true, time.Now()); got == queue.Queued {
		t.Fatal("the pipeline's own process queued a task")
	}
	delete(vars, detach.ChildEnv)
	if got, err := queue.Produce(getenv, userconf.Loader(getenv), task, false, time.Now()); err != nil || got != queue.Queued {
		t.Fatalf("pipeline on: %q, %v", got, err)
	}
	d, _ := userconf.UserDirs(getenv)
	if n, _ := queue.Open(d).Count(); n != 1 {
		t.Errorf("%d tasks queued", n)
	}
	if got, err := queue.Produce(func(string) string { return "" }, userconf.Loader(func(string) string { return "" }), task, false, time.Now()); err != nil || got == queue.Queued {
		t.Errorf("no HOME: %q, %v", got, err)
	}
}

// The producer's cost with a 50 MB transcript: it stats the file and
// never reads it, so the size does not matter.
func BenchmarkEnqueue50MB(b *testing.B) {
	dir := b.TempDir()
	tr := filepath.Join(dir, "big.jsonl")
	f, _ := os.Create(tr)
	f.Truncate(50 << 20)
	f.Close()
	q := queue.Queue{Dir: filepath.Join(dir, "queue")}
	task := queue.Task{Session: "s1", Transcript: tr, Agent: "claude"}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := q.Enqueue(task, false, time.Now().Add(time.Duration(i)*time.Hour)); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzReadTask: any bytes in a task file are an error or a task, never a
// panic.
func FuzzReadTask(f *testing.F) {
	f.Add([]byte(`{"session":"s","transcript":"/t","agent":"claude","enqueued":1}`))
	f.Add([]byte(`{`))
	f.Add([]byte{})
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "t.task")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		var task queue.Task
		_ = queue.ReadTask(path, &task)
	})
}

// The producer records absolute paths: a payload's relative transcript
// and cwd are the hook's, not those of the worker that reads them later.
func TestProduceAbsolute(t *testing.T) {
	home := t.TempDir()
	getenv := func(k string) string { return map[string]string{"HOME": home, "CAIRN_NO_BACKGROUND": "1"}[k] }
	if _, err := userconf.Turn(getenv, true); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	transcript(t, dir, time.Now())
	t.Chdir(dir)
	task := queue.Task{Session: "s1", Transcript: "session.jsonl", Cwd: ".", Agent: "claude"}
	if got, err := queue.Produce(getenv, userconf.Loader(getenv), task, true, time.Now()); err != nil || got != queue.Queued {
		t.Fatalf("Produce: %q, %v", got, err)
	}
	d, _ := userconf.UserDirs(getenv)
	q := queue.Open(d)
	var queued queue.Task
	if err := queue.ReadTask(q.Pending(queue.Name("s1")), &queued); err != nil {
		t.Fatal(err)
	}
	if queued.Transcript != filepath.Join(dir, "session.jsonl") || queued.Cwd != dir {
		t.Errorf("queued %+v", queued)
	}
}
