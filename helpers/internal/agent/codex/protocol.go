// Package codex is cairn's adapter for the OpenAI Codex CLI: its hook
// events and how they map to the moments of a session, the payload read
// from stdin, the JSON written to stdout, the project's committed wiring
// (.codex/hooks.json and the launcher), the user-level trust Codex asks
// for before a project's hooks run (config.toml, read for doctor with
// github.com/pelletier/go-toml/v2, never written), and Codex's session
// transcripts (rollout files). It imports none of cairn's storage: what it
// knows of the project comes in as an [fsx.Root]. Its [Adapter] implements
// [agent.Adapter] itself; the agent registry (agent/registry,
// agent/adapters) lists it.
package codex

import (
	"encoding/json"
	"fmt"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/agent/codex/hooks"
	"github.com/cairn-dev/cairn/helpers/internal/event"
)

// Kind is the moment Codex's event name stands for; Unknown for a name
// cairn does not handle.
func (Adapter) Kind(name string) event.Kind { return hooks.Spec.Kind(name) }

// hookPayload is the part of a Codex hook payload that cairn uses. Codex 0.169
// sends the same field names as Claude Code; transcript_path and
// last_assistant_message may be null.
type hookPayload struct {
	SessionID            string          `json:"session_id"`
	TurnID               string          `json:"turn_id"`
	TranscriptPath       *string         `json:"transcript_path"`
	Cwd                  string          `json:"cwd"`
	HookEventName        string          `json:"hook_event_name"`
	Source               string          `json:"source"`
	Prompt               string          `json:"prompt"`
	ToolName             string          `json:"tool_name"`
	ToolInput            json.RawMessage `json:"tool_input"`
	StopHookActive       bool            `json:"stop_hook_active"`
	LastAssistantMessage *string         `json:"last_assistant_message"`
	Reason               string          `json:"reason"`
}

// Command is the shell command of a tool call's input: tool_input.command
// when the input is an object holding a string there, else empty.
func (p hookPayload) Command() string {
	var in struct {
		Command json.RawMessage `json:"command"`
	}
	if len(p.ToolInput) == 0 || json.Unmarshal(p.ToolInput, &in) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(in.Command, &s) != nil {
		return ""
	}
	return s
}

// Decode turns the payload of Codex's event name into a session event.
// Codex names no project directory in its hooks' environment: the
// session's cwd (which may be a subdirectory) locates the project.
func (Adapter) Decode(name string, data []byte, _ func(string) string) (event.Event, error) {
	kind := Adapter{}.Kind(name)
	if kind == event.Unknown {
		return event.Event{}, fmt.Errorf("unknown codex hook event %q", name)
	}
	p, err := agent.DecodePayload[hookPayload](hooks.Agent, data)
	if err != nil {
		return event.Event{}, err
	}
	e := event.Event{
		Kind:      kind,
		Name:      name,
		Session:   p.SessionID,
		Cwd:       p.Cwd,
		Prompt:    p.Prompt,
		Shell:     p.ToolName == hooks.ShellTool,
		Command:   p.Command(),
		Continued: p.StopHookActive,
		Agent:     hooks.Agent,
	}
	if kind == event.BeforeTool {
		// The hook gate's reader of the call, the one rule for it.
		if !hooks.Spec.BeforeTool(data, &e) {
			return event.Event{}, fmt.Errorf("decode %s hook payload: not a tool call", hooks.Agent)
		}
	}
	if p.TranscriptPath != nil {
		e.Transcript = *p.TranscriptPath
	}
	if p.LastAssistantMessage != nil {
		e.Text = *p.LastAssistantMessage
	}
	return e, nil
}

// Encode writes cairn's answer to e as the hook's stdout: context for the
// model in hookSpecificOutput.additionalContext (SessionStart,
// UserPromptSubmit and PreToolUse take it), one line for the person in systemMessage
// (Codex shows it under the turn as "Hook · cairn: ..."), and a request to
// go on as decision "block" with its reason (Stop). An empty answer
// writes nothing. Codex validates these objects strictly, so nothing else
// is written.
func (Adapter) Encode(e event.Event, a event.Answer) ([]byte, error) {
	switch {
	case a.Empty():
		return nil, nil
	case a.GoOn != "" && e.Kind == event.Reply:
		return agent.EncodeOutput(hooks.Agent, struct {
			SystemMessage string `json:"systemMessage,omitempty"`
			Decision      string `json:"decision"`
			Reason        string `json:"reason"`
		}{a.Status, "block", a.GoOn})
	case a.Context != "" && (e.Kind == event.Start || e.Kind == event.Prompt || e.Kind == event.BeforeTool):
		// Codex 0.169 refuses permissionDecision "ask" (and "allow"): a
		// must-check only informs the model here, never asks.
		var out contextOutput
		out.SystemMessage = a.Status
		out.HookSpecificOutput.HookEventName = e.Name
		out.HookSpecificOutput.AdditionalContext = a.Context
		return agent.EncodeOutput(hooks.Agent, out)
	case a.Status != "":
		return agent.EncodeOutput(hooks.Agent, struct {
			SystemMessage string `json:"systemMessage"`
		}{a.Status})
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

// Caller: Codex exports CODEX_THREAD_ID, the session's id (the hooks'
// session_id, and the rollout file's), into every shell command it runs,
// whatever its shell_environment_policy; CODEX_SANDBOX when it sandboxes
// one.
func (Adapter) Caller(getenv func(string) string) (string, bool) {
	session := getenv("CODEX_THREAD_ID")
	return session, session != "" || getenv("CODEX_SANDBOX") != ""
}
