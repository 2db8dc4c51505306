package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
)

var hookEvents = []string{"SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "Stop", "SubagentStop", "PreCompact", "SessionEnd"}

// payloadWith is a valid payload for event that carries typed knowledge
// (so capture hooks go past their reject path) in cwd.
func payloadWith(event, cwd string) []byte {
	p := map[string]any{"session_id": "s-failopen", "cwd": cwd, "hook_event_name": event, "source": "startup",
		"prompt": "oauth redirect trailing slash", "tool_name": "Bash",
		"tool_input":             map[string]any{"command": `bd comments add bd-1 "LEARNED: fail-open capture survives"`},
		"last_assistant_message": "LEARNED: fail-open reply survives"}
	b, _ := json.Marshal(p)
	return b
}

// hugePayload is a valid 10 MB payload (a tool's long output) for event.
func hugePayload(event, cwd string) []byte {
	p := map[string]any{"session_id": "s-huge", "cwd": cwd, "hook_event_name": event, "tool_name": "Bash",
		"tool_input":    map[string]any{"command": "cat big.log"},
		"tool_response": map[string]any{"stdout": strings.Repeat("0123456789abcdef", 10<<20/16)}}
	b, _ := json.Marshal(p)
	return b
}

// runHookProcess runs `cairn hook EVENT` as Claude Code does: a process,
// the payload on stdin, in dir.
func runHookProcess(t *testing.T, event, dir string, stdin []byte) (stdout string, code int) {
	t.Helper()
	cmd := exec.Command(cairntest.Binary(t), "hook", event)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Env = append(os.Environ(), "CLAUDE_PROJECT_DIR=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run hook: %v", err)
	}
	return out.String(), code
}

func logLines(dir string) int {
	b, err := os.ReadFile(filepath.Join(dir, ".cairn", "cache", "cairn.log"))
	if err != nil {
		return 0
	}
	return strings.Count(string(b), "\n")
}

// checkProtocol: stdout is empty, or one JSON object that Claude Code reads
// for this event: hookSpecificOutput for this event, and/or a
// systemMessage (cairn's status line).
func checkProtocol(t *testing.T, event, stdout string) {
	t.Helper()
	if stdout == "" {
		return
	}
	var out struct {
		SystemMessage      *string `json:"systemMessage"`
		HookSpecificOutput *struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	err := dec.Decode(&out)
	switch {
	case err != nil, out.SystemMessage == nil && out.HookSpecificOutput == nil:
		t.Errorf("%s wrote something other than its protocol output: %q", event, stdout)
	case out.HookSpecificOutput != nil && out.HookSpecificOutput.HookEventName != event:
		t.Errorf("%s wrote another event's output: %q", event, stdout)
	case out.SystemMessage != nil && !strings.HasPrefix(*out.SystemMessage, "cairn: "):
		t.Errorf("%s wrote a status line that is not cairn's: %q", event, stdout)
	}
}

func TestHooksFailOpen(t *testing.T) {
	project := func(t *testing.T) string {
		dir := t.TempDir()
		cairntest.Git(t, dir, "init", "-q")
		cairntest.In(t, dir, "add", "learned", "OAuth redirect URI must match exactly, including the trailing slash")
		return dir
	}
	for _, event := range hookEvents {
		t.Run(event, func(t *testing.T) {
			t.Run("empty stdin", func(t *testing.T) {
				dir := project(t)
				out, code := runHookProcess(t, event, dir, nil)
				if code != 0 || out != "" || logLines(dir) != 1 {
					t.Errorf("exit %d, stdout %q, %d log lines; want 0, empty, 1", code, out, logLines(dir))
				}
			})
			t.Run("invalid JSON", func(t *testing.T) {
				dir := project(t)
				out, code := runHookProcess(t, event, dir, []byte(`{"session_id": "x", "prompt": `))
				if code != 0 || out != "" || logLines(dir) != 1 {
					t.Errorf("exit %d, stdout %q, %d log lines; want 0, empty, 1", code, out, logLines(dir))
				}
			})
			t.Run("10 MB payload", func(t *testing.T) {
				dir := project(t)
				out, code := runHookProcess(t, event, dir, hugePayload(event, dir))
				if code != 0 {
					t.Errorf("exit %d", code)
				}
				checkProtocol(t, event, out)
			})
			t.Run("no .cairn", func(t *testing.T) {
				dir := t.TempDir()
				cairntest.Git(t, dir, "init", "-q")
				out, code := runHookProcess(t, event, dir, payloadWith(event, dir))
				if code != 0 {
					t.Errorf("exit %d, stdout %q; want 0", code, out)
				}
				checkProtocol(t, event, out)
				// Only a capture of actual knowledge may provision .cairn.
				_, err := os.Stat(filepath.Join(dir, ".cairn"))
				captures := event == "PostToolUse" || event == "PostToolUseFailure" || event == "Stop" || event == "SubagentStop"
				if !captures && err == nil {
					t.Errorf("%s created .cairn in a project without one", event)
				}
			})
			t.Run("unreadable log", func(t *testing.T) {
				dir := project(t)
				log := filepath.Join(dir, ".cairn", "knowledge.jsonl")
				os.Remove(log)
				os.Mkdir(log, 0o755) // a directory where the log should be
				out, code := runHookProcess(t, event, dir, payloadWith(event, dir))
				if code != 0 {
					t.Errorf("exit %d, stdout %q; want 0", code, out)
				}
				checkProtocol(t, event, out)
				if reads := event != "PreCompact" && event != "SessionEnd"; reads && logLines(dir) != 1 {
					t.Errorf("%d log lines, want 1", logLines(dir))
				}
			})
			t.Run("corrupt log", func(t *testing.T) {
				dir := project(t)
				garbage := []byte("\x00\xff<<<<<<< HEAD\nnot json at all\n{\"key\":\n")
				os.WriteFile(filepath.Join(dir, ".cairn", "knowledge.jsonl"), garbage, 0o644)
				out, code := runHookProcess(t, event, dir, payloadWith(event, dir))
				if code != 0 {
					t.Errorf("exit %d", code)
				}
				checkProtocol(t, event, out)
			})
			t.Run("unwritable .cairn", func(t *testing.T) {
				dir := project(t)
				// The writers' lock cannot be opened (a directory stands in
				// its place); as root, permissions cannot make it fail.
				lock := filepath.Join(dir, ".cairn", "knowledge.lock")
				os.Remove(lock)
				os.Mkdir(lock, 0o755)
				before, _ := os.ReadFile(filepath.Join(dir, ".cairn", "knowledge.jsonl"))
				out, code := runHookProcess(t, event, dir, payloadWith(event, dir))
				if code != 0 {
					t.Errorf("exit %d", code)
				}
				checkProtocol(t, event, out)
				after, _ := os.ReadFile(filepath.Join(dir, ".cairn", "knowledge.jsonl"))
				if !bytes.Equal(before, after) {
					t.Errorf("the log changed although it could not be locked")
				}
				captures := event == "PostToolUse" || event == "PostToolUseFailure" || event == "Stop" || event == "SubagentStop"
				if captures && logLines(dir) != 1 {
					t.Errorf("%d log lines, want 1 (the failed capture)", logLines(dir))
				}
			})
		})
	}
}
