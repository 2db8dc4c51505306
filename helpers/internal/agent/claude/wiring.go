package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/agent/claude/hooks"
	"github.com/cairn-dev/cairn/helpers/internal/agent/launcher"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
)

// maxSettings caps how much of a settings or launcher file is read.
const maxSettings = 1 << 20

// ErrSettings marks a .claude/settings.json that cairn cannot edit (not
// valid JSON): the person fixes it by hand.
var ErrSettings = errors.New("cannot edit .claude/settings.json")

// claudeDir is the project's .claude directory.
func claudeDir(project string) fsx.Root { return fsx.NewRoot(filepath.Join(project, ".claude")) }

// Adapter is Claude Code's [agent.Adapter].
type Adapter struct{}

var _ agent.Adapter = Adapter{}

// Name is "claude".
func (Adapter) Name() string { return hooks.Spec.Name }

// Title is "Claude Code".
func (Adapter) Title() string { return hooks.Spec.Title }

// Wiring describes what Wire writes.
func (Adapter) Wiring() string {
	return ".cairn/hook (the launcher), its hooks in .claude/settings.json, and /recall, /learn, /curate and the knowledge-researcher agent in .claude/"
}

// Paths are .cairn and .claude.
func (Adapter) Paths() []string { return []string{".cairn", ".claude"} }

// Uses reports whether the project's .claude/settings.json runs the
// launcher for any event.
func (Adapter) Uses(project string) bool {
	data, err := claudeDir(project).ReadFile("settings.json", maxSettings)
	if err != nil {
		return false
	}
	missing, err := Wired(data)
	return err == nil && len(missing) < len(Events)
}

// Wire writes the committed launcher (.cairn/hook, in cairnDir), the
// project's hooks that run it (.claude/settings.json) and the plugin's
// slash commands and agent (.claude/commands, .claude/agents), each only
// where it differs, and reports whether it wrote.
func (Adapter) Wire(project string, cairnDir fsx.Root) (bool, error) {
	changed, err := launcher.Write(cairnDir)
	if err != nil {
		return false, err
	}
	dir := claudeDir(project)
	data, err := agent.ReadConfig(dir, "settings.json")
	if err != nil {
		return false, err
	}
	out, wrote, err := Project(data)
	if err != nil {
		return false, fmt.Errorf("%w: %w", ErrSettings, err)
	}
	files, err := installProjectFiles(dir)
	if err != nil {
		return false, err
	}
	changed = changed || files
	if wrote {
		if len(bytes.TrimSpace(data)) == 0 {
			// A file of cairn's own making: indented, as people write it.
			var buf bytes.Buffer
			if json.Indent(&buf, out, "", "  ") == nil {
				out = buf.Bytes()
			}
		}
		if err := dir.WriteAtomic("settings.json", out, 0o644); err != nil {
			return false, err
		}
		changed = true
	}
	return changed, nil
}

// Unwire removes what Wire added, and only that, and says what it removed.
func (Adapter) Unwire(project string, cairnDir fsx.Root) ([]string, error) {
	var removed []string
	dir := claudeDir(project)
	data, err := agent.ReadConfig(dir, "settings.json")
	if err != nil {
		return nil, err
	}
	if data != nil {
		out, changed, err := uninstall(data)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrSettings, err)
		}
		if changed {
			var rest map[string]any
			if json.Unmarshal(out, &rest) == nil && len(rest) == 0 {
				// Nothing but cairn's hooks was there: no empty residue.
				if err := dir.Remove("settings.json"); err != nil {
					return nil, err
				}
				os.Remove(dir.Dir()) // only if empty
			} else if err := dir.WriteAtomic("settings.json", out, 0o644); err != nil {
				return nil, err
			}
			removed = append(removed, "cairn's hooks from .claude/settings.json")
		}
	}
	if n, err := removeProjectFiles(dir); err != nil {
		return nil, err
	} else if n > 0 {
		removed = append(removed, fmt.Sprintf("%d slash command and agent file(s) from .claude/", n))
		os.Remove(dir.Dir()) // only if empty
	}
	return removed, nil
}

// installProjectFiles writes the plugin's slash commands and agent into
// .claude/commands and .claude/agents, so /recall, /learn and /curate work
// by those names in the project; a file of the same name that cairn did
// not install is left alone. It reports whether it wrote.
func installProjectFiles(dir fsx.Root) (bool, error) {
	wrote := false
	err := fs.WalkDir(cairn.PluginFiles, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, err := cairn.PluginFiles.ReadFile(path)
		if err != nil {
			return err
		}
		want := projectFile(src)
		cur, err := dir.ReadFile(path, maxSettings)
		switch {
		case err == nil && (bytes.Equal(cur, want) || !isProjectFile(cur)):
			return nil // current, or the project's own file
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return err
		}
		wrote = true
		return dir.WriteAtomic(path, want, 0o644)
	})
	return wrote, err
}

