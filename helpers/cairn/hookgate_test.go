package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/testharness/cairntest"
)

// heavyInits are packages whose initialisation the capture hook's fast
// path must not wait for: SQLite, go-git, the CLI framework, the MCP SDK.
var heavyInits = []string{
	"init modernc.org/sqlite ",
	"init github.com/go-git/go-git/v5 ",
	"init github.com/urfave/cli/v2 ",
	"init github.com/modelcontextprotocol/go-sdk/mcp ",
}

// tracedHook runs `cairn ARGS...` in dir with the payload on stdin and
// Go's init trace on, and returns its stdout and the packages it
// initialised (stderr).
func tracedHook(t *testing.T, dir string, payload []byte, args ...string) (stdout, inits string) {
	t.Helper()
	cmd := exec.Command(cairntest.Binary(t), args...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(payload)
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1", "CLAUDE_PROJECT_DIR=", "CAIRN_DIR=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("cairn %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String(), errb.String()
}

// The capture hook answers before SQLite, go-git, the CLI framework and
// the MCP SDK are initialised — both when there is nothing to capture and
// when it captures an entry — and captures all the same: the work it
// skips is asserted, not timed. The full hook (any other event) does
// initialise them, which keeps the assertion from passing vacuously.
func TestGateRunsBeforeHeavyPackages(t *testing.T) {
	dir := t.TempDir()
	cairntest.Git(t, dir, "init", "-q", "-b", "main")
	cairntest.Git(t, dir, "config", "user.name", "Ana Gate")
	cairntest.In(t, dir, "init")

	check := func(what, inits string, want bool) {
		t.Helper()
		if !strings.Contains(inits, "init runtime @") {
			t.Fatalf("%s: no init trace on stderr:\n%s", what, inits)
		}
		for _, h := range heavyInits {
			if strings.Contains(inits, h) != want {
				t.Errorf("%s: initialised %q = %v, want %v", what, strings.TrimSpace(h), !want, want)
			}
		}
	}

	reject := []byte(`{"session_id":"g","cwd":"` + dir + `","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"go test ./..."},"tool_response":{"stdout":"ok"}}`)
	out, inits := tracedHook(t, dir, reject, "hook", "PostToolUse")
	if out != "" {
		t.Errorf("reject path printed %q", out)
	}
	check("reject path", inits, false)

	out, inits = tracedHook(t, dir, payloadWith("PostToolUseFailure", dir), "hook", "PostToolUseFailure")
	if !strings.Contains(out, "cairn: recorded 1 learned") {
		t.Errorf("capture printed %q", out)
	}
	check("capture", inits, false)
	log, err := os.ReadFile(filepath.Join(dir, ".cairn", "knowledge.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(log, []byte(`"content":"fail-open capture survives"`)) || !bytes.Contains(log, []byte(`"author":"Ana Gate"`)) {
		t.Errorf("the gate's capture is not in the log with its provenance:\n%s", log)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".cairn", "cache", "cairn.log")); !bytes.Contains(b, []byte("PostToolUseFailure captured 1: learned-fail-open-capture-survives")) {
		t.Errorf("cairn.log has no capture line:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(dir, ".cairn", "local", "heartbeat.json")); err != nil {
		t.Errorf("no heartbeat: %v", err)
	}

	_, inits = tracedHook(t, dir, payloadWith("UserPromptSubmit", dir), "hook", "UserPromptSubmit")
	check("a prompt (the full hook)", inits, true)
}
