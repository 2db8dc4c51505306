package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/pipeline"
	"github.com/cairn-dev/cairn/helpers/internal/recall"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/claudetest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/e2etest"
)

// The whole loop with the real Claude Code, typed into its interactive UI
// in tmux as a person would: a session of several turns (a failure, its
// fix, an item left open) ends with /exit; its SessionEnd hook queues it
// and starts the worker, which asks the real `claude -p` (against the fake
// model, which answers the distillation request by its content); the files
// appear; the next session on the branch starts with the handoff and the
// failure's prevention in its first model request, wrapped as untrusted.
func TestPipelineInteractiveSession(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	cli := claudetest.FindCLI(t)
	api := claudetest.StartFakeAPI(t, [][]claudetest.Block{
		{claudetest.Text("Found it: the retry loop never selects on ctx.Done(), so a reset leaves it spinning. I made it select on ctx.Done().")},
		{claudetest.Text("Root cause: the fake server never closed its connections, so TestReset waited for its timeout. Closing them in the cleanup fixes it.")},
		{claudetest.Text("Done: the backoff is exponential and capped at 30 s. Still open: a test for the jittered backoff.")},
		{claudetest.Text("Picking up where we left off.")},
	})
	var distillPrompt string
	api.Respond(func(r claudetest.Request) ([]claudetest.Block, bool) {
		if text := r.Text(); strings.Contains(text, pipeline.PromptMarker) {
			distillPrompt = text
			return []claudetest.Block{claudetest.Text(e2etest.Distillation)}, true
		}
		return nil, false
	})

	repo := t.TempDir()
	cairntest.Git(t, repo, "init", "-q", "-b", "fix/retry")
	os.WriteFile(filepath.Join(repo, "client.go"), []byte("package client\n"), 0o644)
	cairntest.Git(t, repo, "add", ".")
	cairntest.Git(t, repo, "commit", "-q", "-m", "client: retry loop")
	cairntest.In(t, repo, "init", "--claude")

	home := t.TempDir()
	bin := t.TempDir() // `claude` on PATH, for the worker's claude -p
	if err := os.Symlink(cli, filepath.Join(bin, "claude")); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(home, ".config", "cairn"), 0o755)
	os.WriteFile(filepath.Join(home, ".config", "cairn", "config.json"), []byte(`{"pipeline": true}`), 0o644)
	env := []string{
		"CAIRN_BIN=" + cairntest.Binary(t), "CAIRN_NO_BACKGROUND=", "CAIRN_PIPELINE_CHILD=",
		"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
	}

	s := claudetest.StartInteractive(t, claudetest.InteractiveOptions{CLI: cli, API: api, Dir: repo, Home: home, Env: env})
	prompts := []struct{ text, answer string }{
		{"The retry loop in client.go hangs forever when the server resets the connection during a deploy. Find out why and fix it.", "never selects on ctx.Done()"},
		{"The tests still fail: TestReset times out after 30 seconds because the fake server seems to keep the connection open. Why?", "Closing them in the cleanup"},
		{"Good. Use exponential backoff capped at 30 seconds instead of the fixed delay. A test for the jittered backoff can wait for tomorrow.", "Still open: a test for the jittered backoff"},
	}
	for i, p := range prompts {
		s.Type(p.text)
		s.WaitRequests(i + 1)
		s.WaitScreen(p.answer)
		s.WaitIdle()
	}
	s.Exit()

	// The worker runs detached after the CLI exited.
	state := filepath.Join(home, ".local", "state", "cairn")
	know := filepath.Join(home, ".local", "share", "cairn")
	var done struct {
		Distilled bool   `json:"distilled"`
		Outcome   string `json:"outcome"`
		Reason    string `json:"reason"`
	}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		doneFiles, _ := filepath.Glob(filepath.Join(state, "queue", "done", "*.task"))
		if len(doneFiles) == 1 {
			b, _ := os.ReadFile(doneFiles[0])
			if json.Unmarshal(b, &done) == nil && done.Distilled && done.Reason == "end" {
				break
			}
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(state, "pipeline.log"))
			t.Fatalf("the worker did not distill the session: %+v\npipeline.log:\n%s", done, log)
		}
		time.Sleep(100 * time.Millisecond) // polling for a detached process, not timing
	}
	account, _ := os.ReadFile(filepath.Join(state, "pipeline.log"))
	t.Logf("pipeline.log:\n%s", account)
	if !strings.Contains(string(account), "(model cost $") {
		t.Errorf("the worker did not record what claude -p reported the call cost:\n%s", account)
	}
	if !strings.Contains(string(account), "stop ") {
		t.Errorf("no Stop hook queued the session during it:\n%s", account)
	}
	for _, want := range []string{`"root_cause"`, "TestReset times out after 30 seconds", "Branch: fix/retry"} {
		if !strings.Contains(distillPrompt, want) {
			t.Errorf("the distillation request lacks %q", want)
		}
	}
	exports, _ := filepath.Glob(filepath.Join(know, "sessions", "*", "*.md"))
	if len(exports) != 1 {
		t.Fatalf("exports: %v", exports)
	}
	export, _ := os.ReadFile(exports[0])
	for _, want := range []string{`branch: "fix/retry"`, `agent_version: "2.1.197"`, "messages: 6", "## User", "## Assistant", "jittered backoff"} {
		if !strings.Contains(string(export), want) {
			t.Errorf("the export lacks %q:\n%s", want, export)
		}
	}
	own := pipeline.OpenPersonal(know, repo)
	hand, ok := own.ReadHandoff("fix/retry")
	if !ok || len(hand.Items) != 1 || hand.Items[0] != "Write a test for the jittered backoff" {
		t.Errorf("handoff: %+v, %v", hand, ok)
	}
	entries, _ := own.Entries()
	var failure bool
	for _, e := range entries {
		if pipeline.IsFailure(e) && e.Detail.RootCause == "the fake server never closed its connections" {
			failure = true
		}
	}
	if !failure || len(entries) != 2 {
		t.Errorf("personal entries: %+v", entries)
	}
	if learnings, _ := filepath.Glob(filepath.Join(know, "learnings", "*", "*-fake-servers-must-close-their-connections.md")); len(learnings) != 1 {
		t.Errorf("learnings: %v", learnings)
	}
	if _, err := os.Stat(filepath.Join(repo, ".cairn", "local", "handoff")); err == nil {
		t.Error("personal knowledge landed in the repository")
	}

	// The next session on the branch, with the pipeline off: what it
	// wrote is still shown, and no worker outlives the test.
	os.WriteFile(filepath.Join(home, ".config", "cairn", "config.json"), []byte(`{"pipeline": false}`), 0o644)
	before := len(api.MainRequests())
	next := claudetest.StartInteractive(t, claudetest.InteractiveOptions{CLI: cli, API: api, Dir: repo, Home: home, Env: env})
	next.Type("Let's continue.")
	next.WaitRequests(before + 1)
	next.WaitScreen("Picking up where we left off")
	first := api.MainRequests()[before].Text()
	i := strings.Index(first, recall.OpenTag)
	j := strings.Index(first, recall.CloseTag)
	if i < 0 || j < i {
		t.Fatalf("no untrusted block in the next session's first request:\n%.3000s", first)
	}
	block := first[i:j]
	for _, want := range []string{"Left open on this branch by your last session", "Write a test for the jittered backoff",
		"Prevention: Close the fake server", recall.PersonalHeading} {
		if !strings.Contains(block, want) {
			t.Errorf("the next session's first request lacks %q inside the wrapper:\n%s", want, block)
		}
	}
	next.Exit()
}

