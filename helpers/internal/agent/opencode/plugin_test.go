package opencode

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/agent/opencode/hooks"
	"github.com/cairn-dev/cairn/helpers/internal/agent/spec"
)

// These tests run the plugin's JavaScript under Node, as OpenCode's plugin
// loader calls it (OpenCode runs plugins on Bun; the plugin uses only the
// node: modules both provide), with a launcher that records what it is
// given and answers as a test mode says. The end-to-end tests in
// helpers/cairn run it inside the real OpenCode.

// fakeLauncher records its arguments and stdin in $CAIRN_TEST_LOG, one
// JSON-ish record per call, and answers by $CAIRN_TEST_MODE.
const fakeLauncher = `#!/bin/sh
{ printf 'ARGS %s %s %s\n' "$1" "$2" "$3"; cat; printf '\n'; } >> "$CAIRN_TEST_LOG"
case "$CAIRN_TEST_MODE" in
answer)
  case "$3" in
  SessionStart) printf '%s\n' '{"context":"START-CTX","status":"cairn: recalled 1 of 2 team entries"}' ;;
  UserPrompt) printf '%s\n' '{"context":"PROMPT-CTX"}' ;;
  *) printf '%s\n' '{"status":"cairn: recorded 1 must-check"}' ;;
  esac ;;
garbage) printf 'not json {\n' ;;
fail) printf '{"context":"LOST"}' >&2; exit 3 ;;
hang) exec sleep 600 ;;
esac
exit 0
`

// driver loads the plugin as OpenCode does and drives every hook the way
// OpenCode 1.18.33 calls them, then prints what came out as JSON.
const driver = `
import { pathToFileURL } from "node:url"
const mod = await import(pathToFileURL(process.argv[2]).href)
const toasts = []
const client = process.env.CAIRN_TEST_TOAST === "throw"
  ? { tui: { showToast: () => { throw new Error("no tui") } } }
  : { tui: { showToast: async (x) => { toasts.push(x.body.message) } } }
const out = { exports: Object.keys(mod), threw: [] }
const call = async (name, f) => { try { return await f() } catch (e) { out.threw.push(name + ": " + e) } }
const hooks = await call("factory", () => mod.CairnPlugin({ client, directory: process.argv[3], worktree: process.argv[3] }))
const part = (text, extra) => ({ id: "prt_1", messageID: "msg_1", sessionID: "ses_A", type: "text", text, ...extra })
const system = async (sessionID, first) => {
  const o = { system: [first ?? "You are opencode."] }
  await call("system", () => hooks["experimental.chat.system.transform"]({ sessionID, model: {} }, o))
  return o.system
}
await call("message1", () => hooks["chat.message"]({ sessionID: "ses_A" }, { message: {}, parts: [part("fix the retries"), part("ctx", { synthetic: true })] }))
out.system1 = await system("ses_A")
await call("message2", () => hooks["chat.message"]({ sessionID: "ses_A" }, { message: {}, parts: [part("and the deploy")] }))
out.system2 = await system("ses_A")
out.title = await system("ses_A", "You are a title generator. You output ONLY a thread title.")
out.other = await system("ses_B")
await call("read", () => hooks["tool.execute.after"]({ tool: "read", sessionID: "ses_A", callID: "c0", args: { filePath: "x" } }, { title: "", output: "LEARNED: in a file", metadata: {} }))
await call("bash", () => hooks["tool.execute.after"]({ tool: "bash", sessionID: "ses_A", callID: "c1", args: { command: "bd comments add bd-1 \"MUST-CHECK: check it\"" } }, { title: "", output: "bd: command not found", metadata: { exit: 127 } }))
const text = { text: "Done.\nMUST-CHECK: run the dry-run first" }
await call("text", () => hooks["experimental.text.complete"]({ sessionID: "ses_A", messageID: "m", partID: "p" }, text))
out.textAfter = text.text
await call("plain", () => hooks["experimental.text.complete"]({ sessionID: "ses_A", messageID: "m", partID: "q" }, { text: "nothing typed here" }))
const shell = { env: {} }
await call("shell.env", () => hooks["shell.env"]({ cwd: process.argv[3], sessionID: "ses_A", callID: "c2" }, shell))
out.shellEnv = shell.env
const pty = { env: {} }
await call("shell.env pty", () => hooks["shell.env"]({ cwd: process.argv[3] }, pty))
out.ptyEnv = pty.env
for (const [name, f] of Object.entries(hooks ?? {})) await call("undefined " + name, () => f(undefined, undefined))
out.toasts = toasts
console.log(JSON.stringify(out))
`

