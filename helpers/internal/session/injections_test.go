package session_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/knowledge"
	"github.com/cairn-dev/cairn/helpers/internal/recall"
	"github.com/cairn-dev/cairn/helpers/internal/session"
	"github.com/cairn-dev/cairn/helpers/internal/session/record"
)

// A session start and a prompt record what they injected, and why, for
// cairn log; with nothing to show, nothing is recorded.
func TestStartAndPromptRecordInjections(t *testing.T) {
	dir, e := repo(t)
	s := knowledge.Open(dir)
	if _, err := s.Insert([]knowledge.Entry{
		{Key: "must-check-migrations", Type: "must-check", Content: "Run the migrations before deploying", TS: 1767000000},
		{Key: "fact-kafka-lag", Type: "fact", Content: "The kafka consumer lag alert fires above ten thousand messages", TS: 1767000000},
	}); err != nil {
		t.Fatal(err)
	}
	a := call(t, e, "start", map[string]string{"cwd": dir, "session": "s1"})
	p := call(t, e, "prompt", map[string]string{"cwd": dir, "session": "s1", "text": "why does the kafka consumer lag alert fire?"})
	list, err := recall.Injections(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 {
		t.Fatalf("%d injections recorded, want 2: %+v", len(list), list)
	}
	prompt, start := list[0], list[1]
	if start.Moment != recall.MomentStart || start.Session != "s1" || start.Text != a.Context || start.Budget != recall.DefaultBudget || start.Used == 0 {
		t.Errorf("start recorded as %+v", start)
	}
	if len(start.Entries) != 1 || start.Entries[0].Reason != recall.ReasonMustCheck {
		t.Errorf("start entries %+v", start.Entries)
	}
	if prompt.Moment != recall.MomentPrompt || prompt.Text != p.Context || len(prompt.Entries) != 1 || prompt.Entries[0].Reason != recall.ReasonPrompt {
		t.Errorf("prompt recorded as %+v", prompt)
	}
	// A prompt with nothing new to show records nothing.
	call(t, e, "prompt", map[string]string{"cwd": dir, "session": "s1", "text": "why does the kafka consumer lag alert fire?"})
	if again, _ := recall.Injections(s); len(again) != 2 {
		t.Errorf("%d injections after a silent prompt, want 2", len(again))
	}
}

// BenchmarkStartRecord is the session-start hook (1,000 entries, cache
// current) with and without the record of injections.
func BenchmarkStartRecord(b *testing.B) {
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("record=%v", on), func(b *testing.B) {
			dir, e := benchRepo(b)
			was := session.RecordInjections(on)
			defer session.RecordInjections(was)
			payload := map[string]string{"cwd": dir, "session": "s1"}
			callB(b, e, "start", payload) // the cache is built here
			b.ResetTimer()
			for b.Loop() {
				callB(b, e, "start", payload)
			}
		})
	}
}

// BenchmarkPromptRecord is the prompt hook with an entry to show, with and
// without the record of injections.
func BenchmarkPromptRecord(b *testing.B) {
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("record=%v", on), func(b *testing.B) {
			dir, e := benchRepo(b)
			was := session.RecordInjections(on)
			defer session.RecordInjections(was)
			callB(b, e, "start", map[string]string{"cwd": dir, "session": "warm"})
			i := 0
			b.ResetTimer()
			for b.Loop() {
				i++ // a new session each time: the entry is new to it
				callB(b, e, "prompt", map[string]string{"cwd": dir, "session": fmt.Sprint("p", i), "text": "why does the benchmark entry 500 about kafka lag matter here?"})
			}
		})
	}
}

// benchRepo is repo for a benchmark, with a log of 1,000 entries (one
// must-check).
func benchRepo(b *testing.B) (string, record.Env) {
	b.Helper()
	dir := b.TempDir()
	cmd := exec.Command("git", "init", "-q", "-b", "main")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git init: %v\n%s", err, out)
	}
	s := knowledge.Open(dir)
	if err := s.Provision(); err != nil {
		b.Fatal(err)
	}
	var lines [][]byte
	for i := range 1000 {
		typ := "fact"
		if i == 0 {
			typ = "must-check"
		}
		lines = append(lines, fmt.Appendf(nil, `{"key":"%s-n%04d","type":"%s","content":"benchmark entry %d about kafka lag number %d","ts":%d}`, typ, i, typ, i, i, 1700000000+i))
	}
	if err := s.InsertLines(lines); err != nil {
		b.Fatal(err)
	}
	return dir, env(dir)
}

// callB runs a hook for a benchmark; it fails on an empty answer.
func callB(b *testing.B, e record.Env, name string, payload any) {
	data, _ := json.Marshal(payload)
	if out := session.Hook(lineProtocol{}, name, bytes.NewReader(data), e); len(out) == 0 {
		b.Fatalf("%s answered nothing", name)
	}
}
