// Package claude is cairn's adapter for Claude Code: its hook events and
// how they map to the moments of a session, the payload read from stdin,
// the JSON written to stdout, hooks/hooks.json, and the project's wiring
// (.claude/settings.json, the committed launcher, the slash commands). It
// imports none of cairn's storage: what it knows of the project comes in
// as an [fsx.Root]. Its [Adapter] implements [agent.Adapter] itself; the
// agent registry (agent/registry, agent/adapters) lists it.
package claude

import (
	"fmt"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/agent/claude/hooks"
	"github.com/cairn-dev/cairn/helpers/internal/event"
)

// Events is the one table of Claude Code's events (see [hooks.Events]),
// every one registered, as hooks/hooks.json does.
var Events = hooks.Events

// Kind is the moment Claude Code's event name stands for; Unknown for a
// name cairn does not handle.
func (Adapter) Kind(name string) event.Kind { return hooks.Spec.Kind(name) }

// hookPayload is the part of an event's JSON that cairn uses.
type hookPayload struct {
	SessionID            string    `json:"session_id"`
	TranscriptPath       string    `json:"transcript_path"`
	Cwd                  string    `json:"cwd"`
	HookEventName        string    `json:"hook_event_name"`
	Source               string    `json:"source"`
	Prompt               string    `json:"prompt"`
	ToolName             string    `json:"tool_name"`
	ToolInput            toolInput `json:"tool_input"`
	Error                string    `json:"error"`
	StopHookActive       bool      `json:"stop_hook_active"`
	LastAssistantMessage string    `json:"last_assistant_message"`
	AgentID              string    `json:"agent_id"`
	AgentType            string    `json:"agent_type"`
	PermissionMode       string    `json:"permission_mode"`
}

// toolInput is the input of a tool call, for the shell: its command (the
// file a tool names is read by [hooks.ToolCall]).
type toolInput struct {
	Command string `json:"command"`
}

// Decode turns the payload of Claude Code's event name into a session
// event; getenv reads the hook's environment.
func (Adapter) Decode(name string, data []byte, getenv func(string) string) (event.Event, error) {
	kind := Adapter{}.Kind(name)
	if kind == event.Unknown {
		return event.Event{}, fmt.Errorf("unknown hook event %q", name)
	}
	p, err := agent.DecodePayload[hookPayload](hooks.Agent, data)
	if err != nil {
		return event.Event{}, err
	}
	e := event.Event{
		Kind:       kind,
		Name:       name,
		Session:    p.SessionID,
		Cwd:        p.Cwd,
		ProjectDir: getenv(hooks.Spec.ProjectVar),
		Prompt:     p.Prompt,
		Shell:      p.ToolName == hooks.ShellTool,
		Command:    p.ToolInput.Command,
		Failed:     name == "PostToolUseFailure",
		Text:       p.LastAssistantMessage,
		Continued:  p.StopHookActive,
		Transcript: p.TranscriptPath,
		Agent:      hooks.Agent,
	}
	if kind == event.BeforeTool {
		// The hook gate's reader of the call, the one rule for it.
		if !hooks.Spec.BeforeTool(data, &e) {
			return event.Event{}, fmt.Errorf("decode %s hook payload: not a tool call", hooks.Agent)
		}
		e.CanAsk = canAsk(p.PermissionMode, getenv(entrypointEnv))
	}
	if kind == event.Prompt && clientWrapper(p.Prompt) {
		// Not the person's prompt but Claude Code's own: 2.1.330 submits
		// a background subagent's <task-notification> as one. Per-prompt
		// recall has nothing to look for in it.
		e.Prompt = ""
	}
	return e, nil
}

// entrypointEnv is the variable in which Claude Code says how it was
// started; its hooks inherit it. `claude -p` sets "sdk-cli", the
// interactive terminal UI "cli".
const entrypointEnv = "CLAUDE_CODE_ENTRYPOINT"

// askingEntrypoints are the entry points in which a person sits at the
// session and can answer a permission prompt: the terminal UI and the
// editors' and desktop's front ends. Print mode (sdk-cli), the SDKs, the
// MCP server, GitHub Actions, remote and chat front ends are not.
var askingEntrypoints = map[string]bool{"cli": true, "claude-vscode": true, "claude-desktop": true}

// askingModes are the permission modes in which Claude Code puts a
// hook's "ask" to the person. Not bypassPermissions or dontAsk (nobody
// is asked; print mode turns "ask" into a denial), nor auto (a
// classifier answers).
var askingModes = map[string]bool{"default": true, "acceptEdits": true, "plan": true}

