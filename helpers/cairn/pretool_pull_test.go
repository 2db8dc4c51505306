package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/fsx"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
)

// pulledProject is a project whose cache holds 200 notes, each anchored
// to a file of its own, and whose log then gained, as a pull brings it
// (appended, as a union merge leaves it), a note anchored to a.go. run
// runs cairn there, background runs on or off, and returns its stdout and
// stderr.
func pulledProject(t *testing.T) (dir string, run func(background bool, stdin string, args ...string) (string, string)) {
	t.Helper()
	bin := cairntest.Binary(t)
	dir = t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".cairn"), 0o755); err != nil {
		t.Fatal(err)
	}
	cairntest.Git(t, dir, "init", "-q")
	var log strings.Builder
	for i := range 200 {
		fmt.Fprintf(&log, `{"key":"fact-n%03d","type":"fact","content":"queue note %d: the worker backs off","ts":%d,"files":["src/f%d.go"]}`+"\n", i, i, 1700000000+i, i)
	}
	logPath := filepath.Join(dir, ".cairn", "knowledge.jsonl")
	if err := os.WriteFile(logPath, []byte(log.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	run = func(background bool, stdin string, args ...string) (string, string) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader(stdin)
		var env []string
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "CAIRN_NO_BACKGROUND=") {
				env = append(env, kv)
			}
		}
		cmd.Env = append(env, "CAIRN_DIR=")
		if !background {
			cmd.Env = append(cmd.Env, "CAIRN_NO_BACKGROUND=1")
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stderr.String())
		}
		return string(out), stderr.String()
	}
	if out, _ := run(false, "", "sync"); !strings.Contains(out, "200 entries") {
		t.Fatalf("sync: %s", out)
	}
	pulled := log.String() + `{"key":"learned-a-go","type":"learned","content":"a.go must keep its retries bounded","ts":1700001000,"files":["a.go"]}` + "\n"
	if err := os.WriteFile(logPath, []byte(pulled), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, run
}

// waitForSync waits for the background sync of dir, which holds its lock
// while it runs, to end.
func waitForSync(t *testing.T, dir string) {
	t.Helper()
	lock, err := fsx.Acquire(filepath.Join(dir, ".cairn", "cache", "sync.lock"), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	lock.Release()
}

// After a pull, the hook before a tool call shows the note the pull
// anchored to the call's file without catching the cache up itself: it
// starts a background sync, which does, and prints nothing but its
// answer.
func TestToolCallAfterPullSyncsInBackground(t *testing.T) {
	dir, run := pulledProject(t)
	out, stderr := run(true, fmt.Sprintf(`{"session_id":"s","cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"a.go"}}`, dir), "hook", "PreToolUse")
	if !strings.Contains(out, "a.go must keep its retries bounded") || stderr != "" {
		t.Fatalf("the first tool call after the pull: stdout %q, stderr %q", out, stderr)
	}
	waitForSync(t, dir)
	if out, _ := run(false, "", "sync"); !strings.Contains(out, "cache is current: 201 entries") {
		t.Fatalf("the background sync did not catch the cache up: %s", out)
	}
}

// A hook after a pull that finds the log changed under the anchor map
// starts the background sync, handing it the sync's lock, and prints
// nothing; the sync catches the cache up. With background runs off, it
// starts none. Two hooks do so, both answered in the early gates:
//   - the capture hook of the agent's own pull through its shell (nothing
//     to capture), so the next tool call finds the cache current, or
//     catching up;
//   - the hook before a tool call on a file no note is anchored to, when
//     the pull came another way (the gate reads the pulled log).
func TestCaptureAfterPullStartsSync(t *testing.T) {
	for _, tc := range []struct {
		name, event, payload string
	}{
		{"the capture hook of the pull", "PostToolUse", `{"session_id":"s","cwd":%q,"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"git pull"},"tool_response":{"stdout":"Updating 1a2b3c4..5d6e7f8\nFast-forward"}}`},
		{"the first tool call after the pull, on a file with no note", "PreToolUse", `{"session_id":"s","cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"src/none.go"}}`},
	} {
		t.Run(tc.event, func(t *testing.T) {
			dir, run := pulledProject(t)
			if out, stderr := run(true, fmt.Sprintf(tc.payload, dir), "hook", tc.event); out != "" || stderr != "" {
				t.Fatalf("%s: stdout %q, stderr %q", tc.name, out, stderr)
			}
			waitForSync(t, dir)
			if out, _ := run(false, "", "sync"); !strings.Contains(out, "cache is current: 201 entries") {
				t.Fatalf("%s did not start a sync that caught the cache up: %s", tc.name, out)
			}

			dir, run = pulledProject(t)
			if out, stderr := run(false, fmt.Sprintf(tc.payload, dir), "hook", tc.event); out != "" || stderr != "" {
				t.Fatalf("%s: stdout %q, stderr %q", tc.name, out, stderr)
			}
			if out, _ := run(false, "", "sync"); strings.Contains(out, "cache is current") {
				t.Fatalf("a sync ran with CAIRN_NO_BACKGROUND=1: %s", out)
			}
		})
	}
}

// When the person pulls in a terminal, the next prompt's hook comes
// before any tool call: a prompt with words to recall on opens the cache,
// which catches it up in the hook; one with nothing to recall ("yes")
// starts the background sync instead.
func TestPromptAfterPullCatchesUp(t *testing.T) {
	prompt := func(dir, text string) string {
		return fmt.Sprintf(`{"session_id":"s","cwd":%q,"hook_event_name":"UserPromptSubmit","prompt":%q}`, dir, text)
	}
	dir, run := pulledProject(t)
	if _, stderr := run(true, prompt(dir, "yes"), "hook", "UserPromptSubmit"); stderr != "" {
		t.Fatalf("the prompt hook: stderr %q", stderr)
	}
	waitForSync(t, dir)
	if out, _ := run(false, "", "sync"); !strings.Contains(out, "cache is current: 201 entries") {
		t.Fatalf("the prompt hook did not start a sync that caught the cache up: %s", out)
	}

	dir, run = pulledProject(t)
	if _, stderr := run(false, prompt(dir, "why does the queue worker back off"), "hook", "UserPromptSubmit"); stderr != "" {
		t.Fatalf("the prompt hook: stderr %q", stderr)
	}
	if out, _ := run(false, "", "sync"); !strings.Contains(out, "cache is current: 201 entries") {
		t.Fatalf("the prompt hook did not catch the cache up: %s", out)
	}
}
