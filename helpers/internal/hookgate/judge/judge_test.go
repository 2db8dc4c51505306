package judge

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/event"
	"github.com/cairn-dev/cairn/helpers/internal/typed"
)

func TestHookArgs(t *testing.T) {
	for _, tc := range []struct {
		args        []string
		agent, name string
		ok          bool
	}{
		{[]string{"cairn", "hook", "Stop"}, "claude", "Stop", true},
		{[]string{"cairn", "hook", "gemini", "AfterTool"}, "gemini", "AfterTool", true},
		{[]string{"cairn", "recall", "x"}, "", "", false},
		{[]string{"cairn", "hook"}, "", "", false},
		{[]string{"cairn", "hook", "a", "b", "c"}, "", "", false},
		{[]string{"cairn", "--dir", "p", "hook", "Stop"}, "", "", false},
	} {
		agent, name, ok := Args(tc.args)
		if agent != tc.agent || name != tc.name || ok != tc.ok {
			t.Errorf("Args(%q) = %q, %q, %v", tc.args, agent, name, ok)
		}
	}
}

func TestJudge(t *testing.T) {
	for _, tc := range []struct {
		kind    event.Kind
		payload string
		want    Verdict
	}{
		{event.ToolRan, `{"tool_input":{"command":"go test ./..."}}`, Nothing},
		{event.Reply, `{"last_assistant_message":"done"}`, Nothing},
		{event.Reply, `{"last_assistant_message":"DECISION: keep it"}`, Capture},
		{event.Reply, `not json`, Invalid},
		{event.Reply, `[1,2]`, Invalid},
		{event.Reply, `  `, Invalid},
		{event.Start, `{"source":"startup"}`, Capture}, // not capture-only
		{event.Prompt, `not json`, Capture},
	} {
		if got := Judge(tc.kind, []byte(tc.payload)); got != tc.want {
			t.Errorf("Judge(%v, %q) = %v, want %v", tc.kind, tc.payload, got, tc.want)
		}
	}
}

// FuzzJudge: the rule runs in an init, where a panic would exit 2 (which
// Claude Code reads as "block"), so it must never panic; and it drops a
// payload only when that is a JSON object (around white space) of a
// capture-only event with no typed prefix anywhere in it.
func FuzzJudge(f *testing.F) {
	for _, s := range []string{`{"last_assistant_message":"done"}`, `{"x":"LEARNED: y"}`, `not json`, `[1]`, "", `{"a":"\u004cEARNED: z"}`} {
		f.Add(uint8(event.Reply), []byte(s))
		f.Add(uint8(event.ToolRan), []byte(s))
	}
	f.Fuzz(func(t *testing.T, k uint8, payload []byte) {
		kind := event.Kind(k % 16)
		if Judge(kind, payload) != Nothing {
			return
		}
		trimmed := bytes.TrimSpace(payload) // the white space Judge skips
		if !kind.CaptureOnly() || typed.MightContain(string(payload)) || !json.Valid(trimmed) || trimmed[0] != '{' {
			t.Errorf("Judge(%v, %q) dropped a payload it should keep", kind, payload)
		}
	})
}
