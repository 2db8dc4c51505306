package opencode

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/agent/claude"
	"github.com/cairn-dev/cairn/helpers/internal/event"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
)

// maxFile caps how much of the plugin or the launcher is read.
const maxFile = 1 << 20

// launcherFile is the launcher's name under .cairn.
const launcherFile = "hook"

// pluginName is the plugin's name under .opencode.
const pluginName = "plugins/cairn.js"

// ErrForeignPlugin marks a .opencode/plugins/cairn.js that cairn did not
// write: Wire leaves it alone, and the person moves it away.
var ErrForeignPlugin = errors.New(PluginFile + " exists and is not cairn's plugin; move it away and run cairn init --opencode again")

// Adapter is OpenCode's [agent.Adapter].
type Adapter struct{}

var _ agent.Adapter = Adapter{}

// Name is "opencode".
func (Adapter) Name() string { return Name }

// Title is "OpenCode".
func (Adapter) Title() string { return "OpenCode" }

// Kind is the moment the plugin's event name stands for.
func (Adapter) Kind(name string) event.Kind { return Kind(name) }

// Decode is [Decode].
func (Adapter) Decode(name string, payload []byte, getenv func(string) string) (event.Event, error) {
	return Decode(name, payload, getenv)
}

// Encode is [Encode].
func (Adapter) Encode(e event.Event, a event.Answer) ([]byte, error) { return Encode(e, a) }

// ReadTranscript is [ReadTranscript]: not supported.
func (Adapter) ReadTranscript(r io.Reader) (event.Conversation, error) { return ReadTranscript(r) }

// Wiring describes what Wire writes.
func (Adapter) Wiring() string {
	return ".cairn/hook (the launcher) and " + PluginFile + ", an OpenCode plugin that runs it"
}

// Paths are .cairn and the plugin.
func (Adapter) Paths() []string { return []string{".cairn", PluginFile} }

// Wire is [Wire].
func (Adapter) Wire(project string, cairnDir fsx.Root) (bool, error) { return Wire(project, cairnDir) }

// Unwire is [Unwire].
func (Adapter) Unwire(project string, cairnDir fsx.Root) ([]string, error) {
	return Unwire(project, cairnDir)
}

// CheckWiring is [CheckWiring].
func (Adapter) CheckWiring(project string, cairnDir fsx.Root, home string) agent.Wiring {
	return CheckWiring(project, cairnDir, home)
}

// opencodeDir is the project's .opencode directory.
func opencodeDir(project string) fsx.Root { return fsx.NewRoot(filepath.Join(project, ".opencode")) }