// /compact in the real interactive UI runs PreCompact, which captures a
// typed line the agent wrote between tool calls (no Stop sees it: it is
// not the turn's last message) and queues the session.
func TestPipelineCompactCaptures(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	cli := claudetest.FindCLI(t)
	api := claudetest.StartFakeAPI(t, [][]claudetest.Block{
		{claudetest.Text("LEARNED: the session cookie is scoped to /app, not /"), claudetest.ToolUse("toolu_1", "Read", map[string]any{"file_path": "README.md"})},
		{claudetest.Text("Read it; nothing else to do.")},
	})
	repo := t.TempDir()
	cairntest.Git(t, repo, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(repo, "README.md"), []byte("# app\n"), 0o644)
	cairntest.Git(t, repo, "add", ".")
	cairntest.Git(t, repo, "commit", "-q", "-m", "init")
	cairntest.In(t, repo, "init", "--claude")
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".config", "cairn"), 0o755)
	os.WriteFile(filepath.Join(home, ".config", "cairn", "config.json"), []byte(`{"pipeline": true, "model_command": ["false"]}`), 0o644)
	env := []string{"CAIRN_BIN=" + cairntest.Binary(t), "CAIRN_NO_BACKGROUND=1", "CAIRN_PIPELINE_CHILD="}
	s := claudetest.StartInteractive(t, claudetest.InteractiveOptions{CLI: cli, API: api, Dir: repo, Home: home, Env: env})
	s.Type("Read the README and tell me what you learn.")
	s.WaitRequests(2)
	s.WaitScreen("nothing else to do")
	s.WaitIdle()
	if e2etest.FindEntry(e2etest.LogEntries(t, repo), "learned", "session cookie") != nil {
		t.Fatal("the typed line between tool calls was captured before compaction; the test shows nothing")
	}
	s.Type("/compact")
	deadline := time.Now().Add(90 * time.Second)
	for e2etest.FindEntry(e2etest.LogEntries(t, repo), "learned", "session cookie") == nil {
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(repo, ".cairn", "cache", "cairn.log"))
			t.Fatalf("PreCompact did not capture the typed line; screen:\n%s\ncairn.log:\n%s", s.Screen(), log)
		}
		time.Sleep(100 * time.Millisecond) // polling for the hook's effect, not timing
	}
	tasks, _ := filepath.Glob(filepath.Join(home, ".local", "state", "cairn", "queue", "*.task"))
	var compact bool
	for _, p := range tasks {
		b, _ := os.ReadFile(p)
		compact = compact || strings.Contains(string(b), `"reason":"compact"`) || strings.Contains(string(b), `"reason":"stop"`)
	}
	if !compact {
		t.Errorf("the session was not queued: %v", tasks)
	}
	s.Exit()
}
