package codex

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn/helpers/internal/agent"
	"github.com/cairn-dev/cairn/helpers/internal/agent/codex/hooks"
	"github.com/cairn-dev/cairn/helpers/internal/agent/launcher"
	"github.com/cairn-dev/cairn/helpers/internal/fsx"
)

// HooksFile is the project's committed Codex hooks file, from its root.
const HooksFile = ".codex/hooks.json"

// errHooksFile marks a .codex/hooks.json that cairn cannot edit (not a
// JSON object of hooks): the person fixes it by hand.
var errHooksFile = errors.New("cannot edit .codex/hooks.json")

// Adapter is the Codex CLI's [agent.Adapter].
type Adapter struct{}

var _ agent.Adapter = Adapter{}

// Name is "codex".
func (Adapter) Name() string { return hooks.Spec.Name }

// Title is "Codex".
func (Adapter) Title() string { return hooks.Spec.Title }

// Wiring describes what Wire writes.
func (Adapter) Wiring() string {
	return ".cairn/hook (the launcher) and its hooks in .codex/hooks.json; each teammate trusts the project and its hooks once in Codex (cairn doctor says how)"
}

// Paths are .cairn and .codex.
func (Adapter) Paths() []string { return []string{".cairn", ".codex"} }

// CheckWiring is [checkWiring], with the person's Codex home from
// $CODEX_HOME (Codex's own variable) or home/.codex.
func (Adapter) CheckWiring(project string, cairnDir fsx.Root, home string) agent.Wiring {
	return checkWiring(project, cairnDir, codexHome(os.Getenv("CODEX_HOME"), home))
}

// codexHome is Codex's home: $CODEX_HOME, else ~/.codex.
func codexHome(env, home string) string {
	if env != "" {
		return env
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".codex")
}

// codexDir is the project's .codex directory.
func codexDir(project string) fsx.Root { return fsx.NewRoot(filepath.Join(project, ".codex")) }

// Wire writes the committed launcher (.cairn/hook, in cairnDir) and
// cairn's hooks in .codex/hooks.json (the project's other hooks and keys
// kept), each only where it differs, and reports whether it wrote.
func (Adapter) Wire(project string, cairnDir fsx.Root) (bool, error) {
	changed, err := launcher.Write(cairnDir)
	if err != nil {
		return false, err
	}
	wrote, err := agent.EditConfig(codexDir(project), "hooks.json", func(data []byte) ([]byte, bool, error) {
		out, changed, err := install(data)
		if err != nil {
			return nil, false, fmt.Errorf("%w: %w", errHooksFile, err)
		}
		return out, changed, nil
	})
	if err != nil {
		return false, err
	}
	return changed || wrote, nil
}

// Unwire removes cairn's hooks from .codex/hooks.json (the file, and
// .codex, when nothing else is left in them), and says what it removed;
// the launcher, which other agents' wiring may run, stays (the CLI
// removes it once no agent's wiring uses it).
func (Adapter) Unwire(project string, cairnDir fsx.Root) ([]string, error) {
	var removed []string
	dir := codexDir(project)
	data, err := agent.ReadConfig(dir, "hooks.json")
	if err != nil {
		return nil, err
	}
	if data != nil {
		out, changed, err := uninstall(data)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", errHooksFile, err)
		}
		if changed {
			if out == nil {
				if err := dir.Remove("hooks.json"); err != nil {
					return nil, err
				}
				os.Remove(dir.Dir()) // only if empty
			} else if err := dir.WriteAtomic("hooks.json", out, 0o644); err != nil {
				return nil, err
			}
			removed = append(removed, "cairn's hooks from "+HooksFile)
		}
	}
	return removed, nil
}

// Uses reports whether the project's .codex/hooks.json runs the launcher.
func (Adapter) Uses(project string) bool {
	data, err := agent.ReadConfig(codexDir(project), "hooks.json")
	if err != nil || data == nil {
		return false
	}
	regs, _, err := Registered(data)
	return err == nil && len(regs) > 0
}