// readOptional reads name under r; a missing file is nil, no error.
func readOptional(r fsx.Root, name string) ([]byte, error) {
	data, err := r.ReadFile(name, maxFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// Wire writes the committed launcher (.cairn/hook, in cairnDir) and the
// plugin that runs it (.opencode/plugins/cairn.js), each only where it
// differs, and reports whether it wrote. A cairn.js that cairn did not
// write is left alone ([ErrForeignPlugin]).
func Wire(project string, cairnDir fsx.Root) (bool, error) {
	dir := opencodeDir(project)
	cur, err := readOptional(dir, pluginName)
	if err != nil {
		return false, err
	}
	if cur != nil && !IsPlugin(cur) {
		return false, ErrForeignPlugin
	}
	changed, err := writeLauncher(cairnDir)
	if err != nil {
		return false, err
	}
	if want := []byte(Plugin()); !bytes.Equal(cur, want) {
		if err := dir.WriteAtomic(pluginName, want, 0o644); err != nil {
			return false, err
		}
		changed = true
	}
	return changed, nil
}

// Unwire removes the plugin if cairn wrote it (any version of it), and
// the directories it leaves empty, and the launcher when no other agent's
// wiring runs it; it says what it removed. What OpenCode itself put in
// .opencode (its .gitignore, package.json, node_modules) stays.
func Unwire(project string, cairnDir fsx.Root) ([]string, error) {
	var removed []string
	dir := opencodeDir(project)
	cur, err := readOptional(dir, pluginName)
	if err != nil {
		return nil, err
	}
	if cur != nil && IsPlugin(cur) {
		if err := dir.Remove(pluginName); err != nil {
			return nil, err
		}
		removed = append(removed, PluginFile)
		os.Remove(dir.Path("plugins")) // only if empty
		os.Remove(dir.Dir())           // only if empty
	}
	if launcherInUse(project) {
		return removed, nil
	}
	if cur, err := readOptional(cairnDir, launcherFile); err == nil && cur != nil {
		if err := cairnDir.Remove(launcherFile); err != nil {
			return nil, err
		}
		removed = append(removed, ".cairn/hook")
	}
	return removed, nil
}

// CheckWiring reports the project's OpenCode wiring: the plugin, and the
// launcher it runs. A project without the plugin is not an error: its
// team may not use OpenCode.
func CheckWiring(project string, cairnDir fsx.Root, _ string) agent.Wiring {
	plugin, perr := readOptional(opencodeDir(project), pluginName)
	launcher, lerr := readOptional(cairnDir, launcherFile)
	switch {
	case perr != nil:
		return wiring("fail", "OpenCode: "+perr.Error(), "cairn init --opencode")
	case plugin == nil:
		return wiring("ok", "OpenCode: not wired (cairn init --opencode adds a plugin for teammates who use OpenCode)", "")
	case !IsPlugin(plugin):
		return wiring("warn", "OpenCode: "+PluginFile+" is not cairn's plugin: OpenCode sessions here do not run cairn",
			"move it away, then cairn init --opencode")
	case lerr != nil:
		return wiring("fail", "OpenCode: "+lerr.Error(), "cairn init --opencode")
	case launcher == nil:
		return wiring("fail", "OpenCode: "+PluginFile+" runs .cairn/hook, which is missing", "cairn init --opencode, then commit .cairn/hook")
	case !isExecutable(cairnDir, launcherFile):
		return wiring("fail", "OpenCode: .cairn/hook is not executable: the plugin cannot run cairn", "chmod +x .cairn/hook && git add --chmod=+x .cairn/hook")
	case !strings.Contains(string(launcher), agentMode):
		return wiring("fail", "OpenCode: .cairn/hook predates agent mode: the plugin's events reach no cairn",
			"cairn init --opencode (rewrites it), then commit it")
	case string(plugin) != Plugin():
		return wiring("warn", "OpenCode: "+PluginFile+" differs from this cairn's plugin",
			"cairn init --opencode (rewrites it), then commit it")
	}
	return wiring("ok", "OpenCode: "+PluginFile+" runs .cairn/hook for every event", "")
}

// isExecutable reports whether the file name under r has an execute bit
// for its owner.
func isExecutable(r fsx.Root, name string) bool {
	f, err := r.OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	return err == nil && fi.Mode().Perm()&0o100 != 0
}

func wiring(status, detail, fix string) agent.Wiring {
	return agent.Wiring{Status: status, Detail: detail, Fix: fix}
}

// NotInstalledOutput is what the launcher prints, without a cairn on the
// machine, for the plugin's SessionStart: the notice, as context for the
// model and as the person's status line.
func NotInstalledOutput() string {
	out, _ := EncodeOutput(Output{Context: claude.NotInstalled, Status: "cairn: " + claude.NotInstalled})
	return strings.TrimSuffix(string(out), "\n")
}

// TEMPORARY, until the lead's launcher package (agent/launcher,
// launcher.Write) lands on main: the launcher is Claude Code's with an
// agent mode put in front of it, `.cairn/hook --agent NAME EVENT`, which
// runs `cairn hook NAME EVENT` with the same stdin and always exits 0;
// without cairn it prints nothing but the notice for OpenCode's
// SessionStart. Replace writeLauncher, tempLauncher, agentMode and
// launcherInUse with the launcher package once it is there.
const agentMode = `if [ "${1:-}" = --agent ]; then`

// tempLauncher is the launcher with agent mode (TEMPORARY, see above).
func tempLauncher() string {
	notice := strings.ReplaceAll(NotInstalledOutput(), "'", "")
	block := agentMode + `
  # Agent mode: .cairn/hook --agent NAME EVENT runs cairn hook NAME EVENT.
  CAIRN_IN_HOOK=1
  export CAIRN_IN_HOOK
  for c in "${CAIRN_BIN:-}" "$(command -v cairn 2>/dev/null)" "$HOME/.local/bin/cairn" "${GOBIN:-/nonexistent}/cairn" "${GOPATH:-$HOME/go}/bin/cairn"; do
    if [ -n "$c" ] && [ -x "$c" ]; then
      CAIRN_LAUNCHED=1
      export CAIRN_LAUNCHED
      exec "$c" hook "${2:-}" "${3:-}"
    fi
  done
  cat >/dev/null
  if [ "${2:-}" = opencode ] && [ "${3:-}" = SessionStart ]; then
    printf '%s\n' '` + notice + `'
  fi
  exit 0
fi
`
	return "#!/bin/sh\n" + block + strings.TrimPrefix(claude.Launcher, "#!/bin/sh\n")
}

// writeLauncher writes the launcher where it differs (TEMPORARY, see
// above) and reports whether it wrote.
func writeLauncher(cairnDir fsx.Root) (bool, error) {
	want := []byte(tempLauncher())
	cur, err := readOptional(cairnDir, launcherFile)
	if err != nil {
		return false, err
	}
	changed := false
	if !bytes.Equal(cur, want) {
		if err := cairnDir.WriteAtomic(launcherFile, want, 0o755); err != nil {
			return false, err
		}
		changed = true
	}
	return changed, cairnDir.Chmod(launcherFile, 0o755)
}

// launcherInUse reports whether another agent's wiring runs the launcher
// (TEMPORARY, see above: Claude Code's settings are the only other).
func launcherInUse(project string) bool {
	data, err := readOptional(fsx.NewRoot(filepath.Join(project, ".claude")), "settings.json")
	if err != nil || data == nil {
		return err != nil // unreadable: keep the launcher
	}
	missing, err := claude.Wired(data)
	return err != nil || len(missing) < len(claude.Hooks)
}
