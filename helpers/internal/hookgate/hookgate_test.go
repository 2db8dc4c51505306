package hookgate

import "testing"

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
		agent, name, ok := hookArgs(tc.args)
		if agent != tc.agent || name != tc.name || ok != tc.ok {
			t.Errorf("hookArgs(%q) = %q, %q, %v", tc.args, agent, name, ok)
		}
	}
}
