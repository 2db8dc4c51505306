// Package hooks is Gemini CLI's table of hook events: each event's name,
// the moment of a session it is, and how the project's settings register
// it. The Gemini CLI adapter, its wiring and the capture hook's reject
// path follow it. It depends on nothing but package event, so the reject
// path can read it before the rest of the program starts.
package hooks

import "github.com/cairn-dev/cairn/helpers/internal/event"

// Agent is the Gemini CLI adapter's name.
const Agent = "gemini"

// ShellTool is the name of Gemini CLI's shell tool, the one whose commands
// cairn reads.
const ShellTool = "run_shell_command"

// Hook is one Gemini CLI hook event cairn handles.
type Hook struct {
	Event   string     // Gemini CLI's name
	Kind    event.Kind // the moment it is
	Matcher string     // the tool matcher it is registered with (a regular expression)
	Timeout int        // milliseconds, as registered (Gemini CLI's unit)
	// As is the name cairn is run with (`cairn hook gemini NAME`) when it
	// is not Event: one Gemini CLI event registered twice, for two
	// moments.
	As string
}

// Name is the name cairn is run with for h: As, else Event.
func (h Hook) Name() string {
	if h.As != "" {
		return h.As
	}
	return h.Event
}

// Events is the one table of Gemini CLI's events (0.61.0): the adapter
// and the project's .gemini/settings.json follow it. Every one is
// registered. PreCompress is not: Gemini CLI 0.61.0 fires it before every
// model turn, before it checks whether the history needs compressing at
// all, and waits for it; AfterAgent captures every turn's reply anyway.
var Events = []Hook{
	{"SessionStart", event.Start, "", 120000, ""},
	{"BeforeAgent", event.Prompt, "", 10000, ""},
	{"AfterTool", event.ToolRan, "^" + ShellTool + "$", 10000, ""},
	{"AfterAgent", event.Reply, "", 10000, ""},
	{"SessionEnd", event.End, "", 10000, ""},
	// The notes on a file: Gemini CLI's BeforeTool takes no context for
	// the model, its AfterTool does (appended to the tool's result), so
	// the notes come with the file's content, before the model acts on
	// it. cairn answers it as the moment before a tool.
	{"AfterTool", event.BeforeTool, FileToolMatcher, 10000, FileToolEvent},
}

// FileToolEvent is the name cairn is run with after a file tool.
const FileToolEvent = "AfterFileTool"

// FileToolMatcher matches the file tools whose input names a file
// (tool_input.file_path).
const FileToolMatcher = "^(read_file|write_file|replace)$"

// EditTools are the file tools that write their file.
var EditTools = map[string]bool{"write_file": true, "replace": true}

// StartEvent is the session-start event: its answer reaches the model
// (hookSpecificOutput.additionalContext), and the launcher answers it,
// without cairn, with [NotInstalledFormat].
const StartEvent = "SessionStart"

// NotInstalledFormat is the launcher's answer to [StartEvent] on a machine
// without cairn: Gemini CLI's SessionStart output (the same fields as
// Claude Code's), with {person} for the person's notice (systemMessage,
// with the repository's install hint) and {model} for the model's
// (additionalContext, which Gemini CLI adds to the history, or to a
// headless run's prompt: cairn's fixed wording, never the hint).
const NotInstalledFormat = `{"systemMessage":"cairn: {person}","hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"{model}"}}\n`

// Kind is the moment Gemini CLI's event name stands for; Unknown for a
// name cairn does not handle.
func Kind(name string) event.Kind {
	for _, h := range Events {
		if h.Name() == name {
			return h.Kind
		}
	}
	return event.Unknown
}

// ProjectVar is the variable in which Gemini CLI names the project.
const ProjectVar = "GEMINI_PROJECT_DIR"

// ToolCall reads the payload after a file tool (AfterTool, which cairn
// answers as the moment before a tool, see [FileToolEvent]) for the hook
// gate.
func ToolCall(data []byte) (event.ToolCall, bool) {
	return event.ReadToolCall(data, "", func(tool string) bool { return EditTools[tool] })
}
