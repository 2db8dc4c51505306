package hookgate

import (
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/agent/adapters"
	"github.com/cairn-dev/cairn/helpers/internal/agent/registry"
)

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

// For every agent with a moment before a tool, the gate's reader (the
// registry's ToolCall, which answers the no-match path in the init) reads
// a payload as the agent's adapter decodes it for the full hook: the tool,
// its file, whether it edits it, and a shell command. A drift would make
// the gate look up another file than the full hook answers for.
func TestToolCallAgreesWithAdapters(t *testing.T) {
	payloads := map[string][]struct{ event, payload string }{
		"claude": {
			{"PreToolUse", `{"session_id":"s","cwd":"/p","tool_name":"Edit","tool_input":{"file_path":"/p/a.go"}}`},
			{"PreToolUse", `{"session_id":"s","cwd":"/p","tool_name":"NotebookEdit","tool_input":{"notebook_path":"n.ipynb"}}`},
			{"PreToolUse", `{"session_id":"s","cwd":"/p","tool_name":"Bash","tool_input":{"command":"cat db/x.sql"}}`},
			{"PreToolUse", `{"session_id":"s","cwd":"/p","tool_name":"Grep","tool_input":{"pattern":"Retry","path":"client/retry.go"}}`},
			{"PreToolUse", `{"session_id":"s","cwd":"/p","tool_name":"Glob","tool_input":{"pattern":"*.sql","path":"/p/db"}}`},
		},
		"codex": {
			{"PreToolUse", `{"session_id":"s","cwd":"/p","tool_name":"Bash","tool_input":{"command":"sed -n 1p a.go"}}`},
		},
		"gemini": {
			{"AfterFileTool", `{"session_id":"s","cwd":"/p","tool_name":"replace","tool_input":{"file_path":"/p/a.go"}}`},
			{"AfterFileTool", `{"session_id":"s","cwd":"/p","tool_name":"read_file","tool_input":{"file_path":"a.go"}}`},
			{"AfterFileTool", `{"session_id":"s","cwd":"/p","tool_name":"list_directory","tool_input":{"path":"db"}}`},
		},
		"opencode": {
			{"ToolBefore", `{"session_id":"s","cwd":"/p","project_dir":"/p","tool":"edit","file_path":"/p/a.go"}`},
			{"ToolBefore", `{"session_id":"s","cwd":"/p","project_dir":"/p","tool":"bash","command":"cat a.go"}`},
		},
		"cursor": {
			{"postToolUse", `{"conversation_id":"s","hook_event_name":"postToolUse","tool_name":"Read","tool_input":{"file_path":"/p/a.go"},"workspace_roots":["/p"]}`},
		},
	}
	for _, a := range registry.Agents {
		if a.ToolCall == nil {
			continue
		}
		ad, _ := adapters.Find(a.Name)
		if len(payloads[a.Name]) == 0 {
			t.Errorf("%s has a moment before a tool but no payload here", a.Name)
		}
		for _, p := range payloads[a.Name] {
			c, ok := a.ToolCall([]byte(p.payload))
			e, err := ad.Decode(p.event, []byte(p.payload), func(string) string { return "" })
			if !ok || err != nil {
				t.Errorf("%s %s: gate ok %v, adapter %v", a.Name, p.payload, ok, err)
				continue
			}
			if c.Path != e.Path || c.Edits != e.Edits || c.Tool != e.Tool || c.Shell && c.Command != e.Command {
				t.Errorf("%s %s:\nthe gate reads %+v\nthe adapter  %+v", a.Name, p.payload, c, e)
			}
		}
	}
}
