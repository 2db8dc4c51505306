package hookgate

import (
	"testing"

	"github.com/cairn-dev/cairn/helpers/internal/agent/adapters"
	"github.com/cairn-dev/cairn/helpers/internal/agent/registry"
	"github.com/cairn-dev/cairn/helpers/internal/agent/spec"
	"github.com/cairn-dev/cairn/helpers/internal/event"
)

// For every agent whose replies the gate queues, reply reads what the
// agent's adapter decodes — session, transcript, cwd, project directory —
// so the reject path queues the same task in the gate and in the full
// hook ([Run] builds both). The reply event is the spec's own: an agent
// added to the registry is checked with no line here.
func TestReplyAgreesWithAdapters(t *testing.T) {
	env := func(k string) string { return "/env/" + k }
	payload := []byte(`{"session_id":"s1","transcript_path":"/t/s1.jsonl","cwd":"/work/p","hook_event_name":"X","last_assistant_message":"done","prompt_response":"done"}`)
	for _, a := range registry.Agents {
		if !a.Transcript {
			continue
		}
		ad, ok := adapters.Find(a.Name)
		name := eventOf(*a, event.Reply)
		if !ok || name == "" {
			t.Errorf("%s is queued but has no adapter or reply event", a.Name)
			continue
		}
		want, err := ad.Decode(name, payload, env)
		if err != nil {
			t.Fatalf("%s: %v", a.Name, err)
		}
		got, err := reply(*a, payload, env)
		if err != nil {
			t.Fatalf("%s: %v", a.Name, err)
		}
		if got.Session != want.Session || got.Transcript != want.Transcript || got.Cwd != want.Cwd ||
			got.ProjectDir != want.ProjectDir || got.Agent != want.Agent {
			t.Errorf("%s: the gate reads %+v, the adapter %+v", a.Name, got, want)
		}
	}
}

// toolPayloads are payloads before a tool call in every shape the agents
// send: Claude Code's (which Codex and Gemini CLI share), Cursor's and
// cairn's OpenCode plugin's.
var toolPayloads = []string{
	`{"session_id":"s","cwd":"/p","tool_name":"Edit","tool_input":{"file_path":"/p/a.go"}}`,
	`{"session_id":"s","cwd":"/p","tool_name":"NotebookEdit","tool_input":{"notebook_path":"n.ipynb"}}`,
	`{"session_id":"s","cwd":"/p","tool_name":"Bash","tool_input":{"command":"cat db/x.sql"}}`,
	`{"session_id":"s","cwd":"/p","tool_name":"Bash","tool_input":{"command":["sh","-c","x"]}}`,
	`{"session_id":"s","cwd":"/p","tool_name":"Grep","tool_input":{"pattern":"Retry","path":"client/retry.go"}}`,
	`{"session_id":"s","cwd":"/p","tool_name":"replace","tool_input":{"file_path":"/p/a.go"}}`,
	`{"session_id":"s","cwd":"/p","tool_name":"read_file","tool_input":{"file_path":"a.go"}}`,
	`{"session_id":"s","cwd":"/p","tool_name":"list_directory","tool_input":{"path":"db"}}`,
	`{"session_id":"s","cwd":"/p","tool_name":"mcp_x","tool_input":"not an object"}`,
	`{"session_id":"s","cwd":"/p","project_dir":"/p","tool":"edit","file_path":"/p/a.go"}`,
	`{"session_id":"s","cwd":"/p","project_dir":"/p","tool":"bash","command":"cat a.go"}`,
	`{"conversation_id":"s","hook_event_name":"postToolUse","tool_name":"Read","tool_input":{"file_path":"/p/a.go"},"workspace_roots":["/p"]}`,
	`{"conversation_id":"s","hook_event_name":"postToolUse","tool_name":"Write","tool_input":{"path":"b.go"},"workspace_roots":["/p"]}`,
	`{"session_id":7}`,
}

// For every agent with a moment before a tool, the gate's reader (the
// spec's ToolCall, which answers the no-match path in the init) and the
// agent's adapter, which decodes the call for the full hook through the
// same reader ([spec.Spec.BeforeTool]), read every payload both read
// alike: the tool, its file, whether it edits it, and a shell command. A
// drift would make the gate look up another file than the full hook
// answers for.
func TestToolCallAgreesWithAdapters(t *testing.T) {
	for _, a := range registry.Agents {
		if a.ToolCall == nil {
			continue
		}
		ad, _ := adapters.Find(a.Name)
		name := eventOf(*a, event.BeforeTool)
		if name == "" {
			t.Errorf("%s reads tool calls but has no moment before a tool", a.Name)
			continue
		}
		paths := 0
		for _, p := range toolPayloads {
			c, ok := a.ToolCall([]byte(p))
			e, err := ad.Decode(name, []byte(p), func(string) string { return "" })
			if !ok || err != nil {
				// The gate leaves what it cannot read to the full hook;
				// what the adapter cannot decode, the full hook answers
				// with nothing, as the gate's "nothing anchored" does.
				continue
			}
			if c.Path != "" {
				paths++
			}
			if c.Path != e.Path || c.Edits != e.Edits || c.Tool != e.Tool || c.Shell != e.Shell || c.Command != e.Command {
				t.Errorf("%s %s:\nthe gate reads %+v\nthe adapter  %+v", a.Name, p, c, e)
			}
		}
		if paths == 0 {
			t.Errorf("%s read no file from any payload here: add its payload's shape to toolPayloads", a.Name)
		}
	}
}

// eventOf is the agent's first event of kind k ("" for none).
func eventOf(a spec.Spec, k event.Kind) string {
	for _, h := range a.Events {
		if h.Kind == k {
			return h.Event
		}
	}
	return ""
}
