// Package hooks is Claude Code's spec: its name, its table of hook events
// (each event's name, the moment of a session it is, and how it is
// registered), its project variable, the launcher's answer without cairn,
// and the one reader of its PreToolUse payload. The Claude Code adapter,
// its launcher and settings wiring, hooks/hooks.json (by a test) and the
// hook gate all follow it. It depends on nothing but packages event and
// agent/spec, so the gate can read it before the rest of the program
// starts.
package hooks

import (
	"slices"

	"github.com/cairn-dev/cairn/helpers/internal/agent/spec"
	"github.com/cairn-dev/cairn/helpers/internal/event"
)

// Agent is the Claude Code adapter's name.
const Agent = "claude"

// Spec is Claude Code, as cairn knows it before its adapter runs.
var Spec = spec.Spec{
	Name:       Agent,
	Title:      "Claude Code",
	Events:     Events,
	StartEvent: "SessionStart",
	// The person's notice goes to systemMessage, with the repository's
	// install hint; the model's, cairn's fixed wording, never the hint,
	// to hookSpecificOutput.additionalContext.
	NotInstalled: `{"systemMessage":"cairn: {person}","hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"{model}"}}\n`,
	ProjectVar:   "CLAUDE_PROJECT_DIR",
	Transcript:   true,
	ToolCall:     ToolCall,
	HoldForTool:  true,
}

// Events is the one table of Claude Code's events: the adapter, the
// launcher, the plugin's hooks/hooks.json and the project's settings all
// follow it, and register every one. Timeouts are in seconds.
var Events = []spec.Hook{
	{Event: "SessionStart", Kind: event.Start, Timeout: 120},
	{Event: "UserPromptSubmit", Kind: event.Prompt, Timeout: 10},
	{Event: "PostToolUse", Kind: event.ToolRan, Matcher: ShellTool, Timeout: 10},
	{Event: "PostToolUseFailure", Kind: event.ToolRan, Matcher: ShellTool, Timeout: 10},
	{Event: "Stop", Kind: event.Reply, Timeout: 10},
	{Event: "SubagentStop", Kind: event.SubagentReply, Timeout: 10},
	{Event: "PreCompact", Kind: event.Compact, Timeout: 10},
	{Event: "SessionEnd", Kind: event.End, Timeout: 10},
	{Event: "PreToolUse", Kind: event.BeforeTool, Matcher: ToolMatcher, Timeout: 10},
}

// ShellTool is the tool whose commands cairn reads.
const ShellTool = "Bash"

// ToolMatcher is PreToolUse's matcher: the tools that name files, the
// searches and listings that name where they look, and the shell.
const ToolMatcher = "Read|Edit|Write|MultiEdit|NotebookEdit|Grep|Glob|Bash"

// editTools are the tools that write the files they name.
var editTools = []string{"Edit", "Write", "MultiEdit", "NotebookEdit"}

// ToolCall reads a PreToolUse payload: the hook gate's and the adapter's
// one reader of it.
func ToolCall(data []byte) (event.ToolCall, bool) {
	return event.ReadToolCall(data, ShellTool, func(tool string) bool { return slices.Contains(editTools, tool) })
}
