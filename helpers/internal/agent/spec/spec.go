// Package spec is what cairn knows of a coding agent before any of the
// agent's code runs: one keyed [Spec] value per agent, declared in the
// agent's leaf package agent/NAME/hooks and listed by agent/registry. The
// spec holds the agent's name, its event table, its project variable, the
// launcher's answer without cairn, whether cairn reads its transcripts,
// and the one reader of its payload before a tool call, which both the
// hook gate (in its init, before the adapters initialise) and the agent's
// adapter (agent/NAME, through [Spec.BeforeTool]) call.
//
// It imports nothing but package event and has no init work, so the hook
// gate can read every agent's spec before the rest of the program starts.
package spec

import "github.com/cairn-dev/cairn/helpers/internal/event"

// Spec is one coding agent, as the hook gate, the launcher and the
// agent's adapter see it.
type Spec struct {
	// Name is the adapter's short name: init's flag (--claude) and the
	// AGENT of `cairn hook AGENT EVENT`.
	Name string
	// Title is the agent's name for people: "Claude Code".
	Title string
	// Events is the agent's table of the hook events cairn handles.
	Events []Hook
	// StartEvent is the session-start event: its answer reaches the model,
	// and the launcher answers it, without cairn, with NotInstalled: the
	// agent's own output format with {person} for the person's notice and
	// {model} for the model's.
	StartEvent, NotInstalled string
	// ProjectVar is the variable in which the agent names the project to
	// its hooks ("" for none; see package projroot).
	ProjectVar string
	// Transcript is true when the agent's payloads name the session's
	// transcript as Claude Code's do (session_id, transcript_path, cwd)
	// and cairn reads it: the hook gate queues its replies for the session
	// pipeline.
	Transcript bool
	// ToolCall is the one reader of the agent's payload before a tool
	// call: the hook gate's no-match path and the adapter's Decode both
	// call it. nil when cairn answers no such moment for the agent.
	ToolCall func(data []byte) (event.ToolCall, bool)
	// HoldForTool: the moment before a tool reaches the model for every
	// file the agent reads or edits, so the session start may leave the
	// notes anchored to files to it (see recall.HeldForTool). False where
	// that moment is partial or unconfirmed (Cursor's postToolUse).
	HoldForTool bool
}

// Hook is one of an agent's hook events that cairn handles, as the agent
// registers it.
type Hook struct {
	// Event is the name cairn is run with: `cairn hook AGENT EVENT`.
	Event string
	// Kind is the moment of a session it is.
	Kind event.Kind
	// On is the agent's own event, or plugin hook, that sends it, when it
	// is not Event: one of Gemini CLI's events registered twice, for two
	// moments; the OpenCode plugin hook that passes it on.
	On string
	// Matcher is the tool matcher it is registered with ("" for none).
	Matcher string
	// Timeout is how long the agent waits for cairn, as registered, in the
	// agent's unit.
	Timeout int
}

// Source is the agent's own name of the event h: On, else Event.
func (h Hook) Source() string {
	if h.On != "" {
		return h.On
	}
	return h.Event
}

// Kind is the moment the agent's event name stands for; event.Unknown for
// a name cairn does not handle.
func (s Spec) Kind(name string) event.Kind {
	for _, h := range s.Events {
		if h.Event == name {
			return h.Kind
		}
	}
	return event.Unknown
}

// BeforeTool reads a payload sent before a tool call into e, which the
// adapter decoded from it: the tool, the file it names, whether it edits
// it and, for the agent's shell, the command, as [Spec.ToolCall] reads
// them for the hook gate. It reports false when the payload is not a tool
// call, or the agent has no such moment.
func (s Spec) BeforeTool(data []byte, e *event.Event) bool {
	if s.ToolCall == nil {
		return false
	}
	c, ok := s.ToolCall(data)
	if !ok {
		return false
	}
	e.Tool, e.Path, e.Edits, e.Shell, e.Command = c.Tool, c.Path, c.Edits, c.Shell, c.Command
	return true
}