// checkWiring reports the project's Codex wiring for doctor: the hooks in
// .codex/hooks.json and the launcher they run, then what Codex asks of
// this person before it runs them (codexHome is their Codex home): that
// they trust the project, and each of cairn's hooks as it is now.
func checkWiring(project string, cairnDir fsx.Root, codexHome string) agent.Wiring {
	data, herr := agent.ReadConfig(codexDir(project), "hooks.json")
	if herr != nil {
		return agent.Status("fail", herr.Error(), "")
	}
	regs, missing, perr := Registered(data)
	if perr != nil {
		return agent.Status("fail", fmt.Sprintf("%s: %v", HooksFile, perr), "fix it by hand, then cairn init --codex")
	}
	if len(regs) == 0 {
		return agent.Status("ok", "not wired for Codex (cairn init --codex wires it for the team)", "")
	}
	if len(missing) > 0 {
		detail := HooksFile + " does not run " + launcher.Path + " for " + strings.Join(missing, ", ")
		if what, later := agent.MissingLater(missing, hooks.Spec.Kind); later {
			return agent.Status("warn", detail+" ("+what+"; capture and recall work)", "cairn init --codex, then commit "+HooksFile)
		}
		return agent.Status("fail", detail, "cairn init --codex, then commit "+HooksFile)
	}
	if w, bad := checkLauncher(cairnDir); bad {
		return w
	}
	hooksJSON := filepath.Join(project, HooksFile)
	var cfgData []byte
	if codexHome != "" {
		cfgData, _ = fsx.ReadRegular(filepath.Join(codexHome, "config.toml"), agent.MaxConfig)
	}
	cfg := parseUserConfig(string(cfgData))
	start := "start codex in " + project + ", choose \"Trust and continue\", then \"Trust all and continue\" when it says hooks need review (or /hooks, then t)"
	switch projectTrust(cfg, project) {
	case "untrusted":
		return agent.Status("warn", "Codex runs no hook of this project: you marked it untrusted in "+filepath.Join(codexHome, "config.toml"),
			"set trust_level = \"trusted\" under [projects.\""+project+"\"] there, then "+start)
	case "trusted":
	default:
		return agent.Status("warn", "Codex runs no hook of this project until you trust it (each teammate, once: Codex keeps it in "+filepath.Join(codexHome, "config.toml")+")", start)
	}
	var untrusted, changed, disabled []string
	for _, r := range regs {
		want, ok := Hash(EventKey(r.Event.Event), r.Matcher, r.Raw)
		state := hookState(cfg, hooksJSON, r)
		switch {
		case state.enabled == "false":
			disabled = append(disabled, r.Event.Event)
		case !ok || state.hash == "":
			untrusted = append(untrusted, r.Event.Event)
		case state.hash != want:
			changed = append(changed, r.Event.Event)
		}
	}
	switch {
	case len(disabled) > 0:
		return agent.Status("warn", "you turned off cairn's Codex hooks for "+strings.Join(disabled, ", ")+" (/hooks in Codex)", "codex, then /hooks: turn them on")
	case len(untrusted) > 0:
		return agent.Status("warn", "Codex skips cairn's hooks for "+strings.Join(untrusted, ", ")+" until you trust them (each teammate, once; codex exec skips them without a word)", start)
	case len(changed) > 0:
		return agent.Status("warn", "cairn's hooks for "+strings.Join(changed, ", ")+" changed since you trusted them: Codex skips them until you trust them again", start)
	}
	return agent.Status("ok", fmt.Sprintf("%s runs %s for %d events, and you trust the project and those hooks in Codex", HooksFile, launcher.Path, len(regs)), "")
}

// checkLauncher reports a launcher that is missing, not executable or not
// this cairn's.
func checkLauncher(cairnDir fsx.Root) (agent.Wiring, bool) {
	st, err := launcher.Check(cairnDir)
	switch st {
	case launcher.Unreadable:
		return agent.Status("fail", err.Error(), "cairn init --codex"), true
	case launcher.Missing:
		return agent.Status("fail", HooksFile+" runs "+launcher.Path+", which is missing", "cairn init --codex, then commit "+launcher.Path), true
	case launcher.NotExecutable:
		return agent.Status("fail", launcher.Path+" is not executable: every hook fails", "chmod +x .cairn/hook && git add --chmod=+x .cairn/hook"), true
	}
	return agent.Wiring{}, false
}

// projectTrust is the person's trust_level of the project in Codex
// ("trusted", "untrusted" or ""), under its path as given or resolved.
func projectTrust(cfg userConfig, project string) string {
	for _, p := range samePaths(project) {
		if v, ok := cfg.Value("projects", p, "trust_level"); ok {
			return v
		}
	}
	return ""
}

// samePaths are path and, when it differs, path with its links resolved:
// Codex may record either.
func samePaths(path string) []string {
	out := []string{path}
	if real, err := filepath.EvalSymlinks(path); err == nil && real != path {
		out = append(out, real)
	}
	return out
}

// state is a hook's trust record.
type state struct{ hash, enabled string }

// hookState is the person's trust record of cairn's hook r.
func hookState(cfg userConfig, hooksJSON string, r Registration) state {
	for _, p := range samePaths(filepath.Dir(hooksJSON)) {
		key := TrustKey(filepath.Join(p, filepath.Base(hooksJSON)), r)
		h, hok := cfg.Value("hooks", "state", key, "trusted_hash")
		e, eok := cfg.Value("hooks", "state", key, "enabled")
		if hok || eok {
			return state{h, e}
		}
	}
	return state{}
}

// ForeignHooks lists the hooks of .codex/hooks.json that cairn did not
// write there (see [agent.ForeignHooks]).
func (Adapter) ForeignHooks(project string) (string, []string, error) {
	var ours []string
	for _, h := range hooks.Events {
		ours = append(ours, hookCommand(h.Event))
	}
	return agent.ForeignHooksIn(codexDir(project), "hooks.json", HooksFile, ours, nil)
}
