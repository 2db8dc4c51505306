package judge

import (
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/event"
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
