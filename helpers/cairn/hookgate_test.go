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

// maxGateInits caps the package initialisers (lines of Go's init trace)
// that run before the capture hook's reject path answers. Go initialises
// packages in import-path order among those whose imports are done, so a
// gate that imports a package sorting late (path/filepath, os/exec, sort,
// runtime/debug, crypto/rand, golang.org/x/sys/unix) waits for every ready
// package sorting before it: 107 at c12d4c6, 133 once the gate took the
// anchor map's fsx, 73 since the reject rule runs in package
// hookgate/judge, which imports none of them (any one of them puts it
// back over 88); 72 since a tool's output ends in hookgate/toolgate's
// init, right after judge's, which starts the background sync after a
// pull.
const maxGateInits = 80

// maxToolGateInits caps the initialisers before the hook before a tool
// call answers a call on a file with no note: that gate (package
// hookgate/toolgate's init) reads the anchor map through an os.Root by
// offset, not fsx's mapping, and its leaves (anchor, projroot, filestat)
// import none of the packages that sort late, so it runs right after the
// reject rule: 72 here (134 when it mapped the map through fsx).
const maxToolGateInits = 76

// countInits is the number of package initialisers in an init trace.
func countInits(trace string) int {
	n := 0
	for _, l := range strings.Split(trace, "\n") {
		if strings.HasPrefix(l, "init ") {
			n++
		}
	}
	return n
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

// gateProject is a new git repository with a cairn project, for the gates'
// init traces.
func gateProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cairntest.Git(t, dir, "init", "-q", "-b", "main")
	cairntest.Git(t, dir, "config", "user.name", "Ana Gate")
	cairntest.In(t, dir, "init")
	return dir
}

