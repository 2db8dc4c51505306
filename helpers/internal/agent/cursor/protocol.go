// Package cursor is cairn's adapter for Cursor (the editor's agent and the
// cursor-agent CLI): its hook events and how they map to the moments of a
// session, the payload read from stdin, the JSON written to stdout, and
// the project's wiring (.cursor/hooks.json, running the committed
// launcher). It imports none of cairn's storage: what it knows of the
// project comes in as an [fsx.Root]. Its [Adapter] implements
// [agent.Adapter] itself; the agent registry (agent/registry,
// agent/adapters) lists it.
//
// Cursor's hook protocol, as documented at https://cursor.com/docs/hooks:
// a hook is a command that gets one JSON object on stdin and may print one
// JSON object on stdout. Every payload carries conversation_id (stable for
// the conversation), generation_id, hook_event_name, cursor_version,
// workspace_roots (the workspace's root folders) and transcript_path, and
// no cwd; sessionStart adds session_id (the conversation's id again);
// afterShellExecution adds command, output and duration (no tool_name, no
// exit status); afterAgentResponse adds text, the assistant's message;
// postToolUse adds tool_name, tool_input (a Read's and a Write's name
// their file in file_path), tool_output, tool_use_id and cwd. The output
// of sessionStart and of postToolUse reaches the model (their
// additional_context: the session's initial context, and context "after
// the tool result"); the after* events are observational and their
// output is ignored. Project
// hooks run with the project's root as their working directory, with
// CURSOR_PROJECT_DIR set to it.
package cursor

import (
	"fmt"
	"io"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/agent/cursor/hooks"
	"github.com/cairn-dev/cairn/helpers/internal/event"
)

// Kind is the moment Cursor's event name stands for; Unknown for a name
// cairn does not handle.
func (Adapter) Kind(name string) event.Kind { return hooks.Spec.Kind(name) }

// hookPayload is the part of an event's JSON that cairn uses.
type hookPayload struct {
	ConversationID string   `json:"conversation_id"`
	SessionID      string   `json:"session_id"`
	HookEventName  string   `json:"hook_event_name"`
	WorkspaceRoots []string `json:"workspace_roots"`
	// Cwd is sent by the tool events that have one (beforeShellExecution,
	// preToolUse), often empty; never by the events cairn registers, but
	// read when it is there.
	Cwd     string `json:"cwd"`
	Command string `json:"command"` // afterShellExecution
	Text    string `json:"text"`    // afterAgentResponse
}

// Decode turns the payload of Cursor's event name into a session event;
// getenv reads the hook's environment. The project is CURSOR_PROJECT_DIR,
// else the payload's cwd, else its first workspace root.
func (Adapter) Decode(name string, data []byte, getenv func(string) string) (event.Event, error) {
	kind := Adapter{}.Kind(name)
	if kind == event.Unknown {
		return event.Event{}, fmt.Errorf("unknown cursor hook event %q", name)
	}
	p, err := agent.DecodePayload[hookPayload](hooks.Agent, data)
	if err != nil {
		return event.Event{}, err
	}
	cwd := p.Cwd
	if cwd == "" && len(p.WorkspaceRoots) > 0 {
		cwd = p.WorkspaceRoots[0]
	}
	session := p.ConversationID
	if session == "" {
		session = p.SessionID
	}
	e := event.Event{
		Kind:       kind,
		Name:       name,
		Session:    session,
		Cwd:        cwd,
		ProjectDir: getenv(hooks.Spec.ProjectVar),
		// afterShellExecution is the shell's own event: every command it
		// reports ran in a shell.
		Shell:   kind == event.ToolRan,
		Command: p.Command,
		Text:    p.Text,
		// No Transcript: cairn cannot read Cursor's (see ReadTranscript),
		// so the session pipeline is not given one to queue.
		Agent: hooks.Agent,
	}
	if kind == event.BeforeTool {
		// The hook gate's reading of the call, the one rule for it.
		if !hooks.Spec.BeforeTool(data, &e) {
			return event.Event{}, fmt.Errorf("decode %s hook payload: not a tool call", hooks.Agent)
		}
	}
	return e, nil
}

// Encode writes cairn's answer to e as the hook's stdout. Cursor takes
// context for the model from sessionStart and from postToolUse (cairn's
// moment before a tool), as additional_context; it has no line for the
// person at either, and the other after* events' output is ignored, so a
// status line is not written anywhere. postToolUse cannot ask the person
// (the tool has run): a must-check only informs. An answer with nothing
// Cursor can take writes nothing.
func (Adapter) Encode(e event.Event, a event.Answer) ([]byte, error) {
	if e.Kind != event.Start && e.Kind != event.BeforeTool || a.Context == "" {
		return nil, nil
	}
	return agent.EncodeOutput(hooks.Agent, struct {
		AdditionalContext string `json:"additional_context"`
	}{a.Context})
}

// errNoTranscript is ReadTranscript's answer: cairn does not read Cursor's
// transcripts, so the session pipeline does not run for Cursor sessions.
var errNoTranscript = error(agent.NoTranscript("reading transcripts is not supported for cursor"))

// ReadTranscript reports [errNoTranscript]: Cursor's transcript format is
// not documented, and cairn reads only what it can test.
func (Adapter) ReadTranscript(io.Reader) (event.Conversation, error) {
	return event.Conversation{}, errNoTranscript
}

// Caller: Cursor's agent sets CURSOR_AGENT=1 in the commands it runs; none
// carries the conversation's id (CURSOR_TRACE_ID is the editor's, set in
// a person's terminal too).
func (Adapter) Caller(getenv func(string) string) (string, bool) {
	return "", getenv("CURSOR_AGENT") == "1"
}
