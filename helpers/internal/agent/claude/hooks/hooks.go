// Package hooks is Claude Code's table of hook events: each event's name,
// the moment of a session it is, and how it is registered. The Claude Code
// adapter, its launcher and settings wiring, hooks/hooks.json (by a test)
// and the capture hook's reject path all follow it. It depends on nothing
// but package event, so the reject path can read it before the rest of
// the program starts.
package hooks

import "github.com/cairn-dev/cairn/helpers/internal/event"

// Agent is the Claude Code adapter's name.
const Agent = "claude"

// Hook is one Claude Code hook event cairn handles.
type Hook struct {
	Event   string     // Claude Code's name
	Kind    event.Kind // the moment it is
	Matcher string     // the tool matcher it is registered with
	Timeout int        // seconds, as registered
	// Registered events are in hooks/hooks.json and the project's
	// settings; the others are understood when a launcher passes them.
	Registered bool
}

// Events is the one table of Claude Code's events: the adapter, the
// launcher, the plugin's hooks/hooks.json and the project's settings all
// follow it.
var Events = []Hook{
	{"SessionStart", event.Start, "", 120, true},
	{"UserPromptSubmit", event.Prompt, "", 10, true},
	{"PostToolUse", event.ToolRan, "Bash", 10, true},
	{"PostToolUseFailure", event.ToolRan, "Bash", 10, true},
	{"Stop", event.Reply, "", 10, true},
	{"SubagentStop", event.SubagentReply, "", 10, true},
	{"PreCompact", event.Compact, "", 10, true},
	{"SessionEnd", event.End, "", 10, true},
	{"PreToolUse", event.BeforeTool, ToolMatcher, 10, true},
}

// ToolMatcher is PreToolUse's matcher: the tools that name files, the
// searches and listings that name where they look, and the shell.
const ToolMatcher = "Read|Edit|Write|MultiEdit|NotebookEdit|Grep|Glob|Bash"

// EditTools are the tools that write the files they name.
var EditTools = map[string]bool{"Edit": true, "Write": true, "MultiEdit": true, "NotebookEdit": true}

// StartEvent is the session-start event: its answer reaches the model
// (hookSpecificOutput.additionalContext), and the launcher answers it,
// without cairn, with [NotInstalledFormat].
const StartEvent = "SessionStart"

// NotInstalledFormat is the launcher's answer to [StartEvent] on a machine
// without cairn: {person} is the person's notice (systemMessage, with the
// repository's install hint) and {model} the model's (cairn's fixed
// wording, never the hint).
const NotInstalledFormat = `{"systemMessage":"cairn: {person}","hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"{model}"}}\n`

// Registered are the events cairn registers, as hooks/hooks.json does.
func Registered() []Hook {
	var out []Hook
	for _, h := range Events {
		if h.Registered {
			out = append(out, h)
		}
	}
	return out
}

// Kind is the moment Claude Code's event name stands for; Unknown for a
// name cairn does not handle.
func Kind(name string) event.Kind {
	for _, h := range Events {
		if h.Event == name {
			return h.Kind
		}
	}
	return event.Unknown
}

// ProjectVar is the variable in which Claude Code names the project.
const ProjectVar = "CLAUDE_PROJECT_DIR"

// ToolCall reads a PreToolUse payload for the hook gate.
func ToolCall(data []byte) (event.ToolCall, bool) {
	return event.ReadToolCall(data, "Bash", func(tool string) bool { return EditTools[tool] })
}
