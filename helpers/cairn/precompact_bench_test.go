package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/claudetest"
)

// BenchmarkPreCompactRun runs the real `cairn hook claude PreCompact` on
// issue 24's transcript: a prompt and 16k records of assistant text (24
// MB), read whole by every compaction capture here (its mark is removed
// before each run). Claude Code gives PreCompact 10 s.
func BenchmarkPreCompactRun(b *testing.B) {
	bin := cairntest.Binary(b)
	home := b.TempDir()
	env := append(trustEnv(home),
		"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"))
	repo := b.TempDir()
	run := func(stdin []byte, args ...string) {
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env, cmd.Stdin = repo, env, bytes.NewReader(stdin)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("cairn %v: %v\n%s", args, err, out)
		}
	}
	git := exec.Command("git", "init", "-q", repo)
	git.Env = env
	if out, err := git.CombinedOutput(); err != nil {
		b.Fatalf("git init: %v %s", err, out)
	}
	run(nil, "add", "learned", "the retry budget is three attempts")
	transcript := filepath.Join(repo, "transcript.jsonl")
	data := claudetest.AssistantRun(16000)
	if err := os.WriteFile(transcript, data, 0o644); err != nil {
		b.Fatal(err)
	}
	payload, _ := json.Marshal(map[string]any{"session_id": "s-run", "transcript_path": transcript, "cwd": repo,
		"hook_event_name": "PreCompact", "trigger": "auto"})
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		os.RemoveAll(filepath.Join(repo, ".cairn", "local", "compact"))
		run(payload, "hook", "claude", "PreCompact")
	}
	marks, _ := filepath.Glob(filepath.Join(repo, ".cairn", "local", "compact", "*"))
	if len(marks) != 1 {
		b.Fatalf("the compaction capture read nothing (marks %v)", marks)
	}
	if mark, _ := os.ReadFile(marks[0]); string(mark) != strconv.Itoa(len(data)) {
		b.Fatalf("the compaction capture read to byte %s of %d", mark, len(data))
	}
}
