// Package hooks is Gemini CLI's spec: its name, its table of hook events
// (each event's name, the moment of a session it is, and how the
// project's settings register it), its project variable, the launcher's
// answer without cairn, and the one reader of the payload after a file
// tool. The Gemini CLI adapter, its wiring and the hook gate follow it. It
// depends on nothing but packages event and agent/spec, so the gate can
// read it before the rest of the program starts.
package hooks

import (
	"slices"

	"github.com/cairn-dev/cairn/helpers/internal/agent/spec"
	"github.com/cairn-dev/cairn/helpers/internal/event"
)

// Agent is the Gemini CLI adapter's name.
const Agent = "gemini"

// Spec is Gemini CLI, as cairn knows it before its adapter runs.
var Spec = spec.Spec{
	Name:       Agent,
	Title:      "Gemini CLI",
	Events:     Events,
	StartEvent: "SessionStart",
	// Gemini CLI's SessionStart output (the same fields as Claude Code's):
	// the person's notice in systemMessage, with the repository's install
	// hint; the model's in additionalContext, which Gemini CLI adds to the
	// history, or to a headless run's prompt: cairn's fixed wording, never
	// the hint.
	NotInstalled: `{"systemMessage":"cairn: {person}","hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"{model}"}}\n`,
	ProjectVar:   "GEMINI_PROJECT_DIR", // the directory it started in
	Transcript:   true,
	ToolCall:     ToolCall,
	HoldForTool:  true,
}

// ShellTool is the name of Gemini CLI's shell tool, the one whose commands
// cairn reads.
const ShellTool = "run_shell_command"

// Events is the one table of Gemini CLI's events (0.61.0): the adapter
// and the project's .gemini/settings.json follow it. Every one is
// registered; matchers are regular expressions, timeouts milliseconds
// (Gemini CLI's unit). PreCompress is not: Gemini CLI 0.61.0 fires it
// before every model turn, before it checks whether the history needs
// compressing at all, and waits for it; AfterAgent captures every turn's
// reply anyway.
var Events = []spec.Hook{
	{Event: "SessionStart", Kind: event.Start, Timeout: 120000},
	{Event: "BeforeAgent", Kind: event.Prompt, Timeout: 10000},
	{Event: "AfterTool", Kind: event.ToolRan, Matcher: "^" + ShellTool + "$", Timeout: 10000},
	{Event: "AfterAgent", Kind: event.Reply, Timeout: 10000},
	{Event: "SessionEnd", Kind: event.End, Timeout: 10000},
	// The notes on a file: Gemini CLI's BeforeTool takes no context for
	// the model, its AfterTool does (appended to the tool's result), so
	// the notes come with the file's content, before the model acts on
	// it. cairn answers it as the moment before a tool, registered a
	// second time under its own name.
	{Event: FileToolEvent, Kind: event.BeforeTool, On: "AfterTool", Matcher: FileToolMatcher, Timeout: 10000},
}

// FileToolEvent is the name cairn is run with after a file tool.
const FileToolEvent = "AfterFileTool"

// FileToolMatcher matches the file tools whose input names a file
// (tool_input.file_path).
const FileToolMatcher = "^(read_file|write_file|replace)$"

// editTools are the file tools that write their file.
var editTools = []string{"write_file", "replace"}

// ToolCall reads the payload after a file tool (AfterTool, which cairn
// answers as the moment before a tool, see [FileToolEvent]), the hook
// gate's and the adapter's one reader of it.
func ToolCall(data []byte) (event.ToolCall, bool) {
	return event.ReadToolCall(data, "", func(tool string) bool { return slices.Contains(editTools, tool) })
}
