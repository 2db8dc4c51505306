package opencode

import (
	_ "embed"
	"encoding/json"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/helpers/internal/agent/opencode/hooks"
	"github.com/cairn-dev/cairn/helpers/internal/agent/spec"
)

//go:embed plugin.js
var pluginSource string

// pluginFile is where the plugin goes, from the project's root: OpenCode
// loads every .js and .ts file of .opencode/plugins/ (and plugin/) at
// startup.
const pluginFile = ".opencode/plugins/cairn.js"

// pluginMark is in every plugin cairn wrote, of any version: uninstall
// removes such a file, and leaves any other alone.
const pluginMark = "Written by `cairn init --opencode`; `cairn uninstall --opencode` removes it."

// pluginText is the source of cairn's OpenCode plugin: plugin.js with the
// events of [hooks.Events] and their timeouts.
func pluginText() string { return renderPlugin(hooks.Events, time.Second) }

// renderPlugin fills plugin.js with events, each waiting Timeout units.
func renderPlugin(events []spec.Hook, unit time.Duration) string {
	type spec struct {
		Timeout int64 `json:"timeout"` // milliseconds
	}
	table := map[string]spec{}
	for _, h := range events {
		table[h.Event] = spec{(time.Duration(h.Timeout) * unit).Milliseconds()}
	}
	// Strings to numbers and a list of strings cannot fail to marshal;
	// map keys come out sorted, so the text is the same every time.
	ev, _ := json.Marshal(table)
	shell, _ := json.Marshal(hooks.ShellTools)
	files, _ := json.Marshal(hooks.FileTools)
	return strings.NewReplacer("/*cairn:events*/", string(ev), "/*cairn:shell*/", string(shell), "/*cairn:files*/", string(files)).Replace(pluginSource)
}

// isPlugin reports whether data is a plugin cairn wrote (of any version).
func isPlugin(data []byte) bool { return strings.Contains(string(data), pluginMark) }