// checkHeavy checks that an init trace (see [tracedHook]) initialised
// the heavy packages (heavyInits) if want, and none of them if not.
func checkHeavy(t *testing.T, what, inits string, want bool) {
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

// The capture hook answers before SQLite, go-git, the CLI framework and
// the MCP SDK are initialised — both when there is nothing to capture and
// when it captures an entry — and captures all the same: the work it
// skips is asserted, not timed. The full hook (any other event) does
// initialise them, which keeps the assertion from passing vacuously.
func TestGateRunsBeforeHeavyPackages(t *testing.T) {
	dir := gateProject(t)

	reject := []byte(`{"session_id":"g","cwd":"` + dir + `","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"go test ./..."},"tool_response":{"stdout":"ok"}}`)
	out, inits := tracedHook(t, dir, reject, "hook", "PostToolUse")
	if out != "" {
		t.Errorf("reject path printed %q", out)
	}
	checkHeavy(t, "reject path", inits, false)
	if n := countInits(inits); n > maxGateInits {
		t.Errorf("the reject path ran %d package initialisers, more than %d: a new import of hookgate/judge's waits for every package that sorts before it (see maxGateInits)", n, maxGateInits)
	}

	out, inits = tracedHook(t, dir, payloadWith("PostToolUseFailure", dir), "hook", "PostToolUseFailure")
	if !strings.Contains(out, "cairn: recorded 1 learned") {
		t.Errorf("capture printed %q", out)
	}
	checkHeavy(t, "capture", inits, false)
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
	checkHeavy(t, "a prompt (the full hook)", inits, true)
}

// The hook before a tool call answers a call that touches nothing
// anchored before SQLite, go-git, the CLI framework and the MCP SDK are
// initialised, from one read of the anchor map, and notes an edit for the
// turn's capture; a call on an anchored file goes to the full hook, which
// brings the note. An add brings the map along with the log; after a
// pull (a map older than the log), a file no line of the log anchors a
// note to is answered there too, and one a pulled line anchors goes to
// the full hook.
func TestToolGateRunsBeforeHeavyPackages(t *testing.T) {
	dir := gateProject(t)
	for _, f := range []string{"a.go", "b.go"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("package a\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cairntest.In(t, dir, "add", "--files", "a.go", "learned", "a.go must keep its init order")
	cairntest.In(t, dir, "sync")
	pre := func(tool, file string) []byte {
		return []byte(`{"session_id":"g","cwd":"` + dir + `","hook_event_name":"PreToolUse","tool_name":"` + tool + `","tool_input":{"file_path":"` + file + `"}}`)
	}

	out, inits := tracedHook(t, dir, pre("Edit", filepath.Join(dir, "b.go")), "hook", "PreToolUse")
	if out != "" {
		t.Errorf("no-match path printed %q", out)
	}
	checkHeavy(t, "no-match path", inits, false)
	if n := countInits(inits); n > maxToolGateInits {
		t.Errorf("the no-match path ran %d package initialisers, more than %d: a new import of hookgate/toolgate's (or of anchor's, projroot's or filestat's) waits for every package that sorts before it (see maxToolGateInits)", n, maxToolGateInits)
	}
	touched, _ := filepath.Glob(filepath.Join(dir, ".cairn", "local", "sessions", "*.files"))
	if len(touched) != 1 {
		t.Errorf("the edit was not noted for the turn: %v", touched)
	}

	out, inits = tracedHook(t, dir, pre("Read", "a.go"), "hook", "PreToolUse")
	if !strings.Contains(out, "a.go must keep its init order") || !strings.Contains(out, `"hookEventName":"PreToolUse"`) {
		t.Errorf("match path printed %q", out)
	}
	checkHeavy(t, "match path (the full hook)", inits, true)

	// OpenCode's plugin, Codex, Gemini CLI and Cursor take the same path.
	oc := []byte(`{"session_id":"g","cwd":"` + dir + `","project_dir":"` + dir + `","tool":"read","file_path":"` + filepath.Join(dir, "b.go") + `"}`)
	out, inits = tracedHook(t, dir, oc, "hook", "opencode", "ToolBefore")
	if out != "" {
		t.Errorf("OpenCode's no-match path printed %q", out)
	}
	checkHeavy(t, "OpenCode's no-match path", inits, false)
	gm := []byte(`{"session_id":"g","cwd":"` + dir + `","hook_event_name":"AfterTool","tool_name":"read_file","tool_input":{"file_path":"` + filepath.Join(dir, "b.go") + `"},"tool_response":{"llmContent":"package a"}}`)
	_, inits = tracedHook(t, dir, gm, "hook", "gemini", "AfterFileTool")
	checkHeavy(t, "Gemini CLI's no-match path", inits, false)
	cu := []byte(`{"conversation_id":"g3","hook_event_name":"postToolUse","workspace_roots":["` + dir + `"],"cwd":"","tool_name":"Read","tool_input":{"file_path":"` + filepath.Join(dir, "b.go") + `"},"tool_output":"{}"}`)
	out, inits = tracedHook(t, dir, cu, "hook", "cursor", "postToolUse")
	if out != "" {
		t.Errorf("Cursor's no-match path printed %q", out)
	}
	checkHeavy(t, "Cursor's no-match path", inits, false)
	out, inits = tracedHook(t, dir, bytes.Replace(cu, []byte("b.go"), []byte("a.go"), 1), "hook", "cursor", "postToolUse")
	if !strings.Contains(out, "a.go must keep its init order") || !strings.Contains(out, `"additional_context"`) {
		t.Errorf("Cursor's match path printed %q", out)
	}
	checkHeavy(t, "Cursor's match path (the full hook)", inits, true)
	cx := []byte(`{"session_id":"g","cwd":"` + dir + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"cat b.go"}}`)
	_, inits = tracedHook(t, dir, cx, "hook", "codex", "PreToolUse")
	checkHeavy(t, "Codex's no-match path", inits, false)
	if n := countInits(inits); n > maxToolGateInits {
		t.Errorf("the no-match path of a shell command ran %d package initialisers, more than %d (see maxToolGateInits)", n, maxToolGateInits)
	}
	out, inits = tracedHook(t, dir, []byte(`{"session_id":"g2","cwd":"`+dir+`","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"cat a.go"}}`), "hook", "codex", "PreToolUse")
	if !strings.Contains(out, "a.go must keep its init order") {
		t.Errorf("Codex's match path printed %q", out)
	}
	checkHeavy(t, "Codex's match path (the full hook)", inits, true)

	// cairn's own write of the log (an add, a capture) brings the map
	// along: the next tool call still answers before the heavy packages.
	cairntest.In(t, dir, "add", "fact", "an unanchored fact")
	_, inits = tracedHook(t, dir, pre("Read", "b.go"), "hook", "PreToolUse")
	checkHeavy(t, "no-match path right after an add", inits, false)
	// A change cairn did not make (a pull): the map is out of date. A
	// file no line of the log anchors a note to is still answered before
	// the heavy packages (the gate reads the log); one a pulled line
	// anchors a note to goes to the full hook.
	logPath := filepath.Join(dir, ".cairn", "knowledge.jsonl")
	pull := func(line string) {
		t.Helper()
		data, err := os.ReadFile(logPath)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(logPath+".new", append(data, line+"\n"...), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(logPath+".new", logPath); err != nil {
			t.Fatal(err)
		}
	}
	pull(`{"key":"fact-pulled-aaaaaa","type":"fact","content":"a pulled fact","ts":1700000000}`)
	out, inits = tracedHook(t, dir, pre("Read", "b.go"), "hook", "PreToolUse")
	if out != "" {
		t.Errorf("no-match path after a pull printed %q", out)
	}
	checkHeavy(t, "no-match path, a map older than the log", inits, false)
	if n := countInits(inits); n > maxToolGateInits {
		t.Errorf("the no-match path after a pull ran %d package initialisers, more than %d (see maxToolGateInits)", n, maxToolGateInits)
	}
	pull(`{"key":"fact-pulled-bbbbbb","type":"fact","content":"b.go was pulled","ts":1700000001,"files":["b.go"]}`)
	out, inits = tracedHook(t, dir, pre("Read", "b.go"), "hook", "PreToolUse")
	if !strings.Contains(out, "b.go was pulled") {
		t.Errorf("a note a pull anchored: printed %q", out)
	}
	checkHeavy(t, "a note a pull anchored, a map older than the log (the full hook)", inits, true)
}
