// Package adapters is the agent registry's second layer: every agent of
// package agent/registry as its [agent.Adapter], in the same order. The
// CLI (init's and uninstall's flags, doctor, the full hook, the session
// pipeline's readers, the MCP server) and the capture hook's accept path
// read it. It is apart from the first layer because the hook gate reads
// that one in its init and must not wait for the adapters' imports; a test
// here fails when the layers disagree, and when a list of agents appears
// anywhere else in the program.
package adapters

import (
	"slices"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/agent/claude"
	"github.com/cairn-dev/cairn/helpers/internal/agent/codex"
	"github.com/cairn-dev/cairn/helpers/internal/agent/cursor"
	"github.com/cairn-dev/cairn/helpers/internal/agent/gemini"
	"github.com/cairn-dev/cairn/helpers/internal/agent/opencode"
	"github.com/cairn-dev/cairn/helpers/internal/agent/registry"
)

// all are the adapters, one per agent of registry.Agents, in its order.
var all = []agent.Adapter{
	claude.Adapter{},
	cursor.Adapter{},
	codex.Adapter{},
	opencode.Adapter{},
	gemini.Adapter{},
}

// All returns every adapter, in the registry's order.
func All() []agent.Adapter { return slices.Clone(all) }

// Find returns the adapter named name.
func Find(name string) (agent.Adapter, bool) { return agent.Find(all, name) }

// Default is the adapter of [registry.Default], the agent of `cairn hook
// EVENT`.
func Default() agent.Adapter {
	a, _ := Find(registry.Default)
	return a
}
