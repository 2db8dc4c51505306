// Package cairn holds cairn's version and the files of the Claude Code
// plugin that the binary also installs into a project wired with `cairn
// init --claude`: the slash commands and the agent, embedded from where
// the plugin ships them, so the two never differ. The Go code of cairn lives under helpers/.
package cairn

import "embed"

// PluginFiles are the plugin's commands/*.md and agents/*.md.
//
//go:embed commands/*.md agents/*.md
var PluginFiles embed.FS

// Version is cairn's version: the binary's, the plugin's
// (.claude-plugin/plugin.json) and the wrapper's (scripts/cairn-bin, which
// rebuilds the binary when they differ). A test ties the three.
const Version = "0.1.0"

// InstallCommand is the one command that installs cairn on a machine.
const InstallCommand = "go install github.com/cairn-dev/cairn/helpers/cairn@latest"
