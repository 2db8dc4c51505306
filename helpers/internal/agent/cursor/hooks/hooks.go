// Package hooks is Cursor's table of hook events: each event's name, the
// moment of a session it is, and how it is registered in the project's
// .cursor/hooks.json. The Cursor adapter, its wiring and the capture
// hook's reject path all follow it. It depends on nothing but package
// event, so the reject path can read it before the rest of the program
// starts.
//
// The events and their payloads are Cursor's, as documented at
// https://cursor.com/docs/hooks (formerly https://cursor.com/docs/agent/hooks).
package hooks

import "github.com/cairn-dev/cairn/helpers/internal/event"

// Agent is the Cursor adapter's name, as `cairn hook cursor EVENT` and
// `.cairn/hook --agent cursor EVENT` say it.
const Agent = "cursor"

// Hook is one Cursor hook event cairn handles.
type Hook struct {
	Event   string     // Cursor's name
	Kind    event.Kind // the moment it is
	Timeout int        // seconds, as registered
}

// Events is the one table of Cursor's events cairn registers. Only names
// Cursor documents are here: Cursor ignores a whole hooks.json that names
// an event it does not know, the user's own hooks with it.
//
// Left out on purpose: beforeSubmitPrompt (its output can only let the
// prompt through or block it; it takes no context, so per-prompt recall
// cannot reach the model), stop (it carries no reply text;
// afterAgentResponse does), sessionEnd and preCompact (they serve the
// session pipeline, which reads transcripts cairn cannot read for Cursor).
var Events = []Hook{
	{"sessionStart", event.Start, 120},
	{"afterShellExecution", event.ToolRan, 10},
	{"afterAgentResponse", event.Reply, 10},
}

// StartEvent is the session-start event: the one whose answer reaches the
// model (additional_context), and the one the launcher answers, without
// cairn, with [NotInstalledFormat].
const StartEvent = "sessionStart"

// NotInstalledFormat is the launcher's answer to [StartEvent] on a machine
// without cairn: Cursor's sessionStart output, with %s (printf) for the
// notice. Cursor shows a sessionStart hook's output to no one but the
// model, so the notice is there alone.
const NotInstalledFormat = `{"additional_context":"%s"}\n`

// Kind is the moment Cursor's event name stands for; Unknown for a name
// cairn does not handle.
func Kind(name string) event.Kind {
	for _, h := range Events {
		if h.Event == name {
			return h.Kind
		}
	}
	return event.Unknown
}

// ProjectVar is the variable in which Cursor names the project.
const ProjectVar = "CURSOR_PROJECT_DIR"
