package codex_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/agent/codex"
	"github.com/cairn-dev/cairn/helpers/internal/agent/codex/hooks"
	"github.com/cairn-dev/cairn/helpers/internal/event"
)

// payload reads a hook payload recorded from Codex 0.169.0
// (testdata/payloads, one per event cairn registers).
func payload(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "payloads", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const (
	session = "01a20d03-55ce-73e3-befe-f8a6ae420cc0"
	rollout = "/tmp/cx/home/.codex/sessions/2026/11/24/rollout-2026-11-24T10-04-12-" + session + ".jsonl"
	cwd     = "/tmp/cx/repo"
)

func TestKind(t *testing.T) {
	want := map[string]event.Kind{"SessionStart": event.Start, "UserPromptSubmit": event.Prompt,
		"PostToolUse": event.ToolRan, "Stop": event.Reply, "SessionEnd": event.End, "PreToolUse": event.BeforeTool}
	for name, k := range want {
		if got := (codex.Adapter{}).Kind(name); got != k {
			t.Errorf("Adapter{}.Kind(%q) = %v, want %v", name, got, k)
		}
	}
	for _, name := range []string{"", "PermissionRequest", "SubagentStop", "PreCompact", "stop", "Stop "} {
		if got := (codex.Adapter{}).Kind(name); got != event.Unknown {
			t.Errorf("Adapter{}.Kind(%q) = %v", name, got)
		}
	}
	if len(hooks.Events) != len(want) {
		t.Errorf("the table has %d events", len(hooks.Events))
	}
}

func TestDecodeRecordedPayloads(t *testing.T) {
	cases := []struct {
		name string
		want event.Event
	}{
		{"SessionStart", event.Event{Kind: event.Start}},
		{"UserPromptSubmit", event.Event{Kind: event.Prompt, Prompt: "say hi"}},
		{"PostToolUse", event.Event{Kind: event.ToolRan, Shell: true, Command: "echo LEARNED: from the shell"}},
		{"Stop", event.Event{Kind: event.Reply, Text: "Done.\nLEARNED: codex replies are captured"}},
		{"SessionEnd", event.Event{Kind: event.End}},
		{"PreToolUse", event.Event{Kind: event.BeforeTool, Shell: true, Tool: "Bash", Command: "cat payments/client.go"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := codex.Adapter{}.Decode(c.name, payload(t, c.name), func(string) string { return "/ignored" })
			if err != nil {
				t.Fatal(err)
			}
			want := c.want
			want.Name, want.Session, want.Cwd, want.Transcript, want.Agent = c.name, session, cwd, rollout, "codex"
			if got != want {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
		})
	}
}

// Codex sends null for a transcript it does not keep (codex exec
// --ephemeral) and for a turn without a final message; tool_input may be
// any JSON.
func TestDecodeOddShapes(t *testing.T) {
	e, err := codex.Adapter{}.Decode("Stop", []byte(`{"session_id":"s","cwd":"/p","transcript_path":null,"last_assistant_message":null,"stop_hook_active":true}`), nil)
	if err != nil || e.Transcript != "" || e.Text != "" || !e.Continued {
		t.Errorf("Stop with nulls: %+v, %v", e, err)
	}
	for _, in := range []string{`"ls"`, `null`, `[1]`, `{"command":["bash","-lc","ls"]}`, `{}`} {
		e, err := codex.Adapter{}.Decode("PostToolUse", []byte(`{"tool_name":"Bash","tool_input":`+in+`}`), nil)
		if err != nil || !e.Shell || e.Command != "" {
			t.Errorf("tool_input %s: %+v, %v", in, e, err)
		}
	}
	if e, _ := (codex.Adapter{}).Decode("PostToolUse", []byte(`{"tool_name":"apply_patch","tool_input":{"command":"x"}}`), nil); e.Shell {
		t.Errorf("apply_patch taken for the shell: %+v", e)
	}
	for _, bad := range []string{`[]`, `"x"`, `{`, ``} {
		if _, err := (codex.Adapter{}).Decode("Stop", []byte(bad), nil); err == nil {
			t.Errorf("Adapter{}.Decode(%q) accepted", bad)
		}
	}
	if _, err := (codex.Adapter{}).Decode("Nope", []byte(`{}`), nil); err == nil {
		t.Error("an unknown event was decoded")
	}
}

// Every answer is one JSON object of the fields Codex 0.169's output
// schema for that event allows, and nothing for an empty answer.
func TestEncode(t *testing.T) {
	start := event.Event{Kind: event.Start, Name: "SessionStart"}
	prompt := event.Event{Kind: event.Prompt, Name: "UserPromptSubmit"}
	reply := event.Event{Kind: event.Reply, Name: "Stop"}
	tool := event.Event{Kind: event.ToolRan, Name: "PostToolUse"}
	cases := []struct {
		e    event.Event
		a    event.Answer
		want string
	}{
		{start, event.Answer{}, ""},
		{start, event.Answer{Context: "ctx <b> & c", Status: "cairn: recalled 1"},
			`{"systemMessage":"cairn: recalled 1","hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"ctx <b> & c"}}`},
		{prompt, event.Answer{Context: "ctx"}, `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"ctx"}}`},
		{tool, event.Answer{Status: "cairn: recorded 1 learned"}, `{"systemMessage":"cairn: recorded 1 learned"}`},
		{tool, event.Answer{Context: "not for a tool"}, ""},
		{reply, event.Answer{Status: "s"}, `{"systemMessage":"s"}`},
		{reply, event.Answer{GoOn: "record what you learned"}, `{"decision":"block","reason":"record what you learned"}`},
	}
	for _, c := range cases {
		out, err := codex.Adapter{}.Encode(c.e, c.a)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSuffix(string(out), "\n"); got != c.want {
			t.Errorf("Adapter{}.Encode(%s, %+v) = %s, want %s", c.e.Name, c.a, got, c.want)
		}
		if len(out) > 0 && !json.Valid(out) {
			t.Errorf("not JSON: %s", out)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, h := range hooks.Events {
		f.Add(h.Event, payload(f, h.Event))
	}
	f.Add("PostToolUse", []byte(`{"tool_name":"Bash","tool_input":{"command":{"x":1}}}`))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		e, err := codex.Adapter{}.Decode(name, data, nil)
		if err != nil {
			return
		}
		if e.Kind == event.Unknown || e.Agent != "codex" || e.Name != name {
			t.Fatalf("decoded %+v", e)
		}
		if _, err := (codex.Adapter{}).Encode(e, event.Answer{Context: e.Prompt, Status: e.Text}); err != nil {
			t.Fatal(err)
		}
	})
}
