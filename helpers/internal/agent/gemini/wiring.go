package gemini

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/agent/gemini/hooks"
	"github.com/cairn-dev/cairn/helpers/internal/agent/jsonc"
	"github.com/cairn-dev/cairn/helpers/internal/agent/launcher"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
)

// settingsFile is the project's Gemini CLI settings, from its root.
const settingsFile = ".gemini/settings.json"

// errSettings marks a .gemini/settings.json that cairn cannot edit (not
// JSON with comments, or hooks that are not an object): the person fixes
// it by hand.
var errSettings = errors.New("cannot edit .gemini/settings.json")

// geminiDir is the project's .gemini directory.
func geminiDir(project string) fsx.Root { return fsx.NewRoot(filepath.Join(project, ".gemini")) }

// Adapter is Gemini CLI's [agent.Adapter].
type Adapter struct{}

var _ agent.Adapter = Adapter{}

// Name is "gemini".
func (Adapter) Name() string { return hooks.Spec.Name }

// Title is "Gemini CLI".
func (Adapter) Title() string { return hooks.Spec.Title }

// Wiring describes what Wire writes.
func (Adapter) Wiring() string {
	return ".cairn/hook (the launcher) and its hooks in .gemini/settings.json"
}

// Paths are .cairn and .gemini/settings.json: not all of .gemini, which
// may hold a .env with the person's API key (Gemini CLI reads one there).
func (Adapter) Paths() []string { return []string{".cairn", settingsFile} }

// Uses reports whether the project's .gemini/settings.json runs the
// launcher.
func (Adapter) Uses(project string) bool {
	data, err := agent.ReadConfig(geminiDir(project), "settings.json")
	return err == nil && data != nil && hasCairn(data)
}

// Wire writes the committed launcher (.cairn/hook, in cairnDir) and the
// project's hooks that run it (.gemini/settings.json), each only where it
// differs, and reports whether it wrote. The user's other settings, and
// the file's comments and formatting, are kept.
func (Adapter) Wire(project string, cairnDir fsx.Root) (bool, error) {
	changed, err := launcher.Write(cairnDir)
	if err != nil {
		return false, err
	}
	wrote, err := agent.EditConfig(geminiDir(project), "settings.json", func(data []byte) ([]byte, bool, error) {
		out, changed, err := projectSettings(data)
		if err != nil {
			return nil, false, fmt.Errorf("%w: %w", errSettings, err)
		}
		return out, changed, nil
	})
	if err != nil {
		return false, err
	}
	return changed || wrote, nil
}

// Unwire removes cairn's hooks from .gemini/settings.json, and only those,
// and says what it removed; a settings file left with nothing else goes,
// and .gemini with it when that leaves it empty. The launcher stays: the
// CLI removes it once no agent's wiring runs it.
func (Adapter) Unwire(project string, cairnDir fsx.Root) ([]string, error) {
	dir := geminiDir(project)
	data, err := agent.ReadConfig(dir, "settings.json")
	if err != nil || data == nil {
		return nil, err
	}
	out, changed, err := uninstall(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errSettings, err)
	}
	if !changed {
		return nil, nil
	}
	if doc, err := parseSettings(out); err == nil && doc.Root().Len() == 0 && !hasComment(out) {
		// Nothing but cairn's hooks was there: no empty residue.
		if err := dir.Remove("settings.json"); err != nil {
			return nil, err
		}
		os.Remove(dir.Dir()) // only if empty
	} else if err := dir.WriteAtomic("settings.json", out, 0o644); err != nil {
		return nil, err
	}
	return []string{"cairn's hooks from " + settingsFile}, nil
}

// hasComment reports whether a settings file holds a comment.
func hasComment(data []byte) bool { return jsonc.HasComment(data) }

// stripComments is data, JSON with comments, as standard JSON (data itself
// when it does not parse: the JSON reader then says why).
func stripComments(data []byte) []byte {
	if std, err := jsonc.Standard(data); err == nil {
		return std
	}
	return data
}

