package pipeline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/event"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/model"
	"github.com/cairn-dev/cairn/helpers/internal/pipeline"
	"github.com/cairn-dev/cairn/helpers/internal/pipeline/queue"
	"github.com/cairn-dev/cairn/helpers/internal/userconf"
	"github.com/cairn-dev/cairn/helpers/internal/wiki"
)

// lines is a transcript format for tests: a first line of conversation
// metadata, then one {"Role","Text","Time"} message per line.
func lines(r io.Reader) (event.Conversation, error) {
	var c event.Conversation
	dec := json.NewDecoder(r)
	if err := dec.Decode(&c); err != nil {
		return c, err
	}
	for {
		var m event.Message
		if err := dec.Decode(&m); err == io.EOF {
			return c, nil
		} else if err != nil {
			return c, err
		}
		c.Messages = append(c.Messages, m)
	}
}

// writeTranscript writes c in the lines format.
func writeTranscript(t testing.TB, path string, c event.Conversation) {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	msgs := c.Messages
	c.Messages = nil
	enc.Encode(c)
	for _, m := range msgs {
		enc.Encode(m)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// session is an interactive conversation of n messages with enough typed
// by the person to be distilled.
func session(id, cwd, branch string, n int) event.Conversation {
	c := event.Conversation{Session: id, Cwd: cwd, Branch: branch, Agent: "Claude Code", Version: "2.1.197", Interactive: true}
	at := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		m := event.Message{Role: "user", Text: fmt.Sprintf("Please look at the retry loop in client.go, turn %d: it hangs when the server resets the connection and we need it fixed today.", i), Time: at}
		if i%2 == 1 {
			m = event.Message{Role: "assistant", Text: fmt.Sprintf("Answer %d: the loop never checks the context.", i), Time: at}
		}
		c.Messages = append(c.Messages, m)
	}
	return c
}

const answer = "Here is the distillation:\n```json\n" + `{
 "decisions": [{"summary": "Retry with exponential backoff capped at 30 s", "context": "client.go retry loop", "alternatives": ["fixed delay"], "rationale": "the server rate-limits bursts", "tags": ["retry", "Client Go"]}],
 "failures": [{"summary": "Retry loop hung on connection reset", "root_cause": "the loop ignored ctx.Done()", "resolution": "select on ctx.Done()", "prevention": "Every retry loop selects on ctx.Done()", "tags": ["retry"]}],
 "handoff": ["Add a test for the reset case", "Remove the debug flag"],
 "learnings": [{"title": "Retry loops must watch the context", "content": "A retry loop that never selects on ctx.Done() hangs forever once the peer resets.", "context": "found in client.go", "scope": "backend", "tags": ["go"]}],
 "daily": {"title": "Fix the hanging retry loop", "context": "The retry loop in client.go hung on connection resets.", "key_exchanges": ["Why does it hang? It ignores ctx.Done()."]}
}` + "\n```\nThat's all."

type harness struct {
	t       *testing.T
	w       *pipeline.Worker
	q       queue.Queue
	dir     string
	mu      sync.Mutex
	prompts []string
}

func newHarness(t *testing.T, answerWith func(string) (string, error)) *harness {
	t.Helper()
	dir := t.TempDir()
	h := &harness{t: t, dir: dir}
	d := userconf.Dirs{Config: filepath.Join(dir, "config"), Data: filepath.Join(dir, "data"), State: filepath.Join(dir, "state")}
	h.q = queue.Open(d)
	h.w = &pipeline.Worker{Dirs: d, Config: userconf.Config{Pipeline: true}, Readers: map[string]pipeline.Reader{"lines": lines},
		Log: io.Discard, Now: func() time.Time { return time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC) },
		Model: func(_ context.Context, prompt string) (model.Reply, error) {
			h.mu.Lock()
			h.prompts = append(h.prompts, prompt)
			h.mu.Unlock()
			text, err := answerWith(prompt)
			return model.Reply{Text: text}, err
		}}
	return h
}

// add queues a session of n messages on branch.
func (h *harness) add(id, branch string, n int) string {
	h.t.Helper()
	root := filepath.Join(h.dir, "shop")
	os.MkdirAll(root, 0o755)
	tr := filepath.Join(h.dir, id+".jsonl")
	writeTranscript(h.t, tr, session(id, root, branch, n))
	if _, err := h.q.Enqueue(queue.Task{Session: id, Transcript: tr, Cwd: root, Project: root, Agent: "lines", Reason: queue.ReasonEnd}, true, time.Now()); err != nil {
		h.t.Fatal(err)
	}
	return root
}

