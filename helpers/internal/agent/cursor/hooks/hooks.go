// Package hooks is Cursor's table of hook events: each event's name, the
// moment of a session it is, and how it is registered in the project's
// .cursor/hooks.json. The Cursor adapter, its wiring and the capture
// hook's reject path all follow it. It depends on nothing but package
// event, so the reject path can read it before the rest of the program
// starts.
//
// The events and their payloads are Cursor's, as documented at
// https://cursor.com/docs/hooks (formerly https://cursor.com/docs/agent/hooks).
package hooks

import (
	"encoding/json"

	"github.com/cairn-dev/cairn/helpers/internal/event"
)

// Agent is the Cursor adapter's name, as `cairn hook cursor EVENT` and
// `.cairn/hook --agent cursor EVENT` say it.
const Agent = "cursor"

// Hook is one Cursor hook event cairn handles.
type Hook struct {
	Event   string     // Cursor's name
	Kind    event.Kind // the moment it is
	Timeout int        // seconds, as registered
	Matcher string     // the tool matcher it is registered with ("" for none)
}

// Events is the one table of Cursor's events cairn registers. Only names
// Cursor documents are here: Cursor ignores a whole hooks.json that names
// an event it does not know, the user's own hooks with it.
//
// Left out on purpose: beforeSubmitPrompt (its output can only let the
// prompt through or block it; it takes no context, so per-prompt recall
// cannot reach the model), stop (it carries no reply text;
// afterAgentResponse does), sessionEnd and preCompact (they serve the
// session pipeline, which reads transcripts cairn cannot read for Cursor).
//
// The notes on a file come with postToolUse, after a Read or a Write: its
// additional_context is the one channel to the model Cursor documents
// around a tool call ("injected into the conversation after the tool
// result"), so the notes arrive with the file's content, before the model
// acts on it, and cairn answers it as the moment before a tool (as it
// does Gemini CLI's AfterTool). Not registered, and why:
// beforeReadFile answers only allow or deny, with a line for the person
// when it denies, nothing for the model; beforeShellExecution's output
// carries a permission (allow, deny or ask) with the agent_message, and
// a permission hook whose answer Cursor does not accept blocks the
// command, so cairn would have to answer "allow" for a committed note to
// reach the model (see docs/moment-of-use.md); beforeMCPExecution is
// the same protocol, for MCP tools, which name no project file; preToolUse
// sends its agent_message only when it denies.
var Events = []Hook{
	{"sessionStart", event.Start, 120, ""},
	{"afterShellExecution", event.ToolRan, 10, ""},
	{"afterAgentResponse", event.Reply, 10, ""},
	{"postToolUse", event.BeforeTool, 10, fileToolMatcher},
}

// fileToolMatcher is postToolUse's matcher: Cursor's tools whose input
// names a file (tool_input.file_path). Cursor matches it as a regular
// expression against the tool's name.
const fileToolMatcher = "Read|Write"

// editTool is the tool that writes the file it names.
const editTool = "Write"

// StartEvent is the session-start event: its answer reaches the model
// (additional_context), and it is the one the launcher answers, without
// cairn, with [NotInstalledFormat].
const StartEvent = "sessionStart"

// NotInstalledFormat is the launcher's answer to [StartEvent] on a machine
// without cairn: Cursor's sessionStart output, with {model} for the
// model's notice (cairn's fixed wording). Cursor shows a sessionStart
// hook's output to no one but the model, so the person's notice, with
// the repository's install hint, goes to the hook's stderr.
const NotInstalledFormat = `{"additional_context":"{model}"}\n`

// Kind is the moment Cursor's event name stands for; Unknown for a name
// cairn does not handle.
func Kind(name string) event.Kind {
	for _, h := range Events {
		if h.Event == name {
			return h.Kind
		}
	}
	return event.Unknown
}

// ProjectVar is the variable in which Cursor names the project.
const ProjectVar = "CURSOR_PROJECT_DIR"

// ToolCall reads the payload of postToolUse after a file tool (cairn's
// moment before a tool, see [Events]) for the hook gate: the
// conversation is the session; the directory is cwd, else the first
// workspace root; the file is tool_input.file_path (tool_input.path in
// some Cursor versions).
func ToolCall(data []byte) (event.ToolCall, bool) {
	var p struct {
		ConversationID string          `json:"conversation_id"`
		Cwd            string          `json:"cwd"`
		WorkspaceRoots []string        `json:"workspace_roots"`
		Tool           string          `json:"tool_name"`
		Input          json.RawMessage `json:"tool_input"`
	}
	if json.Unmarshal(data, &p) != nil {
		return event.ToolCall{}, false
	}
	// An input that is not an object (an MCP tool's is a JSON string)
	// names no file.
	var in struct {
		FilePath string `json:"file_path"`
		Path     string `json:"path"`
	}
	_ = json.Unmarshal(p.Input, &in)
	c := event.ToolCall{Session: p.ConversationID, Cwd: p.Cwd, Tool: p.Tool, Path: in.FilePath, Edits: p.Tool == editTool}
	if c.Cwd == "" && len(p.WorkspaceRoots) > 0 {
		c.Cwd = p.WorkspaceRoots[0]
	}
	if c.Path == "" {
		c.Path = in.Path
	}
	return c, true
}
