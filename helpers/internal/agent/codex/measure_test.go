package codex_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/agent/codex"
)

// Measure reads a recorded Codex rollout's token totals, tool call,
// typed prompt and session; Transcripts finds the rollouts of one project
// by the working directory their first record names.
func TestMeasure(t *testing.T) {
	data := readTestdata(t, "rollouts/exec.jsonl")
	var seen []string
	m, err := codex.Adapter{}.Measure(bytes.NewReader(data), func(s agent.Seen) { seen = append(seen, s.Kind) })
	if err != nil {
		t.Fatal(err)
	}
	if m.Session != "01a20d08-bab3-7222-b2cb-b6f5af27ede7" || m.ToolCalls != 1 || m.FailedTools != 0 || m.Turns != 1 ||
		m.Input != 20 || m.Output != 10 || m.Start.IsZero() || !m.End.After(m.Start) {
		t.Errorf("measured %+v", m)
	}
	if len(seen) < 3 || seen[0] != agent.SeenSession {
		t.Errorf("seen %v", seen)
	}

	home := t.TempDir()
	day := filepath.Join(home, ".codex", "sessions", "2026", "11", "24")
	if err := os.MkdirAll(day, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string][]byte{
		"rollout-a.jsonl": data, // cwd /tmp/cx/repo2
		"rollout-b.jsonl": readTestdata(t, "rollouts/interactive.jsonl"),
		"other.jsonl":     data,
	} {
		if err := os.WriteFile(filepath.Join(day, name), text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := codex.Adapter{}.Transcripts(func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}, "/tmp/cx/repo2")
	if err != nil || len(got) != 1 || filepath.Base(got[0]) != "rollout-a.jsonl" {
		t.Errorf("Transcripts = %v, %v", got, err)
	}
}

func FuzzMeasure(f *testing.F) {
	f.Add(readTestdata(f, "rollouts/exec.jsonl"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, _ := codex.Adapter{}.Measure(bytes.NewReader(data), nil)
		if m.ToolCalls < 0 || m.Turns < 0 || m.FailedTools < 0 {
			t.Fatalf("negative counts: %+v", m)
		}
	})
}
