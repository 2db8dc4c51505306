package claude

import (
	"strings"
)

// projectCommand is how a project's committed .claude/settings.json runs
// cairn: the committed launcher, found through the variable Claude Code
// sets to the project's root, so the file names nothing of one machine.
const projectCommand = `"$CLAUDE_PROJECT_DIR"/` + projectMarker

// Project returns data with exactly the project wiring: every event of
// [Events] runs [projectCommand], and any other handler of cairn's (the
// plugin's wrapper, written by an older install.sh with one machine's
// path) is removed. Other hooks and keys are left as they were.
func Project(data []byte) (out []byte, changed bool, err error) {
	p, err := parse(data)
	if err != nil {
		return nil, false, err
	}
	exact := true
	for _, h := range Events {
		found := false
		for _, g := range p.Hooks[h.Event] {
			for _, hh := range g.Hooks {
				if hh.Command == projectCommand+" "+h.Event {
					found = true
				}
			}
		}
		exact = exact && found
	}
	for _, groups := range p.Hooks {
		for _, g := range groups {
			for _, hh := range g.Hooks {
				if strings.Contains(hh.Command, marker) {
					exact = false
				}
			}
		}
	}
	if exact {
		return data, false, nil
	}
	out, _, err = uninstall(data)
	if err != nil {
		return nil, false, err
	}
	out, _, err = install(out, projectCommand)
	return out, err == nil, err
}

// Wired reports whether settings data runs the project launcher for every
// event cairn needs; missing lists the events that do not.
func Wired(data []byte) (missing []string, err error) {
	p, err := parse(data)
	if err != nil {
		return nil, err
	}
	for _, h := range Events {
		found := false
		for _, g := range p.Hooks[h.Event] {
			for _, hh := range g.Hooks {
				if strings.Contains(hh.Command, projectMarker) {
					found = true
				}
			}
		}
		if !found {
			missing = append(missing, h.Event)
		}
	}
	return missing, nil
}

// projectFileMark ends every command and agent file that init --claude
// installs into a project, so that uninstall removes those and only those.
const projectFileMark = "\n<!-- installed by cairn init --claude; cairn uninstall --claude removes it -->\n"

// pluginCairn is how the plugin's files run cairn; projectCairn is how the
// project's copies do: through the committed launcher, from anywhere in the
// work tree.
const (
	pluginCairn  = `"${CLAUDE_PLUGIN_ROOT}/scripts/cairn"`
	projectCairn = `"$(git rev-parse --show-toplevel)"/.cairn/hook`
)

// projectFile turns one of the plugin's command or agent files into the
// project's copy: the same text, running cairn through the launcher, with
// the mark that says cairn installed it.
func projectFile(plugin []byte) []byte {
	return []byte(strings.ReplaceAll(string(plugin), pluginCairn, projectCairn) + projectFileMark)
}

// isProjectFile reports whether a file in .claude/ is one init --claude
// installed.
func isProjectFile(data []byte) bool {
	return strings.HasSuffix(string(data), projectFileMark)
}
