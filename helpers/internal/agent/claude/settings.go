package claude

// Claude Code's settings.json, edited surgically: cairn's hook entries are
// added and exactly those removed, every other key, its order and its
// formatting left as they were. This is the only package that imports
// tidwall/sjson.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/tidwall/sjson"
)

// marker identifies the plugin's hook commands: any command that runs it
// is cairn's.
const marker = "cairn-hook"

// projectMarker identifies the project wiring's hook commands (the
// committed launcher); see [projectCommand].
const projectMarker = ".cairn/hook"

type handler struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout,omitempty"`
}

type group struct {
	Matcher string    `json:"matcher,omitempty"`
	Hooks   []handler `json:"hooks"`
}

type parsed struct {
	Hooks map[string][]struct {
		Hooks []struct {
			Command string `json:"command"`
		} `json:"hooks"`
	} `json:"hooks"`
}

func parse(data []byte) (parsed, error) {
	var p parsed
	if len(strings.TrimSpace(string(data))) == 0 {
		return p, nil
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return p, fmt.Errorf("settings.json is not valid JSON: %w", err)
	}
	return p, nil
}

// install adds, for every event of [Hooks] that has no handler of cairn's,
// a handler that runs command followed by the event name.
func install(data []byte, command string) (out []byte, changed bool, err error) {
	defer func() { out = keepTrailingSpace(data, out) }()
	p, err := parse(data)
	if err != nil {
		return nil, false, err
	}
	out = data
	if len(strings.TrimSpace(string(out))) == 0 {
		out = []byte("{}\n")
	}
	for _, h := range Hooks {
		if hasCairn(p, h.Event) {
			continue
		}
		g := group{Matcher: h.Matcher, Hooks: []handler{{Type: "command", Command: command + " " + h.Event, Timeout: h.Timeout}}}
		raw, _ := json.Marshal(g)
		if out, err = sjson.SetRawBytesOptions(out, "hooks."+h.Event+".-1", raw, &sjson.Options{Optimistic: false}); err != nil {
			return nil, false, fmt.Errorf("add %s hook: %w", h.Event, err)
		}
		changed = true
	}
	return out, changed, nil
}

// uninstall returns data without cairn's hook handlers: a handler of
// cairn's is removed from its group, a group left with no handler is
// removed, and an event, or the hooks object, that cairn's removal left
// empty is removed too. An empty event or hooks object that was there
// before Install cannot be told apart and is removed as well.
func uninstall(data []byte) (out []byte, changed bool, err error) {
	defer func() { out = keepTrailingSpace(data, out) }()
	p, err := parse(data)
	if err != nil {
		return nil, false, err
	}
	out = data
	events := make([]string, 0, len(p.Hooks))
	for event := range p.Hooks {
		events = append(events, event)
	}
	sort.Strings(events)
	emptied := false
	for _, event := range events {
		groups := p.Hooks[event]
		removedGroups := 0
		for i := len(groups) - 1; i >= 0; i-- {
			hs := groups[i].Hooks
			var ours []int
			for j, h := range hs {
				if isCairn(h.Command) {
					ours = append(ours, j)
				}
			}
			if len(ours) == 0 {
				continue
			}
			changed = true
			if len(ours) == len(hs) {
				if out, err = sjson.DeleteBytes(out, fmt.Sprintf("hooks.%s.%d", event, i)); err != nil {
					return nil, false, err
				}
				removedGroups++
				continue
			}
			for k := len(ours) - 1; k >= 0; k-- {
				if out, err = sjson.DeleteBytes(out, fmt.Sprintf("hooks.%s.%d.hooks.%d", event, i, ours[k])); err != nil {
					return nil, false, err
				}
			}
		}
		if removedGroups > 0 && removedGroups == len(groups) {
			if out, err = sjson.DeleteBytes(out, "hooks."+event); err != nil {
				return nil, false, err
			}
			emptied = true
		}
	}
	if !changed {
		return data, false, nil
	}
	if emptied {
		if p2, err := parse(out); err == nil && p2.Hooks != nil && len(p2.Hooks) == 0 {
			out, _ = sjson.DeleteBytes(out, "hooks")
		}
	}
	return out, true, nil
}

func hasCairn(p parsed, event string) bool {
	for _, g := range p.Hooks[event] {
		if groupIsCairn(g.Hooks) {
			return true
		}
	}
	return false
}

func groupIsCairn(hs []struct {
	Command string `json:"command"`
}) bool {
	for _, h := range hs {
		if isCairn(h.Command) {
			return true
		}
	}
	return false
}

// isCairn reports whether a hook command is cairn's: the plugin's wrapper
// or the project's launcher.
func isCairn(command string) bool {
	return strings.Contains(command, marker) || strings.Contains(command, projectMarker)
}

// keepTrailingSpace gives out the white space that ended orig (sjson drops
// it when it rewrites the top-level object).
func keepTrailingSpace(orig, out []byte) []byte {
	if out == nil {
		return nil
	}
	trail := orig[len(bytes.TrimRight(orig, " \t\r\n")):]
	if len(strings.TrimSpace(string(orig))) == 0 {
		trail = []byte("\n")
	}
	return append(bytes.TrimRight(out, " \t\r\n"), trail...)
}
