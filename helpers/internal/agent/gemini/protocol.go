// Package gemini is cairn's adapter for Gemini CLI: its hook events and
// how they map to the moments of a session, the payload read from stdin,
// the JSON written to stdout, its session transcripts, and the project's
// wiring (hooks in .gemini/settings.json that run the committed launcher;
// the file is JSON with comments, edited in place through agent/jsonc).
// It imports none of cairn's storage: what it knows of the project comes
// in as an [fsx.Root]. Its [Adapter] implements [agent.Adapter] itself;
// the agent registry (agent/registry, agent/adapters) lists it.
package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/agent/gemini/hooks"
	"github.com/cairn-dev/cairn/helpers/internal/event"
)

// Kind is the moment Gemini CLI's event name stands for; Unknown for a
// name cairn does not handle.
func (Adapter) Kind(name string) event.Kind { return hooks.Spec.Kind(name) }

// hookPayload is the part of a hook's JSON (stdin) that cairn uses.
type hookPayload struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	Source         string `json:"source"` // SessionStart: startup, resume, clear
	// Prompt is the person's prompt (BeforeAgent, AfterAgent), with the
	// context hooks added to it.
	Prompt string `json:"prompt"`
	// PromptResponse is the agent's reply of the turn (AfterAgent): its
	// text, and (0.61.0) the fragments of each streamed reply after it,
	// joined by spaces; see [Adapter.Decode].
	PromptResponse string       `json:"prompt_response"`
	StopHookActive bool         `json:"stop_hook_active"`
	ToolName       string       `json:"tool_name"`
	ToolInput      toolInput    `json:"tool_input"`
	ToolResponse   toolResponse `json:"tool_response"`
}

// toolInput is the input of a tool call, for the shell tool: its command
// (the file a file tool names is read by [hooks.ToolCall]).
type toolInput struct {
	Command string `json:"command"`
}

// toolResponse is the result of a tool call; Error is set when it failed.
type toolResponse struct {
	Error json.RawMessage `json:"error"`
}

// failed reports whether the tool call failed.
func (r toolResponse) failed() bool {
	e := bytes.TrimSpace(r.Error)
	return len(e) > 0 && string(e) != "null"
}

// Decode turns the payload of Gemini CLI's event name into a session
// event; getenv reads the hook's environment.
//
// The reply of an AfterAgent event is read from the session's transcript
// (its last turn), not from prompt_response: Gemini CLI 0.61.0 builds
// that from the streamed chunks of each reply, the whole text and then
// every chunk after the first again, joined by spaces, so a typed line cut
// by a chunk boundary would come back mangled. Without a readable
// transcript, prompt_response is the reply.
//
// The prompt of a BeforeAgent event is the person's, without the
// <hook_context> blocks hooks added to it (SessionStart's context in a
// headless run).
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
		Transcript: p.TranscriptPath,
		Agent:      hooks.Agent,
	}
	switch kind {
	case event.Prompt:
		e.Prompt = withoutHookContext(p.Prompt)
	case event.ToolRan:
		e.Shell = p.ToolName == hooks.ShellTool
		e.Command = p.ToolInput.Command
		e.Failed = p.ToolResponse.failed()
	case event.BeforeTool:
		// The hook gate's reader of the call, the one rule for it.
		if !hooks.Spec.BeforeTool(data, &e) {
			return event.Event{}, fmt.Errorf("decode %s hook payload: not a tool call", hooks.Agent)
		}
	case event.Reply:
		e.Text = p.PromptResponse
		if reply, ok := lastReply(p.TranscriptPath); ok {
			e.Text = reply
		}
		e.Continued = p.StopHookActive
	}
	return e, nil
}

// Hook context is how Gemini CLI hands a hook's additionalContext to the
// model: wrapped in these tags, with every < and > inside escaped.
const (
	hookContextOpen  = "<hook_context>"
	hookContextClose = "</hook_context>"
)

// withoutHookContext returns prompt without the <hook_context> blocks
// Gemini CLI added to it, trimmed.
func withoutHookContext(prompt string) string {
	for {
		i := strings.Index(prompt, hookContextOpen)
		if i < 0 {
			break
		}
		j := strings.Index(prompt[i:], hookContextClose)
		if j < 0 {
			break
		}
		prompt = prompt[:i] + prompt[i+j+len(hookContextClose):]
	}
	return strings.TrimSpace(prompt)
}

// Encode writes cairn's answer to e as the hook's stdout: context for the
// model in hookSpecificOutput.additionalContext (SessionStart and
// BeforeAgent take it: Gemini CLI adds it to the conversation, or to the
// prompt; AfterTool appends it to a file tool's result), a line for the person in systemMessage. An empty answer, and
// any answer to an event that takes none, writes nothing. GoOn has no
// Gemini CLI event to go with (it is for a subagent's reply, which Gemini
// CLI has no hook for) and is left out.
func (Adapter) Encode(e event.Event, a event.Answer) ([]byte, error) {
	var out output
	out.SystemMessage = a.Status
	switch {
	case a.Context != "" && (e.Kind == event.Start || e.Kind == event.Prompt):
		out.HookSpecificOutput = &specific{HookEventName: e.Name, AdditionalContext: a.Context}
	case a.Context != "" && e.Kind == event.BeforeTool:
		// Gemini CLI appends AfterTool's context to the tool's result.
		// It has no "ask": a must-check only informs.
		out.HookSpecificOutput = &specific{HookEventName: "AfterTool", AdditionalContext: a.Context}
	}
	if out.SystemMessage == "" && out.HookSpecificOutput == nil || e.Kind == event.End {
		return nil, nil // SessionEnd: Gemini CLI does not wait for it
	}
	return agent.EncodeOutput(hooks.Agent, out)
}

// output is the JSON a hook prints.
type output struct {
	SystemMessage      string    `json:"systemMessage,omitempty"`
	HookSpecificOutput *specific `json:"hookSpecificOutput,omitempty"`
}

type specific struct {
	HookEventName     string `json:"hookEventName"`
	AdditionalContext string `json:"additionalContext"`
}

// Caller: Gemini CLI sets GEMINI_CLI=1 in the commands its shell tool runs
// (0.61); the session's id, GEMINI_SESSION_ID, only in its hooks'.
func (Adapter) Caller(getenv func(string) string) (string, bool) {
	return getenv("GEMINI_SESSION_ID"), getenv("GEMINI_CLI") == "1"
}
