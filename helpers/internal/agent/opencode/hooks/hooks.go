// Package hooks is OpenCode's spec: its name, the table of the events
// cairn's OpenCode plugin passes to `cairn hook opencode EVENT` (each
// event's name, the moment of a session it is, the OpenCode plugin hook
// that sends it and how long the plugin waits for it), the launcher's
// answer without cairn, and the one reader of the payload before a tool.
// The OpenCode adapter, the plugin it writes and the hook gate all follow
// it. It depends on nothing but packages event and agent/spec, so the
// gate can read it before the rest of the program starts.
package hooks

import (
	"encoding/json"
	"slices"

	"github.com/cairn-dev/cairn/helpers/internal/agent/spec"
	"github.com/cairn-dev/cairn/helpers/internal/event"
)

// Agent is the OpenCode adapter's name.
const Agent = "opencode"

// Spec is OpenCode, as cairn knows it before its adapter runs. OpenCode
// names no project in its environment (its plugin sends project_dir in
// the payload), and keeps its sessions in its own database: cairn reads
// no transcript of it.
var Spec = spec.Spec{
	Name:       Agent,
	Title:      "OpenCode",
	Events:     Events,
	StartEvent: SessionStart,
	// The plugin's answer (one JSON object), with {model} for the model's
	// context (cairn's fixed wording) and {person} for the person's status
	// line (with the repository's install hint).
	NotInstalled: `{"context":"{model}","status":"cairn: {person}"}\n`,
	ToolCall:     ToolCall,
	HoldForTool:  true,
}

// The events, by name.
const (
	// SessionStart is sent once per session and OpenCode process, at the
	// session's first prompt (a new session, or one resumed), before the
	// model is asked anything.
	SessionStart = "SessionStart"
	// UserPrompt is sent for every prompt the person sends.
	UserPrompt = "UserPrompt"
	// ToolAfter is sent when a shell tool call finished.
	ToolAfter = "ToolAfter"
	// TextComplete is sent for every text the model finished writing (the
	// final reply, and the text between its tool calls).
	TextComplete = "TextComplete"
	// ToolBefore is sent before a file tool or a shell tool runs; the
	// notes it brings join the session's context from the next model
	// request on.
	ToolBefore = "ToolBefore"
)

// Events is the one table of the plugin's events.
// OpenCode has no hook commands of its own: the names are cairn's, and
// On says which of OpenCode's plugin hooks sends each. Timeouts are the
// seconds the plugin waits for cairn before going on without it.
var Events = []spec.Hook{
	{Event: SessionStart, Kind: event.Start, On: "chat.message", Timeout: 120},
	{Event: UserPrompt, Kind: event.Prompt, On: "chat.message", Timeout: 10},
	{Event: ToolAfter, Kind: event.ToolRan, On: "tool.execute.after", Timeout: 10},
	{Event: TextComplete, Kind: event.Reply, On: "experimental.text.complete", Timeout: 10},
	{Event: ToolBefore, Kind: event.BeforeTool, On: "tool.execute.before", Timeout: 10},
}

// FileTools are the OpenCode tools whose calls name a file (args.filePath)
// the plugin passes on before they run; EditTools are those that write
// it.
var (
	FileTools = []string{"read", "edit", "write"}
	EditTools = []string{"edit", "write"}
)

// ShellTools are the OpenCode tools whose calls run a shell command: the
// plugin passes on only those tool calls.
var ShellTools = []string{"bash"}

// ToolCall reads the payload cairn's OpenCode plugin sends before a tool
// call (ToolBefore): the hook gate's and the adapter's one reader of it.
func ToolCall(data []byte) (event.ToolCall, bool) {
	var p struct {
		Session    string `json:"session_id"`
		Cwd        string `json:"cwd"`
		ProjectDir string `json:"project_dir"`
		Tool       string `json:"tool"`
		Command    string `json:"command"`
		FilePath   string `json:"file_path"`
	}
	if json.Unmarshal(data, &p) != nil {
		return event.ToolCall{}, false
	}
	return event.ToolCall{Session: p.Session, Cwd: p.Cwd, ProjectDir: p.ProjectDir, Tool: p.Tool, Path: p.FilePath,
		Command: p.Command, Shell: slices.Contains(ShellTools, p.Tool), Edits: slices.Contains(EditTools, p.Tool)}, true
}
