// Package registry is the one list of the coding agents cairn knows, in
// its first layer: each agent's name, its event table (the agent's
// agent/NAME/hooks package), whether cairn reads its transcripts, and the
// launcher's answer without cairn. The CLI's flags, the hook gate, the
// launcher and init, uninstall and doctor all read it, directly or
// through the second layer, package agent/adapters, which holds the same
// agents as their adapters (a test there fails when the two disagree, and
// when a list of agents appears anywhere else).
//
// It imports nothing but package event and the agents' event tables, all
// leaves, so that package hookgate can read it in its init, before the
// rest of the program starts: the adapters' own imports would run first
// (see hookgate's package doc). Adding an agent is one adapter package
// (with its hooks table) and one line here and in agent/adapters.
package registry

import (
	claudehooks "github.com/cairn-dev/cairn/helpers/internal/agent/claude/hooks"
	codexhooks "github.com/cairn-dev/cairn/helpers/internal/agent/codex/hooks"
	cursorhooks "github.com/cairn-dev/cairn/helpers/internal/agent/cursor/hooks"
	geminihooks "github.com/cairn-dev/cairn/helpers/internal/agent/gemini/hooks"
	opencodehooks "github.com/cairn-dev/cairn/helpers/internal/agent/opencode/hooks"
	"github.com/cairn-dev/cairn/helpers/internal/event"
)

// Agent is one coding agent, as the hook gate and the launcher see it.
type Agent struct {
	// Name is the adapter's name: init's flag (--claude) and the AGENT of
	// `cairn hook AGENT EVENT`.
	Name string
	// Kind is the moment the agent's event name stands for
	// (event.Unknown for an event cairn does not handle).
	Kind func(name string) event.Kind
	// Transcript is true when the agent's payloads name the session's
	// transcript as Claude Code's do (session_id, transcript_path, cwd)
	// and cairn reads it: the hook gate queues its replies for the session
	// pipeline.
	Transcript bool
	// StartEvent is the session-start event the launcher answers, without
	// cairn, with NotInstalled: the agent's own output format with
	// {person} for the person's notice and {model} for the model's.
	StartEvent, NotInstalled string
	// ProjectVar is the variable in which the agent names the project to
	// its hooks ("" for none; see package projroot).
	ProjectVar string
	// ToolCall reads the agent's payload before a tool call for the hook
	// gate's no-match path; nil when cairn answers no such moment for it.
	ToolCall func(data []byte) (event.ToolCall, bool)
	// HoldForTool: the moment before a tool reaches the model for every
	// file the agent reads or edits, so the session start may leave the
	// notes anchored to files to it (see recall.HeldForTool). False where
	// that moment is partial or unconfirmed (Cursor's postToolUse).
	HoldForTool bool
}

// Agents are the agents cairn knows, in the order init's flags and
// doctor's checks list them.
var Agents = []Agent{
	{claudehooks.Agent, claudehooks.Kind, true, claudehooks.StartEvent, claudehooks.NotInstalledFormat, claudehooks.ProjectVar, claudehooks.ToolCall, true},
	{cursorhooks.Agent, cursorhooks.Kind, false, cursorhooks.StartEvent, cursorhooks.NotInstalledFormat, cursorhooks.ProjectVar, cursorhooks.ToolCall, false},
	{codexhooks.Agent, codexhooks.Kind, true, codexhooks.StartEvent, codexhooks.NotInstalledFormat, codexhooks.ProjectVar, codexhooks.ToolCall, true},
	{opencodehooks.Agent, opencodehooks.Kind, false, opencodehooks.StartEvent, opencodehooks.NotInstalledFormat, opencodehooks.ProjectVar, opencodehooks.ToolCall, true},
	{geminihooks.Agent, geminihooks.Kind, true, geminihooks.StartEvent, geminihooks.NotInstalledFormat, geminihooks.ProjectVar, geminihooks.ToolCall, true},
}

// Default is the agent of `cairn hook EVENT` and of `.cairn/hook EVENT`
// (no AGENT): Claude Code, whose plugin's hooks.json says it so.
const Default = claudehooks.Agent

// Find returns the agent named name.
func Find(name string) (Agent, bool) {
	for _, a := range Agents {
		if a.Name == name {
			return a, true
		}
	}
	return Agent{}, false
}

// Names are the agents' names, in [Agents]' order.
func Names() []string {
	out := make([]string, len(Agents))
	for i, a := range Agents {
		out[i] = a.Name
	}
	return out
}
