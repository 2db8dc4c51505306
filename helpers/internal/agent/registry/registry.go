// Package registry is the one list of the coding agents cairn knows, in
// its first layer: each agent's [spec.Spec], declared in the agent's leaf
// package agent/NAME/hooks. The CLI's flags, the hook gate, the launcher
// and init, uninstall and doctor all read it, directly or through the
// second layer, package agent/adapters, which holds the same agents as
// their adapters (a test there fails when the two disagree, and when a
// list of agents appears anywhere else).
//
// It imports nothing but the agents' spec packages, all leaves, so that
// package hookgate can read it in its init, before the rest of the
// program starts: the adapters' own imports would run first (see
// hookgate's package doc). Adding an agent is one spec package and one
// adapter package, and one line here and in agent/adapters (see "How to
// add" in docs/ARCHITECTURE.md).
package registry

import (
	claudehooks "github.com/cairn-dev/cairn/helpers/internal/agent/claude/hooks"
	codexhooks "github.com/cairn-dev/cairn/helpers/internal/agent/codex/hooks"
	cursorhooks "github.com/cairn-dev/cairn/helpers/internal/agent/cursor/hooks"
	geminihooks "github.com/cairn-dev/cairn/helpers/internal/agent/gemini/hooks"
	opencodehooks "github.com/cairn-dev/cairn/helpers/internal/agent/opencode/hooks"
	"github.com/cairn-dev/cairn/helpers/internal/agent/spec"
)

// Agents are the agents cairn knows, in the order init's flags and
// doctor's checks list them. (Pointers to the specs, so that the list
// needs no work at init: the hook gate's path runs after every init it
// imports.)
var Agents = []*spec.Spec{
	&claudehooks.Spec,
	&cursorhooks.Spec,
	&codexhooks.Spec,
	&opencodehooks.Spec,
	&geminihooks.Spec,
}

// Default is the agent of `cairn hook EVENT` and of `.cairn/hook EVENT`
// (no AGENT): Claude Code, whose plugin's hooks.json says it so.
const Default = claudehooks.Agent

// Find returns the agent named name.
func Find(name string) (spec.Spec, bool) {
	for _, a := range Agents {
		if a.Name == name {
			return *a, true
		}
	}
	return spec.Spec{}, false
}

// Names are the agents' names, in [Agents]' order.
func Names() []string {
	out := make([]string, len(Agents))
	for i, a := range Agents {
		out[i] = a.Name
	}
	return out
}
