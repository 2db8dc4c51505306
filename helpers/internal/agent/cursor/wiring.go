package cursor

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/agent/cursor/hooks"
	"github.com/cairn-dev/cairn/helpers/internal/agent/launcher"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
)

// hooksFile is the project's Cursor hooks file, under .cursor.
const hooksFile = "hooks.json"

// maxFile caps how much of hooks.json is read.
const maxFile = 1 << 20

// cursorDir is the project's .cursor directory.
func cursorDir(project string) fsx.Root { return fsx.NewRoot(filepath.Join(project, ".cursor")) }

// Adapter is Cursor's [agent.Adapter].
type Adapter struct{}

var _ agent.Adapter = Adapter{}

// Name is "cursor".
func (Adapter) Name() string { return hooks.Spec.Name }

// Title is "Cursor".
func (Adapter) Title() string { return hooks.Spec.Title }

// Wiring describes what Wire writes.
func (Adapter) Wiring() string {
	return ".cairn/hook (the launcher) and its hooks in .cursor/hooks.json (sessionStart, afterShellExecution, afterAgentResponse, postToolUse on Read and Write)"
}

// Paths are .cairn and .cursor/hooks.json.
func (Adapter) Paths() []string { return []string{".cairn", ".cursor/hooks.json"} }

// Wire writes the committed launcher (.cairn/hook, in cairnDir) and the
// project's hooks that run it (.cursor/hooks.json), each only where it
// differs, and reports whether it wrote. The user's other hooks and keys
// in hooks.json are kept.
func (Adapter) Wire(project string, cairnDir fsx.Root) (bool, error) {
	changed, err := launcher.Write(cairnDir)
	if err != nil {
		return false, err
	}
	wrote, err := agent.EditConfig(cursorDir(project), hooksFile, install)
	if err != nil {
		return false, err
	}
	return changed || wrote, nil
}

// Unwire removes cairn's hooks from .cursor/hooks.json, and only those,
// and says what it removed: a file left with nothing but its version is
// deleted, and .cursor with it when that leaves it empty. The launcher
// stays (other agents' wiring may run it).
func (Adapter) Unwire(project string, _ fsx.Root) ([]string, error) {
	dir := cursorDir(project)
	data, err := agent.ReadConfig(dir, hooksFile)
	if err != nil || data == nil {
		return nil, err
	}
	out, changed, empty, err := uninstall(data)
	if err != nil || !changed {
		return nil, err
	}
	if empty {
		if err := dir.Remove(hooksFile); err != nil {
			return nil, err
		}
		os.Remove(dir.Dir()) // only if empty
	} else if err := dir.WriteAtomic(hooksFile, out, 0o644); err != nil {
		return nil, err
	}
	return []string{"cairn's hooks from .cursor/hooks.json"}, nil
}

// Uses reports whether the project's .cursor/hooks.json runs the launcher
// for any event.
func (Adapter) Uses(project string) bool {
	data, err := cursorDir(project).ReadFile(hooksFile, maxFile)
	if err != nil {
		return false
	}
	missing, err := wiredEvents(data)
	return err == nil && len(missing) < len(registeredEvents())
}

// CheckWiring reports the project's Cursor wiring: the hooks in
// .cursor/hooks.json and the launcher they run. A project without either
// is fine: not every team uses Cursor.
func (Adapter) CheckWiring(project string, cairnDir fsx.Root, _ string) agent.Wiring {
	state, lerr := launcher.Check(cairnDir)
	data, ferr := agent.ReadConfig(cursorDir(project), hooksFile)
	missing, perr := wiredEvents(data)
	if ferr == nil && perr == nil && len(missing) == len(registeredEvents()) {
		return agent.Status("ok", "Cursor: not wired (cairn init --cursor wires it, for teammates who use Cursor)", "")
	}
	switch {
	case ferr != nil:
		return agent.Status("fail", "Cursor: "+ferr.Error(), "")
	case perr != nil:
		return agent.Status("fail", "Cursor: "+perr.Error(), "fix .cursor/hooks.json by hand (it must be one JSON object), then cairn init --cursor")
	case lerr != nil:
		return agent.Status("fail", "Cursor: "+lerr.Error(), "cairn init --cursor")
	case state == launcher.Missing:
		return agent.Status("fail", "Cursor: .cursor/hooks.json runs .cairn/hook, which is missing", "cairn init --cursor, then commit .cairn/hook")
	case state == launcher.NotExecutable:
		return agent.Status("fail", "Cursor: .cairn/hook is not executable: every hook fails", "chmod +x .cairn/hook && git add --chmod=+x .cairn/hook")
	case len(missing) > 0:
		detail := "Cursor: .cursor/hooks.json does not run .cairn/hook for " + strings.Join(missing, ", ")
		if what, later := agent.MissingLater(missing, hooks.Spec.Kind); later {
			return agent.Status("warn", detail+" ("+what+"; capture and recall work)", "cairn init --cursor, then commit .cursor/hooks.json")
		}
		return agent.Status("fail", detail, "cairn init --cursor, then commit .cursor/hooks.json")
	}
	return agent.Status("ok", "Cursor: .cursor/hooks.json runs .cairn/hook for every event", "")
}

// registeredEvents are the names of the events cairn registers.
func registeredEvents() []string {
	names := make([]string, len(hooks.Events))
	for i, h := range hooks.Events {
		names[i] = h.Event
	}
	return names
}

// ForeignHooks lists the hooks of .cursor/hooks.json that cairn did not
// write there (see [agent.ForeignHooks]).
func (Adapter) ForeignHooks(project string) (string, []string, error) {
	var ours []string
	for _, name := range registeredEvents() {
		ours = append(ours, command(name))
	}
	return agent.ForeignHooksIn(cursorDir(project), hooksFile, ".cursor/"+hooksFile, ours, nil)
}
