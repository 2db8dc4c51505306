// Package hooks is the OpenAI Codex CLI's table of hook events: each
// event's name, the moment of a session it is, and how cairn registers it
// in a project's .codex/hooks.json. The Codex adapter and its wiring
// follow it, and so can the capture hook's reject path: it depends on
// nothing but package event, so it can be read before the rest of the
// program starts.
package hooks

import "github.com/cairn-dev/cairn/helpers/internal/event"

// Agent is the Codex adapter's name.
const Agent = "codex"

// Hook is one Codex hook event cairn handles.
type Hook struct {
	Event   string     // Codex's name, as hooks.json spells it
	Key     string     // Codex's own key of the event (hook trust records)
	Kind    event.Kind // the moment it is
	Matcher string     // the tool matcher it is registered with
	Timeout int        // seconds, as registered
	// Context is true for the events whose answer can carry context for
	// the model: cairn registers them with Codex's spill limit off
	// (additionalContextLimit 0), as its own budget bounds the text.
	Context bool
}

// Events is the one table of Codex's events cairn handles and registers.
// Codex 0.169 names its shell tool Bash in hook payloads and matchers
// (the model's exec_command), and clamps SessionEnd's timeout to 3 s.
var Events = []Hook{
	{"SessionStart", "session_start", event.Start, "", 120, true},
	{"UserPromptSubmit", "user_prompt_submit", event.Prompt, "", 10, true},
	{"PostToolUse", "post_tool_use", event.ToolRan, "Bash", 10, false},
	{"Stop", "stop", event.Reply, "", 10, false},
	{"SessionEnd", "session_end", event.End, "", 3, false},
	// Before a shell command (Codex reads and edits files through the
	// shell and apply_patch): notes on the files it names and must-checks
	// on the command, as additionalContext. Codex refuses "ask", so
	// guards only inform.
	{"PreToolUse", "pre_tool_use", event.BeforeTool, "Bash", 10, true},
}

// StartEvent is the session-start event: its answer reaches the model
// (hookSpecificOutput.additionalContext), and the launcher answers it,
// without cairn, with [NotInstalledFormat].
const StartEvent = "SessionStart"

// NotInstalledFormat is the launcher's answer to [StartEvent] on a machine
// without cairn: Codex's SessionStart output (the same fields as Claude
// Code's), with {person} for the person's notice (systemMessage, shown as
// "Hook · cairn: ...", with the repository's install hint) and {model}
// for the model's (cairn's fixed wording, never the hint).
const NotInstalledFormat = `{"systemMessage":"cairn: {person}","hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"{model}"}}\n`

// Kind is the moment Codex's event name stands for; Unknown for a name
// cairn does not handle.
func Kind(name string) event.Kind {
	for _, h := range Events {
		if h.Event == name {
			return h.Kind
		}
	}
	return event.Unknown
}

// ProjectVar is the variable in which Codex names the project: none.
const ProjectVar = ""

// ToolCall reads a PreToolUse payload for the hook gate: Codex 0.169
// sends Claude Code's field names; its shell is Bash, and it edits files
// through the shell only.
func ToolCall(data []byte) (event.ToolCall, bool) {
	return event.ReadToolCall(data, "Bash", func(string) bool { return false })
}