func (h *harness) done(id string) queue.Done {
	h.t.Helper()
	d, ok := h.q.LastDone(id)
	if !ok {
		h.t.Fatalf("no done record for %s", id)
	}
	return d
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A session goes from the queue to every output: the export, decisions and
// failures as personal entries with their fields, the branch's handoff,
// the learning's file; the prompt names every field.
func TestWorkerDistills(t *testing.T) {
	h := newHarness(t, func(string) (string, error) { return answer, nil })
	root := h.add("26e7e04b-aaaa", "feat/retry", 6)
	if err := h.w.Run(); err != nil {
		t.Fatal(err)
	}
	d := h.done("26e7e04b-aaaa")
	if !d.Distilled || !strings.Contains(d.Outcome, "1 decisions, 1 failures, 2 handoff items, 1 learnings") {
		t.Fatalf("outcome: %+v", d)
	}
	if n, _ := h.q.Count(); n != 0 {
		t.Errorf("%d tasks left", n)
	}
	prompt := h.prompts[0]
	for _, want := range []string{pipeline.PromptMarker, `"root_cause"`, `"prevention"`, `"alternatives"`, `"rationale"`, `"handoff"`, `"learnings"`, "Branch: feat/retry", "retry loop in client.go"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the prompt lacks %q", want)
		}
	}
	know := filepath.Join(h.dir, "data")
	export := read(t, filepath.Join(know, "sessions", "2026-11", "2026-11-24-26e7e04b-aaaa.md"))
	if !strings.Contains(export, `branch: "feat/retry"`) || !strings.Contains(export, "## Assistant") {
		t.Errorf("export:\n%s", export)
	}
	own := pipeline.OpenPersonal(know, root)
	entries, err := own.Entries()
	if err != nil || len(entries) != 2 {
		t.Fatalf("personal entries = %+v, %v", entries, err)
	}
	for _, e := range entries {
		switch e.Type {
		case "decision":
			if e.Detail == nil || e.Detail.Rationale != "the server rate-limits bursts" || len(e.Detail.Alternatives) != 1 || e.Source != "distilled" {
				t.Errorf("decision: %+v %+v", e, e.Detail)
			}
		case "investigation":
			if !pipeline.IsFailure(e) || e.Detail.RootCause != "the loop ignored ctx.Done()" || e.Detail.Prevention == "" || e.Tags[0] != "failure" {
				t.Errorf("failure: %+v %+v", e, e.Detail)
			}
		default:
			t.Errorf("unexpected entry %+v", e)
		}
	}
	hand, ok := own.ReadHandoff("feat/retry")
	if !ok || len(hand.Items) != 2 || hand.Items[0] != "Add a test for the reset case" || hand.Written.IsZero() {
		t.Errorf("handoff = %+v, %v", hand, ok)
	}
	if _, ok := own.ReadHandoff("main"); ok {
		t.Error("another branch has the handoff")
	}
	learning := read(t, filepath.Join(know, "learnings", "2026-11", "2026-11-24-retry-loops-must-watch-the-context.md"))
	for _, want := range []string{`title: "Retry loops must watch the context"`, `origin: "shop"`, `origin_session: "26e7e04b"`, `tags: ["go"]`, "scope: backend", "status: active", "deprecated_by: null", "## Learning\n\nA retry loop", "## Context\n\nfound in client.go"} {
		if !strings.Contains(learning, want) {
			t.Errorf("learning lacks %q:\n%s", want, learning)
		}
	}
}

// The next session's prompt shows what is recorded, so the model does not
// repeat it; an unchanged transcript is not distilled twice; an empty
// handoff deletes the branch's file; a learning's file is written once.
func TestWorkerSecondSession(t *testing.T) {
	answers := []string{answer, `{"decisions":[],"failures":[],"handoff":[],"learnings":[{"title":"Retry loops must watch the context","content":"changed"}]}`}
	h := newHarness(t, func(string) (string, error) { a := answers[0]; answers = answers[1:]; return a, nil })
	root := h.add("s-one", "feat/retry", 6)
	h.w.Run()
	// SessionEnd after the Stop, the transcript as it was.
	if _, err := h.q.Enqueue(queue.Task{Session: "s-one", Transcript: filepath.Join(h.dir, "s-one.jsonl"), Cwd: root, Agent: "lines"}, true, time.Now()); err != nil {
		t.Fatal(err)
	}
	h.w.Run()
	if len(h.prompts) != 1 || !strings.Contains(h.done("s-one").Outcome, "already distilled") {
		t.Fatalf("an unchanged transcript was distilled again: %d prompts, %s", len(h.prompts), h.done("s-one").Outcome)
	}
	h.add("s-two", "feat/retry", 8)
	h.w.Run()
	if len(h.prompts) != 2 {
		t.Fatalf("%d prompts", len(h.prompts))
	}
	for _, want := range []string{"Decisions already recorded:\n- Retry with exponential backoff", "Failures already recorded:\n- Retry loop hung", "Learnings already recorded (titles):\n- Retry loops must watch the context"} {
		if !strings.Contains(h.prompts[1], want) {
			t.Errorf("second prompt lacks %q", want)
		}
	}
	own := pipeline.OpenPersonal(filepath.Join(h.dir, "data"), root)
	if _, ok := own.ReadHandoff("feat/retry"); ok {
		t.Error("an empty handoff left the old one")
	}
	if l := read(t, filepath.Join(h.dir, "data", "learnings", "2026-11", "2026-11-24-retry-loops-must-watch-the-context.md")); strings.Contains(l, "changed") {
		t.Error("a learning's file was overwritten")
	}
}