// removeProjectFiles removes the commands and agent that Wire installed
// (those that carry its mark), and the directories they leave empty; it
// returns how many it removed.
func removeProjectFiles(dir fsx.Root) (int, error) {
	n := 0
	dirs := map[string]bool{}
	err := fs.WalkDir(cairn.PluginFiles, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		cur, err := dir.ReadFile(path, maxSettings)
		if err != nil || !isProjectFile(cur) {
			return nil
		}
		if err := dir.Remove(path); err != nil {
			return err
		}
		dirs[filepath.Dir(path)] = true
		n++
		return nil
	})
	for d := range dirs {
		os.Remove(dir.Path(d)) // only if empty
	}
	return n, err
}

// CheckWiring reports the project's Claude Code wiring: the launcher, and
// the hooks in .claude/settings.json that run it; without either, whether
// the user's own cairn plugin covers the project.
func (Adapter) CheckWiring(project string, cairnDir fsx.Root, home string) agent.Wiring {
	state, lerr := launcher.Check(cairnDir)
	data, serr := claudeDir(project).ReadFile("settings.json", maxSettings)
	missing, perr := Wired(data)
	wired := serr == nil && perr == nil && len(missing) < len(Events)
	if state == launcher.Missing && !wired {
		if personalPlugin(home) {
			return agent.Status("ok", "your personal cairn plugin is enabled (user scope); teammates without it get nothing: cairn init --claude wires the project for everyone", "")
		}
		return agent.Status("warn", "the project has no Claude Code wiring, and no personal cairn plugin is enabled: no hook runs cairn here",
			"cairn init --claude, then commit .cairn and .claude (or ./install.sh --plugin from a cairn checkout, for yourself)")
	}
	if serr != nil && errors.Is(serr, fs.ErrNotExist) || perr == nil && !wired && len(missing) == len(Events) {
		// The launcher is another agent's: this project is not wired for
		// Claude Code, which is a choice, not a fault.
		if personalPlugin(home) {
			return agent.Status("ok", "not wired for Claude Code here (other agents run the launcher); your personal cairn plugin is enabled", "")
		}
		return agent.Status("ok", "not wired for Claude Code here (other agents run the launcher): cairn init --claude adds it", "")
	}
	switch {
	case lerr != nil:
		return agent.Status("fail", lerr.Error(), "cairn init --claude")
	case state == launcher.Missing:
		return agent.Status("fail", ".claude/settings.json runs .cairn/hook, which is missing", "cairn init --claude, then commit .cairn/hook")
	case state == launcher.NotExecutable:
		return agent.Status("fail", ".cairn/hook is not executable: every hook fails", "chmod +x .cairn/hook && git add --chmod=+x .cairn/hook")
	case serr != nil || perr != nil || len(missing) > 0:
		detail := ".claude/settings.json does not run .cairn/hook"
		if len(missing) > 0 && wired {
			detail += " for " + strings.Join(missing, ", ")
		}
		if what, later := agent.MissingLater(missing, hooks.Spec.Kind); wired && later {
			// Wired by a cairn before the session pipeline, or before the
			// notes before a tool call: capture and recall work; only
			// those miss their events.
			return agent.Status("warn", detail+" ("+what+"; capture and recall work)",
				"cairn init --claude, then commit .claude/settings.json")
		}
		return agent.Status("fail", detail, "cairn init --claude, then commit .claude/settings.json")
	}
	return agent.Status("ok", ".claude/settings.json runs .cairn/hook for every event", "")
}

// personalPlugin reports whether the user's own Claude Code settings (in
// home) enable cairn's plugin (the marketplace route, user scope).
func personalPlugin(home string) bool {
	if home == "" {
		return false
	}
	data, err := claudeDir(home).ReadFile("settings.json", maxSettings)
	if err != nil {
		return false
	}
	var s struct {
		EnabledPlugins map[string]bool `json:"enabledPlugins"`
	}
	if json.Unmarshal(data, &s) != nil {
		return false
	}
	for name, on := range s.EnabledPlugins {
		if on && strings.HasPrefix(name, "cairn@") {
			return true
		}
	}
	return false
}

// projectSettings is the Claude Code settings file cairn wires.
const projectSettings = ".claude/settings.json"

// ForeignHooks lists the hooks of .claude/settings.json that cairn did not
// write there (see [agent.ForeignHooks]).
func (Adapter) ForeignHooks(project string) (string, []string, error) {
	var ours []string
	for _, h := range Events {
		ours = append(ours, projectCommand+" "+h.Event)
	}
	return agent.ForeignHooksIn(claudeDir(project), "settings.json", projectSettings, ours, nil)
}
