package agents

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
	"github.com/cairn-dev/cairn/helpers/internal/testharness/claudetest"
	"github.com/cairn-dev/cairn/helpers/internal/testharness/e2etest"
)

// Cursor's client cannot run here: its CLI (cursor-agent) is not on the
// npm registry (its installer downloads from cursor.com, which this
// machine and CI cannot reach), and the editor is a desktop application.
// These tests therefore replay Cursor's documented hook payloads
// (https://cursor.com/docs/hooks; the files are in
// internal/agent/cursor/testdata/payloads) against the real cairn binary,
// through the committed launcher, run the way Cursor runs a project hook:
// the command of .cursor/hooks.json, through a shell, in the project's
// root, with CURSOR_PROJECT_DIR set and the payload on stdin. They check
// what cairn does with what Cursor sends, not that a Cursor of today
// sends it.

// cursorPayloadRoot is the workspace root in every payload file.
const cursorPayloadRoot = "/home/ana/src/team repo #2"

// cursorConversation is the conversation_id of the editor's payloads.
const cursorConversation = "5b0c2f9e-7d1a-4c3e-9f6b-2a8d4e1c7b30"

// cursorPayload reads a payload file with its workspace root replaced by
// root.
func cursorPayload(t *testing.T, name, root string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "internal", "agent", "cursor", "testdata", "payloads", name))
	if err != nil {
		t.Fatal(err)
	}
	quoted, _ := json.Marshal(root)
	want, _ := json.Marshal(cursorPayloadRoot)
	out := bytes.ReplaceAll(data, want, quoted)
	if bytes.Equal(out, data) {
		t.Fatalf("%s names no workspace root", name)
	}
	return out
}

// cursorRepo is a git repository whose path has spaces and a '#', on a
// branch about the payment retries.
func cursorRepo(t *testing.T) string {
	t.Helper()
	repo := filepath.Join(t.TempDir(), "team repo #2")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	cairntest.Git(t, repo, "init", "-q", "-b", "main")
	cairntest.Git(t, repo, "config", "user.name", "Ana")
	cairntest.Git(t, repo, "config", "user.email", "ana@example.com")
	cairntest.Git(t, repo, "commit", "-q", "--allow-empty", "-m", "initial commit")
	cairntest.Git(t, repo, "checkout", "-q", "-b", "fix/oauth-trailing-slash")
	return repo
}

// cursorEnv is the environment of a Cursor hook: a HOME of the test's,
// this cairn through CAIRN_BIN (not on PATH), and what Cursor sets.
func cursorEnv(t *testing.T, repo string) []string {
	home := t.TempDir()
	return []string{"PATH=/usr/bin:/bin", "HOME=" + home, "GOPATH=" + filepath.Join(home, "go"),
		"CAIRN_BIN=" + cairntest.Binary(t), "CAIRN_NO_BACKGROUND=1",
		"GIT_CONFIG_GLOBAL=" + os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
		"CURSOR_PROJECT_DIR=" + repo, "CLAUDE_PROJECT_DIR=" + repo, "CURSOR_VERSION=3.12.17"}
}