// Sessions not worth a model call are still exported (or skipped) and
// never reach the model; a model that fails or answers nonsense costs the
// task, not the queue.
func TestWorkerSkipsAndFailures(t *testing.T) {
	calls := 0
	h := newHarness(t, func(p string) (string, error) {
		calls++
		if strings.Contains(p, "Session: s-down") {
			return "", errors.New("connection refused")
		}
		if strings.Contains(p, "Session: s-prose") {
			return "I could not find anything { worth", nil
		}
		panic("the model broke")
	})
	h.add("s-short", "main", 3)
	thin := h.add("s-thin", "main", 4)
	tr := filepath.Join(h.dir, "s-thin.jsonl")
	c := session("s-thin", thin, "main", 4)
	for i := range c.Messages {
		c.Messages[i].Text = "ok"
	}
	writeTranscript(t, tr, c)
	h.add("s-down", "main", 6)
	h.add("s-prose", "main", 6)
	h.add("s-panic", "main", 6)
	if err := h.w.Run(); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{
		"s-short": "skipped: not a session to keep",
		"s-thin":  "too thin to distill",
		"s-down":  "the model call failed, not distilled (the next Stop retries): connection refused",
		"s-prose": "the model's answer was not read",
		"s-panic": "failed: panic: the model broke",
	} {
		if d := h.done(id); !strings.Contains(d.Outcome, want) || d.Distilled {
			t.Errorf("%s: %q, want %q", id, d.Outcome, want)
		}
	}
	if calls != 3 {
		t.Errorf("the model was called %d times, want 3", calls)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "data", "sessions", "2026-11", "2026-11-24-s-down.md")); err != nil {
		t.Errorf("a session the model missed was not exported: %v", err)
	}
}

// A worker killed mid-task leaves its claimed task; the next worker does
// it, and a task two workers died on is recorded as poison and skipped.
// An unreadable task file is poison too, and the queue goes on.
func TestWorkerRecovers(t *testing.T) {
	h := newHarness(t, func(string) (string, error) { return answer, nil })
	h.add("s-killed", "main", 6)
	h.add("s-twice", "main", 6)
	os.MkdirAll(filepath.Join(h.q.Dir, queue.WorkDir), 0o755)
	for id, attempts := range map[string]int{"s-killed": 1, "s-twice": 2} {
		var task queue.Task
		queue.ReadTask(h.q.Pending(queue.Name(id)), &task)
		task.Attempts = attempts
		data, _ := json.Marshal(task)
		os.WriteFile(h.q.Work(queue.Name(id)), data, 0o644)
		os.Remove(h.q.Pending(queue.Name(id)))
	}
	os.WriteFile(h.q.Pending("garbage.task"), []byte("{not json"), 0o644)
	h.add("s-after", "main", 6)
	if err := h.w.Run(); err != nil {
		t.Fatal(err)
	}
	if d := h.done("s-killed"); !d.Distilled {
		t.Errorf("the killed worker's task: %s", d.Outcome)
	}
	if d := h.done("s-twice"); d.Distilled || !strings.Contains(d.Outcome, "poison") {
		t.Errorf("the twice-killed task: %s", d.Outcome)
	}
	var g queue.Done
	if err := queue.ReadTask(h.q.DonePath("garbage.task"), &g); err != nil || !strings.Contains(g.Outcome, "poison: unreadable task") {
		t.Errorf("garbage task: %+v, %v", g, err)
	}
	if d := h.done("s-after"); !d.Distilled {
		t.Errorf("the task after the poison: %s", d.Outcome)
	}
	if entries, _ := os.ReadDir(filepath.Join(h.q.Dir, queue.WorkDir)); len(entries) != 0 {
		t.Errorf("claimed tasks left: %v", entries)
	}
}

