// Package opencode is cairn's adapter for OpenCode. OpenCode has no hook
// commands; its extension point is a plugin, a JavaScript module it loads
// from the project's .opencode/plugins/. cairn's plugin (plugin.js, written
// by Wire) passes the moments of a session to the committed launcher as
// `.cairn/hook --agent opencode EVENT` with a JSON payload of cairn's own
// design on stdin ([hookPayload]), and reads back a JSON answer ([output]).
// This package decodes the one and encodes the other, writes and removes
// the plugin, and checks it for doctor. It imports none of cairn's
// storage: what it knows of the project comes in as an [fsx.Root]. Its
// [Adapter] implements [agent.Adapter] itself; the agent registry
// (agent/registry, agent/adapters) lists it.
package opencode

import (
	"fmt"
	"io"
	"slices"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/agent/opencode/hooks"
	"github.com/cairn-dev/cairn/helpers/internal/event"
)

// Kind is the moment the plugin's event name stands for; Unknown for a
// name cairn does not handle.
func (Adapter) Kind(name string) event.Kind { return hooks.Spec.Kind(name) }

// hookPayload is what the plugin writes on the launcher's stdin: the session,
// where it runs, and what the event carries (ToolBefore's file_path, the
// file a file tool names, is read by [hooks.ToolCall]).
type hookPayload struct {
	SessionID string `json:"session_id"`
	// Cwd is the directory OpenCode runs in; ProjectDir is the project
	// the plugin belongs to (the directory above its .opencode).
	Cwd        string `json:"cwd"`
	ProjectDir string `json:"project_dir"`
	// Prompt is the person's prompt (UserPrompt).
	Prompt string `json:"prompt,omitempty"`
	// Tool is the tool that ran, Command its command and Exit its exit
	// status, when OpenCode reports one (ToolAfter).
	Tool    string `json:"tool,omitempty"`
	Command string `json:"command,omitempty"`
	Exit    *int   `json:"exit,omitempty"`
	// Text is a text the model finished writing (TextComplete).
	Text string `json:"text,omitempty"`
}

// Decode turns the payload of the plugin's event name into a session
// event. The plugin names the project itself (project_dir), so the
// environment is not read.
func (Adapter) Decode(name string, data []byte, _ func(string) string) (event.Event, error) {
	kind := Adapter{}.Kind(name)
	if kind == event.Unknown {
		return event.Event{}, fmt.Errorf("unknown opencode event %q", name)
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
		ProjectDir: p.ProjectDir,
		Prompt:     p.Prompt,
		Shell:      slices.Contains(hooks.ShellTools, p.Tool),
		Command:    p.Command,
		Failed:     p.Exit != nil && *p.Exit != 0,
		Text:       p.Text,
		Agent:      hooks.Agent,
	}
	if kind == event.BeforeTool {
		// The hook gate's reader of the call, the one rule for it.
		if !hooks.Spec.BeforeTool(data, &e) {
			return event.Event{}, fmt.Errorf("decode %s hook payload: not a tool call", hooks.Agent)
		}
	}
	return e, nil
}

// output is the JSON the plugin reads from the launcher's stdout: context
// for the model (it adds it to the session's system prompt) and one quiet
// line for the person (a toast, where OpenCode shows one).
type output struct {
	Context string `json:"context,omitempty"`
	Status  string `json:"status,omitempty"`
}

// Encode writes cairn's answer to e as the hook's stdout: context only
// for a session's start, a prompt and before a tool, the status line for any event. An
// empty answer writes nothing. OpenCode cannot be asked to go on (a
// subagent's nudge): GoOn is never sent.
func (Adapter) Encode(e event.Event, a event.Answer) ([]byte, error) {
	var out output
	if e.Kind == event.Start || e.Kind == event.Prompt || e.Kind == event.BeforeTool {
		out.Context = a.Context
	}
	out.Status = a.Status
	if out == (output{}) {
		return nil, nil
	}
	return agent.EncodeOutput(hooks.Agent, out)
}

// errNoTranscript is ReadTranscript's answer: OpenCode keeps its sessions
// in its own database, not in a transcript file a hook could name.
var errNoTranscript = error(agent.NoTranscript("reading a transcript is not supported for opencode (OpenCode keeps sessions in its own database)"))

// ReadTranscript is not supported for OpenCode; see [errNoTranscript].
func (Adapter) ReadTranscript(io.Reader) (event.Conversation, error) {
	return event.Conversation{}, errNoTranscript
}

// sessionEnv is the variable cairn's plugin sets, through OpenCode's
// shell.env hook, to the session's id in every shell command's
// environment.
const sessionEnv = "CAIRN_OPENCODE_SESSION"

// Caller: OpenCode sets OPENCODE=1 (and AGENT=1) in its own environment at
// start, which its shell tool's commands inherit (1.18); none of its own
// carries the session's id, which cairn's plugin adds ([sessionEnv]).
func (Adapter) Caller(getenv func(string) string) (string, bool) {
	return getenv(sessionEnv), getenv("OPENCODE") == "1"
}
