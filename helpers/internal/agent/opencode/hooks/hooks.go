// Package hooks is the table of the events cairn's OpenCode plugin passes
// to `cairn hook opencode EVENT`: each event's name, the moment of a
// session it is, the OpenCode plugin hook that sends it and how long the
// plugin waits for it. The OpenCode adapter, the plugin it writes and the
// capture hook's reject path all follow it. It depends on nothing but
// package event, so the reject path can read it before the rest of the
// program starts.
package hooks

import (
	"encoding/json"
	"slices"

	"github.com/cairn-dev/cairn/helpers/internal/event"
)

// Agent is the OpenCode adapter's name.
const Agent = "opencode"

// Hook is one event cairn's OpenCode plugin passes on. OpenCode has no
// hook commands of its own: the names are cairn's, and Source says which
// of OpenCode's plugin hooks sends each.
type Hook struct {
	Event   string     // the name the plugin passes: cairn hook opencode EVENT
	Kind    event.Kind // the moment it is
	Source  string     // the OpenCode plugin hook that sends it
	Timeout int        // seconds the plugin waits for cairn before going on without it
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

// StartEvent is the session-start event: its answer's context reaches the
// model, and the launcher answers it, without cairn, with
// [NotInstalledFormat].
const StartEvent = SessionStart

// NotInstalledFormat is the launcher's answer to [StartEvent] on a machine
// without cairn: the plugin's answer (one JSON object), with {model} for
// the model's context (cairn's fixed wording) and {person} for the
// person's status line (with the repository's install hint).
const NotInstalledFormat = `{"context":"{model}","status":"cairn: {person}"}\n`

// Events is the one table of the plugin's events.
var Events = []Hook{
	{SessionStart, event.Start, "chat.message", 120},
	{UserPrompt, event.Prompt, "chat.message", 10},
	{ToolAfter, event.ToolRan, "tool.execute.after", 10},
	{TextComplete, event.Reply, "experimental.text.complete", 10},
	{ToolBefore, event.BeforeTool, "tool.execute.before", 10},
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

// Kind is the moment the plugin's event name stands for; Unknown for a
// name cairn does not handle.
func Kind(name string) event.Kind {
	for _, h := range Events {
		if h.Event == name {
			return h.Kind
		}
	}
	return event.Unknown
}

// ProjectVar is the variable in which OpenCode names the project: none
// (its plugin sends project_dir in the payload).
const ProjectVar = ""

// ToolCall reads the payload cairn's OpenCode plugin sends before a tool
// call (ToolBefore) for the hook gate.
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