// canAsk reports whether a PreToolUse may ask the person: only when both
// the payload's permission mode and the entry point say a person is
// there to answer. Anything unknown or missing counts as no one.
func canAsk(mode, entrypoint string) bool {
	return askingModes[mode] && askingEntrypoints[entrypoint]
}

// Encode writes cairn's reply to e as the hook's stdout: context for the
// model in hookSpecificOutput.additionalContext (SessionStart,
// UserPromptSubmit and PreToolUse take it; PreToolUse may also ask the
// person to confirm), a line for the person in systemMessage,
// and a request to go on as decision "block" (Stop and SubagentStop).
// An empty reply writes nothing.
func (Adapter) Encode(e event.Event, r event.Answer) ([]byte, error) {
	switch {
	case r.Empty():
		return nil, nil
	case r.GoOn != "":
		return encodeBlock(r.GoOn)
	case e.Kind == event.BeforeTool && (r.Context != "" || r.Ask != "" && e.CanAsk):
		ask := r.Ask
		if !e.CanAsk {
			ask = "" // no one to answer: print mode would deny the call
		}
		return encodeBeforeTool(r.Context, r.Status, ask)
	case r.Context != "" && (e.Kind == event.Start || e.Kind == event.Prompt):
		return encodeContextStatus(e.Name, r.Context, r.Status)
	case r.Status != "":
		return encodeStatus(r.Status)
	}
	return nil, nil
}

// contextOutput is the JSON that adds context for the model, and a line
// for the person.
type contextOutput struct {
	SystemMessage      string `json:"systemMessage,omitempty"`
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// encodeBeforeTool returns the stdout of a PreToolUse hook: context for
// the model, a line for the person, and, when ask is set, the request
// that the person confirm the call, with ask as the reason. It never
// answers allow or deny: a note in the log may not decide for the person.
func encodeBeforeTool(text, status, ask string) ([]byte, error) {
	var out struct {
		SystemMessage      string `json:"systemMessage,omitempty"`
		HookSpecificOutput struct {
			HookEventName            string `json:"hookEventName"`
			PermissionDecision       string `json:"permissionDecision,omitempty"`
			PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
			AdditionalContext        string `json:"additionalContext,omitempty"`
		} `json:"hookSpecificOutput"`
	}
	out.SystemMessage = status
	out.HookSpecificOutput.HookEventName = "PreToolUse"
	out.HookSpecificOutput.AdditionalContext = text
	if ask != "" {
		out.HookSpecificOutput.PermissionDecision = "ask"
		out.HookSpecificOutput.PermissionDecisionReason = ask
	}
	return agent.EncodeOutput(hooks.Agent, out)
}

// encodeBlock returns the stdout of a Stop or SubagentStop hook that makes
// the agent go on, with reason as its instruction.
func encodeBlock(reason string) ([]byte, error) {
	return agent.EncodeOutput(hooks.Agent, struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
	}{"block", reason})
}

// encodeContextStatus returns the stdout of a hook that adds text to the
// model's context for the event name, and shows status, one quiet line,
// to the person (systemMessage); an empty status shows nothing.
func encodeContextStatus(name, text, status string) ([]byte, error) {
	var out contextOutput
	out.SystemMessage = status
	out.HookSpecificOutput.HookEventName = name
	out.HookSpecificOutput.AdditionalContext = text
	return agent.EncodeOutput(hooks.Agent, out)
}

// encodeStatus returns the stdout of a hook that only shows status, one
// quiet line, to the person (systemMessage).
func encodeStatus(status string) ([]byte, error) {
	return agent.EncodeOutput(hooks.Agent, struct {
		SystemMessage string `json:"systemMessage"`
	}{status})
}

// Caller: Claude Code sets CLAUDECODE=1 in every process it starts, and in
// its Bash tool's (2.1.197) CLAUDE_CODE_SESSION_ID, the hooks' session_id,
// too. CLAUDECODE alone is also set in an IDE's terminal, where a person
// types: it counts with the session id or CLAUDE_CODE_ENTRYPOINT (the
// CLI's own variable, which its children inherit).
func (Adapter) Caller(getenv func(string) string) (string, bool) {
	if getenv("CLAUDECODE") != "1" {
		return "", false
	}
	session := getenv("CLAUDE_CODE_SESSION_ID")
	return session, session != "" || getenv("CLAUDE_CODE_ENTRYPOINT") != ""
}