// One worker at a time: a second finds the lock and leaves the queue to
// the first.
func TestWorkerOneAtATime(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	h := newHarness(t, func(string) (string, error) {
		started <- struct{}{}
		<-release
		return answer, nil
	})
	h.add("s-a", "main", 6)
	done := make(chan error)
	go func() { done <- h.w.Run() }()
	<-started
	second := *h.w
	second.Model = func(context.Context, string) (model.Reply, error) {
		t.Error("a second worker ran while the first held the lock")
		return model.Reply{}, nil
	}
	h.add("s-b", "main", 6)
	if err := second.Run(); err != nil {
		t.Fatal(err)
	}
	close(release)
	go func() {
		for range started {
		}
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !h.done("s-a").Distilled || !h.done("s-b").Distilled {
		t.Error("the first worker did not drain the task queued while it ran")
	}
}

// Entries keeps a distillation's fields in the entries' detail and
// survives the log's writer (redaction, the decoder).
func TestEntriesRoundTrip(t *testing.T) {
	dist, err := pipeline.ParseDistillation(answer)
	if err != nil {
		t.Fatal(err)
	}
	c := session("s1", "/src/shop", "main", 4)
	entries := pipeline.Entries(dist, c, "Ada", time.Unix(1763770000, 0))
	s := knowledge.OpenDir(t.TempDir())
	if _, err := s.Insert(entries); err != nil {
		t.Fatal(err)
	}
	recs, _, err := s.ReadAll(false)
	if err != nil || len(recs) != 2 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	for _, r := range recs {
		if r.Entry.Detail == nil || r.Entry.Author != "Ada" || r.Entry.Branch != "main" {
			t.Errorf("round trip lost fields: %+v", r.Entry)
		}
	}
}

// The worker's cost without the model: read, export, prompt, parse, write.
func BenchmarkWorker(b *testing.B) {
	dir := b.TempDir()
	d := userconf.Dirs{Config: filepath.Join(dir, "config"), Data: filepath.Join(dir, "data"), State: filepath.Join(dir, "state")}
	w := &pipeline.Worker{Dirs: d, Config: userconf.Config{Pipeline: true}, Readers: map[string]pipeline.Reader{"lines": lines},
		Log: io.Discard, Model: func(context.Context, string) (model.Reply, error) { return model.Reply{Text: answer}, nil }}
	q := queue.Open(d)
	root := filepath.Join(dir, "shop")
	tr := filepath.Join(dir, "t.jsonl")
	c := session("bench", root, "main", 40)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.Messages = append(c.Messages, event.Message{Role: "user", Text: "one more"})
		writeTranscript(b, tr, c)
		q.Enqueue(queue.Task{Session: "bench", Transcript: tr, Cwd: root, Agent: "lines"}, true, time.Now())
		if err := w.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// A hostile answer: hundreds of items are cut to MaxItems, a transcript
// path that is a FIFO is refused without blocking, and what the model
// wrote is redacted and cannot steer a path.
func TestWorkerHostile(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"handoff":[`)
	for i := 0; i < 500; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"item %d"`, i)
	}
	b.WriteString(`],"learnings":[{"title":"../../../etc/passwd ghp_0123456789abcdefghijklmnopqrstuvwxyzAB","content":"token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB leaked"}],
		"decisions":[{"summary":"use key sk-ant-api03-Xk9fQ2Lm7Rt4Zp8Wv1Ny6Bq3Hs5Jd0Gc-Ue2Ia7Ko9Tl4Mx8Rb_AA for the bot"}]}`)
	h := newHarness(t, func(string) (string, error) { return b.String(), nil })
	root := h.add("s-hostile", "main", 6)
	fifo := filepath.Join(h.dir, "fifo.jsonl")
	if err := mkfifo(fifo); err == nil {
		h.q.Enqueue(queue.Task{Session: "s-fifo", Transcript: fifo, Agent: "lines"}, true, time.Now())
	}
	if err := h.w.Run(); err != nil {
		t.Fatal(err)
	}
	if d, ok := h.q.LastDone("s-fifo"); ok && !strings.Contains(d.Outcome, "not a regular file") {
		t.Errorf("fifo: %s", d.Outcome)
	}
	know := filepath.Join(h.dir, "data")
	hand, _ := pipeline.OpenPersonal(know, root).ReadHandoff("main")
	if len(hand.Items) != pipeline.MaxItems {
		t.Errorf("%d handoff items, want %d", len(hand.Items), pipeline.MaxItems)
	}
	var all strings.Builder
	filepath.Walk(h.dir, func(path string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() && !strings.HasSuffix(path, ".jsonl") || strings.HasSuffix(path, "knowledge.jsonl") {
			data, _ := os.ReadFile(path)
			all.Write(data)
		}
		return nil
	})
	for _, secret := range []string{"ghp_0123456789abcdefghijklmnopqrstuvwxyzAB", "Xk9fQ2Lm7Rt4Zp8Wv1Ny6Bq3Hs5Jd0Gc"} {
		if strings.Contains(all.String(), secret) {
			t.Errorf("a secret from the model's answer reached a file: %s", secret)
		}
	}
	if learnings, _ := filepath.Glob(filepath.Join(know, "learnings", "*", "*.md")); len(learnings) != 1 || !strings.HasPrefix(filepath.Base(learnings[0]), "2026-11-24-etc-passwd") {
		t.Errorf("learning files: %v", learnings)
	}
}

// Done records older than a month are pruned when a worker runs.
func TestWorkerPrunesDone(t *testing.T) {
	h := newHarness(t, func(string) (string, error) { return answer, nil })
	os.MkdirAll(filepath.Join(h.q.Dir, queue.DoneDir), 0o755)
	old, fresh := h.q.DonePath("old.task"), h.q.DonePath("fresh.task")
	os.WriteFile(old, []byte(`{}`), 0o644)
	os.WriteFile(fresh, []byte(`{}`), 0o644)
	month := h.w.Now().Add(-31 * 24 * time.Hour)
	os.Chtimes(old, month, month)
	os.Chtimes(fresh, h.w.Now(), h.w.Now())
	h.add("s-a", "main", 6)
	if err := h.w.Run(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); err == nil {
		t.Error("a done record of a month ago was kept")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Error("a fresh done record was pruned")
	}
}

// A headless run (claude -p) is kept only when the config says so.
func TestWorkerHeadless(t *testing.T) {
	h := newHarness(t, func(string) (string, error) { return answer, nil })
	root := filepath.Join(h.dir, "shop")
	os.MkdirAll(root, 0o755)
	tr := filepath.Join(h.dir, "headless.jsonl")
	c := session("s-headless", root, "main", 6)
	c.Interactive = false
	writeTranscript(t, tr, c)
	task := queue.Task{Session: "s-headless", Transcript: tr, Cwd: root, Agent: "lines"}
	h.q.Enqueue(task, true, time.Now())
	h.w.Run()
	if d := h.done("s-headless"); d.Distilled || !strings.Contains(d.Outcome, "not a session to keep (interactive false") {
		t.Fatalf("a headless run was kept by default: %s", d.Outcome)
	}
	h.w.Config.Headless = true
	h.q.Enqueue(task, true, time.Now())
	h.w.Run()
	if d := h.done("s-headless"); !d.Distilled {
		t.Errorf("with headless on: %s", d.Outcome)
	}
}

// The daily log gets one entry per session: distilled again, the session
// replaces its entry (the same turns are never logged twice); another
// session's entry is added.
func TestWorkerDailyLog(t *testing.T) {
	h := newHarness(t, func(string) (string, error) { return answer, nil })
	h.add("s-one", "main", 6)
	h.w.Run()
	h.add("s-one", "main", 8) // grew: distilled again
	h.w.Run()
	h.add("s-two", "main", 6)
	h.w.Run()
	daily := read(t, pipeline.DailyPath(filepath.Join(h.dir, "data"), session("s-one", "", "", 1)))
	for _, want := range []string{"# Daily Log: 2026-11-24\n", "### Session (", ") - Fix the hanging retry loop",
		"**Context:** The retry loop in client.go hung", "**Key Exchanges:**\n- Why does it hang?",
		"**Decisions Made:**\n- Retry with exponential backoff capped at 30 s (why: the server rate-limits bursts)",
		"**Lessons Learned:**\n- Retry loop hung on connection reset: Every retry loop selects on ctx.Done()",
		"**Action Items:**\n- Add a test for the reset case"} {
		if !strings.Contains(daily, want) {
			t.Errorf("daily log lacks %q:\n%s", want, daily)
		}
	}
	if n := strings.Count(daily, "<!-- cairn:session s-one -->"); n != 1 {
		t.Errorf("session s-one has %d entries:\n%s", n, daily)
	}
	if n := strings.Count(daily, "### Session ("); n != 2 {
		t.Errorf("%d entries, want 2 (s-one once, s-two once):\n%s", n, daily)
	}
}

// With wiki_daily, the worker compiles the day's log into the wiki by
// itself, once a day at most.
func TestWorkerCompilesWikiDaily(t *testing.T) {
	compiles := 0
	h := newHarness(t, func(p string) (string, error) {
		if strings.Contains(p, wiki.CompileMarker) {
			compiles++
			return `{"articles":[{"path":"concepts/retry-backoff","title":"Retry backoff","summary":"s","body":"Retries back off."}]}`, nil
		}
		return answer, nil
	})
	h.w.Config.WikiDaily = true
	h.add("s-a", "main", 6)
	if err := h.w.Run(); err != nil {
		t.Fatal(err)
	}
	if compiles != 1 {
		t.Fatalf("%d compiles", compiles)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "data", "wiki", "concepts", "retry-backoff.md")); err != nil {
		t.Error(err)
	}
	h.add("s-b", "main", 6)
	h.w.Run()
	if compiles != 1 {
		t.Errorf("compiled again within the day: %d", compiles)
	}
}

