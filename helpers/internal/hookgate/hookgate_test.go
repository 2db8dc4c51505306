package hookgate

import (
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/agent/adapters"
	"github.com/cairn-dev/cairn/helpers/internal/agent/registry"
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
		agent, name, ok := hookArgs(tc.args)
		if agent != tc.agent || name != tc.name || ok != tc.ok {
			t.Errorf("hookArgs(%q) = %q, %q, %v", tc.args, agent, name, ok)
		}
	}
}

// For every agent whose replies the gate queues, reply reads what the
// agent's adapter decodes — session, transcript, cwd, project directory —
// so the reject path queues the same task in the gate and in the full
// hook ([Run] builds both).
func TestReplyAgreesWithAdapters(t *testing.T) {
	replies := map[string]string{"claude": "Stop", "codex": "Stop", "gemini": "AfterAgent"}
	env := func(k string) string { return "/env/" + k }
	payload := []byte(`{"session_id":"s1","transcript_path":"/t/s1.jsonl","cwd":"/work/p","hook_event_name":"X","last_assistant_message":"done","prompt_response":"done"}`)
	for _, a := range registry.Agents {
		if !a.Transcript {
			continue
		}
		ad, ok := adapters.Find(a.Name)
		if !ok || replies[a.Name] == "" {
			t.Errorf("%s is queued but has no adapter or reply event here", a.Name)
			continue
		}
		want, err := ad.Decode(replies[a.Name], payload, env)
		if err != nil {
			t.Fatalf("%s: %v", a.Name, err)
		}
		got, err := reply(a, payload, env)
		if err != nil {
			t.Fatalf("%s: %v", a.Name, err)
		}
		if got.Session != want.Session || got.Transcript != want.Transcript || got.Cwd != want.Cwd ||
			got.ProjectDir != want.ProjectDir || got.Agent != want.Agent {
			t.Errorf("%s: the gate reads %+v, the adapter %+v", a.Name, got, want)
		}
	}
}