// cursorCommand is the command .cursor/hooks.json runs for event: the one
// of cairn's.
func cursorCommand(t *testing.T, repo, event string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repo, ".cursor", "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Version int                                   `json:"version"`
		Hooks   map[string][]struct{ Command string } `json:"hooks"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("hooks.json: %v\n%s", err, data)
	}
	for _, d := range f.Hooks[event] {
		if strings.Contains(d.Command, ".cairn/hook --agent cursor ") {
			return d.Command
		}
	}
	t.Fatalf("hooks.json runs nothing of cairn's for %s:\n%s", event, data)
	return ""
}

// runCursorHook runs a command as Cursor runs a project hook: through a
// shell, in dir, with env, the payload on stdin.
func runCursorHook(t *testing.T, dir, command string, env []string, stdin []byte) (stdout string, code int) {
	t.Helper()
	cmd := exec.Command("sh", "-c", command)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %s: %v", command, err)
	}
	return out.String(), code
}

// cursorHook runs the project's hooks.json command for event.
func cursorHook(t *testing.T, repo, event string, stdin []byte) (stdout string, code int) {
	t.Helper()
	return runCursorHook(t, repo, cursorCommand(t, repo, event), cursorEnv(t, repo), stdin)
}

// cursorContext checks that stdout is exactly Cursor's sessionStart output,
// one JSON object with additional_context only, and returns that.
func cursorContext(t *testing.T, stdout string) string {
	t.Helper()
	var out struct {
		AdditionalContext *string `json:"additional_context"`
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil || out.AdditionalContext == nil {
		t.Fatalf("sessionStart wrote something other than Cursor's output (%v): %q", err, stdout)
	}
	if dec.More() {
		t.Fatalf("sessionStart wrote more than one JSON value: %q", stdout)
	}
	return *out.AdditionalContext
}

// userCursorHooks is the project's own .cursor/hooks.json before cairn.
const userCursorHooks = `{
  "version": 1,
  "hooks": {
    "sessionStart": [{ "command": "./hooks/session-init.sh" }],
    "afterFileEdit": [{ "command": "./hooks/format.sh", "timeout": 30 }]
  }
}
`

// TestCursorReplayedHooks: `cairn init --cursor` wires the project's own
// .cursor/hooks.json (its hooks kept, nothing of the machine named, a
// second run changes nothing); Cursor's documented payloads, replayed
// through the commands it wrote, recall the seeded entries at
// sessionStart as additional_context inside the untrusted wrapper (from
// CURSOR_PROJECT_DIR, or from the payload's workspace_roots alone), and
// capture `bd comments add` from afterShellExecution and typed lines from
// afterAgentResponse into .cairn/knowledge.jsonl, saying nothing; `cairn
// uninstall --cursor` gives the user's file back as it was.
func TestCursorReplayedHooks(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	repo := cursorRepo(t)
	hooksPath := filepath.Join(repo, ".cursor", "hooks.json")
	if err := os.MkdirAll(filepath.Dir(hooksPath), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hooksPath, []byte(userCursorHooks), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := cairntest.In(t, repo, "init", "--cursor"); !strings.Contains(out, "wired Cursor") || !strings.Contains(out, ".cursor/hooks.json") {
		t.Errorf("init --cursor said:\n%s", out)
	}
	wired, err := os.ReadFile(hooksPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, keep := range []string{`"./hooks/session-init.sh"`, `"./hooks/format.sh"`, `"timeout": 30`} {
		if !bytes.Contains(wired, []byte(keep)) {
			t.Errorf("the user's hook %s is gone:\n%s", keep, wired)
		}
	}
	home, _ := os.UserHomeDir()
	for _, machine := range []string{repo, filepath.Dir(repo), os.TempDir(), home, "$HOME", "~/"} {
		if machine != "" && bytes.Contains(wired, []byte(machine)) {
			t.Errorf("the committed hooks.json names %q:\n%s", machine, wired)
		}
	}
	if out := cairntest.In(t, repo, "init", "--cursor"); !strings.Contains(out, "Cursor wiring already in place") {
		t.Errorf("second init --cursor said:\n%s", out)
	}
	if again, _ := os.ReadFile(hooksPath); !bytes.Equal(again, wired) {
		t.Errorf("second init --cursor rewrote hooks.json:\n%s", again)
	}

	cairntest.In(t, repo, "add", "learned", "OAuth redirect URI must match exactly, including the trailing slash")
	cairntest.In(t, repo, "add", "fact", "Kafka consumer lag alerts fire above ten thousand messages")
	cairntest.In(t, repo, "add", "must-check", "Run the database migrations before deploying the API")

	for _, file := range []string{"sessionStart.json", "sessionStart-cli.json"} {
		stdout, code := cursorHook(t, repo, "sessionStart", cursorPayload(t, file, repo))
		if code != 0 {
			t.Fatalf("%s: exit %d", file, code)
		}
		e2etest.CheckStartContext(t, cursorContext(t, stdout))
	}
	// An older Cursor that sets no CURSOR_PROJECT_DIR, the hook run from
	// elsewhere: the payload's workspace root is the project.
	var env []string
	for _, kv := range cursorEnv(t, repo) {
		if !strings.HasPrefix(kv, "CURSOR_PROJECT_DIR=") && !strings.HasPrefix(kv, "CLAUDE_PROJECT_DIR=") {
			env = append(env, kv)
		}
	}
	stdout, code := runCursorHook(t, t.TempDir(), `"$ROOT"/.cairn/hook --agent cursor sessionStart`,
		append(env, "ROOT="+repo), cursorPayload(t, "sessionStart.json", repo))
	if code != 0 {
		t.Fatalf("sessionStart from elsewhere: exit %d", code)
	}
	e2etest.CheckStartContext(t, cursorContext(t, stdout))

	before := len(e2etest.LogEntries(t, repo))
	stdout, code = cursorHook(t, repo, "afterShellExecution", cursorPayload(t, "afterShellExecution.json", repo))
	if code != 0 || stdout != "" {
		t.Errorf("afterShellExecution: exit %d, stdout %q", code, stdout)
	}
	entries := e2etest.LogEntries(t, repo)
	learned := e2etest.FindEntry(entries, "learned", "payment retry budget is three attempts")
	if learned == nil {
		t.Fatalf("bd comments add in afterShellExecution was not captured: %+v", entries)
	}
	if learned.Bead != "bd-42" || learned.Session != cursorConversation || learned.Source != "agent" {
		t.Errorf("captured entry: %+v", learned)
	}
	// What a command printed is not the agent's: as for Claude Code, only
	// the command it ran is read.
	if _, code := cursorHook(t, repo, "afterShellExecution", cursorPayload(t, "afterShellExecution-echo.json", repo)); code != 0 {
		t.Errorf("afterShellExecution (echo): exit %d", code)
	}
	if e2etest.FindEntry(e2etest.LogEntries(t, repo), "learned", "printed by a program") != nil {
		t.Error("a typed line in a command's output was captured")
	}

	for range 2 { // Cursor may report the same message twice: one entry each
		stdout, code = cursorHook(t, repo, "afterAgentResponse", cursorPayload(t, "afterAgentResponse.json", repo))
		if code != 0 || stdout != "" {
			t.Errorf("afterAgentResponse: exit %d, stdout %q", code, stdout)
		}
	}
	entries = e2etest.LogEntries(t, repo)
	decision := e2etest.FindEntry(entries, "decision", "config/retry.toml")
	if decision == nil || decision.Session != cursorConversation {
		t.Errorf("afterAgentResponse DECISION: not captured with its conversation: %+v", entries)
	}
	if e2etest.FindEntry(entries, "pattern", "table-driven retry test") == nil {
		t.Errorf("afterAgentResponse PATTERN: not captured: %+v", entries)
	}
	if e2etest.FindEntry(entries, "learned", "inside a code fence") != nil {
		t.Error("a typed line inside a code fence was captured")
	}
	if len(entries) != before+3 {
		t.Errorf("%d entries captured, want 3: %+v", len(entries)-before, entries)
	}

	if out := cairntest.In(t, repo, "uninstall", "--cursor"); !strings.Contains(out, ".cursor/hooks.json") {
		t.Errorf("uninstall --cursor said:\n%s", out)
	}
	after, err := os.ReadFile(hooksPath)
	if err != nil {
		t.Fatal(err)
	}
	var got, want bytes.Buffer
	json.Compact(&got, after)
	json.Compact(&want, []byte(userCursorHooks))
	if got.String() != want.String() {
		t.Errorf("uninstall --cursor did not give the user's hooks.json back:\n%s", after)
	}
}

// TestCursorHooksFailOpen: whatever reaches a Cursor hook (nothing, not
// JSON, another JSON value, fields of the wrong type, a cut payload, a
// 10 MB output, an event or agent cairn does not handle), it exits 0 and
// prints nothing, adds nothing to the log, and says why in cairn.log.
func TestCursorHooksFailOpen(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	repo := cursorRepo(t)
	cairntest.In(t, repo, "init", "--cursor")
	cairntest.In(t, repo, "add", "learned", "OAuth redirect URI must match exactly, including the trailing slash")
	before := len(e2etest.LogEntries(t, repo))
	huge, _ := json.Marshal(map[string]any{"conversation_id": "c-huge", "hook_event_name": "afterShellExecution",
		"workspace_roots": []string{repo}, "command": "cat big.log", "output": strings.Repeat("LEARNED: not typed by the agent\n", 10<<20/32)})
	garbage := map[string][]byte{
		"empty":      nil,
		"blank":      []byte(" \n"),
		"not JSON":   []byte("LEARNED: not json at all"),
		"array":      []byte(`["DECISION: in an array"]`),
		"wrong type": []byte(`{"workspace_roots": 7, "text": "DECISION: x", "command": "bd comments add bd-1 \"LEARNED: x\""}`),
		"text type":  []byte(`{"text": ["DECISION: x"], "command": {"LEARNED:": 1}}`),
		"cut":        []byte(`{"conversation_id": "c", "text": "DECISION: cut short`),
		"null":       []byte(`null`),
	}
	for _, event := range []string{"sessionStart", "afterShellExecution", "afterAgentResponse"} {
		for name, payload := range garbage {
			stdout, code := cursorHook(t, repo, event, payload)
			if code != 0 || stdout != "" {
				t.Errorf("%s with %s: exit %d, stdout %q", event, name, code, stdout)
			}
		}
	}
	if stdout, code := cursorHook(t, repo, "afterShellExecution", huge); code != 0 || stdout != "" {
		t.Errorf("afterShellExecution with a 10 MB output: exit %d, stdout %q", code, stdout)
	}
	env := cursorEnv(t, repo)
	payload := cursorPayload(t, "afterAgentResponse.json", repo)
	for _, command := range []string{
		".cairn/hook --agent cursor beforeSubmitPrompt",
		".cairn/hook --agent cursor stop",
		".cairn/hook --agent cursr afterAgentResponse",
		".cairn/hook --agent cursor",
	} {
		if stdout, code := runCursorHook(t, repo, command, env, payload); code != 0 || stdout != "" {
			t.Errorf("%s: exit %d, stdout %q", command, code, stdout)
		}
	}
	if n := len(e2etest.LogEntries(t, repo)); n != before {
		t.Errorf("garbage added %d entries", n-before)
	}
	log, err := os.ReadFile(filepath.Join(repo, ".cairn", "cache", "cairn.log"))
	if err != nil {
		t.Fatalf("no cairn.log: %v", err)
	}
	for _, want := range []string{"empty hook payload", "not a JSON object", "decode cursor hook payload", "unknown"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("cairn.log does not say %q:\n%s", want, log)
		}
	}
}

// TestCursorCaptureRecalledByClaude: a decision captured from Cursor's
// afterAgentResponse is recalled, wrapped, in the first request of the
// real Claude Code in the same project (wired for both agents, one
// launcher).
func TestCursorCaptureRecalledByClaude(t *testing.T) {
	t.Parallel() // a real-client test: it mostly waits on the CLI
	cli := claudetest.FindCLI(t)
	repo := cursorRepo(t)
	cairntest.Git(t, repo, "checkout", "-q", "-b", "fix/payment-retries")
	cairntest.In(t, repo, "init", "--claude", "--cursor")
	if _, code := cursorHook(t, repo, "afterAgentResponse", cursorPayload(t, "afterAgentResponse.json", repo)); code != 0 {
		t.Fatalf("afterAgentResponse: exit %d", code)
	}
	if e2etest.FindEntry(e2etest.LogEntries(t, repo), "decision", "config/retry.toml") == nil {
		t.Fatal("the Cursor reply was not captured")
	}
	api := claudetest.StartFakeAPI(t, [][]claudetest.Block{{claudetest.Text("ok")}})
	home := t.TempDir()
	res := claudetest.Run(t, claudetest.RunOptions{CLI: cli, API: api, Dir: repo, Home: home, Prompt: "continue the payment retry work",
		Env: []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home, "CAIRN_BIN=" + cairntest.Binary(t), "CAIRN_NO_BACKGROUND=1"}})
	if res.ExitCode != 0 {
		t.Fatalf("claude exited %d\n%s", res.ExitCode, res)
	}
	ctx := e2etest.Injected(t, api)
	open := strings.Index(ctx, "<untrusted-knowledge")
	close := strings.Index(ctx, "</untrusted-knowledge>")
	if open < 0 || close < open || !strings.Contains(ctx[open:close], "config/retry.toml") {
		t.Errorf("Claude Code's session did not recall the Cursor capture, wrapped:\n%s", ctx)
	}
}

// TestCursorReplayedFileNotes: `cairn init --cursor` registers postToolUse
// for Cursor's Read and Write; Cursor's postToolUse payloads, replayed
// through the command it wrote, bring the notes anchored to the file
// (and to a directory above it) as additional_context, the one field of
// the output, inside the untrusted wrapper, once per conversation; a file
// nothing is anchored to brings nothing; no answer carries a permission.
func TestCursorReplayedFileNotes(t *testing.T) {
	t.Parallel()
	repo := cursorRepo(t)
	for _, f := range []string{"payments/client.go", "db/migrations/0042_add_refunds.sql", "README.md"} {
		path := filepath.Join(repo, f)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cairntest.In(t, repo, "init", "--cursor")
	wired, err := os.ReadFile(filepath.Join(repo, ".cursor", "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Hooks map[string][]struct{ Command, Matcher string } `json:"hooks"`
	}
	if err := json.Unmarshal(wired, &f); err != nil || len(f.Hooks["postToolUse"]) != 1 || f.Hooks["postToolUse"][0].Matcher != "Read|Write" {
		t.Fatalf("postToolUse is not registered for Read and Write (%v):\n%s", err, wired)
	}
	cairntest.In(t, repo, "add", "--files", "payments/client.go", "learned", "The retry loop in the payments client must watch the context deadline")
	cairntest.In(t, repo, "add", "--files", "db/migrations", "must-check", "Every migration needs a dry run against a staging snapshot first")
	cairntest.In(t, repo, "add", "fact", "Kafka consumer lag alerts fire above ten thousand messages")

	// toolContext checks that stdout is postToolUse's output, one JSON
	// object with additional_context alone, and returns that.
	toolContext := func(what, stdout string) string {
		t.Helper()
		var out map[string]any
		dec := json.NewDecoder(strings.NewReader(stdout))
		if err := dec.Decode(&out); err != nil || dec.More() || len(out) != 1 {
			t.Fatalf("%s: not postToolUse's output (%v): %q", what, err, stdout)
		}
		ctx, ok := out["additional_context"].(string)
		if !ok || !strings.Contains(ctx, "<untrusted-knowledge") || !strings.Contains(ctx, "</untrusted-knowledge>") {
			t.Fatalf("%s: no additional_context in the untrusted wrapper: %q", what, stdout)
		}
		return ctx
	}
	// toolPayload is a postToolUse payload whose file is in repo.
	toolPayload := func(name string) []byte {
		data := cursorPayload(t, name, repo)
		quoted, _ := json.Marshal(repo + "/")
		return bytes.ReplaceAll(data, []byte(cursorPayloadRoot+"/"), quoted[1:len(quoted)-1])
	}
	read := toolPayload("postToolUse-read.json")
	stdout, code := cursorHook(t, repo, "postToolUse", read)
	if code != 0 {
		t.Fatalf("postToolUse Read: exit %d", code)
	}
	ctx := toolContext("Read payments/client.go", stdout)
	if !strings.Contains(ctx, "must watch the context deadline") || strings.Contains(ctx, "Kafka") || strings.Contains(ctx, "dry run") {
		t.Errorf("Read payments/client.go brought:\n%s", ctx)
	}
	if stdout, code := cursorHook(t, repo, "postToolUse", read); code != 0 || stdout != "" {
		t.Errorf("a second Read of the file in the conversation: exit %d, %q (want nothing: never shown twice)", code, stdout)
	}
	other := bytes.ReplaceAll(read, []byte("payments/client.go"), []byte("README.md"))
	if stdout, code := cursorHook(t, repo, "postToolUse", other); code != 0 || stdout != "" {
		t.Errorf("Read of a file nothing is anchored to: exit %d, %q", code, stdout)
	}
	write := toolPayload("postToolUse-write.json")
	stdout, code = cursorHook(t, repo, "postToolUse", write)
	if code != 0 {
		t.Fatalf("postToolUse Write: exit %d", code)
	}
	if ctx := toolContext("Write db/migrations/0042", stdout); !strings.Contains(ctx, "dry run against a staging snapshot") {
		t.Errorf("Write under db/migrations brought:\n%s", ctx)
	}
	if strings.Contains(stdout, "permission") {
		t.Errorf("postToolUse answered a permission: %q", stdout)
	}
	// Another conversation has not seen the note.
	fresh := bytes.ReplaceAll(read, []byte(cursorConversation), []byte("0d6e2c11-5a7b-4f3e-8c9d-7b1a2e4f6c80"))
	if ctx := toolContext("Read in another conversation", mustHook(t, repo, fresh)); !strings.Contains(ctx, "must watch the context deadline") {
		t.Errorf("another conversation's Read brought:\n%s", ctx)
	}
}

// mustHook runs the project's postToolUse command and fails unless it
// exits 0.
func mustHook(t *testing.T, repo string, payload []byte) string {
	t.Helper()
	stdout, code := cursorHook(t, repo, "postToolUse", payload)
	if code != 0 {
		t.Fatalf("postToolUse: exit %d", code)
	}
	return stdout
}