// A transcript that names no branch (Gemini CLI's) has its handoff filed
// under the work tree's branch, where the next session on it looks.
func TestWorkerBranchFromWorkTree(t *testing.T) {
	h := newHarness(t, func(string) (string, error) { return answer, nil })
	root := filepath.Join(h.dir, "shop")
	os.MkdirAll(root, 0o755)
	for _, args := range [][]string{{"init", "-q", "-b", "feat/gemini"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	h.add("b0b0b0b0-none", "", 6)
	if err := h.w.Run(); err != nil {
		t.Fatal(err)
	}
	own := pipeline.OpenPersonal(filepath.Join(h.dir, "data"), root)
	if hand, ok := own.ReadHandoff("feat/gemini"); !ok || len(hand.Items) != 2 {
		t.Fatalf("no handoff for the work tree's branch: %+v, %v", hand, ok)
	}
}

// issue 24: an answer that is not a distillation is a failed call, not an
// empty distillation: the runner's error object, an empty answer, a cut
// one (the command's ErrCut, or the first inner object of a cut answer),
// fields of the wrong type. The session is not distilled (the next Stop
// queues it again), the branch's handoff is kept, and the log says why.
// An answer without a handoff keeps it too.
func TestWorkerFailedAnswers(t *testing.T) {
	next, nextErr := answer, error(nil)
	h := newHarness(t, func(string) (string, error) { return next, nextErr })
	var log bytes.Buffer
	h.w.Log = &log
	root := h.add("s-err", "main", 6)
	if err := h.w.Run(); err != nil || !h.done("s-err").Distilled {
		t.Fatalf("the first distillation: %v %+v", err, h.done("s-err"))
	}
	own := pipeline.OpenPersonal(filepath.Join(h.dir, "data"), root)
	n := 6
	for _, bad := range []struct {
		name, text string
		err        error
		why        string
	}{
		{"overloaded", `{"error":{"type":"overloaded_error","message":"Overloaded"}}`, nil, "overloaded_error"},
		{"anthropic error", `{"type":"error","error":{"type":"overloaded_error"}}`, nil, "not a distillation"},
		{"empty", "", nil, "no JSON object"},
		{"cut by the command", "", fmt.Errorf("sh: %w", model.ErrCut), "over 1048576 bytes"},
		{"inner object of a cut answer", `{"decisions":[{"summary":"a","context":"b"},{"summary":"c","rationale":"`, nil, "not a distillation"},
		{"wrong types", `{"decisions":"none","handoff":[]}`, nil, `"decisions" is "none"`},
		{"list of strings as decisions", `{"decisions":["a"]}`, nil, "not a distillation"},
		// The answer is quoted in the log redacted: a secret in it never
		// reaches pipeline.log or the done record.
		{"a secret in the answer", `{"error":{"message":"bad token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"}}`, nil, "[REDACTED"},
	} {
		n += 2
		h.add("s-err", "main", n) // the session grew
		next, nextErr = bad.text, bad.err
		log.Reset()
		if err := h.w.Run(); err != nil {
			t.Fatal(err)
		}
		d := h.done("s-err")
		if d.Distilled || !strings.Contains(d.Outcome, "not distilled (the next Stop retries)") || !strings.Contains(d.Outcome, bad.why) {
			t.Errorf("%s: %+v", bad.name, d)
		}
		if !strings.Contains(log.String(), bad.why) {
			t.Errorf("%s: the log does not say why: %s", bad.name, log.String())
		}
		if strings.Contains(log.String()+d.Outcome, "ghp_0123456789") {
			t.Errorf("%s: the answer's secret reached the log: %s", bad.name, log.String())
		}
		if hand, ok := own.ReadHandoff("main"); !ok || len(hand.Items) != 2 {
			t.Errorf("%s: the handoff was not kept: %+v", bad.name, hand)
		}
		task := queue.Task{Session: "s-err", Transcript: filepath.Join(h.dir, "s-err.jsonl"), Cwd: root, Agent: "lines", Reason: queue.ReasonStop}
		if skip, err := h.q.Enqueue(task, false, time.Now()); err != nil || skip != queue.Queued {
			t.Errorf("%s: the next Stop did not queue it again: %q, %v", bad.name, skip, err)
		}
	}
	n += 2
	h.add("s-err", "main", n)
	next, nextErr = `{"decisions":[{"summary":"Keep the handoff when the answer has none"}]}`, nil
	h.w.Run()
	if d := h.done("s-err"); !d.Distilled {
		t.Errorf("an answer without a handoff: %s", d.Outcome)
	}
	if hand, ok := own.ReadHandoff("main"); !ok || len(hand.Items) != 2 {
		t.Errorf("an answer without a handoff cleared it: %+v", hand)
	}
}

// issue 24: two Codex sessions started within the same 65 s have UUIDv7
// ids that share their first eight characters; each keeps its own export
// and its own daily entry.
func TestWorkerSessionsSharingAPrefix(t *testing.T) {
	h := newHarness(t, func(string) (string, error) { return answer, nil })
	ids := []string{"0195f3a1-7c2e-7000-8000-0000000000a1", "0195f3a1-9d40-7b11-8000-0000000000b2"}
	for _, id := range ids {
		h.add(id, "main", 6)
	}
	if err := h.w.Run(); err != nil {
		t.Fatal(err)
	}
	know := filepath.Join(h.dir, "data")
	daily := read(t, pipeline.DailyPath(know, session(ids[0], "", "", 1)))
	for _, id := range ids {
		path := filepath.Join(know, "sessions", "2026-11", "2026-11-24-"+id+".md")
		if d := h.done(id); !d.Distilled || !strings.Contains(d.Outcome, "exported to "+path) {
			t.Errorf("%s: %s", id, d.Outcome)
		}
		if !strings.Contains(read(t, path), `session_id: "`+id+`"`) {
			t.Errorf("%s: its export holds another session", id)
		}
		if n := strings.Count(daily, "<!-- cairn:session "+id+" -->"); n != 1 {
			t.Errorf("%s: %d daily entries", id, n)
		}
	}
	if n := strings.Count(daily, "### Session ("); n != 2 {
		t.Errorf("%d daily entries, want 2:\n%s", n, daily)
	}
}

// Files named by the first eight characters before issue 24 still count:
// the session's own old export is moved to its new name (another
// session's of the same prefix is left alone), and its old daily entry
// (same prefix, same start) is replaced rather than repeated.
func TestWorkerLegacyShortNames(t *testing.T) {
	h := newHarness(t, func(string) (string, error) { return answer, nil })
	know := filepath.Join(h.dir, "data")
	id := "0195f3a1-7c2e-7000-8000-0000000000a1"
	month := filepath.Join(know, "sessions", "2026-11")
	os.MkdirAll(month, 0o755)
	legacy := filepath.Join(month, "2026-11-24-0195f3a1.md")
	os.WriteFile(legacy, []byte("---\ntype: \"session\"\nsession_id: \""+id+"\"\nmessages: 4\n---\n"), 0o644)
	other := filepath.Join(month, "2026-11-24-0195f3a2.md")
	os.WriteFile(other, []byte("---\nsession_id: \"0195f3a2-0000-7000-8000-000000000000\"\nmessages: 9\n---\n"), 0o644)
	start := session(id, "", "", 1).Messages[0].Time.Local().Format("15:04")
	os.MkdirAll(filepath.Join(know, "daily"), 0o755)
	os.WriteFile(pipeline.DailyPath(know, session(id, "", "", 1)), []byte("# Daily Log: 2026-11-24\n\n"+
		"<!-- cairn:session 0195f3a1 -->\n### Session ("+start+") - the old entry\n<!-- cairn:end -->\n\n"+
		"<!-- cairn:session 0195f3a1 -->\n### Session (23:59) - a colliding session's entry\n<!-- cairn:end -->\n"), 0o644)
	h.add(id, "main", 6)
	if err := h.w.Run(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(legacy); err == nil {
		t.Error("the old export was kept besides the new one")
	}
	if got := read(t, filepath.Join(month, "2026-11-24-"+id+".md")); !strings.Contains(got, "messages: 6") {
		t.Errorf("new export:\n%s", got)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another session's old export: %v", err)
	}
	daily := read(t, pipeline.DailyPath(know, session(id, "", "", 1)))
	if strings.Contains(daily, "the old entry") || !strings.Contains(daily, "a colliding session's entry") ||
		strings.Count(daily, "<!-- cairn:session "+id+" -->") != 1 {
		t.Errorf("daily log:\n%s", daily)
	}
}

// issue 24: a model that writes the daily log's markers in its text
// cannot make the next rewrite of the session's entry leave a stray tail
// or steer another session's entry.
func TestWorkerDailyMarkersInAnswer(t *testing.T) {
	hostile := `{"handoff": ["next <!-- cairn:end -->"], "daily": {"title": "<!-- cairn:session s-two -->",
		"context": "done <!-- cairn:end -->\n<!-- cairn:end -->", "key_exchanges": ["<!-- cairn:end -->", "only once"]}}`
	h := newHarness(t, func(string) (string, error) { return hostile, nil })
	h.add("s-one", "main", 6)
	h.w.Run()
	h.add("s-two", "main", 6)
	h.w.Run()
	h.add("s-one", "main", 8) // grew: its entry is rewritten
	h.w.Run()
	h.add("s-two", "main", 8)
	h.w.Run()
	daily := read(t, pipeline.DailyPath(filepath.Join(h.dir, "data"), session("s-one", "", "", 1)))
	for _, want := range []struct {
		s string
		n int
	}{{"<!-- cairn:session s-one -->", 1}, {"<!-- cairn:session s-two -->", 1}, {"<!-- cairn:end -->", 2}, {"only once", 2}, {"### Session (", 2}} {
		if n := strings.Count(daily, want.s); n != want.n {
			t.Errorf("%q %d times, want %d:\n%s", want.s, n, want.n, daily)
		}
	}
}

// issue 24: a worker killed (kill -9) at any point is recovered from, not
// quarantined. Killed while writing its claim, it leaves a temporary file
// in work/ besides the claimed task: the next worker retries the task
// (one kill never makes it poison) and takes the temporary file for none.
// Every temporary file a killed writer left is removed: all of them in
// work/, done/ and the files only the worker writes (export, daily log),
// those older than fsx.AbandonedAge in the queue, which hooks write too.
func TestWorkerRecoversFromKills(t *testing.T) {
	h := newHarness(t, func(string) (string, error) { return answer, nil })
	var log bytes.Buffer
	h.w.Log = &log
	h.add("s-killed", "main", 6)
	var task queue.Task
	queue.ReadTask(h.q.Pending(queue.Name("s-killed")), &task)
	task.Attempts = 1
	data, _ := json.Marshal(task)
	work, done := filepath.Join(h.q.Dir, queue.WorkDir), filepath.Join(h.q.Dir, queue.DoneDir)
	os.MkdirAll(work, 0o755)
	os.MkdirAll(done, 0o755)
	os.WriteFile(h.q.Work(queue.Name("s-killed")), data, 0o644)
	os.Remove(h.q.Pending(queue.Name("s-killed")))
	know := filepath.Join(h.dir, "data")
	now := h.w.Now()
	old, fresh := now.Add(-2*fsx.AbandonedAge), now
	temps := map[string]time.Time{
		filepath.Join(work, ".s-killed.task.cairn-tmp-123"):                                fresh,
		filepath.Join(done, ".s-gone.task.cairn-tmp-9"):                                    fresh,
		filepath.Join(h.q.Dir, ".s-old.task.cairn-tmp-1"):                                  old,
		filepath.Join(know, "sessions", "2026-11", ".2026-11-24-s-killed.md.cairn-tmp-77"): fresh,
		filepath.Join(know, "daily", ".2026-11-24.md.cairn-tmp-5"):                         fresh,
	}
	freshHook := filepath.Join(h.q.Dir, ".s-fresh.task.cairn-tmp-2") // a hook writing now
	temps[freshHook] = fresh
	for path, mod := range temps {
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, nil, 0o644)
		os.Chtimes(path, mod, mod)
	}
	if err := h.w.Run(); err != nil {
		t.Fatal(err)
	}
	if d := h.done("s-killed"); !d.Distilled || d.Attempts != 2 {
		t.Errorf("the killed worker's task: %+v", d)
	}
	if strings.Contains(log.String(), "poison") {
		t.Errorf("a kill made something poison:\n%s", log.String())
	}
	for path := range temps {
		_, err := os.Stat(path)
		if path == freshHook && err != nil {
			t.Errorf("a hook's fresh temporary file was removed")
		} else if path != freshHook && err == nil {
			t.Errorf("left: %s", path)
		}
	}
	if entries, _ := os.ReadDir(done); len(entries) != 1 {
		t.Errorf("done records: %v", entries)
	}
}
