// Package hooks is the OpenAI Codex CLI's spec: its name, its table of
// hook events (each event's name, the moment of a session it is, and how
// cairn registers it in a project's .codex/hooks.json), the launcher's
// answer without cairn, and the one reader of its PreToolUse payload. The
// Codex adapter and its wiring follow it, and so does the hook gate: it
// depends on nothing but packages event and agent/spec, so it can be read
// before the rest of the program starts.
package hooks

import (
	"github.com/cairn-dev/cairn/helpers/internal/agent/spec"
	"github.com/cairn-dev/cairn/helpers/internal/event"
)

// Agent is the Codex adapter's name.
const Agent = "codex"

// Spec is Codex, as cairn knows it before its adapter runs. Codex names
// no project directory in its hooks' environment: the session's cwd
// locates the project.
var Spec = spec.Spec{
	Name:       Agent,
	Title:      "Codex",
	Events:     Events,
	StartEvent: "SessionStart",
	// Codex's SessionStart output (the same fields as Claude Code's): the
	// person's notice in systemMessage, shown as "Hook · cairn: ...", with
	// the repository's install hint; the model's, cairn's fixed wording,
	// never the hint.
	NotInstalled: `{"systemMessage":"cairn: {person}","hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"{model}"}}\n`,
	Transcript:   true,
	ToolCall:     ToolCall,
	HoldForTool:  true,
}

// Events is the one table of Codex's events cairn handles and registers.
// Codex 0.169 names its shell tool Bash in hook payloads and matchers
// (the model's exec_command), and clamps SessionEnd's timeout to 3 s.
// Timeouts are in seconds.
var Events = []spec.Hook{
	{Event: "SessionStart", Kind: event.Start, Timeout: 120},
	{Event: "UserPromptSubmit", Kind: event.Prompt, Timeout: 10},
	{Event: "PostToolUse", Kind: event.ToolRan, Matcher: ShellTool, Timeout: 10},
	{Event: "Stop", Kind: event.Reply, Timeout: 10},
	{Event: "SessionEnd", Kind: event.End, Timeout: 3},
	// Before a shell command (Codex reads and edits files through the
	// shell and apply_patch): notes on the files it names and must-checks
	// on the command, as additionalContext. Codex refuses "ask", so
	// guards only inform.
	{Event: "PreToolUse", Kind: event.BeforeTool, Matcher: ShellTool, Timeout: 10},
}

// ShellTool is the tool name Codex gives its shell in hook payloads.
const ShellTool = "Bash"

// ToolCall reads a PreToolUse payload, the hook gate's and the adapter's
// one reader of it: Codex 0.169 sends Claude Code's field names; its
// shell is Bash, and it edits files through the shell only.
func ToolCall(data []byte) (event.ToolCall, bool) {
	return event.ReadToolCall(data, ShellTool, func(string) bool { return false })
}
