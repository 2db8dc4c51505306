package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cairn-dev/cairn/helpers/internal/fsx"
)

// HookLister is an adapter whose project files register hooks (Claude
// Code's .claude/settings.json, Codex's .codex/hooks.json, ...): doctor
// lists those that are not cairn's, so that a person sees what a pull
// added to what their agent runs.
type HookLister interface {
	// ForeignHooks names the committed file and its hooks that cairn did
	// not write there.
	ForeignHooks(project string) (file string, foreign []string, err error)
}

// maxShownCommand caps how much of a foreign hook is shown.
const maxShownCommand = 160

// ForeignHooksIn is [ForeignHooks] of the configuration file name under r
// (file as people know it, e.g. ".codex/hooks.json"), read as
// [ReadConfig] reads it and made JSON by prepare when it is not (nil:
// it is); ours are the commands cairn writes there.
func ForeignHooksIn(r fsx.Root, name, file string, ours []string, prepare func([]byte) []byte) (string, []string, error) {
	data, err := ReadConfig(r, name)
	if err != nil {
		return file, nil, err
	}
	if prepare != nil {
		data = prepare(data)
	}
	set := make(map[string]bool, len(ours))
	for _, c := range ours {
		set[c] = true
	}
	foreign, err := ForeignHooks(data, set)
	return file, foreign, err
}

// ForeignHooks lists the hooks of an agent's hooks file (data: an object
// whose "hooks" maps each event to a list of groups, each a handler with
// a "command" or a group with a "hooks" list of handlers) that are not
// exactly one of ours (the commands cairn writes), each as "Event:
// command", by event. A handler without a command (an HTTP or prompt
// hook) is shown as it is written.
func ForeignHooks(data []byte, ours map[string]bool) ([]string, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var file struct {
		Hooks map[string][]json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("not a hooks file: %w", err)
	}
	events := make([]string, 0, len(file.Hooks))
	for ev := range file.Hooks {
		events = append(events, ev)
	}
	slices.Sort(events)
	var out []string
	for _, ev := range events {
		for _, g := range file.Hooks[ev] {
			for _, h := range handlers(g) {
				var cmd struct {
					Command string `json:"command"`
				}
				_ = json.Unmarshal(h, &cmd)
				switch {
				case cmd.Command != "" && ours[cmd.Command]:
				case cmd.Command != "":
					out = append(out, ev+": "+shorten(cmd.Command))
				default:
					out = append(out, ev+": "+shorten(string(compact(h))))
				}
			}
		}
	}
	return out, nil
}

// handlers are the handlers of a group: its "hooks" list, or the group
// itself when it has none (Cursor's form).
func handlers(g json.RawMessage) []json.RawMessage {
	var group struct {
		Hooks []json.RawMessage `json:"hooks"`
	}
	if json.Unmarshal(g, &group) == nil && group.Hooks != nil {
		return group.Hooks
	}
	return []json.RawMessage{g}
}

func compact(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// shorten cuts s to maxShownCommand bytes, on a rune boundary.
func shorten(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= maxShownCommand {
		return s
	}
	cut := maxShownCommand
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}
