// Package cairn holds cairn's version, how this binary was installed, and
// the files of the Claude Code plugin that the binary also installs into
// a project wired with `cairn init --claude`: the slash commands and the
// agent, embedded from where the plugin ships them, so the two never
// differ. The Go code of cairn lives under helpers/.
package cairn

import (
	"embed"
	"runtime/debug"
	"strings"
)

// PluginFiles are the plugin's commands/*.md and agents/*.md.
//
//go:embed commands/*.md agents/*.md
var PluginFiles embed.FS

// Version is cairn's version: the binary's, the plugin's
// (.claude-plugin/plugin.json) and the wrapper's (scripts/cairn-bin, which
// rebuilds the binary when they differ). A test ties the three.
const Version = "0.1.0"

// Source is the clone URL of the cairn checkout this binary was built
// from, when the build said so: install.sh stamps it with
// -ldflags "-X github.com/cairn-dev/cairn.Source=URL" (the checkout's
// origin, else its path).
var Source string

// NoRouteHint is what a teammate is told when nothing says how cairn was
// installed here: the route that works wherever a cairn checkout is.
const NoRouteHint = "clone the cairn repository (ask the teammate who set up cairn here for its URL) and run ./install.sh in it"

// ModelInstallNotice is all a model is told of installing or updating
// cairn: the route itself (a repository's install hint above all) goes to
// the person only.
const ModelInstallNotice = "cairn is missing or too old; the person has been told how to install it"

// InstallHint is the command that installs this cairn on another machine,
// as far as the binary knows how it was installed: from a checkout by
// install.sh, `git clone SOURCE cairn && cd cairn && ./install.sh`; by
// `go install MODULE@VERSION` of a published version, that command; else
// "" (a plain go build: nothing says where from).
func InstallHint() string {
	if Source != "" {
		return "git clone " + Source + " cairn && cd cairn && ./install.sh"
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok || !published(bi) {
		return ""
	}
	return "go install " + bi.Path + "@" + bi.Main.Version
}

// published reports whether bi is a build of a module version fetched by
// go install MODULE@VERSION: a version, and none of the VCS stamps a build
// in a checkout carries.
func published(bi *debug.BuildInfo) bool {
	v := bi.Main.Version
	if v == "" || v == "(devel)" || strings.Contains(v, "+dirty") {
		return false
	}
	for _, s := range bi.Settings {
		if strings.HasPrefix(s.Key, "vcs") {
			return false
		}
	}
	return true
}