// result is what the driver prints.
type result struct {
	Exports   []string          `json:"exports"`
	Threw     []string          `json:"threw"`
	System1   []string          `json:"system1"`
	System2   []string          `json:"system2"`
	Title     []string          `json:"title"`
	Other     []string          `json:"other"`
	TextAfter string            `json:"textAfter"`
	ShellEnv  map[string]string `json:"shellEnv"`
	PtyEnv    map[string]string `json:"ptyEnv"`
	Toasts    []string          `json:"toasts"`
}

// call is one run of the launcher: its arguments and its stdin.
type call struct {
	Args    string
	Payload map[string]any
}

// node returns the node binary, skipping the test without one (CI has
// it: npm needs it).
func node(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is not on PATH; CI installs npm, and with it node")
		}
		t.Skip("node is not on PATH: the plugin's JavaScript is not run")
	}
	return bin
}

// runPlugin lays out a project with the plugin (events waiting timeout
// each) and the fake launcher, drives it under node in mode, and returns
// what came out and the launcher's calls.
func runPlugin(t *testing.T, mode string, timeout time.Duration, env ...string) (result, []call) {
	t.Helper()
	bin := node(t)
	events := append([]spec.Hook(nil), hooks.Events...)
	for i := range events {
		events[i].Timeout = 1 // one unit: timeout
	}
	root := t.TempDir()
	plugin := filepath.Join(root, ".opencode", "plugins", "cairn.js")
	for path, data := range map[string]string{
		plugin:                                renderPlugin(events, timeout),
		filepath.Join(root, ".cairn", "hook"): fakeLauncher,
		filepath.Join(root, "package.json"):   `{"type":"module"}`,
		filepath.Join(root, "driver.mjs"):     driver,
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	logPath := filepath.Join(root, "launcher.log")
	cmd := exec.Command(bin, filepath.Join(root, "driver.mjs"), plugin, root)
	cmd.Env = append(os.Environ(), append([]string{"CAIRN_TEST_LOG=" + logPath, "CAIRN_TEST_MODE=" + mode}, env...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	var res result
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("driver output %q: %v\n%s", out, err, stderr.String())
	}
	if len(res.Threw) > 0 {
		t.Errorf("hooks threw: %v", res.Threw)
	}
	if strings.Join(res.Exports, ",") != "CairnPlugin" {
		t.Errorf("the plugin exports %v: OpenCode calls every export as a plugin", res.Exports)
	}
	data, _ := os.ReadFile(logPath)
	var calls []call
	for _, rec := range strings.Split(string(data), "ARGS ")[1:] {
		args, payload, _ := strings.Cut(rec, "\n")
		c := call{Args: args}
		if err := json.Unmarshal([]byte(strings.TrimSpace(payload)), &c.Payload); err != nil {
			t.Errorf("the launcher got %q for %s: %v", payload, args, err)
		}
		calls = append(calls, c)
	}
	return res, calls
}

// Every hook reaches the launcher in agent mode with cairn's payload, and
// the answers come back where they belong: the session's context in its
// system prompt (not in the title request's, not in another session's),
// status lines as toasts. Only the shell tool is passed on; every text
// is, typed or not: the plugin judges nothing.
func TestPluginDrivesTheLauncher(t *testing.T) {
	res, calls := runPlugin(t, "answer", 10*time.Second)
	var args []string
	for _, c := range calls {
		args = append(args, c.Args)
	}
	want := []string{"--agent opencode SessionStart", "--agent opencode UserPrompt", "--agent opencode UserPrompt",
		"--agent opencode ToolAfter", "--agent opencode TextComplete", "--agent opencode TextComplete"}
	if strings.Join(args, "|") != strings.Join(want, "|") {
		t.Fatalf("launcher calls:\n%s\nwant\n%s", strings.Join(args, "\n"), strings.Join(want, "\n"))
	}
	for _, c := range calls {
		if c.Payload["session_id"] != "ses_A" || c.Payload["project_dir"] == "" || c.Payload["cwd"] == "" {
			t.Errorf("%s: payload lacks the session or the project: %v", c.Args, c.Payload)
		}
	}
	if p := calls[1].Payload["prompt"]; p != "fix the retries" {
		t.Errorf("UserPrompt prompt = %q (synthetic parts are not the person's)", p)
	}
	if c := calls[3].Payload; c["tool"] != "bash" || c["command"] != `bd comments add bd-1 "MUST-CHECK: check it"` || c["exit"] != float64(127) {
		t.Errorf("ToolAfter payload = %v", c)
	}
	if c := calls[4].Payload; c["text"] != "Done.\nMUST-CHECK: run the dry-run first" {
		t.Errorf("TextComplete payload = %v", c)
	}
	if c := calls[5].Payload; c["text"] != "nothing typed here" {
		t.Errorf("an untyped text was not passed on: %v", c)
	}
	if got := strings.Join(res.System1, "|"); got != "You are opencode.|START-CTX\n\nPROMPT-CTX" {
		t.Errorf("system after the first prompt = %q", got)
	}
	if got := strings.Join(res.System2, "|"); got != "You are opencode.|START-CTX\n\nPROMPT-CTX\n\nPROMPT-CTX" {
		t.Errorf("system after the second prompt = %q", got)
	}
	if len(res.Title) != 1 || len(res.Other) != 1 {
		t.Errorf("context went to the title request (%q) or another session (%q)", res.Title, res.Other)
	}
	if res.TextAfter != "Done.\nMUST-CHECK: run the dry-run first" {
		t.Errorf("the plugin changed the model's text: %q", res.TextAfter)
	}
	if got := res.ShellEnv[sessionEnv]; got != "ses_A" || len(res.ShellEnv) != 1 || len(res.PtyEnv) != 0 {
		t.Errorf("shell.env gave %v (a terminal without a session: %v), want %s=ses_A alone", res.ShellEnv, res.PtyEnv, sessionEnv)
	}
	wantToasts := "cairn: recalled 1 of 2 team entries|cairn: recorded 1 must-check|cairn: recorded 1 must-check|cairn: recorded 1 must-check"
	if got := strings.Join(res.Toasts, "|"); got != wantToasts {
		t.Errorf("toasts = %q, want %q", got, wantToasts)
	}
}

// Whatever the launcher does (prints garbage, fails, hangs until the
// plugin kills it at its timeout) and whatever OpenCode passes (nothing
// at all), no hook throws, nothing reaches the system prompt, and the
// session goes on. A toast that throws is swallowed too.
func TestPluginFailsOpen(t *testing.T) {
	for _, mode := range []string{"garbage", "fail", "hang"} {
		t.Run(mode, func(t *testing.T) {
			// A launcher that answers (garbage, or a failure) is waited
			// for; one that hangs is killed at the plugin's timeout, which
			// a loaded machine may reach before the launcher logs its call,
			// so its calls are not counted.
			timeout := 10 * time.Second
			if mode == "hang" {
				timeout = 300 * time.Millisecond
			}
			res, calls := runPlugin(t, mode, timeout, "CAIRN_TEST_TOAST=throw")
			if mode != "hang" && len(calls) != 6 {
				t.Errorf("%d launcher calls, want 6", len(calls))
			}
			if len(res.System1) != 1 || len(res.System2) != 1 {
				t.Errorf("something reached the system prompt: %q %q", res.System1, res.System2)
			}
		})
	}
	t.Run("no launcher", func(t *testing.T) {
		bin := node(t)
		root := t.TempDir()
		plugin := filepath.Join(root, ".opencode", "plugins", "cairn.js")
		if err := os.MkdirAll(filepath.Dir(plugin), 0o755); err != nil {
			t.Fatal(err)
		}
		for path, data := range map[string]string{plugin: pluginText(), filepath.Join(root, "package.json"): `{"type":"module"}`, filepath.Join(root, "driver.mjs"): driver} {
			if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		out, err := exec.Command(bin, filepath.Join(root, "driver.mjs"), plugin, root).Output()
		if err != nil {
			t.Fatal(err)
		}
		var res result
		if err := json.Unmarshal(out, &res); err != nil || len(res.Threw) > 0 || len(res.System1) != 1 {
			t.Errorf("without a launcher: %s (%v)", out, err)
		}
	})
}
