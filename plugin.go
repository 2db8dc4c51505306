// Package cairn holds the files of the Claude Code plugin that the binary
// also installs into a project wired with `cairn init --claude`: the slash
// commands and the agent, embedded from where the plugin ships them, so
// the two never differ. The Go code of cairn lives under helpers/.
package cairn

import "embed"

// PluginFiles are the plugin's commands/*.md and agents/*.md.
//
//go:embed commands/*.md agents/*.md
var PluginFiles embed.FS
