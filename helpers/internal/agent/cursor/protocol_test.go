package cursor_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/agent/cursor"
	"github.com/cairn-dev/cairn/helpers/internal/agent/cursor/hooks"
	"github.com/cairn-dev/cairn/helpers/internal/event"
)

// root is the workspace root in every payload of testdata/payloads.
const root = "/home/ana/src/team repo #2"

func payload(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "payloads", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestKind(t *testing.T) {
	for name, want := range map[string]event.Kind{
		"sessionStart":        event.Start,
		"afterShellExecution": event.ToolRan,
		"afterAgentResponse":  event.Reply,
		"postToolUse":         event.BeforeTool,
		// Cursor's events cairn does not register.
		"beforeReadFile":       event.Unknown,
		"beforeMCPExecution":   event.Unknown,
		"preToolUse":           event.Unknown,
		"beforeSubmitPrompt":   event.Unknown,
		"stop":                 event.Unknown,
		"sessionEnd":           event.Unknown,
		"beforeShellExecution": event.Unknown,
		// Claude Code's names are not Cursor's.
		"SessionStart": event.Unknown,
		"":             event.Unknown,
	} {
		if got := (cursor.Adapter{}).Kind(name); got != want {
			t.Errorf("Adapter{}.Kind(%q) = %s, want %s", name, got, want)
		}
		if got := (cursor.Adapter{}).Kind(name); got != want {
			t.Errorf("Adapter.Kind(%q) = %s, want %s", name, got, want)
		}
	}
	if hooks.Agent != "cursor" || (cursor.Adapter{}).Name() != "cursor" {
		t.Error("the adapter's name is not cursor")
	}
}

func TestDecode(t *testing.T) {
	const conv = "5b0c2f9e-7d1a-4c3e-9f6b-2a8d4e1c7b30"
	for _, c := range []struct {
		file, name string
		want       event.Event
	}{
		{"sessionStart.json", "sessionStart", event.Event{
			Kind: event.Start, Name: "sessionStart", Session: conv, Cwd: root, Agent: "cursor"}},
		{"sessionStart-cli.json", "sessionStart", event.Event{
			Kind: event.Start, Name: "sessionStart", Session: "e41d7a20-3b6f-4f8e-a1c9-0d5b7e2f9c64", Cwd: root, Agent: "cursor"}},
		{"afterShellExecution.json", "afterShellExecution", event.Event{
			Kind: event.ToolRan, Name: "afterShellExecution", Session: conv, Cwd: root, Shell: true,
			Command: `bd comments add bd-42 "LEARNED: the payment retry budget is three attempts with jitter"`, Agent: "cursor"}},
		{"afterAgentResponse.json", "afterAgentResponse", event.Event{
			Kind: event.Reply, Name: "afterAgentResponse", Session: conv, Cwd: root, Agent: "cursor"}},
		{"postToolUse-read.json", "postToolUse", event.Event{
			Kind: event.BeforeTool, Name: "postToolUse", Session: conv, Cwd: root, Agent: "cursor",
			Tool: "Read", Path: root + "/payments/client.go"}},
		// An empty cwd falls back to the workspace root; a Write edits.
		{"postToolUse-write.json", "postToolUse", event.Event{
			Kind: event.BeforeTool, Name: "postToolUse", Session: conv, Cwd: root, Agent: "cursor",
			Tool: "Write", Path: root + "/db/migrations/0042_add_refunds.sql", Edits: true}},
	} {
		got, err := cursor.Adapter{}.Decode(c.name, payload(t, c.file), env(nil))
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if c.want.Kind == event.Reply {
			if !strings.HasPrefix(got.Text, "Done.\n\nDECISION: Keep payment retry settings") {
				t.Errorf("%s: text %q", c.file, got.Text)
			}
			c.want.Text = got.Text
		}
		if got != c.want {
			t.Errorf("%s:\n got %+v\nwant %+v", c.file, got, c.want)
		}
		// The transcript is never passed on: cairn cannot read Cursor's.
		if got.Transcript != "" {
			t.Errorf("%s: transcript %q passed on", c.file, got.Transcript)
		}
	}
}

// The project is CURSOR_PROJECT_DIR when Cursor sets it; the payload's cwd
// (when a tool event has one) comes before its workspace roots.
func TestDecodeProject(t *testing.T) {
	e, err := cursor.Adapter{}.Decode("sessionStart", payload(t, "sessionStart.json"), env(map[string]string{"CURSOR_PROJECT_DIR": "/work/p"}))
	if err != nil || e.ProjectDir != "/work/p" || e.Cwd != root {
		t.Errorf("project %q cwd %q err %v", e.ProjectDir, e.Cwd, err)
	}
	e, err = cursor.Adapter{}.Decode("afterShellExecution", []byte(`{"cwd":"/w/sub","workspace_roots":["/w","/x"],"command":"ls"}`), env(nil))
	if err != nil || e.Cwd != "/w/sub" || e.ProjectDir != "" {
		t.Errorf("cwd %q project %q err %v", e.Cwd, e.ProjectDir, err)
	}
	e, err = cursor.Adapter{}.Decode("afterShellExecution", []byte(`{"cwd":"","workspace_roots":["/w","/x"]}`), env(nil))
	if err != nil || e.Cwd != "/w" {
		t.Errorf("an empty cwd did not fall back to the first root: %q %v", e.Cwd, err)
	}
	e, err = cursor.Adapter{}.Decode("afterAgentResponse", []byte(`{"session_id":"s1","text":"x"}`), env(nil))
	if err != nil || e.Session != "s1" || e.Cwd != "" {
		t.Errorf("session %q cwd %q err %v", e.Session, e.Cwd, err)
	}
}

func TestDecodeRejects(t *testing.T) {
	for _, c := range []struct{ name, data string }{
		{"SessionStart", `{}`},
		{"stop", `{}`},
		{"sessionStart", ``},
		{"sessionStart", `not json`},
		{"sessionStart", `[1,2]`},
		{"sessionStart", `null`},
		{"sessionStart", ` "x"`},
		{"sessionStart", `{"workspace_roots":7}`},
		{"afterShellExecution", `{"command":["ls"]}`},
		{"afterAgentResponse", `{"text":5}`},
		{"afterAgentResponse", `{"text":"DECISION: cut`},
	} {
		if _, err := (cursor.Adapter{}).Decode(c.name, []byte(c.data), env(nil)); err == nil {
			t.Errorf("Adapter{}.Decode(%s, %q) accepted it", c.name, c.data)
		}
	}
	// Fields cairn does not read may be anything.
	if _, err := (cursor.Adapter{}).Decode("afterAgentResponse", []byte(`{"text":"x","model_params":{"odd":[1]},"user_email":null,"transcript_path":7}`), env(nil)); err != nil {
		t.Errorf("an unused field of another type was refused: %v", err)
	}
}

// The notes on a file go after Cursor's Read or Write, in postToolUse's
// additional_context, alone: the status line and a guard's question have
// no field there, and a permission is never answered.
func TestEncodeToolNotes(t *testing.T) {
	e := event.Event{Kind: event.BeforeTool, Name: "postToolUse", Tool: "Read", Path: "a.go"}
	ctx := "<untrusted-knowledge source=\"cairn\">\nMust check before this tool call:\n- run the dry run first\n</untrusted-knowledge>"
	out, err := cursor.Adapter{}.Encode(e, event.Answer{Context: ctx, Status: "cairn: 1 must-check on a.go", Ask: "run the dry run first"})
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(out, &back); err != nil || len(back) != 1 || back["additional_context"] != ctx {
		t.Errorf("Encode(postToolUse) = %s (%v), want additional_context alone", out, err)
	}
	if strings.Contains(string(out), "permission") {
		t.Errorf("Encode(postToolUse) answered a permission: %s", out)
	}
}

// The hook gate reads the same call as Decode, from the same payloads,
// without the adapter.
func TestToolCall(t *testing.T) {
	for _, c := range []struct {
		name string
		data []byte
		want event.ToolCall
	}{
		{"read", payload(t, "postToolUse-read.json"), event.ToolCall{
			Session: "5b0c2f9e-7d1a-4c3e-9f6b-2a8d4e1c7b30", Cwd: root, Tool: "Read", Path: root + "/payments/client.go"}},
		{"write", payload(t, "postToolUse-write.json"), event.ToolCall{
			Session: "5b0c2f9e-7d1a-4c3e-9f6b-2a8d4e1c7b30", Cwd: root, Tool: "Write", Path: root + "/db/migrations/0042_add_refunds.sql", Edits: true}},
		{"path", []byte(`{"conversation_id":"c","tool_name":"Read","tool_input":{"path":"a.go"},"cwd":"/w"}`), event.ToolCall{
			Session: "c", Cwd: "/w", Tool: "Read", Path: "a.go"}},
		{"mcp input is a string", []byte(`{"conversation_id":"c","tool_name":"MCP:read","tool_input":"{\"file_path\":\"a.go\"}","workspace_roots":["/w"]}`), event.ToolCall{
			Session: "c", Cwd: "/w", Tool: "MCP:read"}},
		{"no input", []byte(`{"tool_name":"Read"}`), event.ToolCall{Tool: "Read"}},
	} {
		got, ok := hooks.ToolCall(c.data)
		if !ok || got != c.want {
			t.Errorf("%s: ToolCall = %+v, %v; want %+v", c.name, got, ok, c.want)
		}
		e, err := cursor.Adapter{}.Decode("postToolUse", c.data, env(nil))
		if err != nil || e.Tool != got.Tool || e.Path != got.Path || e.Edits != got.Edits || e.Session != got.Session || e.Cwd != got.Cwd {
			t.Errorf("%s: Decode = %+v, %v; the gate read %+v", c.name, e, err, got)
		}
	}
	for _, bad := range []string{``, `not json`, `[1]`, `{"tool_name":7}`} {
		if _, ok := hooks.ToolCall([]byte(bad)); ok {
			t.Errorf("ToolCall(%q) accepted it", bad)
		}
	}
}

func TestEncode(t *testing.T) {
	start := event.Event{Kind: event.Start, Name: "sessionStart"}
	ctx := "<untrusted-knowledge source=\"cairn\">\n- a & b\n</untrusted-knowledge>"
	out, err := cursor.Adapter{}.Encode(start, event.Answer{Context: ctx, Status: "cairn: recalled 1 of 1 team entries"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"additional_context":"<untrusted-knowledge source=\"cairn\">\n- a & b\n</untrusted-knowledge>"}` + "\n"
	if string(out) != want {
		t.Errorf("Encode start:\n got %s\nwant %s", out, want)
	}
	var back map[string]string
	if err := json.Unmarshal(out, &back); err != nil || back["additional_context"] != ctx || len(back) != 1 {
		t.Errorf("output does not round-trip: %v %v", back, err)
	}
	// Nothing Cursor can take: no output at all.
	for _, c := range []struct {
		e event.Event
		a event.Answer
	}{
		{start, event.Answer{}},
		{start, event.Answer{Status: "cairn: team memory is empty"}},
		{event.Event{Kind: event.ToolRan}, event.Answer{Status: "cairn: recorded 1 learned"}},
		{event.Event{Kind: event.Reply}, event.Answer{Status: "cairn: recorded 1 decision"}},
		{event.Event{Kind: event.Reply}, event.Answer{Context: "x", GoOn: "go on"}},
		// After a tool: no line for the person, and the tool has run, so
		// nothing to ask.
		{event.Event{Kind: event.BeforeTool, Name: "postToolUse"}, event.Answer{Status: "cairn: 1 note on a.go"}},
		{event.Event{Kind: event.BeforeTool, Name: "postToolUse"}, event.Answer{Ask: "must check"}},
	} {
		if out, err := (cursor.Adapter{}).Encode(c.e, c.a); err != nil || out != nil {
			t.Errorf("Adapter{}.Encode(%v, %+v) = %q, %v; want nothing", c.e.Kind, c.a, out, err)
		}
	}
}

func TestReadTranscript(t *testing.T) {
	_, err := (cursor.Adapter{}).ReadTranscript(strings.NewReader(`{"role":"user"}`))
	if !errors.Is(err, cursor.ErrNoTranscript) || !strings.Contains(err.Error(), "not supported for cursor") {
		t.Errorf("ReadTranscript: %v", err)
	}
}

// The launcher's answer without cairn is Cursor's sessionStart output.
func TestNotInstalledFormat(t *testing.T) {
	f := strings.TrimSuffix(hooks.Spec.NotInstalled, `\n`)
	if strings.Count(f, "{model}") != 1 || strings.Contains(f, "{person}") {
		t.Fatalf("format %q", f)
	}
	var v map[string]string
	if err := json.Unmarshal([]byte(strings.Replace(f, "{model}", "cairn is not installed", 1)), &v); err != nil || v["additional_context"] != "cairn is not installed" {
		t.Errorf("format %q: %v %v", f, v, err)
	}
	if hooks.Spec.Kind(hooks.Spec.StartEvent) != event.Start {
		t.Error("StartEvent is not the session start")
	}
}