// CheckWiring reports the project's Gemini CLI wiring: the launcher, the
// hooks in .gemini/settings.json that run it, whether Gemini CLI's hooks
// are turned off, and whether this user's Gemini CLI trusts the project's
// folder (it runs no project hook in a folder it does not trust).
func (Adapter) CheckWiring(project string, cairnDir fsx.Root, home string) agent.Wiring {
	data, serr := agent.ReadConfig(geminiDir(project), "settings.json")
	var missing []string
	if serr == nil {
		missing, serr = wired(data)
	}
	if serr == nil && !hasCairn(data) {
		// Not every team uses Gemini CLI: no wiring is no problem.
		return wiring("ok", "not wired (cairn init --gemini wires the project for it)", "")
	}
	state, lerr := launcher.Check(cairnDir)
	switch {
	case serr != nil:
		return wiring("fail", ".gemini/"+serr.Error(), "fix "+settingsFile+" by hand, then cairn init --gemini")
	case lerr != nil:
		return wiring("fail", lerr.Error(), "cairn init --gemini")
	case state == launcher.Missing:
		return wiring("fail", settingsFile+" runs "+launcher.Path+", which is missing", "cairn init --gemini, then commit "+launcher.Path)
	case state == launcher.NotExecutable:
		return wiring("fail", launcher.Path+" is not executable: every hook fails", "chmod +x .cairn/hook && git add --chmod=+x .cairn/hook")
	case len(missing) > 0:
		detail := settingsFile + " does not run " + launcher.Path + " for " + strings.Join(missing, ", ")
		if what, later := agent.MissingLater(missing, hooks.Spec.Kind); later {
			return wiring("warn", detail+" ("+what+"; capture and recall work)", "cairn init --gemini, then commit "+settingsFile)
		}
		return wiring("fail", detail, "cairn init --gemini, then commit "+settingsFile)
	case disabled(data):
		return wiring("fail", settingsFile+" turns Gemini CLI's hooks off (hooksConfig.enabled false)",
			"remove hooksConfig.enabled from "+settingsFile)
	}
	if home != "" {
		user, _ := agent.ReadConfig(fsx.NewRoot(filepath.Join(home, ".gemini")), "settings.json")
		if user != nil && disabled(user) {
			return wiring("fail", "your ~/.gemini/settings.json turns Gemini CLI's hooks off (hooksConfig.enabled false)",
				"remove hooksConfig.enabled from ~/.gemini/settings.json")
		}
		if !trusted(project, home, user) {
			return wiring("warn", "does not trust this folder yet, and runs a project's hooks only in a trusted folder",
				"start gemini in the project and choose to trust the folder")
		}
	}
	return wiring("ok", settingsFile+" runs "+launcher.Path+" for every event", "")
}

// maxTrustedFolders caps the read of Gemini CLI's trustedFolders.json.
const maxTrustedFolders = 1 << 20

// trusted reports whether this user's Gemini CLI trusts the project's
// folder, as its trustedFolders.json says (the longest rule that covers
// the folder wins; TRUST_PARENT covers the rule's parent), or has folder
// trust off. An unreadable file counts as trusted: doctor then says
// nothing it cannot back.
func trusted(project, home string, user []byte) bool {
	if user != nil {
		if doc, err := parseSettings(user); err == nil && doc.Root().Get("security").Get("folderTrust").Get("enabled").Kind() == 'f' {
			return true
		}
	}
	path := filepath.Join(home, ".gemini", "trustedFolders.json")
	if p := os.Getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH"); p != "" {
		path = p
	}
	data, err := fsx.ReadRegular(path, maxTrustedFolders)
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	var rules map[string]string
	if err != nil || json.Unmarshal(stripComments(data), &rules) != nil {
		return true
	}
	dir := realPath(project)
	best, level := -1, ""
	for rule, lvl := range rules {
		covered := rule
		if lvl == "TRUST_PARENT" {
			covered = filepath.Dir(rule)
		}
		if within(realPath(covered), dir) && len(rule) > best {
			best, level = len(rule), lvl
		}
	}
	return level == "TRUST_FOLDER" || level == "TRUST_PARENT"
}

// realPath is path with its symbolic links resolved, or path.
func realPath(path string) string {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		return p
	}
	return filepath.Clean(path)
}

// within reports whether path is dir or under it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// wiring is a doctor line, its detail naming Gemini CLI.
func wiring(status, detail, fix string) agent.Wiring {
	return agent.Wiring{Status: status, Detail: "Gemini CLI: " + detail, Fix: fix}
}

// ForeignHooks lists the hooks of .gemini/settings.json that cairn did not
// write there (see [agent.ForeignHooks]).
func (Adapter) ForeignHooks(project string) (string, []string, error) {
	var ours []string
	for _, h := range hooks.Events {
		ours = append(ours, groupFor(h).Hooks[0].Command)
	}
	return agent.ForeignHooksIn(geminiDir(project), "settings.json", settingsFile, ours, stripComments)
}
