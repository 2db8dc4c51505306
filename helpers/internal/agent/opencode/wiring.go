package opencode

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/agent/launcher"
	"github.com/cairn-dev/cairn/helpers/internal/agent/opencode/hooks"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
)

// pluginName is the plugin's name under .opencode.
const pluginName = "plugins/cairn.js"

// errForeignPlugin marks a .opencode/plugins/cairn.js that cairn did not
// write: Wire leaves it alone, and the person moves it away.
var errForeignPlugin = errors.New(pluginFile + " exists and is not cairn's plugin; move it away and run cairn init --opencode again")

// Adapter is OpenCode's [agent.Adapter].
type Adapter struct{}

var _ agent.Adapter = Adapter{}

// Name is "opencode".
func (Adapter) Name() string { return hooks.Spec.Name }

// Title is "OpenCode".
func (Adapter) Title() string { return hooks.Spec.Title }

// Wiring describes what Wire writes.
func (Adapter) Wiring() string {
	return ".cairn/hook (the launcher) and " + pluginFile + ", an OpenCode plugin that runs it"
}

// Paths are .cairn and the plugin.
func (Adapter) Paths() []string { return []string{".cairn", pluginFile} }

// opencodeDir is the project's .opencode directory.
func opencodeDir(project string) fsx.Root { return fsx.NewRoot(filepath.Join(project, ".opencode")) }

// Wire writes the committed launcher (.cairn/hook, in cairnDir) and the
// plugin that runs it (.opencode/plugins/cairn.js), each only where it
// differs, and reports whether it wrote. A cairn.js that cairn did not
// write is left alone ([errForeignPlugin]).
func (Adapter) Wire(project string, cairnDir fsx.Root) (bool, error) {
	dir := opencodeDir(project)
	cur, err := agent.ReadConfig(dir, pluginName)
	if err != nil {
		return false, err
	}
	if cur != nil && !isPlugin(cur) {
		return false, errForeignPlugin
	}
	changed, err := launcher.Write(cairnDir)
	if err != nil {
		return false, err
	}
	if want := []byte(pluginText()); !bytes.Equal(cur, want) {
		if err := dir.WriteAtomic(pluginName, want, 0o644); err != nil {
			return false, err
		}
		changed = true
	}
	return changed, nil
}

// Unwire removes the plugin if cairn wrote it (any version of it), and
// the directories it leaves empty, and says what it removed. What OpenCode
// itself put in .opencode (its .gitignore, package.json, node_modules)
// stays, and so does the launcher: the CLI removes it once no agent's
// wiring runs it ([Adapter.Uses]).
func (Adapter) Unwire(project string, _ fsx.Root) ([]string, error) {
	dir := opencodeDir(project)
	cur, err := agent.ReadConfig(dir, pluginName)
	if err != nil || cur == nil || !isPlugin(cur) {
		return nil, err
	}
	if err := dir.Remove(pluginName); err != nil {
		return nil, err
	}
	os.Remove(dir.Path("plugins")) // only if empty
	os.Remove(dir.Dir())           // only if empty
	return []string{pluginFile}, nil
}

// Uses reports whether the project's .opencode/plugins/cairn.js is cairn's
// plugin, which runs the launcher.
func (Adapter) Uses(project string) bool {
	data, err := agent.ReadConfig(opencodeDir(project), pluginName)
	return err == nil && isPlugin(data)
}

// CheckWiring reports the project's OpenCode wiring: the plugin, and the
// launcher it runs. A project without the plugin is not an error: its
// team may not use OpenCode.
func (Adapter) CheckWiring(project string, cairnDir fsx.Root, _ string) agent.Wiring {
	plugin, perr := agent.ReadConfig(opencodeDir(project), pluginName)
	state, lerr := launcher.Check(cairnDir)
	switch {
	case perr != nil:
		return agent.Status("fail", "OpenCode: "+perr.Error(), "cairn init --opencode")
	case plugin == nil:
		return agent.Status("ok", "OpenCode: not wired (cairn init --opencode adds a plugin, for teammates who use OpenCode)", "")
	case !isPlugin(plugin):
		return agent.Status("fail", "OpenCode: "+pluginFile+" is not cairn's plugin: OpenCode sessions here run it, not cairn (a pull may have replaced it: git log -p "+pluginFile+")",
			"move it away, then cairn init --opencode")
	case lerr != nil:
		return agent.Status("fail", "OpenCode: "+lerr.Error(), "cairn init --opencode")
	case state == launcher.Missing:
		return agent.Status("fail", "OpenCode: "+pluginFile+" runs .cairn/hook, which is missing", "cairn init --opencode, then commit .cairn/hook")
	case state == launcher.NotExecutable:
		return agent.Status("fail", "OpenCode: .cairn/hook is not executable: the plugin cannot run cairn", "chmod +x .cairn/hook && git add --chmod=+x .cairn/hook")
	case string(plugin) != pluginText():
		return agent.Status("fail", "OpenCode: "+pluginFile+" differs from what this cairn writes: every OpenCode session here runs it (a pull may have changed it: git log -p "+pluginFile+")",
			"cairn init --opencode (rewrites it), then commit it")
	}
	return agent.Status("ok", "OpenCode: "+pluginFile+" runs .cairn/hook for every event", "")
}

// ForeignHooks lists the plugins of .opencode/plugins besides cairn's:
// OpenCode loads every one of them in every session.
func (Adapter) ForeignHooks(project string) (string, []string, error) {
	ents, err := opencodeDir(project).ReadDir("plugins")
	if errors.Is(err, fs.ErrNotExist) {
		return ".opencode/plugins", nil, nil
	}
	if err != nil {
		return ".opencode/plugins", nil, err
	}
	var out []string
	for _, e := range ents {
		if e.Name != "cairn.js" {
			out = append(out, "plugin "+e.Name)
		}
	}
	return ".opencode/plugins", out, nil
}
