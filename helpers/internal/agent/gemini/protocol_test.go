package gemini

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/agent/gemini/hooks"
	launcherpkg "github.com/cairn-dev/cairn/helpers/internal/agent/launcher"
	"github.com/cairn-dev/cairn/helpers/internal/event"
)

// payload reads a hook payload recorded from Gemini CLI 0.61.0
// (testdata/EVENT.json, paths rewritten), its transcript_path pointed at
// transcript when that is not empty.
func payload(t *testing.T, name, transcript string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if transcript == "" {
		return data
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	m["transcript_path"] = transcript
	out, _ := json.Marshal(m)
	return out
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// The recorded payloads decode to cairn's events: the session, the
// project (GEMINI_PROJECT_DIR), the transcript; the shell tool's command;
// the reply, read whole from the transcript.
func TestDecodeRecorded(t *testing.T) {
	const session, cwd = "57dbf6bb-5afd-4a57-8c65-055c28e3272b", "/home/ana/src/shop"
	getenv := env(map[string]string{"GEMINI_PROJECT_DIR": cwd})
	transcript, err := filepath.Abs(filepath.Join("testdata", "session-headless.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		kind event.Kind
		want func(e event.Event) bool
	}{
		{"SessionStart", event.Start, func(e event.Event) bool { return e.Text == "" }},
		{"BeforeAgent", event.Prompt, func(e event.Event) bool { return e.Prompt == "fix the payment retries" }},
		{"AfterTool", event.ToolRan, func(e event.Event) bool {
			return e.Shell && !e.Failed && e.Command == `bd comments add bd-42 "LEARNED: the payment retry budget is three attempts"`
		}},
		{"AfterAgent", event.Reply, func(e event.Event) bool {
			return e.Text == "Let me look.\nDone.\nDECISION: Keep retry settings in config/retry.toml so they cannot drift." && !e.Continued
		}},
		{"SessionEnd", event.End, func(e event.Event) bool { return true }},
	} {
		e, err := Adapter{}.Decode(tc.name, payload(t, tc.name, transcript), getenv)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if e.Kind != tc.kind || e.Name != tc.name || e.Session != session || e.Cwd != cwd || e.ProjectDir != cwd ||
			e.Transcript != transcript || e.Agent != "gemini" || !tc.want(e) {
			t.Errorf("%s: %+v", tc.name, e)
		}
	}
}

func TestDecode(t *testing.T) {
	getenv := env(nil)
	e, err := Adapter{}.Decode("AfterAgent", payload(t, "AfterAgent", "/nonexistent/session.jsonl"), getenv)
	if err != nil || !strings.HasPrefix(e.Text, "Let me look.  look. \nDone.") {
		t.Errorf("without a transcript, the reply is prompt_response: %q %v", e.Text, err)
	}
	e, _ = Adapter{}.Decode("AfterAgent", []byte(`{"prompt_response":"x","stop_hook_active":true}`), getenv)
	if !e.Continued || e.Text != "x" {
		t.Errorf("stop_hook_active: %+v", e)
	}
	e, _ = Adapter{}.Decode("BeforeAgent", []byte(`{"prompt":"<hook_context>cairn: 3 entries &lt;untrusted-knowledge&gt;</hook_context>\n\nfix the &lt;b&gt; tag <hook_context>more</hook_context>"}`), getenv)
	if e.Prompt != "fix the &lt;b&gt; tag" {
		t.Errorf("prompt without hook context: %q", e.Prompt)
	}
	e, _ = Adapter{}.Decode("AfterTool", []byte(`{"tool_name":"write_file","tool_input":{"file_path":"a.go","content":"LEARNED: x"}}`), getenv)
	if e.Shell || e.Command != "" {
		t.Errorf("another tool is not the shell: %+v", e)
	}
	e, _ = Adapter{}.Decode("AfterTool", []byte(`{"tool_name":"run_shell_command","tool_input":{"command":"false"},"tool_response":{"error":{"message":"boom"}}}`), getenv)
	if !e.Shell || !e.Failed {
		t.Errorf("a failed call: %+v", e)
	}
	if _, err := (Adapter{}).Decode("PreCompress", []byte(`{}`), getenv); err == nil {
		t.Error("PreCompress is not handled, and decodes to an error")
	}
	if _, err := (Adapter{}).Decode("SessionStart", []byte(`{"session_id": 5}`), getenv); err == nil {
		t.Error("a bad payload decodes")
	}
}

func TestEncode(t *testing.T) {
	start := event.Event{Kind: event.Start, Name: "SessionStart"}
	prompt := event.Event{Kind: event.Prompt, Name: "BeforeAgent"}
	tool := event.Event{Kind: event.ToolRan, Name: "AfterTool"}
	end := event.Event{Kind: event.End, Name: "SessionEnd"}
	for _, tc := range []struct {
		e    event.Event
		a    event.Answer
		want string
	}{
		{start, event.Answer{Context: "<untrusted-knowledge>\nx & y\n</untrusted-knowledge>", Status: "cairn: recalled 1 of 1 team entries"},
			`{"systemMessage":"cairn: recalled 1 of 1 team entries","hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"<untrusted-knowledge>\nx & y\n</untrusted-knowledge>"}}`},
		{prompt, event.Answer{Context: "ctx"}, `{"hookSpecificOutput":{"hookEventName":"BeforeAgent","additionalContext":"ctx"}}`},
		{tool, event.Answer{Status: "cairn: recorded 1 decision"}, `{"systemMessage":"cairn: recorded 1 decision"}`},
		{tool, event.Answer{Context: "not for a tool"}, ``},
		{start, event.Answer{}, ``},
		{end, event.Answer{Status: "bye"}, ``},
		{event.Event{Kind: event.Reply, Name: "AfterAgent"}, event.Answer{GoOn: "record what you learned"}, ``},
	} {
		got, err := Adapter{}.Encode(tc.e, tc.a)
		if err != nil || string(bytes.TrimSpace(got)) != tc.want {
			t.Errorf("Adapter{}.Encode(%s, %+v) = %s, %v\nwant %s", tc.e.Name, tc.a, got, err, tc.want)
		}
	}
}

// Without cairn on the machine, the shared launcher answers Gemini CLI's
// SessionStart with its notice (hooks.Spec.NotInstalled), as JSON Gemini
// CLI reads; every other event gets nothing; it exits 0.
func TestLauncherWithoutCairn(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the launcher is POSIX sh")
	}
	dir := t.TempDir()
	launcher := filepath.Join(dir, "hook")
	if err := os.WriteFile(launcher, []byte(launcherpkg.Script("")), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		cmd := exec.Command("/bin/sh", append([]string{launcher}, args...)...)
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "GOPATH=" + dir}
		cmd.Stdin = strings.NewReader(`{"session_id":"s"}`)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return string(out)
	}
	var notice struct {
		SystemMessage      string `json:"systemMessage"`
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	out := run("--agent", "gemini", "SessionStart")
	if err := json.Unmarshal([]byte(out), &notice); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if notice.HookSpecificOutput.HookEventName != "SessionStart" || !strings.Contains(notice.HookSpecificOutput.AdditionalContext, "cairn is not installed") ||
		!strings.HasPrefix(notice.SystemMessage, "cairn: ") {
		t.Errorf("notice %+v", notice)
	}
	for _, ev := range []string{"BeforeAgent", "AfterTool", "AfterAgent", "SessionEnd"} {
		if out := run("--agent", "gemini", ev); out != "" {
			t.Errorf("%s printed %q", ev, out)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, name := range []string{"SessionStart", "BeforeAgent", "AfterTool", "AfterAgent", "SessionEnd"} {
		if data, err := os.ReadFile(filepath.Join("testdata", name+".json")); err == nil {
			f.Add(name, data)
		}
	}
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		e, err := Adapter{}.Decode(name, data, env(nil))
		if err != nil {
			return
		}
		if e.Kind != (Adapter{}).Kind(name) || e.Agent != hooks.Agent {
			t.Fatalf("%+v", e)
		}
		if out, err := (Adapter{}).Encode(e, event.Answer{Context: e.Prompt, Status: e.Text}); err != nil || len(out) > 0 && !json.Valid(out) {
			t.Fatalf("Encode: %s %v", out, err)
		}
	})
}

// After a file tool (cairn's AfterFileTool), the file is decoded as the
// moment before a tool, and the notes go back as AfterTool's
// additionalContext; nothing ever asks.
func TestAfterFileTool(t *testing.T) {
	payload := []byte(`{"session_id":"s","cwd":"/p","hook_event_name":"AfterTool","tool_name":"replace","tool_input":{"file_path":"/p/a.go","old_string":"x"}}`)
	e, err := (Adapter{}).Decode("AfterFileTool", payload, func(string) string { return "" })
	if err != nil || e.Kind != event.BeforeTool || e.Path != "/p/a.go" || !e.Edits || e.Tool != "replace" {
		t.Fatalf("Decode = %+v, %v", e, err)
	}
	out, err := (Adapter{}).Encode(e, event.Answer{Context: "note", Ask: "must check"})
	want := `{"hookSpecificOutput":{"hookEventName":"AfterTool","additionalContext":"note"}}` + "\n"
	if err != nil || string(out) != want {
		t.Errorf("Encode = %s, %v; want %s", out, err, want)
	}
}
