// Package hooks is Cursor's spec: its name, its table of hook events
// (each event's name, the moment of a session it is, and how it is
// registered in the project's .cursor/hooks.json), its project variable,
// the launcher's answer without cairn, and the one reader of the payload
// after a file tool. The Cursor adapter, its wiring and the hook gate all
// follow it. It depends on nothing but packages event and agent/spec, so
// the gate can read it before the rest of the program starts.
//
// The events and their payloads are Cursor's, as documented at
// https://cursor.com/docs/hooks (formerly https://cursor.com/docs/agent/hooks).
package hooks

import (
	"encoding/json"

	"github.com/cairn-dev/cairn/helpers/internal/agent/spec"
	"github.com/cairn-dev/cairn/helpers/internal/event"
)

// Agent is the Cursor adapter's name, as `cairn hook cursor EVENT` and
// `.cairn/hook --agent cursor EVENT` say it.
const Agent = "cursor"

// Spec is Cursor, as cairn knows it before its adapter runs. cairn does
// not read Cursor's transcripts, and its moment before a tool
// (postToolUse, after the tool) is partial: the session start holds no
// notes back for it.
var Spec = spec.Spec{
	Name:       Agent,
	Title:      "Cursor",
	Events:     Events,
	StartEvent: "sessionStart",
	// Cursor's sessionStart output, with {model} for the model's notice
	// (cairn's fixed wording). Cursor shows a sessionStart hook's output
	// to no one but the model, so the person's notice, with the
	// repository's install hint, goes to the hook's stderr.
	NotInstalled: `{"additional_context":"{model}"}\n`,
	ProjectVar:   "CURSOR_PROJECT_DIR",
	ToolCall:     ToolCall,
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
// Timeouts are in seconds.
var Events = []spec.Hook{
	{Event: "sessionStart", Kind: event.Start, Timeout: 120},
	{Event: "afterShellExecution", Kind: event.ToolRan, Timeout: 10},
	{Event: "afterAgentResponse", Kind: event.Reply, Timeout: 10},
	{Event: "postToolUse", Kind: event.BeforeTool, Matcher: fileToolMatcher, Timeout: 10},
}

// fileToolMatcher is postToolUse's matcher: Cursor's tools whose input
// names a file (tool_input.file_path). Cursor matches it as a regular
// expression against the tool's name.
const fileToolMatcher = "Read|Write"

// editTool is the tool that writes the file it names.
const editTool = "Write"

// ToolCall reads the payload of postToolUse after a file tool (cairn's
// moment before a tool, see [Events]), the hook gate's and the adapter's
// one reader of it: the
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
